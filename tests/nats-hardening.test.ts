/**
 * rpcserver/nats against a hostile peer on a real nats-server (the review of issue 25): each test
 * is one way a peer, a deployment or a shutdown broke `serveNats` or `natsTransport` before they
 * were mended, and fails on the code before that.
 */
import * as E from "fp-ts/Either";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Success } from "../src";
import { client, open } from "../src/client";
import { natsTransport, serveNats, type NatsMessage } from "../src/nats";
import { connect } from "./fixtures/nats.cjs";
import { startNatsServer } from "./fixtures/nats-server.cjs";
import { bounded } from "./helpers/processes";
import { recordLogs } from "./support";
import { api, contextOf, gate, methods, setUp, SUBJECT, tearDown, until, type Setup } from "./helpers/nats-service";

/** A safety limit: what should settle at once fails the test after this, rather than hang it. */
const SAFETY_MS = 5_000;

let setup: Setup;

beforeAll(async () => {
  setup = await setUp();
});

afterAll(async () => {
  gate.release();
  await tearDown(setup);
});

const rpcOver = (subject = SUBJECT, options: Parameters<typeof natsTransport>[2] = {}) =>
  client(api, natsTransport(setup.calling, subject, options));

/** A plain table (no context function): the service reads no header before dispatch. */
const plain = { add: (a: number, b: number) => Success(a + b) };

const request = (method: string, params: unknown, id: number): string =>
  JSON.stringify({ jsonrpc: "2.0", method, params, id });

test("a request whose headers nats.js cannot decode gets the 500 reply, leaves nothing in flight, and stop() resolves", async () => {
  const logs = recordLogs();
  const service = await serveNats(setup.serving, plain, { name: "raw", version: "1.0.0", subject: "rpc.raw" });
  const socket = net.connect(setup.server.port, "127.0.0.1");
  try {
    let seen = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (seen += chunk));
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    // A lone CR inside a header value: the NATS server passes it on, nats.js throws reading it.
    const headerBlock = "NATS/1.0\r\nX-Trace: a\rb\r\n\r\n";
    const body = request("add", [1, 2], 1);
    socket.write(
      'CONNECT {"headers":true,"verbose":false,"pedantic":false}\r\nSUB _INBOX.raw 1\r\n' +
        `HPUB rpc.raw _INBOX.raw ${headerBlock.length} ${headerBlock.length + body.length}\r\n` +
        `${headerBlock}${body}\r\nPING\r\n`,
      "latin1",
    );
    await until(() => seen.includes("Nats-Service-Error-Code: 500"), "the services framework's 500 reply");
    expect(seen).toMatch(/HMSG _INBOX\.raw 1 /);
    await until(() => service.figures().inFlight === 0, "no message in flight");
    expect(service.figures()).toMatchObject({ messages: 1, inFlight: 0, failed: 1 });
    await bounded(service.stop(), "stop()", SAFETY_MS);
  } finally {
    socket.destroy();
    logs.restore();
  }
});

