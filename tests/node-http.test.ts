/**
 * rpcserver/node-http (issue 22, speed): `nodeHttp`, the client's transport on node:http with a
 * keep-alive agent, against real node:http servers on 127.0.0.1. It must answer as `http` (on
 * fetch) answers: the same Eithers for the same server, the same TransportErrors (status, network,
 * aborted, tooLarge), and keep its connection between calls.
 *
 * Streamed calls (issue 24): against the development server (`serve`), the values in order then
 * the result; `break` and the call's signal stopping the server's generator (its `finally` runs);
 * a slow consumer holding the server back (counted: what the transport handed on, what the server
 * yielded); JSON when the method answers before any value. Against servers written here, the same
 * values and answers as `http` for event streams cut anywhere, gzipped, cut short or too large.
 */
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as t from "io-ts";
import { getEventListeners } from "node:events";
import { createServer, Agent, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Socket } from "node:net";
import { gzipSync } from "node:zlib";
import {
  asyncDispatch,
  contract,
  implement,
  Error as RpcError,
  serve,
  Success,
  type DevServer,
  type Methods,
} from "../src";
import {
  batch,
  client,
  foldStream,
  http,
  notify,
  open,
  withOptions,
  type ClientError,
  type StreamRun,
  type Transport,
} from "../src/client";
import { STREAM_BUFFER } from "../src/internal/client/streams";
import { nodeHttp } from "../src/node-http";
import { recordLogs } from "./support";

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  wrong: { params: t.tuple([t.number]), result: t.string },
  fail: { params: t.tuple([t.number]), result: t.number },
  slow: { result: t.number },
  note: { params: t.tuple([t.string]), result: t.unknown },
});
const methods = implement(api, {
  add: (a, b) => E.right(a + b),
  wrong: (n) => E.right(n as unknown as string),
  fail: (n) => E.left({ code: n, message: "failed", data: { n } }),
  slow: () => new Promise(() => undefined),
  note: () => E.right(null),
});

interface TestServer {
  readonly url: string;
  /** Every socket the server accepted. */
  readonly sockets: Socket[];
  /** Each request's headers, in order. */
  readonly headers: IncomingMessage["headers"][];
  readonly close: () => Promise<void>;
}

