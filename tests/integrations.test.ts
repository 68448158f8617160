/**
 * The integration examples (examples/integrations/), each run as a child process of the real
 * framework or runtime on 127.0.0.1 (port 0), talked to with a real client: fetch for HTTP (Express,
 * Fastify, Koa, Hono on Node.js, Bun and Deno, a node:cluster of workers), a `ws` client, a parent
 * process over stdio (both framings), and a worker thread over postMessage. Each is checked for a
 * single request, a batch, a notification (204, or nothing at all), errors, and the context (the
 * caller from a token) reaching the methods; each HTTP one also for a streamed call answered with
 * `answerHttp` (`Accept: text/event-stream`: the values as server-sent events, then the answer; 202
 * for notifications; the client going away stopping the method). The examples import the built package: `npm run build`
 * first.
 *
 * A framework whose packages declare (in `engines`) that they do not support the running Node.js
 * is skipped, and the test name says which version it needs. Bun and Deno must be installed
 * (`npm ci --prefix runtimes`): without them the tests fail, they never skip.
 */
import * as http from "node:http";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import WebSocket from "ws";
import { toHttp } from "../src/transport";
import { EventReader, parseEvents } from "./fixtures/sse";
import {
  bounded,
  describeOnNode,
  eventually,
  EXAMPLES,
  requireBuild,
  runtime,
  satisfies,
  spawnChild,
  startServer,
  stop,
  stopAll,
  type Server,
} from "./integrations/harness";

/** The tokens examples/integrations/methods.mjs knows. */
const ADA = "token-of-ada";
const BOB = "token-of-bob";

/** The `Accept` of a client that wants the values methods stream (MCP's Streamable HTTP sends it). */
const EVENTS = "text/event-stream, application/json";

/** The limits the examples set. */
const MAX_BATCH_SIZE = 100;
const BODY_LIMIT = 1024 * 1024;

const request = (method: string, params: unknown[] | undefined, id: number | string): object => ({
  jsonrpc: "2.0",
  method,
  ...(params === undefined ? {} : { params }),
  id,
});
const notification = (method: string, params?: unknown[]): object => ({
  jsonrpc: "2.0",
  method,
  ...(params === undefined ? {} : { params }),
});

/** A marker no other test writes, for a notification's effect (its line on stderr). */
let markers = 0;
const marker = (): string => `marker-${process.pid}-${(markers += 1)}`;

beforeAll(() => {
  requireBuild();
});

afterAll(async () => {
  await stopAll();
});

describe("toHttp (src/transport.ts)", () => {
  test("text to send is 200 with Content-Type application/json, the text as the body", () => {
    const text = '{"jsonrpc":"2.0","result":"pong","id":1}';
    expect(toHttp(text)).toStrictEqual({ status: 200, headers: { "Content-Type": "application/json" }, body: text });
  });

  test("an error response is 200 too: the error travels in the body", () => {
    const text = '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"x"},"id":1}';
    expect(toHttp(text).status).toBe(200);
  });

  test('nothing to send ("") is 204 with no headers and a null body, one frozen object', () => {
    expect(toHttp("")).toStrictEqual({ status: 204, headers: {}, body: null });
    expect(toHttp("")).toBe(toHttp(""));
    expect(Object.isFrozen(toHttp(""))).toBe(true);
    expect(Object.isFrozen(toHttp("").headers)).toBe(true);
  });

  test("it fits the Fetch API as is: new Response(answer.body, answer)", async () => {
    const ok = toHttp('{"jsonrpc":"2.0","result":1,"id":1}');
    const sent = new Response(ok.body, ok);
    expect(sent.status).toBe(200);
    expect(sent.headers.get("content-type")).toBe("application/json");
    expect(await sent.text()).toBe('{"jsonrpc":"2.0","result":1,"id":1}');
    const none = toHttp("");
    const empty = new Response(none.body, none); // with a "" body, Response would throw for 204
    expect(empty.status).toBe(204);
    expect(empty.headers.get("content-type")).toBeNull();
  });

  test("the types: a 200 answer has a string body, a 204 answer a null one", () => {
    const answer = toHttp("x");
    if (answer.status === 200) {
      const body: string = answer.body;
      const type: "application/json" = answer.headers["Content-Type"];
      expect([body, type]).toEqual(["x", "application/json"]);
    } else {
      const body: null = answer.body;
      // @ts-expect-error a 204 answer has no Content-Type
      const type: string = answer.headers["Content-Type"];
      expect([body, type]).toEqual([null, undefined]);
    }
  });
});