test("inboxPrefix: the connection's per-user prefix is honoured; a refused inbox fails the call and spares the connection", async () => {
  const dir = mkdtempSync(join(tmpdir(), "nats-hardening-"));
  const config = join(dir, "auth.conf");
  writeFileSync(
    config,
    `authorization { users = [
  { user: worker, password: w }
  { user: alice, password: a, permissions: { publish: ["rpc.calc"], subscribe: ["_INBOX_alice.>"] } }
] }
`,
  );
  const server = await startNatsServer(undefined, { args: ["-c", config] });
  const worker = await connect(server.url, { user: "worker", pass: "w" });
  const alice = await connect(server.url, { user: "alice", pass: "a", inboxPrefix: "_INBOX_alice" });
  try {
    await serveNats(worker, methods, { name: "calc", version: "1.0.0", subject: "rpc.calc", context: contextOf });
    const own = client(api, natsTransport(alice, "rpc.calc", { timeoutMs: SAFETY_MS }));
    expect(await own.add(1, 2)()).toEqual(E.right(3));

    const refused = client(api, natsTransport(alice, "rpc.calc", { inboxPrefix: "_INBOX", timeoutMs: SAFETY_MS }));
    const failed = await refused.add(1, 2)();
    expect(failed).toMatchObject(E.left({ _tag: "TransportError", reason: "network" }));
    expect(String((failed as E.Left<{ cause: unknown }>).left.cause)).toMatch(/Permissions Violation for Subscription/);
    // The transport subscribes again at its next call, refused again at once, not left to time out.
    expect(await refused.add(5, 5)()).toMatchObject(E.left({ _tag: "TransportError", reason: "network" }));
    // The connection still serves: its reader survived the refusal.
    expect(alice.isClosed()).toBe(false);
    const answer = await alice.request("rpc.calc", request("add", [2, 2], 2), { timeout: SAFETY_MS });
    expect(JSON.parse(answer.string())).toEqual({ jsonrpc: "2.0", result: 4, id: 2 });
    // And so does the transport that has its own prefix.
    expect(await own.add(3, 4)()).toEqual(E.right(7));
  } finally {
    await Promise.all([alice.close(), worker.close()]);
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a slow consumer of a fast stream gets every value: no timer runs once the answer is in", async () => {
  // The transport's timer runs from each message: correct code fails the call only when a message
  // comes more than timeoutMs after the one before (1.5 s: three times the gap npm test's load once
  // made).
  const timeoutMs = 1_500;
  const count = 300;
  const run = open(rpcOver(SUBJECT, { timeoutMs }).count(count));
  const values: number[] = [];
  for await (const value of run) {
    values.push(value);
    // The consumer stops after its first value for twice the timeout, the transport holding what
    // comes meanwhile (the worker sends all 300 and its answer well within timeoutMs). A timer left running
    // from the last value's arrival ends the call while the consumer is away whenever the values
    // came within timeoutMs of the first: such code fails here unless the machine is so loaded that
    // they did not; correct code passes however late they came, as long as no gap passes timeoutMs.
    if (values.length === 1) await new Promise((resolve) => setTimeout(resolve, 2 * timeoutMs + 100));
  }
  expect(await run.result).toEqual(E.right(`counted to ${count}`));
  expect(values).toEqual(Array.from({ length: count }, (_, i) => i + 1));
});

test("maxAnswerBytes: values a consumer never takes, and a plain answer, fail tooLarge past it", async () => {
  const limit = 4_096;
  // A timeout well beyond the stream's pace: only the limit can end this call soon.
  const run = open(rpcOver(SUBJECT, { maxAnswerBytes: limit, timeoutMs: 30_000 }).count(2_000));
  expect(await bounded(run.result, "the call past maxAnswerBytes", SAFETY_MS)).toEqual(
    E.left({ _tag: "TransportError", reason: "tooLarge", limit }),
  );
  expect(await rpcOver(SUBJECT, { maxAnswerBytes: 20 }).count(2)()).toEqual(
    E.left({ _tag: "TransportError", reason: "tooLarge", limit: 20 }),
  );
  // Under the limit, the same call is answered.
  expect(await rpcOver(SUBJECT, { maxAnswerBytes: 1_024 }).count(2)()).toEqual(E.right("counted to 2"));
});

test("stop() racing nc.close(): stop() and stopped both resolve", async () => {
  const nc = await connect(setup.server.url);
  const service = await serveNats(nc, plain, { name: "racing", version: "1.0.0", subject: "rpc.racing" });
  const stopping = service.stop();
  await nc.close();
  await bounded(stopping, "stop() after nc.close()", SAFETY_MS);
  await bounded(service.stopped, "stopped after nc.close()", SAFETY_MS);
});

test("reply tokens are random: a forged answer to the next guessed token does not settle the next call", async () => {
  const requests: Array<{ reply: string; id: number }> = [];
  const spy = setup.serving.subscribe(SUBJECT, {
    callback: (_error, message: NatsMessage) => {
      requests.push({ reply: message.reply ?? "", id: (JSON.parse(message.string()) as { id: number }).id });
    },
  });
  await setup.serving.flush();
  const rpc = rpcOver();
  try {
    expect(await rpc.add(1, 2)()).toEqual(E.right(3));
    expect(await rpc.add(3, 4)()).toEqual(E.right(7));
    await until(() => requests.length === 2, "the spy to see both requests");
  } finally {
    spy.unsubscribe();
  }
  const parts = (reply = "") => ({
    inbox: reply.slice(0, reply.lastIndexOf(".")),
    token: reply.slice(reply.lastIndexOf(".") + 1),
  });
  const [first, second] = [parts(requests[0]?.reply), parts(requests[1]?.reply)];
  expect(second.inbox).toBe(first.inbox);
  expect(second.token).not.toBe(first.token);
  const integer = (token: string): boolean => /^\d+$/.test(token);
  expect(integer(first.token) && integer(second.token) && Number(second.token) === Number(first.token) + 1).toBe(false);

  // The next call waits at the gate; meanwhile a peer that saw the second guesses the tokens after
  // it (a counter's next values; else the token with its last character changed) and answers them.
  const guess = (k: number): string =>
    integer(second.token) ? String(Number(second.token) + k) : `${second.token.slice(0, -1)}${k}`;
  const next = rpc.hold()();
  await gate.holding();
  const lastId = requests[1]?.id ?? 0;
  for (let k = 1; k <= 5; k += 1) {
    const forged = JSON.stringify({ jsonrpc: "2.0", result: "forged", id: lastId + k });
    setup.serving.publish(`${first.inbox}.${guess(k)}`, forged);
  }
  // Flushed by the forger, then by the caller: the forged answers have reached the caller.
  await setup.serving.flush();
  await setup.calling.flush();
  gate.release();
  expect(await next).toEqual(E.right("released"));
});

test("timeoutMs over a timer's limit, and maxAnswerBytes 0, are refused with a RangeError", () => {
  expect(() => natsTransport(setup.calling, SUBJECT, { timeoutMs: 2 ** 31 })).toThrow(RangeError);
  expect(() => natsTransport(setup.calling, SUBJECT, { maxAnswerBytes: 0 })).toThrow(RangeError);
  // The largest a timer takes is accepted.
  expect(() => natsTransport(setup.calling, SUBJECT, { timeoutMs: 2 ** 31 - 1 })).not.toThrow();
});

test("a call on a draining connection fails with reason closed", async () => {
  const nc = await connect(setup.server.url);
  const used = client(api, natsTransport(nc, SUBJECT, { timeoutMs: SAFETY_MS }));
  expect(await used.add(1, 1)()).toEqual(E.right(2));
  const held = used.hold()();
  await gate.holding();
  const draining = nc.drain();
  // A fresh transport of the draining connection: its inbox cannot be subscribed any more.
  const fresh = client(api, natsTransport(nc, SUBJECT, { timeoutMs: SAFETY_MS }));
  expect(await fresh.add(1, 2)()).toMatchObject(E.left({ _tag: "TransportError", reason: "closed" }));
  await bounded(draining, "the drain", SAFETY_MS);
  // The call in flight ends closed too: its inbox went with the drain, before its answer.
  expect(await bounded(held, "the call in flight", SAFETY_MS)).toMatchObject(
    E.left({ _tag: "TransportError", reason: "closed" }),
  );
  gate.release();
});

test("a wildcard subject needs discoverSubject; with it, one service serves every tenant and answers the document", async () => {
  const tenantOf = (message: NatsMessage) => ({ token: message.subject.split(".")[1] });
  const options = { name: "tenants", version: "1.0.0", subject: "rpc.*.calc", context: tenantOf };
  await expect(serveNats(setup.serving, methods, options)).rejects.toThrow(TypeError);
  await expect(serveNats(setup.serving, methods, options)).rejects.toThrow(/discoverSubject/);
  // An empty subject would land the endpoint on its name ("rpc"), unasked: refused.
  await expect(serveNats(setup.serving, methods, { ...options, subject: " " })).rejects.toThrow(TypeError);

  const service = await serveNats(setup.serving, methods, { ...options, discoverSubject: "rpc.calc.discover" });
  try {
    expect(await rpcOver("rpc.ann.calc").whoami()()).toEqual(E.right("ann"));
    expect(await rpcOver("rpc.bob.calc").whoami()()).toEqual(E.right("bob"));
    expect(await rpcOver("rpc.bob.calc").add(2, 3)()).toEqual(E.right(5));
    const document = JSON.parse(
      (await setup.calling.request("rpc.calc.discover", "", { timeout: SAFETY_MS })).string(),
    ) as { openrpc: string; info: { title: string }; methods: Array<{ name: string }> };
    expect(document.info.title).toBe("tenants");
    expect(document.methods.map(({ name }) => name)).toEqual(expect.arrayContaining(["add", "whoami", "count"]));
    expect(service.info().metadata).toMatchObject({ openrpc: "rpc.calc.discover" });
  } finally {
    await service.stop();
  }
});

test("closing the worker's connection with answers in flight, without stop(), logs that they were lost", async () => {
  const logs = recordLogs();
  const nc = await connect(setup.server.url);
  try {
    const service = await serveNats(nc, methods, {
      name: "lossy",
      version: "1.0.0",
      subject: "rpc.lossy",
      context: contextOf,
    });
    setup.calling.publish("rpc.lossy", request("hold", [], 1), { reply: "_INBOX.lossy.1" });
    await gate.holding();
    expect(service.figures().inFlight).toBe(1);
    await nc.close();
    await until(
      () => logs.entries.some(({ args }) => /closed with 1 message\(s\) not yet answered.*lost/.test(String(args[0]))),
      "the log line about the lost answers",
    );
    gate.release();
    await until(() => service.figures().inFlight === 0, "the held call to end");
  } finally {
    gate.release();
    if (!nc.isClosed()) await nc.close();
    logs.restore();
  }
});
