/**
 * `serveNats` (rpcserver/nats) against a real nats-server, read by a client that knows nothing of
 * rpcserver: a plain `nc.request` (or publish) with a JSON body, as in issue 25. The answers are
 * the JSON-RPC 2.0 spec's; a context is made from each message's headers; a streamed method
 * answers a plain request with one message, and one that asks for values with them first; the
 * OpenRPC document answers on the JSON-RPC subject and on its own endpoint; `stop()` drains.
 */
import { openRpcDocument } from "../src";
import { serveNats } from "../src/nats";
import { connect, headersOf, requestFailure } from "./fixtures/nats.cjs";
import { bounded } from "./helpers/processes";
import { jsonParseMessage, recordLogs } from "./support";
import {
  contextOf,
  exchange,
  gate,
  methods,
  notes,
  serveGuarded,
  setUp,
  SUBJECT,
  tearDown,
  until,
  type Seen,
  type Setup,
} from "./helpers/nats-service";

let setup: Setup;

beforeAll(async () => {
  setup = await setUp();
});

afterAll(async () => {
  gate.release();
  await tearDown(setup);
});

/** The text of the one answer to `body`, by `nc.request`. */
const request = async (body: string, headers?: Record<string, string>): Promise<string> => {
  const options = headers === undefined ? { timeout: 5_000 } : { timeout: 5_000, headers: headersOf(headers) };
  return (await setup.calling.request(SUBJECT, body, options)).string();
};

const answer = (text: string): Seen => ({ text, headers: {} });

describe("a plain nc.request with a JSON body gets the spec's answers", () => {
  test("a request: exactly the answer's JSON text", async () => {
    expect(await request('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}')).toBe(
      '{"jsonrpc":"2.0","result":3,"id":1}',
    );
  });

  test("a batch: one answer per request, none for its notification", async () => {
    const batch = [
      { jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 },
      { jsonrpc: "2.0", method: "nope", id: "two" },
      { jsonrpc: "2.0", method: "note", params: ["in a batch"] },
    ];
    expect(JSON.parse(await request(JSON.stringify(batch)))).toEqual([
      { jsonrpc: "2.0", result: 3, id: 1 },
      { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "nope" }, id: "two" },
    ]);
    expect(notes).toContain("in a batch");
  });

  test("a body that is not JSON: -32700 with id null", async () => {
    expect(JSON.parse(await request("{oops"))).toEqual({
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error", data: jsonParseMessage("{oops") },
      id: null,
    });
  });

  test("an unknown method: -32601", async () => {
    expect(JSON.parse(await request('{"jsonrpc":"2.0","method":"nope","id":3}'))).toEqual({
      jsonrpc: "2.0",
      error: { code: -32601, message: "Method not found", data: "nope" },
      id: 3,
    });
  });

  test("a notification sent as a request: one empty message, and the method ran", async () => {
    const messages = await exchange(setup, SUBJECT, '{"jsonrpc":"2.0","method":"note","params":["by request"]}');
    expect(messages).toEqual([answer("")]);
    expect(notes).toContain("by request");
  });

  test("a notification published without a reply subject: the method runs, nothing is sent", async () => {
    const all: string[] = [];
    const watch = setup.calling.subscribe(">", { callback: (_error, message) => void all.push(message.subject) });
    await setup.calling.flush();
    setup.calling.publish(SUBJECT, '{"jsonrpc":"2.0","method":"note","params":["by publish"]}');
    await until(() => notes.includes("by publish"), "the published notification to run");
    await setup.serving.flush();
    await setup.calling.flush();
    watch.unsubscribe();
    expect(all).toEqual([SUBJECT]);
  });
});

describe("the methods' context, made from each message's headers", () => {
  test("a header reaches a withContext method; without it, the method sees none", async () => {
    const body = '{"jsonrpc":"2.0","method":"whoami","id":4}';
    expect(await request(body, { Authorization: "Bearer abc" })).toBe('{"jsonrpc":"2.0","result":"Bearer abc","id":4}');
    expect(await request(body)).toBe('{"jsonrpc":"2.0","result":null,"id":4}');
  });

  test("a context function that throws a JsonRpcError answers that error with id null; anything else is the services framework's error reply", async () => {
    const service = await serveGuarded(setup, "rpc.guarded");
    const logs = recordLogs();
    try {
      const body = '{"jsonrpc":"2.0","method":"whoami","id":5}';
      expect(await exchange(setup, "rpc.guarded", body)).toEqual([
        answer('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Unauthorized","data":{"need":"token"}},"id":null}'),
      ]);
      const granted = await exchange(setup, "rpc.guarded", body, { headers: headersOf({ Authorization: "t" }) });
      expect(granted).toEqual([answer('{"jsonrpc":"2.0","result":"t","id":5}')]);
      const crashed = await exchange(setup, "rpc.guarded", body, { headers: headersOf({ "X-Crash": "1" }) });
      expect(crashed).toEqual([
        { text: "", headers: { "Nats-Service-Error-Code": "500", "Nats-Service-Error": "the context function broke" } },
      ]);
      expect(service.figures()).toMatchObject({ messages: 3, inFlight: 0, failed: 1 });
      expect(logs.entries).toEqual([
        {
          level: "error",
          args: [
            "rpcserver/nats: dispatch failed for a message on rpc.guarded",
            new Error("the context function broke"),
          ],
        },
      ]);
    } finally {
      logs.restore();
      await service.stop();
    }
  });
});