describe("node support from engines (the harness)", () => {
  test.each([
    ["20.20.2", ">=20", true],
    ["18.20.8", ">=20", false],
    ["18.20.8", ">= 18", true],
    ["20.9.0", "^18.18.0 || ^20.9.0 || >=21.1.0", true],
    ["20.8.0", "^18.18.0 || ^20.9.0 || >=21.1.0", false],
    ["21.0.0", "20 || >=22", false],
    ["22.1.0", "20 || >=22", true],
    ["18.0.0", ">=10.x", true],
    ["26.0.0", "^22.20 || ^24.12 || >=25", true],
  ])("node %s in %s: %s", (version, range, expected) => {
    expect(satisfies(version, range)).toBe(expected);
  });

  test("an unknown form of range fails loudly", () => {
    expect(() => satisfies("20.0.0", "1.0.0 - 2.0.0")).toThrow(/unsupported comparator/);
  });
});

// --- HTTP --------------------------------------------------------------------------------------------

interface Reply {
  readonly status: number;
  readonly type: string | null;
  readonly text: string;
}

const post = async (url: string, body: string | Uint8Array, token?: string): Promise<Reply> => {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
    },
    body,
  });
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
};

const postJson = (url: string, message: unknown, token?: string): Promise<Reply> =>
  post(url, JSON.stringify(message), token);

