/**
 * rpcserver's client over `natsTransport` (rpcserver/nats), against `serveNats` on a real
 * nats-server: contract calls, batches, notifications, streamed calls with `open()`, the transport's
 * headers reaching the server's context, and each way a call fails (abort, the transport's timeout,
 * no responders, the transport closed, the services framework's error reply) as a `ClientError`
 * that says so.
 */
import * as E from "fp-ts/Either";
import { getEventListeners } from "node:events";
import { batch, client, notify, open, withOptions } from "../src/client";
import { NEVER } from "../src/internal/client/transport";
import { natsTransport, type NatsTransport } from "../src/nats";
import { recordLogs } from "./support";
import { api, gate, notes, serveGuarded, setUp, SUBJECT, tearDown, until, type Setup } from "./helpers/nats-service";

let setup: Setup;
const clientOf = (transport: NatsTransport) => client(api, transport);
/** The client of the service "unit" over one transport with the default options. */
let rpc: ReturnType<typeof clientOf>;

beforeAll(async () => {
  setup = await setUp();
  rpc = clientOf(natsTransport(setup.calling, SUBJECT));
});

afterAll(async () => {
  gate.release();
  await tearDown(setup);
});

test("a contract call", async () => {
  expect(await rpc.add(1, 2)()).toEqual(E.right(3));
});

test("a batch: each member's answer, a notification's as sent", async () => {
  expect(await batch([rpc.add(1, 2), rpc.add(3, 4), notify(rpc.note("batched"))])()).toEqual([
    E.right(3),
    E.right(7),
    E.right(undefined),
  ]);
  expect(notes).toContain("batched");
});

test("notify: published without a reply subject, and the method runs", async () => {
  expect(await notify(rpc.note("notified"))()).toEqual(E.right(undefined));
  await until(() => notes.includes("notified"), "the notification to run");
});

test("a streamed call with open(): the values in order, then the result", async () => {
  const run = open(rpc.count(5));
  const values: number[] = [];
  for await (const value of run) values.push(value);
  expect(values).toEqual([1, 2, 3, 4, 5]);
  expect(await run.result).toEqual(E.right("counted to 5"));
  // The same method as a plain call: its result only.
  expect(await rpc.count(2)()).toEqual(E.right("counted to 2"));
});

test("aborted by its signal: TransportError aborted, with the signal's reason", async () => {
  const controller = new AbortController();
  const call = withOptions({ signal: controller.signal })(rpc.hold())();
  await gate.holding();
  const reason = new Error("changed my mind");
  controller.abort(reason);
  expect(await call).toEqual(E.left({ _tag: "TransportError", reason: "aborted", cause: reason }));
  gate.release();
  // The late answer is dropped, and the transport goes on serving calls.
  expect(await rpc.add(2, 2)()).toEqual(E.right(4));
});

test("the transport's timeout: a call not answered in time fails with reason timeout", async () => {
  const impatient = client(api, natsTransport(setup.calling, SUBJECT, { timeoutMs: 200 }));
  const call = impatient.hold()();
  await gate.holding();
  expect(await call).toEqual(E.left({ _tag: "TransportError", reason: "timeout", timeoutMs: 200 }));
  gate.release();
});

test("nobody serving the subject: TransportError noResponders, with the subject", async () => {
  const nobody = client(api, natsTransport(setup.calling, "rpc.nobody"));
  expect(await nobody.add(1, 2)()).toEqual(
    E.left({ _tag: "TransportError", reason: "noResponders", subject: "rpc.nobody" }),
  );
});

test("close(): the calls awaiting answers fail with reason closed, and so do later calls", async () => {
  // A time-out that cannot fire before close() on a loaded machine (the calls are held, then closed:
  // reason "closed", not "timeout"), and short enough that a later call that waited would fail soon.
  const transport = natsTransport(setup.calling, SUBJECT, { timeoutMs: 5_000 });
  const closing = client(api, transport);
  const calls = [closing.hold()(), closing.hold()()];
  await gate.holding(2);
  transport.close();
  for (const answer of await Promise.all(calls)) {
    expect(answer).toEqual(
      E.left({ _tag: "TransportError", reason: "closed", cause: new Error("natsTransport: closed") }),
    );
  }
  gate.release();
  // Closed for good: a later call fails the same way, at once.
  expect(await closing.add(1, 2)()).toEqual(
    E.left({ _tag: "TransportError", reason: "closed", cause: new Error("natsTransport: closed") }),
  );
});

test("the transport's headers reach the server's context: fixed, or made per call", async () => {
  const fixed = client(api, natsTransport(setup.calling, SUBJECT, { headers: { Authorization: "Bearer fixed" } }));
  expect(await fixed.whoami()()).toEqual(E.right("Bearer fixed"));
  let n = 0;
  const made = client(
    api,
    natsTransport(setup.calling, SUBJECT, { headers: () => ({ Authorization: `call ${(n += 1)}` }) }),
  );
  expect(await made.whoami()()).toEqual(E.right("call 1"));
  expect(await made.whoami()()).toEqual(E.right("call 2"));
  expect(await rpc.whoami()()).toEqual(E.right(null));
});

test("a context function's JsonRpcError is a ServerError; the services framework's error reply is TransportError status", async () => {
  const service = await serveGuarded(setup, "rpc.guarded");
  const logs = recordLogs();
  try {
    const refused = await client(api, natsTransport(setup.calling, "rpc.guarded")).whoami()();
    expect(refused).toEqual(
      E.left({ _tag: "ServerError", code: -32001, message: "Unauthorized", data: { need: "token" } }),
    );
    const crashing = client(api, natsTransport(setup.calling, "rpc.guarded", { headers: { "X-Crash": "1" } }));
    expect(await crashing.whoami()()).toEqual(
      E.left({ _tag: "TransportError", reason: "status", status: 500, body: "the context function broke" }),
    );
    expect(logs.entries).toHaveLength(1);
  } finally {
    logs.restore();
    await service.stop();
  }
});

test("a call that nothing can abort adds no listener to the client's shared never-aborted signal", async () => {
  const calls = Array.from({ length: 20 }, () => rpc.hold()());
  await gate.holding(20);
  expect(getEventListeners(NEVER, "abort")).toHaveLength(0);
  gate.release();
  for (const answer of await Promise.all(calls)) expect(answer).toEqual(E.right("released"));
});