/** A node:http server on 127.0.0.1 answering each POST with `respond(requestBody, res, req)`. */
const httpServer = async (
  respond: (body: string, res: ServerResponse, req: IncomingMessage) => void,
): Promise<TestServer> => {
  const sockets: Socket[] = [];
  const headers: IncomingMessage["headers"][] = [];
  const s = createServer((req, res) => {
    headers.push(req.headers);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => respond(Buffer.concat(chunks).toString("utf8"), res, req));
  });
  s.on("connection", (socket: Socket) => sockets.push(socket));
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/rpc?x=1`,
    sockets,
    headers,
    close: () => {
      s.closeAllConnections();
      return new Promise((resolve) => s.close(() => resolve()));
    },
  };
};

/** A server that dispatches each body to `m` with asyncDispatch: 200 with the answer, 204 for none. */
const rpcServer = (m: Methods = methods as Methods): Promise<TestServer> =>
  httpServer((body, res) => {
    void asyncDispatch(body, m).then((answer) => {
      if (answer === "") return void res.writeHead(204).end();
      res.writeHead(200, { "content-type": "application/json" }).end(answer);
    });
  });

/** What a server sends, whatever it is asked. */
const answering = (status: number, body: string | Buffer, headers: Record<string, string | number> = {}) =>
  httpServer((_body, res) => res.writeHead(status, headers).end(body));

/** Only what a test compares: the tag, the reason and the limit (never a body of megabytes). */
const brief = (answer: E.Either<ClientError, unknown>): unknown =>
  E.isRight(answer)
    ? { right: typeof answer.right }
    : {
        _tag: answer.left._tag,
        reason: "reason" in answer.left ? answer.left.reason : undefined,
        limit: "limit" in answer.left ? answer.left.limit : undefined,
      };

/** A transport's own failure, its cause dropped (an Error each transport words its own way). */
const withoutCause = (answer: unknown): unknown => {
  const either = answer as E.Either<Record<string, unknown>, unknown>;
  if (E.isRight(either) || !("cause" in either.left)) return answer;
  const { cause: _cause, ...rest } = either.left;
  return E.left(rest);
};

let server: TestServer;
afterEach(async () => {
  await server?.close();
});

describe("the same answers as http (fetch), from the same server", () => {
  test.each<[string, (transport: Transport) => () => Promise<unknown>]>([
    ["a call", (tr) => client(api, tr).add(1, 2)],
    ["a result the codec refuses", (tr) => client(api, tr).wrong(1)],
    ["a server error with data", (tr) => client(api, tr).fail(7)],
    ["a notification (204)", (tr) => notify(client(api, tr).note("n"))],
    [
      "a batch: calls, an error, a notification",
      (tr) => batch([client(api, tr).add(1, 2), client(api, tr).fail(3), notify(client(api, tr).note("x"))]),
    ],
    ["a batch of notifications only (204)", (tr) => batch([notify(client(api, tr).note("y"))])],
    ["a batch of 100", (tr) => batch(Array.from({ length: 100 }, (_, i) => client(api, tr).add(i, i)))],
  ])("%s", async (_name, make) => {
    server = await rpcServer();
    const viaNode = await make(nodeHttp(server.url))();
    const viaFetch = await make(http(server.url))();
    expect(viaNode).toStrictEqual(viaFetch);
  });

  test.each<[string, number, string, Record<string, string>]>([
    [
      "a 500 with a JSON-RPC error: the answer",
      500,
      '{"jsonrpc":"2.0","error":{"code":-32000,"message":"down"},"id":null}',
      {},
    ],
    ["a 502 with HTML: status", 502, "<html>bad gateway</html>", { "content-type": "text/html" }],
    ["a 200 that is not JSON: notJson", 200, "hello", {}],
    ["a 200 with nothing: noAnswer", 200, "", {}],
    ["a 404 with nothing: status", 404, "", {}],
    ["a byte-order mark and a character split across chunks", 200, "\uFEFF", {}],
  ])("%s", async (_name, status, body, headers) => {
    server = await httpServer((requestBody, res) => {
      const id = (JSON.parse(requestBody) as { id: number }).id;
      const text = body === "\uFEFF" ? `\uFEFF{"jsonrpc":"2.0","result":"${"é".repeat(5000)}","id":${id}}` : body;
      const bytes = Buffer.from(text, "utf8");
      res.writeHead(status, headers);
      for (let at = 0; at < bytes.length; at += 1001) res.write(bytes.subarray(at, at + 1001));
      res.end();
    });
    const c = contract({ s: { result: t.unknown } });
    const viaNode = await client(c, nodeHttp(server.url)).s()();
    const viaFetch = await client(c, http(server.url)).s()();
    expect(viaNode).toStrictEqual(viaFetch);
  });

  test("a status answer holds the status and the body", async () => {
    server = await answering(503, "try later");
    expect(await client(api, nodeHttp(server.url)).add(1, 2)()).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "status", status: 503, body: "try later" }),
    );
  });
});

describe("the request", () => {
  test("POST to the URL's path and query, JSON headers, a content-length; the user's headers, a function's at each call", async () => {
    server = await rpcServer();
    let n = 0;
    const fixed = client(
      api,
      nodeHttp(server.url, { headers: { "Content-Type": "application/json; charset=utf-8", "x-a": "1" } }),
    );
    const changing = client(
      api,
      nodeHttp(new URL(server.url), { headers: async () => ({ authorization: `Bearer t${++n}` }) }),
    );
    expect(await fixed.add(1, 2)()).toStrictEqual(E.right(3));
    expect(await changing.add(1, 2)()).toStrictEqual(E.right(3));
    expect(await changing.add(1, 2)()).toStrictEqual(E.right(3));
    const [first, second, third] = server.headers;
    expect(first).toMatchObject({
      "content-type": "application/json; charset=utf-8",
      accept: "application/json",
      "x-a": "1",
    });
    expect(Number(first?.["content-length"])).toBeGreaterThan(0);
    expect(first?.["transfer-encoding"]).toBeUndefined();
    expect(second).toMatchObject({ "content-type": "application/json", authorization: "Bearer t1" });
    expect(third).toMatchObject({ authorization: "Bearer t2" });
  });

  test("a content-length counts bytes, not characters", async () => {
    let received = "";
    server = await httpServer((body, res) => {
      received = body;
      const id = (JSON.parse(body) as { id: number }).id;
      res.end(JSON.stringify({ jsonrpc: "2.0", result: body.length, id }));
    });
    const echo = client(contract({ s: { params: t.tuple([t.string]), result: t.number } }), nodeHttp(server.url));
    expect(E.isRight(await echo.s("é😀")())).toBe(true);
    expect(received).toContain("é😀");
  });

  test("a headers function that throws: network, nothing sent", async () => {
    server = await rpcServer();
    const c = client(
      api,
      nodeHttp(server.url, {
        headers: () => {
          throw new globalThis.Error("no token");
        },
      }),
    );
    expect(withoutCause(await c.add(1, 2)())).toStrictEqual(E.left({ _tag: "TransportError", reason: "network" }));
    expect(server.headers).toHaveLength(0);
  });

  test("a header value that cannot be sent: network", async () => {
    server = await rpcServer();
    const c = client(api, nodeHttp(server.url, { headers: { "x-bad": "a\nb" } }));
    expect(withoutCause(await c.add(1, 2)())).toStrictEqual(E.left({ _tag: "TransportError", reason: "network" }));
  });

  test("the url must be http: or https:; maxAnswerBytes a positive integer or Infinity", () => {
    expect(() => nodeHttp("ftp://127.0.0.1/")).toThrow(TypeError);
    // Node's own TypeError (another realm than jest's): matched by its message.
    expect(() => nodeHttp("not a url")).toThrow(/Invalid URL/);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => nodeHttp("http://127.0.0.1:1/", { maxAnswerBytes: bad })).toThrow(RangeError);
    }
    expect(() => nodeHttp("http://127.0.0.1:1/", { maxAnswerBytes: Infinity })).not.toThrow();
    expect(() => nodeHttp("https://127.0.0.1:1/")).not.toThrow();
  });
});

describe("keep-alive", () => {
  test("calls one after another reuse one connection (its own agent)", async () => {
    server = await rpcServer();
    const c = client(api, nodeHttp(server.url));
    for (let i = 0; i < 20; i++) expect(await c.add(i, 1)()).toStrictEqual(E.right(i + 1));
    await batch([c.add(1, 2), c.add(3, 4)])();
    expect(server.headers).toHaveLength(21);
    expect(server.sockets).toHaveLength(1);
  });

  test("calls at once open a connection each, then reuse them", async () => {
    server = await rpcServer();
    const c = client(api, nodeHttp(server.url));
    await Promise.all([c.add(1, 1)(), c.add(2, 2)(), c.add(3, 3)()]);
    await Promise.all([c.add(1, 1)(), c.add(2, 2)(), c.add(3, 3)()]);
    expect(server.sockets).toHaveLength(3);
  });

  test("an agent of the user's is the one used", async () => {
    server = await rpcServer();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const c = client(api, nodeHttp(server.url, { agent }));
      await Promise.all([c.add(1, 1)(), c.add(2, 2)(), c.add(3, 3)()]);
      expect(server.sockets).toHaveLength(1);
    } finally {
      agent.destroy();
    }
  });

  test("an error answer (a status) leaves the connection usable", async () => {
    let n = 0;
    server = await httpServer((body, res) => {
      if (++n === 1) return void res.writeHead(500).end("oops");
      const id = (JSON.parse(body) as { id: number }).id;
      res.end(JSON.stringify({ jsonrpc: "2.0", result: 5, id }));
    });
    const c = client(api, nodeHttp(server.url));
    expect(brief(await c.add(1, 2)())).toStrictEqual({ _tag: "TransportError", reason: "status", limit: undefined });
    expect(await c.add(2, 3)()).toStrictEqual(E.right(5));
    expect(server.sockets).toHaveLength(1);
  });
});

describe("failures", () => {
  test("nothing listening: network", async () => {
    server = await rpcServer();
    const url = server.url;
    await server.close();
    expect(withoutCause(await client(api, nodeHttp(url)).add(1, 2)())).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "network" }),
    );
  });

  test("the server goes away in the middle of the body: network", async () => {
    server = await httpServer((_body, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": 1000 });
      res.write('{"jsonrpc":"2.0",');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    expect(withoutCause(await client(api, nodeHttp(server.url)).add(1, 2)())).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "network" }),
    );
  });

  test("the call's signal aborts the request: aborted with its reason, and the server sees it go", async () => {
    let gone: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (gone = resolve));
    server = await httpServer((_body, res) => res.on("close", () => gone()));
    const controller = new AbortController();
    const c = client(api, nodeHttp(server.url));
    const pending = withOptions({ signal: controller.signal })(c.slow())();
    setTimeout(() => controller.abort("stop"), 20);
    expect(await pending).toStrictEqual(E.left({ _tag: "TransportError", reason: "aborted", cause: "stop" }));
    await closed;
  });

  test("the transport alone, its signal aborted before or during: aborted with the reason", async () => {
    server = await httpServer(() => undefined);
    const transport = nodeHttp(server.url);
    const before = new AbortController();
    before.abort("early");
    expect(await transport("{}", { signal: before.signal })()).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "aborted", cause: "early" }),
    );
    const during = new AbortController();
    const pending = transport("{}", { signal: during.signal })();
    setTimeout(() => during.abort("late"), 20);
    expect(await pending).toStrictEqual(E.left({ _tag: "TransportError", reason: "aborted", cause: "late" }));
  });

  test("a time-out: timeout, the request destroyed", async () => {
    server = await httpServer(() => undefined);
    const c = client(api, nodeHttp(server.url), { timeoutMs: 30 });
    expect(await c.slow()()).toStrictEqual(E.left({ _tag: "TransportError", reason: "timeout", timeoutMs: 30 }));
  });
});

describe("maxAnswerBytes", () => {
  const MiB = 1024 * 1024;

  /** A server that answers `total` bytes of `x` as fast as the client reads; `written` is what it wrote. */
  const flooding = async (total: number, headers: Record<string, string | number>) => {
    let finished: (bytes: number) => void = () => undefined;
    const written = new Promise<number>((resolve) => (finished = resolve));
    const s = await httpServer((_body, res) => {
      res.writeHead(200, { "content-type": "application/json", ...headers });
      const chunk = Buffer.alloc(64 * 1024, "x");
      let bytes = 0;
      let gone = false;
      res.on("close", () => {
        gone = true;
        finished(bytes);
      });
      const pump = (): void => {
        while (!gone && bytes < total) {
          bytes += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        if (!gone) res.end();
      };
      pump();
    });
    return { s, written };
  };

  test("a chunked answer past the limit: tooLarge, not read to its end", async () => {
    const total = 256 * MiB;
    const { s, written } = await flooding(total, {});
    server = s;
    const c = client(api, nodeHttp(server.url, { maxAnswerBytes: MiB }));
    expect(brief(await c.add(1, 2)())).toStrictEqual({ _tag: "TransportError", reason: "tooLarge", limit: MiB });
    expect(await written).toBeLessThan(total / 8);
  });

  test("a content-length past the limit: refused before reading", async () => {
    const total = 256 * MiB;
    const { s, written } = await flooding(total, { "content-length": total });
    server = s;
    const c = client(api, nodeHttp(server.url, { maxAnswerBytes: MiB }));
    expect(brief(await c.add(1, 2)())).toStrictEqual({ _tag: "TransportError", reason: "tooLarge", limit: MiB });
    expect(await written).toBeLessThan(total / 8);
  });

  test("the default is 64 MiB", async () => {
    const { s, written } = await flooding(64 * MiB + 64 * 1024, {});
    server = s;
    const c = client(api, nodeHttp(server.url));
    expect(brief(await c.add(1, 2)())).toStrictEqual({ _tag: "TransportError", reason: "tooLarge", limit: 64 * MiB });
    await written;
  });

  test.each([
    ["with a content-length", true],
    ["chunked", false],
  ])("an answer of exactly maxAnswerBytes is taken, one byte more is not (%s)", async (_name, declared) => {
    const text = `{"jsonrpc":"2.0","error":{"code":1,"message":"${"ü".repeat(200)}"},"id":null}`;
    const bytes = Buffer.from(text, "utf8");
    server = await httpServer((_body, res) => {
      res.writeHead(200, {
        "content-type": "application/json",
        ...(declared ? { "content-length": bytes.length } : {}),
      });
      res.write(bytes.subarray(0, 101));
      res.end(bytes.subarray(101));
    });
    const at = client(api, nodeHttp(server.url, { maxAnswerBytes: bytes.length }));
    expect(await at.add(1, 2)()).toStrictEqual(E.left({ _tag: "ServerError", code: 1, message: "ü".repeat(200) }));
    const under = client(api, nodeHttp(server.url, { maxAnswerBytes: bytes.length - 1 }));
    expect(await under.add(1, 2)()).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "tooLarge", limit: bytes.length - 1 }),
    );
  });

  test("a gzip answer is inflated, as fetch does, and counted as inflated", async () => {
    const small = gzipSync(Buffer.from('{"jsonrpc":"2.0","error":{"code":2,"message":"zipped"},"id":null}'));
    const packed = gzipSync(Buffer.alloc(32 * MiB, " "));
    let big = false;
    server = await httpServer((_body, res) => {
      const body = big ? packed : small;
      res.writeHead(200, { "content-encoding": "gzip", "content-length": body.length }).end(body);
    });
    const c = client(api, nodeHttp(server.url, { maxAnswerBytes: MiB }));
    expect(await c.add(1, 2)()).toStrictEqual(E.left({ _tag: "ServerError", code: 2, message: "zipped" }));
    big = true;
    expect(brief(await c.add(1, 2)())).toStrictEqual({ _tag: "TransportError", reason: "tooLarge", limit: MiB });
  });

  test("after a tooLarge, the next call is answered (on a new connection)", async () => {
    let n = 0;
    server = await httpServer((body, res) => {
      const id = (JSON.parse(body) as { id: number }).id;
      res.end(JSON.stringify({ jsonrpc: "2.0", result: ++n === 1 ? "x".repeat(2000) : 4, id }));
    });
    const c = client(api, nodeHttp(server.url, { maxAnswerBytes: 1000 }));
    expect(brief(await c.add(1, 2)())).toStrictEqual({ _tag: "TransportError", reason: "tooLarge", limit: 1000 });
    expect(await c.add(2, 2)()).toStrictEqual(E.right(4));
  });
});

test("a server of rpcserver's own errors: the same as through http", async () => {
  server = await rpcServer({ boom: () => RpcError(-32099, "boom", [1]), ok: () => Success("ok") } as Methods);
  const c = client<{ boom: () => unknown; ok: () => unknown }>(nodeHttp(server.url));
  expect(await c.boom()()).toStrictEqual(E.left({ _tag: "ServerError", code: -32099, message: "boom", data: [1] }));
  expect(await c.ok()()).toStrictEqual(E.right("ok"));
});

/** A promise and its resolver. */
const deferred = <A = void>(): { promise: Promise<A>; resolve: (value: A) => void } => {
  let resolve: (value: A) => void = () => undefined;
  const promise = new Promise<A>((r) => (resolve = r));
  return { promise, resolve };
};

/** The values of a run until `leave` says so (then `break`), and its result. */
const readRun = async <V, A>(
  run: StreamRun<V, A>,
  leave: (value: V) => boolean = () => false,
): Promise<{ values: V[]; result: E.Either<ClientError, A> }> => {
  const values: V[] = [];
  for await (const value of run) if ((values.push(value), leave(value))) break;
  return { values, result: await run.result };
};

describe("streamed calls against the development server", () => {
  const api = contract({
    count: { params: t.tuple([t.number]), stream: t.number, result: t.string },
    endless: { stream: t.number, result: t.string },
    big: { params: t.tuple([t.number, t.number]), stream: t.string, result: t.number },
    atOnce: { stream: t.number, result: t.string },
  });
  /** What the server's generators did: how many values they yielded, and their `finally`. */
  let yielded = 0;
  let finished = deferred();
  const methods = implement(api, {
    count: async function* (to) {
      for (let i = 1; i <= to; i++) yield i;
      return to < 0 ? E.left({ code: 1, message: "Cannot count down" }) : E.right(`counted to ${to}`);
    },
    endless: async function* () {
      try {
        while (true) yield ++yielded;
      } finally {
        finished.resolve();
      }
    },
    big: async function* (n, size) {
      while (yielded < n) yield String(++yielded).padEnd(size, ".");
      return E.right(n);
    },
    atOnce: () => E.right("answered at once"),
  });

  /** Each answer's head as the server wrote it, beside its request's `Accept`. */
  const heads: Array<{ readonly accept: string | undefined; readonly type: string | undefined }> = [];
  let dev: DevServer;
  let url: string;
  const escaped: unknown[] = [];
  const onRejection = (reason: unknown): void => void escaped.push(reason);
  beforeAll(async () => {
    process.on("unhandledRejection", onRejection);
    const quiet = recordLogs();
    dev = await serve("127.0.0.1", 0, { methods, openrpc: false }).finally(quiet.restore);
    url = `http://127.0.0.1:${(dev.address() as AddressInfo).port}`;
    // Watches, beside the server's own handler: the head it writes, never the body.
    (dev as unknown as Server).prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
      const writeHead = res.writeHead.bind(res) as (
        status: number,
        headers?: Record<string, unknown>,
      ) => ServerResponse;
      res.writeHead = ((status: number, headers?: Record<string, unknown>) => {
        const type = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === "content-type")?.[1];
        heads.push({ accept: req.headers.accept, type: type === undefined ? undefined : String(type) });
        return writeHead(status, headers);
      }) as ServerResponse["writeHead"];
    });
  });
  afterAll(async () => {
    process.off("unhandledRejection", onRejection);
    dev.closeAllConnections();
    await new Promise<void>((resolve) => dev.close(() => resolve()));
  });
  beforeEach(() => {
    heads.length = 0;
    yielded = 0;
    finished = deferred();
  });
  afterEach(async () => {
    await new Promise((resolve) => setImmediate(resolve));
    expect(escaped).toEqual([]);
  });

  const calls = () => client(api, nodeHttp(url));
  const STREAMED = { accept: "text/event-stream, application/json", type: "text/event-stream" };

  test("values in order, then the result: the call asks for an event stream, and gets one", async () => {
    expect(await readRun(open(calls().count(3)))).toEqual({ values: [1, 2, 3], result: E.right("counted to 3") });
    const many = await readRun(open(calls().count(5000)));
    expect(many.values).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    expect(many.result).toEqual(E.right("counted to 5000"));
    expect(heads).toEqual([STREAMED, STREAMED]);
  });

  test("the same call run as a TaskEither asks for JSON only, and the server drops the values", async () => {
    expect(await calls().count(3)()).toEqual(E.right("counted to 3"));
    expect(heads).toEqual([{ accept: "application/json", type: "application/json" }]);
  });

  test("a method that answers before any value: a JSON answer, the run ends with it", async () => {
    expect(await open(calls().atOnce()).next()).toEqual({ done: true, value: E.right("answered at once") });
    expect(await readRun(open(calls().count(-1)))).toEqual({
      values: [],
      result: E.left({ _tag: "ServerError", code: 1, message: "Cannot count down" }),
    });
    const json = { accept: "text/event-stream, application/json", type: "application/json" };
    expect(heads).toEqual([json, json]);
  });

  test("foldStream: the values folded as they arrive, and the result", async () => {
    const sum = foldStream(0, (total, n: number) => total + n);
    expect(await pipe(calls().count(4), sum)()).toEqual(E.right([10, "counted to 4"]));
  });

  test("break stops the server's generator (its finally runs); the result is aborted; the next call is answered", async () => {
    const left = await readRun(open(calls().endless()), (n) => n === 3);
    await finished.promise;
    expect(left).toMatchObject({ values: [1, 2, 3], result: E.left({ _tag: "TransportError", reason: "aborted" }) });
    expect(await calls().count(1)()).toEqual(E.right("counted to 1"));
  });

  test("the call's signal stops it too, with its reason; no listener is left on the signal", async () => {
    const controller = new AbortController();
    const stopAt2 = (n: number): boolean => (n === 2 && controller.abort("enough"), false);
    const left = await readRun(open(pipe(calls().endless(), withOptions({ signal: controller.signal }))), stopAt2);
    await finished.promise;
    expect(left).toEqual({
      values: [1, 2],
      result: E.left({ _tag: "TransportError", reason: "aborted", cause: "enough" }),
    });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  test("a slow consumer holds the server back: what the transport hands on and what the server yields stay bounded (counted)", async () => {
    // 400 values of 128 KiB (50 MiB): far more than the sockets' buffers hold between the two ends.
    const total = 400;
    let handed = 0;
    const inner = nodeHttp(url);
    // Counts the values the transport hands over, before the run's buffer takes them.
    const counting: Transport = (body, options) => {
      const { onValue } = options;
      return inner(
        body,
        onValue === undefined ? options : { ...options, onValue: (value) => (handed++, onValue(value)) },
      );
    };
    const run = open(client(api, counting).big(total, 128 * 1024));
    expect((await run.next()).value).toMatch(/^1\./);
    let taken = 1;
    // The consumer stops: wait until the server has gone as far as it can (its count no longer moves).
    for (let still = 0, last = -1; still < 10;) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      [still, last] = [yielded === last ? still + 1 : 0, yielded];
    }
    expect(handed - taken).toBe(STREAM_BUFFER);
    // What the server ran ahead by is what the buffer, the response's and the sockets' buffers hold:
    // about 40 values here; without back-pressure, all 399.
    expect(yielded - taken).toBeGreaterThanOrEqual(STREAM_BUFFER);
    expect(yielded - taken).toBeLessThan(total / 2);
    let lead = 0;
    for await (const value of run) {
      expect(value.startsWith(`${++taken}.`)).toBe(true);
      lead = Math.max(lead, handed - taken);
    }
    expect(taken).toBe(total);
    expect(lead).toBeLessThanOrEqual(STREAM_BUFFER);
    expect(await run.result).toEqual(E.right(total));
  });
});