/** The same checks for every HTTP integration; `server()` is the running example. */
const httpChecks = (server: () => Server): void => {
  test("a single request: 200, application/json, the answer", async () => {
    const reply = await postJson(server().url, request("add", [1, 2], 1));
    expect(reply.status).toBe(200);
    expect(reply.type).toMatch(/^application\/json/);
    expect(JSON.parse(reply.text)).toEqual({ jsonrpc: "2.0", result: 3, id: 1 });
  });

  test("context: the caller from the Authorization header reaches the method", async () => {
    const ada = await postJson(server().url, request("whoami", undefined, "a"), ADA);
    const bob = await postJson(server().url, request("whoami", undefined, "b"), BOB);
    const nobody = await postJson(server().url, request("whoami", undefined, "c"));
    expect(JSON.parse(ada.text)).toEqual({ jsonrpc: "2.0", result: "Ada", id: "a" });
    expect(JSON.parse(bob.text)).toEqual({ jsonrpc: "2.0", result: "Bob", id: "b" });
    expect(JSON.parse(nobody.text)).toEqual({ jsonrpc: "2.0", result: "anonymous", id: "c" });
  });

  test("a batch: one answer per request, in order; none for its notification", async () => {
    const reply = await postJson(
      server().url,
      [
        request("add", [1, 2], 1),
        notification("log", ["in a batch"]),
        request("divide", [1, 0], 2),
        request("whoami", undefined, 3),
        request("nope", undefined, 4),
      ],
      ADA,
    );
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual([
      { jsonrpc: "2.0", result: 3, id: 1 },
      { jsonrpc: "2.0", error: { code: 1, message: "Division by zero" }, id: 2 },
      { jsonrpc: "2.0", result: "Ada", id: 3 },
      { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "nope" }, id: 4 },
    ]);
  });

  test("a notification: 204, no body, no Content-Type; the method ran with the caller as context", async () => {
    const mark = marker();
    const reply = await postJson(server().url, notification("log", [mark]), ADA);
    expect(reply).toEqual({ status: 204, type: null, text: "" });
    await eventually(() => server().stderr().includes(`[log] Ada: ${mark}`), "the notification's log line");
  });

  test("a streamed call (Accept: text/event-stream): each value as $/progress on its id, then the answer", async () => {
    const response = await fetch(server().url, {
      method: "POST",
      headers: { Accept: EVENTS, Authorization: `Bearer ${ADA}` },
      body: JSON.stringify(request("count", [3], 7)),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const progress = (value: number) => ({ jsonrpc: "2.0", method: "$/progress", params: { token: 7, value } });
    expect(parseEvents(await response.text())).toEqual([
      progress(1),
      progress(2),
      progress(3),
      { jsonrpc: "2.0", result: "counted to 3", id: 7 },
    ]);
  });

  test("with that Accept: notifications alone are 202 with no body; a call that answers at once, JSON", async () => {
    const headers = { Accept: EVENTS, Authorization: `Bearer ${ADA}` };
    const accepted = await fetch(server().url, {
      method: "POST",
      headers,
      body: JSON.stringify(notification("log", ["sse"])),
    });
    expect([accepted.status, await accepted.text()]).toEqual([202, ""]);
    const plain = await fetch(server().url, {
      method: "POST",
      headers,
      body: JSON.stringify(request("add", [1, 2], 1)),
    });
    expect([
      plain.status,
      plain.headers.get("content-type")?.startsWith("application/json"),
      await plain.text(),
    ]).toEqual([200, true, '{"jsonrpc":"2.0","result":3,"id":1}']);
  });

  test("a streamed call whose client goes away: the method stops (its signal, its next yield), and the host logs nothing", async () => {
    const before = server().stderr().length;
    const client = new AbortController();
    const response = await fetch(server().url, {
      method: "POST",
      headers: { Accept: EVENTS, Authorization: `Bearer ${BOB}` },
      // A step every 50 ms: the count cannot end on its own (50 s) before a starved test leaves.
      body: JSON.stringify(request("count", [1000, 50], 1)),
      signal: client.signal,
    });
    const reader = new EventReader(response.body as ReadableStream<Uint8Array>);
    await reader.next();
    await reader.next();
    client.abort();
    await eventually(() => /\[count\] Bob: stopped at \d+ of 1000/.test(server().stderr()), "the method's stop");
    // A round trip after the stop: whatever the host would print about the stream that ended is out.
    const after = await postJson(server().url, request("add", [2, 3], 2));
    expect(JSON.parse(after.text)).toEqual({ jsonrpc: "2.0", result: 5, id: 2 });
    // A client leaving is normal: no error, no stack, no warning; only the method's own line.
    const printed = server()
      .stderr()
      .slice(before)
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("[count] Bob: stopped at"));
    expect(printed).toEqual([]);
  });

  test("a batch of notifications only: 204, no body", async () => {
    const reply = await postJson(server().url, [notification("log", ["one"]), notification("log", ["two"])]);
    expect(reply).toEqual({ status: 204, type: null, text: "" });
  });

  test("errors: an application error, invalid params, a parse error (each 200, the error in the body)", async () => {
    const app = await postJson(server().url, request("divide", [1, 0], 1));
    expect(JSON.parse(app.text)).toEqual({ jsonrpc: "2.0", error: { code: 1, message: "Division by zero" }, id: 1 });
    const params = await postJson(server().url, request("add", [1, "2"], 2));
    expect(JSON.parse(params.text)).toMatchObject({ error: { code: -32602 }, id: 2 });
    const parse = await post(server().url, "{not json");
    expect(parse.status).toBe(200);
    expect(JSON.parse(parse.text)).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 }, id: null });
    const utf8 = await post(server().url, new Uint8Array([0x22, 0xff, 0x22]));
    expect(JSON.parse(utf8.text)).toMatchObject({ error: { code: -32700 }, id: null });
  });

  test(`maxBatchSize: a batch of ${MAX_BATCH_SIZE + 1} is one -32600 and none of it runs`, async () => {
    const mark = marker();
    const batch = Array.from({ length: MAX_BATCH_SIZE + 1 }, (_, i) =>
      i === 0 ? notification("log", [mark]) : request("add", [i, i], i),
    );
    const reply = await postJson(server().url, batch);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 }, id: null });
    const full = await postJson(server().url, batch.slice(1));
    expect((JSON.parse(full.text) as unknown[]).length).toBe(MAX_BATCH_SIZE);
    expect(server().stderr()).not.toContain(mark);
  });

  test("a body over 1 MiB is refused with 413; the server goes on answering", async () => {
    const body = new Uint8Array(BODY_LIMIT + 1).fill(0x20);
    const reply = await post(server().url, body);
    expect(reply.status).toBe(413);
    const after = await postJson(server().url, request("add", [2, 2], 1));
    expect(JSON.parse(after.text)).toEqual({ jsonrpc: "2.0", result: 4, id: 1 });
  });

  test("over all these checks, the host printed nothing but the methods' own lines (no error, stack or warning)", () => {
    const printed = server()
      .stderr()
      .split("\n")
      .filter((line) => line.trim() !== "" && !/^\[(log|count)\] /.test(line));
    expect(printed).toEqual([]);
  });
};