describe("streamed methods", () => {
  const body = '{"jsonrpc":"2.0","method":"count","params":[3],"id":7}';

  test("a plain request (no Rpc-Stream header) gets exactly one message: the answer", async () => {
    expect(await exchange(setup, SUBJECT, body)).toEqual([answer('{"jsonrpc":"2.0","result":"counted to 3","id":7}')]);
  });

  test("with `Rpc-Stream: values`, each value is a message numbered by `Rpc-Value`, before the answer that counts them", async () => {
    const messages = await exchange(setup, SUBJECT, body, { headers: headersOf({ "Rpc-Stream": "values" }) });
    expect(messages.at(-1)).toEqual({
      text: '{"jsonrpc":"2.0","result":"counted to 3","id":7}',
      headers: { "Rpc-Value-Count": "3" },
    });
    // The notification an HTTP event stream carries ($/progress, its token the request's id).
    expect(messages.slice(0, -1)).toEqual(
      [1, 2, 3].map((value) => ({
        text: JSON.stringify({ jsonrpc: "2.0", method: "$/progress", params: { token: 7, value } }),
        headers: { "Rpc-Value": String(value) },
      })),
    );
  });

  test("a streamed call that streams nothing is answered with `Rpc-Value-Count: 0`", async () => {
    const add = '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":8}';
    expect(await exchange(setup, SUBJECT, add, { headers: headersOf({ "Rpc-Stream": "values" }) })).toEqual([
      { text: '{"jsonrpc":"2.0","result":3,"id":8}', headers: { "Rpc-Value-Count": "0" } },
    ]);
  });
});

test("the OpenRPC document: rpc.discover on the JSON-RPC subject, and the endpoint `<subject>.discover`", async () => {
  const viaMethod = JSON.parse(await request('{"jsonrpc":"2.0","method":"rpc.discover","id":8}')) as {
    result: { info: unknown; methods: Array<{ name: string }> };
  };
  expect(viaMethod.result.info).toEqual({ title: "unit", version: "0.1.0" });
  expect(viaMethod.result.methods.map((method) => method.name).sort()).toEqual(
    ["add", "count", "hold", "note", "sleep", "whoami"].sort(),
  );
  const [endpoint] = await exchange(setup, `${SUBJECT}.discover`, "");
  expect(JSON.parse(endpoint!.text)).toEqual(viaMethod.result);
  expect(viaMethod.result).toEqual(
    JSON.parse(JSON.stringify(openRpcDocument(methods, { title: "unit", version: "0.1.0" }, { context: true }))),
  );
});

test("stop() stops taking calls at once (a new request finds no responders) and answers the call in flight", async () => {
  const own = await connect(setup.server.url);
  const service = await serveNats(own, methods, {
    name: "stopping",
    version: "0.1.0",
    subject: "rpc.stopping",
    context: contextOf,
  });
  const add = '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":10}';
  const outcome = (sent: Promise<unknown>) => sent.then(() => "answered", requestFailure);
  const held = setup.calling.request("rpc.stopping", '{"jsonrpc":"2.0","method":"hold","id":9}', { timeout: 5_000 });
  await gate.holding();
  const stopped = Promise.all([service.stop(), service.stopped]);
  // The NATS server has the end of the subscription once it has answered a flush sent after it.
  await own.flush();
  expect(await outcome(setup.calling.request("rpc.stopping", add))).toBe("NoResponders");
  gate.release();
  expect((await held).string()).toBe('{"jsonrpc":"2.0","result":"released","id":9}');
  await bounded(stopped, "stop() and stopped to resolve");
  expect(service.figures()).toEqual({ messages: 1, inFlight: 0, failed: 0, processingNs: expect.any(Number) });
  expect(await outcome(setup.calling.request("rpc.stopping", add))).toBe("NoResponders");
  await own.close();
});