describe("streamed calls: the same values and answers as http, from servers written here", () => {
  const api = contract({ s: { stream: t.union([t.string, t.number]), result: t.unknown } });

  /** The value `value` of the call `id`, as a `$/progress` event. */
  const progress = (id: number, value: unknown): string =>
    `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "$/progress", params: { token: id, value } })}\n\n`;
  const answer = (id: number, result: unknown): string =>
    `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", result, id })}\n\n`;
  const SSE = { "content-type": "text/event-stream" };

  /** Writes `text` a few bytes at a time (a character may be cut), then ends. */
  const dribble = (res: ServerResponse, text: string | Buffer, step: number): void => {
    const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
    for (let at = 0; at < bytes.length; at += step) res.write(bytes.subarray(at, at + step));
    res.end();
  };

  const scripts: Record<string, (id: number, res: ServerResponse) => void> = {
    "cut anywhere: CRLF, CR, comments, multi-line data, other events and notifications skipped": (id, res) => {
      res.writeHead(200, SSE);
      const text =
        `: a comment\r\n${progress(id, "é🙂").replace(/\n/g, "\r\n")}` +
        `event: other\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "$/progress", params: { token: id, value: 9 } })}\n\n` +
        `data: {"jsonrpc":"2.0","method":"$/progress",\rdata: "params":{"token":${id + 1},"value":8}}\r\r` +
        `data: ${JSON.stringify({ jsonrpc: "2.0", method: "note", params: {} })}\n\n` +
        `${progress(id, 2)}data: {"jsonrpc":"2.0",\ndata: "result":"bytes","id":${id}}\n\n`;
      dribble(res, text, 1);
    },
    "gzipped, written in pieces": (id, res) => {
      res.writeHead(200, { ...SSE, "content-encoding": "gzip" });
      dribble(res, gzipSync(Buffer.from(progress(id, 1) + progress(id, "two") + answer(id, "zipped"))), 7);
    },
    "a 500 with an event stream": (id, res) => {
      res.writeHead(500, SSE);
      res.end(progress(id, 1) + answer(id, "anyway"));
    },
    "an error answer after a value": (id, res) => {
      res.writeHead(200, SSE);
      res.end(
        progress(id, 1) + `data: ${JSON.stringify({ jsonrpc: "2.0", error: { code: 5, message: "no" }, id })}\n\n`,
      );
    },
    "an answer that is no JSON": (id, res) => {
      res.writeHead(200, SSE);
      res.end(`${progress(id, 1)}data: not json\n\n`);
    },
    "ended before the answer: network": (id, res) => {
      res.writeHead(200, SSE);
      res.end(progress(id, 1));
    },
    "the connection lost mid-stream: network": (id, res) => {
      res.writeHead(200, SSE);
      res.write(progress(id, 1));
      setTimeout(() => res.socket?.destroy(), 10);
    },
    "an event longer than maxAnswerBytes: tooLarge": (id, res) => {
      res.writeHead(200, SSE);
      res.write(progress(id, 1));
      dribble(res, progress(id, "x".repeat(3000)) + answer(id, "never"), 500);
    },
  };

  let script = "";
  let target: Server;
  let url: string;
  beforeAll(async () => {
    target = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => scripts[script]?.((JSON.parse(Buffer.concat(chunks).toString()) as { id: number }).id, res));
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    target.closeAllConnections();
    await new Promise<void>((resolve) => target.close(() => resolve()));
  });

  const through = async (transport: Transport) => {
    const { values, result } = await readRun(open(client(api, transport).s()));
    return { values, result: withoutCause(result) };
  };

  test.each(Object.keys(scripts))("%s", async (name) => {
    script = name;
    const viaNode = await through(nodeHttp(url, { maxAnswerBytes: 2000 }));
    const viaFetch = await through(http(url, { maxAnswerBytes: 2000 }));
    expect(viaNode).toStrictEqual(viaFetch);
    expect(viaNode.values.length).toBeGreaterThan(0);
  });

  test("a plain call given an event stream anyway: its answer, the values dropped (as http)", async () => {
    script = "gzipped, written in pieces";
    expect(await client(api, nodeHttp(url)).s()()).toEqual(E.right("zipped"));
    expect(await client(api, http(url)).s()()).toEqual(E.right("zipped"));
  });
});