/** An HTTP example on Node.js, skipped when its packages' engines exclude the running Node.js. */
const onNode = (name: string, file: string, framework: string, unused: readonly string[] = []): void =>
  describeOnNode(name, framework, unused, () => {
    let server: Server | undefined;
    beforeAll(async () => {
      server = await startServer(process.execPath, [join(EXAMPLES, file)]);
    });
    afterAll(() => stop(server));
    httpChecks(() => server as Server);
  });

onNode("express", "express.mjs", "express");
// light-my-request (and its cookie, which declares node >= 22) is loaded only by fastify.inject(),
// which the example does not call.
onNode("fastify", "fastify.mjs", "fastify", ["light-my-request"]);
onNode("koa", "koa.mjs", "koa");
onNode("hono on node", join("hono", "node.mjs"), "@hono/node-server");

describe.each([
  ["bun", ["run"], "bun.mjs"],
  // Without the flag, Deno (up to 2.9 at least) aborts `request.signal` after every response that
  // succeeded too, and warns once that it will stop: examples/integrations/hono/deno.mjs.
  ["deno", ["run", "-A", "--unstable-no-legacy-abort"], "deno.mjs"],
] as const)("hono on %s (the same app.mjs; the binary from runtimes/node_modules)", (name, args, file) => {
  let server: Server | undefined;
  beforeAll(async () => {
    server = await startServer(runtime(name), [...args, join(EXAMPLES, "hono", file)]);
  });
  afterAll(() => stop(server));
  httpChecks(() => server as Server);
});

describe("node:cluster (2 workers on one port)", () => {
  const WORKERS = 2;
  let server: Server | undefined;
  const pids = new Set<number>();
  beforeAll(async () => {
    server = await startServer(process.execPath, [join(EXAMPLES, "cluster.mjs")], { WORKERS: String(WORKERS) });
  });
  afterAll(async () => {
    await stop(server); // SIGTERM: the primary disconnects its workers and exits
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL"); // a worker still alive after its primary stopped
      } catch {
        // already gone, as it should be
      }
    }
  });

  httpChecks(() => server as Server);

  /** One POST on a connection of its own (no keep-alive), so that the primary hands it to a worker. */
  const postAlone = (url: string, body: string): Promise<string> =>
    bounded(
      new Promise<string>((resolve, reject) => {
        const req = http.request(url, { method: "POST", agent: false }, (res) => {
          let text = "";
          res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
          res.on("end", () => resolve(text));
        });
        req.on("error", reject);
        req.end(body);
      }),
      "a POST on a new connection",
    );

  test(`every one of the ${WORKERS} workers answers (connections are handed out in turn)`, async () => {
    const workers = new Set<number>();
    for (let i = 0; i < 4 * WORKERS; i += 1) {
      const answer = JSON.parse(await postAlone((server as Server).url, JSON.stringify(request("whoserved", [], i))));
      const { worker, pid } = (answer as { result: { worker: number; pid: number } }).result;
      workers.add(worker);
      pids.add(pid);
    }
    expect(workers.size).toBe(WORKERS);
    expect(pids.size).toBe(WORKERS);
    expect(pids.has((server as Server).process.pid ?? -1)).toBe(false);
  });
});

// --- WebSocket ---------------------------------------------------------------------------------------

/** A `ws` client that records every message it gets, parsed. */
interface Peer {
  readonly socket: WebSocket;
  readonly received: unknown[];
  /** Resolves to the first message (already received or to come) that `match` accepts. */
  readonly next: (match: (message: unknown) => boolean, what: string) => Promise<unknown>;
  readonly send: (message: unknown) => void;
}

