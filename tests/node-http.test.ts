/**
 * rpcserver/node-http (issue 22, speed): `nodeHttp`, the client's transport on node:http with a
 * keep-alive agent, against real node:http servers on 127.0.0.1. It must answer as `http` (on
 * fetch) answers: the same Eithers for the same server, the same TransportErrors (status, network,
 * aborted, tooLarge), and keep its connection between calls.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { createServer, Agent, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { asyncDispatch, contract, implement, Error as RpcError, Success, type Methods } from "../src";
import { batch, client, http, notify, withOptions, type ClientError, type Transport } from "../src/client";
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