const connectPeer = (url: string, token?: string): Promise<Peer> =>
  bounded(
    new Promise<Peer>((resolve, reject) => {
      const socket = new WebSocket(url, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
      const received: unknown[] = [];
      const waiters: Array<{ match: (message: unknown) => boolean; resolve: (message: unknown) => void }> = [];
      socket.on("message", (data: Buffer) => {
        const message: unknown = JSON.parse(data.toString("utf8"));
        received.push(message);
        for (const waiter of waiters.filter((w) => w.match(message))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      });
      const next = (match: (message: unknown) => boolean, what: string): Promise<unknown> => {
        const already = received.find(match);
        if (already !== undefined) return Promise.resolve(already);
        return bounded(new Promise((r) => waiters.push({ match, resolve: r })), what);
      };
      const send = (message: unknown): void => socket.send(JSON.stringify(message));
      socket.once("open", () => resolve({ socket, received, next, send }));
      socket.once("error", reject);
    }),
    "a WebSocket connection",
  );

const hasId =
  (id: unknown) =>
  (message: unknown): boolean =>
    typeof message === "object" && message !== null && "id" in message && message.id === id;
const isCall =
  (method: string) =>
  (message: unknown): boolean =>
    typeof message === "object" && message !== null && "method" in message && message.method === method;
const isArray = (message: unknown): boolean => Array.isArray(message);

describe("WebSocket (ws): one connection, many messages, both ways", () => {
  let server: Server | undefined;
  let url = "";
  const peers: Peer[] = [];
  const connect = async (token?: string): Promise<Peer> => {
    const peer = await connectPeer(url, token);
    peers.push(peer);
    return peer;
  };
  beforeAll(async () => {
    server = await startServer(process.execPath, [join(EXAMPLES, "websocket.mjs")]);
    url = server.url;
  });
  afterAll(async () => {
    for (const { socket } of peers) socket.terminate();
    await stop(server);
  });

  test("the server sends a notification first (welcome, with the caller it worked out)", async () => {
    const ada = await connect(ADA);
    expect(await ada.next(isCall("welcome"), "welcome")).toEqual({
      jsonrpc: "2.0",
      method: "welcome",
      params: { user: "Ada" },
    });
  });

  test("context: the caller from the upgrade request's Authorization header reaches the methods", async () => {
    const bob = await connect(BOB);
    const nobody = await connect();
    bob.send(request("whoami", undefined, 1));
    nobody.send(request("whoami", undefined, 1));
    expect(await bob.next(hasId(1), "whoami")).toEqual({ jsonrpc: "2.0", result: "Bob", id: 1 });
    expect(await nobody.next(hasId(1), "whoami")).toEqual({ jsonrpc: "2.0", result: "anonymous", id: 1 });
  });

  test("many requests at once on one connection: each answered once, matched by id", async () => {
    const peer = await connect(ADA);
    const count = 50;
    for (let i = 1; i <= count; i += 1) peer.send(request("add", [i, i], i));
    for (let i = 1; i <= count; i += 1) {
      expect(await peer.next(hasId(i), `answer ${i}`)).toEqual({ jsonrpc: "2.0", result: 2 * i, id: i });
    }
    expect(peer.received.filter((m) => !isCall("welcome")(m))).toHaveLength(count);
  });

  test("a batch: one message with the answers in order; errors inside it", async () => {
    const peer = await connect(ADA);
    peer.send([request("add", [1, 2], "x"), notification("log", ["b"]), request("divide", [1, 0], "y")]);
    expect(await peer.next(isArray, "the batch's answer")).toEqual([
      { jsonrpc: "2.0", result: 3, id: "x" },
      { jsonrpc: "2.0", error: { code: 1, message: "Division by zero" }, id: "y" },
    ]);
    peer.socket.send("{not json");
    expect(await peer.next(hasId(null), "the parse error")).toMatchObject({ error: { code: -32700 }, id: null });
  });

  test("notifications get nothing; `say` makes the server notify every client", async () => {
    const ada = await connect(ADA);
    const bob = await connect(BOB);
    const mark = marker();
    ada.send(notification("say", [mark]));
    ada.send([notification("log", ["x"]), notification("log", ["y"])]);
    const said = { jsonrpc: "2.0", method: "said", params: { from: "Ada", text: mark } };
    expect(await bob.next(isCall("said"), "said, to bob")).toEqual(said);
    expect(await ada.next(isCall("said"), "said, to ada")).toEqual(said);
    // A request after the notifications, on the same connection: once it is answered, nothing else
    // came but server notifications.
    ada.send(request("whoami", undefined, "last"));
    await ada.next(hasId("last"), "the last answer");
    const answers = ada.received.filter((m) => !(typeof m === "object" && m !== null && "method" in m));
    expect(answers).toEqual([{ jsonrpc: "2.0", result: "Ada", id: "last" }]);
  });

  test("a message over 1 MiB closes the connection (1009); the server goes on", async () => {
    const peer = await connect(ADA);
    const closed = new Promise<number>((resolve) => peer.socket.once("close", (code: number) => resolve(code)));
    peer.socket.on("error", () => undefined); // the client sees the close as an error too
    peer.socket.send(Buffer.alloc(BODY_LIMIT + 1, 0x20));
    expect(await bounded(closed, "the close")).toBe(1009);
    const other = await connect(ADA);
    other.send(request("add", [2, 2], 1));
    expect(await other.next(hasId(1), "an answer")).toEqual({ jsonrpc: "2.0", result: 4, id: 1 });
  });
});

// --- stdio -------------------------------------------------------------------------------------------

/** Runs stdio.mjs as a child process, writes `input` (in two pieces) and ends stdin; resolves on exit. */
const runStdio = async (
  input: Buffer,
  args: readonly string[] = [],
): Promise<{ code: number | string | null; stdout: Buffer; stderr: string }> => {
  const child = spawnChild(process.execPath, [join(EXAMPLES, "stdio.mjs"), ...args], { RPC_TOKEN: ADA });
  const half = Math.floor(input.length / 2); // the split falls inside a message
  child.process.stdin?.write(input.subarray(0, half));
  child.process.stdin?.end(input.subarray(half));
  const code = await bounded(child.exited, "stdio.mjs to exit");
  // The answers are UTF-8 text, decoded chunk by chunk without splitting a character: back to bytes.
  return { code, stdout: Buffer.from(child.stdout(), "utf8"), stderr: child.stderr() };
};

/** The same conversation in both framings: what goes in, what must come out (in any order). */
const conversation = (mark: string) => ({
  messages: [
    request("whoami", undefined, 1),
    notification("log", [mark]),
    [request("add", [1, 2], 2), notification("log", ["in a batch"]), request("divide", [1, 0], 3)],
    [notification("log", ["only notifications"])],
    request("héllo", undefined, 4), // non-ASCII: Content-Length counts bytes
  ].map((m) => JSON.stringify(m)),
  answers: [
    { jsonrpc: "2.0", result: "Ada", id: 1 },
    [
      { jsonrpc: "2.0", result: 3, id: 2 },
      { jsonrpc: "2.0", error: { code: 1, message: "Division by zero" }, id: 3 },
    ],
    { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "héllo" }, id: 4 },
  ],
});

/** Sorts parsed answers by their (first) id, since concurrent dispatch may answer out of order. */
const byId = (answers: unknown[]): unknown[] => {
  const key = (a: unknown): string => String(((Array.isArray(a) ? a[0] : a) as { id: unknown }).id);
  return [...answers].sort((a, b) => key(a).localeCompare(key(b)));
};

describe("stdio, driven by a parent process", () => {
  test("newline-delimited JSON: one answer per line, none for notifications; context from RPC_TOKEN", async () => {
    const mark = marker();
    const { messages, answers } = conversation(mark);
    const input = Buffer.from([...messages, "", "{not json", ""].join("\n") + "\n");
    const { code, stdout, stderr } = await runStdio(input);
    expect(code).toBe(0);
    const lines = stdout.toString("utf8").split("\n");
    expect(lines.pop()).toBe(""); // every answer ends with \n
    const parsed = lines.map((line) => JSON.parse(line) as unknown);
    const parseError = parsed.find((a) => !Array.isArray(a) && (a as { id: unknown }).id === null);
    expect(parseError).toMatchObject({ error: { code: -32700 } });
    expect(byId(parsed.filter((a) => a !== parseError))).toEqual(byId(answers));
    expect(stderr).toContain(`[log] Ada: ${mark}`);
  });

  test("Content-Length framing (LSP): each answer framed with its length in bytes", async () => {
    const mark = marker();
    const { messages, answers } = conversation(mark);
    const frame = (text: string): string => `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
    const input = Buffer.from(
      messages.map(frame).join("") +
        // Other headers are allowed, and the header name is case-insensitive.
        `content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n[]`,
    );
    const { code, stdout, stderr } = await runStdio(input, ["--content-length"]);
    expect(code).toBe(0);
    const parsed: unknown[] = [];
    let rest = stdout;
    while (rest.length > 0) {
      const match = /^Content-Length: (\d+)\r\n\r\n/.exec(rest.toString("latin1"));
      expect(match).not.toBeNull();
      const start = (match?.[0] ?? "").length;
      const length = Number(match?.[1]);
      parsed.push(JSON.parse(rest.subarray(start, start + length).toString("utf8")));
      rest = rest.subarray(start + length);
    }
    const empty = parsed.find((a) => !Array.isArray(a) && (a as { id: unknown }).id === null);
    expect(empty).toMatchObject({ error: { code: -32600 } }); // the empty batch []
    expect(byId(parsed.filter((a) => a !== empty))).toEqual(byId(answers));
    expect(stderr).toContain(`[log] Ada: ${mark}`);
  });

  test("Content-Length framing: a header without the length stops the process with status 1", async () => {
    const { code, stderr } = await runStdio(Buffer.from("Content-Type: x\r\n\r\n{}"), ["--content-length"]);
    expect(code).toBe(1);
    expect(stderr).toContain("without Content-Length");
  });
});

// --- worker_threads ----------------------------------------------------------------------------------

describe("worker_threads: a worker serving postMessage", () => {
  let worker: Worker | undefined;
  const received: unknown[] = [];
  const waiters: Array<{ match: (message: unknown) => boolean; resolve: (message: unknown) => void }> = [];
  const next = (match: (message: unknown) => boolean, what: string): Promise<unknown> => {
    const already = received.find(match);
    if (already !== undefined) return Promise.resolve(already);
    return bounded(new Promise((resolve) => waiters.push({ match, resolve })), what);
  };
  const send = (user: { name: string }, message: unknown): void =>
    worker?.postMessage({ user, request: JSON.stringify(message) });
  const ada = { name: "Ada", admin: true };

  beforeAll(() => {
    worker = new Worker(join(EXAMPLES, "worker.mjs"), { stderr: true });
    worker.stderr.resume(); // the `log` method's lines: not wanted in the test output
    worker.on("message", (text: string) => {
      const message: unknown = JSON.parse(text);
      received.push(message);
      for (const waiter of waiters.filter((w) => w.match(message))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    });
  });
  afterAll(async () => {
    await worker?.terminate();
  });

  test("context: the user in each message's envelope reaches the method", async () => {
    send(ada, request("whoami", undefined, "ada"));
    send({ name: "Bob" }, request("whoami", undefined, "bob"));
    expect(await next(hasId("ada"), "ada")).toEqual({ jsonrpc: "2.0", result: "Ada", id: "ada" });
    expect(await next(hasId("bob"), "bob")).toEqual({ jsonrpc: "2.0", result: "Bob", id: "bob" });
  });

  test("a batch and an error", async () => {
    send(ada, [request("add", [1, 2], 1), notification("log", ["x"]), request("divide", [1, 0], 2)]);
    expect(await next(isArray, "the batch")).toEqual([
      { jsonrpc: "2.0", result: 3, id: 1 },
      { jsonrpc: "2.0", error: { code: 1, message: "Division by zero" }, id: 2 },
    ]);
    send(ada, request("nope", undefined, 3));
    expect(await next(hasId(3), "method not found")).toMatchObject({ error: { code: -32601 }, id: 3 });
  });

  test("notifications get no message back", async () => {
    const before = received.length;
    send(ada, notification("log", ["a notification"]));
    send(ada, [notification("log", ["one"]), notification("log", ["two"])]);
    send(ada, request("whoami", undefined, "after"));
    await next(hasId("after"), "the request after the notifications");
    expect(received.slice(before)).toEqual([{ jsonrpc: "2.0", result: "Ada", id: "after" }]);
  });
});
