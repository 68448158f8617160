/**
 * `nodeHandler` (rpcserver/server, issue 34 item 2): fetchHandler on Node's `req` and `res`, on
 * real sockets: the body limit stops reading (a declared length and a body that keeps coming), an
 * event stream written at the client's pace and stopped by its leaving, a keep-alive connection
 * that keeps no listener per request, and the one-line mounts of docs/integrations.md in Express,
 * Koa and Fastify. What it answers, case by case beside the development server, is
 * tests/fetch-handler.test.ts's "through a real node:http server". The `@ts-expect-error` lines
 * are compiled by `tsc`.
 */
import * as http from "node:http";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import express from "express";
import Fastify from "fastify";
import { contract, server, Success, withContext } from "../src";
import { fetchHandler } from "../src/fetch";
import { mcpHandler, mcpServer, mcpSessions } from "../src/mcp";
import { nodeHandler, type NodeHandler } from "../src/server";
import { setLogger, type Logger } from "../src/internal/core/logger";
import { onFastify } from "./integrations/harness";

const call = (method: string, params?: unknown, id: number = 1): string =>
  JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }), id });

const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined };
beforeAll(() => setLogger(quiet));

const methods = {
  add: (a: number, b: number) => Success(a + b),
  count: async function* (to: number) {
    for (let i = 1; i <= to; i++) yield i;
    return Success(`counted to ${to}`);
  },
};

/** A listening node:http server on 127.0.0.1, and how to reach and close it. */
const listen = async (listener: http.RequestListener): Promise<{ port: number; url: string; close: () => void }> => {
  const httpServer = http.createServer(listener);
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/rpc`,
    close: () => {
      httpServer.close();
      httpServer.closeAllConnections();
    },
  };
};

const served = (handler: NodeHandler) => listen((req, res) => void handler(req, res));

const post = async (url: string, body: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body,
  });
  return { status: response.status, type: response.headers.get("content-type"), body: await response.text() };
};

/** Everything a raw socket receives until the server closes it. */
const untilClosed = (socket: net.Socket): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
  });

describe("nodeHandler on node:http", () => {
  test("a call: 200 JSON with its length; a notification: 204", async () => {
    const s = await served(nodeHandler(methods));
    try {
      const response = await fetch(s.url, { method: "POST", body: call("add", [2, 3]) });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-length")).toBe("35");
      expect(await response.text()).toBe('{"jsonrpc":"2.0","result":5,"id":1}');
      const note = await fetch(s.url, { method: "POST", body: '{"jsonrpc":"2.0","method":"add","params":[1,1]}' });
      expect([note.status, await note.text()]).toEqual([204, ""]);
    } finally {
      s.close();
    }
  });

  test.each([
    // The head only: the body is never sent, so an answer can only come from the declared length.
    ["a declared length over the limit: 413 before a byte is read", 100, ["Content-Length: 1000000\r\n\r\n"]],
    // 2,000 bytes in one chunk, and the body never ended: the answer comes from the limit alone.
    [
      "a chunked body that keeps coming: 413 once past the limit, without waiting for its end",
      1000,
      ["Transfer-Encoding: chunked\r\n\r\n", `7d0\r\n${"x".repeat(2000)}\r\n`],
    ],
  ])("%s, and the connection closed", async (_, limit, sent) => {
    const s = await served(nodeHandler(methods, { maxBodyBytes: limit }));
    try {
      const socket = net.connect(s.port, "127.0.0.1");
      const received = untilClosed(socket);
      socket.write("POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      for (const part of sent) socket.write(part);
      const text = await received;
      expect(text).toMatch(/^HTTP\/1\.1 413 /);
      expect(text.toLowerCase()).toContain("connection: close");
      expect(text).toContain(`"data":"the body is over ${limit} bytes"`);
    } finally {
      s.close();
    }
  });

  test("an event stream; the client leaving mid-way stops the method (its finally runs)", async () => {
    let finished!: () => void;
    const ended = new Promise<void>((resolve) => (finished = resolve));
    const endless = async function* () {
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        finished();
      }
    };
    const s = await served(nodeHandler({ endless }));
    try {
      const socket = net.connect(s.port, "127.0.0.1");
      socket.on("error", () => undefined);
      const body = call("endless");
      socket.write(
        `POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      const head = await new Promise<string>((resolve) =>
        socket.once("data", (chunk: Buffer) => resolve(chunk.toString("latin1"))),
      );
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      expect(head.toLowerCase()).toContain("content-type: text/event-stream");
      socket.destroy();
      await ended;
    } finally {
      s.close();
    }
  });

  test("a whole answer aborts nothing: the request's signal stays as it was when the response closes after it", async () => {
    let signal: AbortSignal | undefined;
    const handler = nodeHandler(
      { ping: () => Success("pong") },
      {
        context: (request) => {
          signal = request.signal;
          return {};
        },
      },
    );
    let closed!: Promise<void>;
    const s = await listen((req, res) => {
      // Registered before the handler's own: run first, so that the turn after it sees what the handler did.
      closed = new Promise((resolve) => res.once("close", () => setImmediate(resolve)));
      void handler(req, res);
    });
    try {
      expect((await post(s.url, call("ping"), { Connection: "close" })).body).toBe(
        '{"jsonrpc":"2.0","result":"pong","id":1}',
      );
      await closed;
      expect(signal?.aborted).toBe(false);
    } finally {
      s.close();
    }
  });

  test("a keep-alive connection: many requests, no listener left on its socket", async () => {
    let socket: net.Socket | undefined;
    const handler = nodeHandler(methods);
    const s = await listen((req, res) => {
      socket = req.socket;
      void handler(req, res);
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const once = () =>
        new Promise<string>((resolve, reject) => {
          const request = http.request(s.url, { method: "POST", agent }, (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("end", () => resolve(Buffer.concat(chunks).toString()));
          });
          request.on("error", reject);
          request.end(call("add", [1, 2]));
        });
      const first = await once();
      const listeners = socket?.listenerCount("end");
      for (let i = 0; i < 20; i++) expect(await once()).toBe(first);
      expect(socket?.listenerCount("end")).toBe(listeners);
    } finally {
      agent.destroy();
      s.close();
    }
  });

  test("context(request) reads the request's headers; a server's context is typed and required", async () => {
    const whoami = withContext<{ user: string }>().withCodecs({ result: t.string }, (ctx) => Success(ctx.user));
    const s = await served(
      nodeHandler({ whoami }, { context: (request) => ({ user: request.headers.get("x-user") ?? "?" }) }),
    );
    const app = server(contract({ who: { result: t.string } }))
      .context<{ token: string }>()
      .implement({ who: (ctx) => E.right(ctx.token) });
    const a = await served(
      nodeHandler(app, { context: (request) => ({ token: request.headers.get("x-token") ?? "" }) }),
    );
    try {
      expect((await post(s.url, call("whoami"), { "X-User": "ada" })).body).toBe(
        '{"jsonrpc":"2.0","result":"ada","id":1}',
      );
      expect((await post(a.url, call("who"), { "X-Token": "t1" })).body).toBe('{"jsonrpc":"2.0","result":"t1","id":1}');
    } finally {
      s.close();
      a.close();
    }
    // Compiled, never run:
    void (() => {
      // @ts-expect-error: the server takes a context: the function that makes it is required
      nodeHandler(app);
      // @ts-expect-error: it must make the server's context
      nodeHandler(app, { context: () => ({ token: 1 }) });
      // @ts-expect-error: the methods need a context
      nodeHandler({ whoami });
    });
  });

  test("a fetch handler of this package is served as it is, options and all, on Node's request and response", async () => {
    const fetchServed = fetchHandler(methods, { maxBodyBytes: 64, openrpc: false });
    const node = await served(nodeHandler(fetchServed));
    try {
      expect(await post(node.url, call("add", [1, 2]))).toEqual({
        status: 200,
        type: "application/json",
        body: '{"jsonrpc":"2.0","result":3,"id":1}',
      });
      // Its own options: the body limit of 64 bytes, and no rpc.discover.
      expect((await post(node.url, call("add", [1, 2], 1) + " ".repeat(64))).status).toBe(413);
      expect(JSON.parse((await post(node.url, call("rpc.discover"))).body)).toEqual(
        expect.objectContaining({ error: expect.objectContaining({ code: -32601 }) }),
      );
      // What the fetch handler answers, byte for byte, for the same request.
      const direct = await fetchServed(
        new Request(node.url, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: call("add", [2, 3]),
        }),
      );
      expect((await post(node.url, call("add", [2, 3]))).body).toBe(await direct.text());
    } finally {
      node.close();
    }
  });

  test("any other function is a TypeError, and so are options beside a fetch handler", () => {
    const foreign = (request: Request): Promise<Response> => Promise.resolve(new Response(request.url));
    expect(() => nodeHandler(foreign)).toThrow(
      /^nodeHandler: a function it was given is no fetch handler of rpcserver's/,
    );
    // mcpHandler's sessions are kept around its fetch handler, on web Requests: not Node's.
    const sessioned = mcpHandler(mcpServer({ name: "s", version: "1.0.0" }), {
      sessions: mcpSessions({ id: () => "id" }),
    });
    // @ts-expect-error: and the compiler refuses it (tests/mcp-node-handler-types.test.ts)
    expect(() => nodeHandler(sessioned)).toThrow(/\(fetchHandler, mcpHandler without sessions\)/);
    // @ts-expect-error: a fetch handler brings its own options
    expect(() => nodeHandler(fetchHandler(methods), { maxBatchSize: 1 })).toThrow(
      new TypeError("nodeHandler: a fetch handler brings its own options; give none"),
    );
  });

  test("a bad option is fetchHandler's TypeError, named for this handler", () => {
    expect(() => nodeHandler(methods, { maxBodyBytes: -1 })).toThrow(
      new TypeError("nodeHandler: maxBodyBytes must be a number of bytes (Infinity for no limit)"),
    );
    expect(() => nodeHandler(null as never)).toThrow(/^nodeHandler: give a methods table/);
  });
});

/** What this test uses of Koa (its own types do not compile against the installed content-disposition's). */
interface KoaContext {
  respond: boolean;
  readonly req: http.IncomingMessage;
  readonly res: http.ServerResponse;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Koa = require("koa") as new () => {
  use: (middleware: (ctx: KoaContext) => Promise<void>) => void;
  callback: () => http.RequestListener;
};

describe("one line in each framework (docs/integrations.md)", () => {
  const handler = nodeHandler(methods);
  const expectAnswers = async (url: string): Promise<void> => {
    expect(await post(url, call("add", [20, 22]))).toEqual({
      status: 200,
      type: "application/json",
      body: '{"jsonrpc":"2.0","result":42,"id":1}',
    });
    const streamed = await post(url, call("count", [2]), { Accept: "text/event-stream" });
    expect(streamed.type).toBe("text/event-stream");
    expect(streamed.body).toContain('"result":"counted to 2"');
    expect(streamed.body.match(/\$\/progress/g)).toHaveLength(2);
  };

  test("Express: app.post(path, handler), with no body parser or after express.json()", async () => {
    const app = express();
    app.post("/rpc", handler);
    app.post("/parsed", express.json(), handler);
    const s = await listen(app);
    try {
      await expectAnswers(s.url);
      await expectAnswers(s.url.replace("/rpc", "/parsed"));
    } finally {
      s.close();
    }
  });

  test("Koa: ctx.respond = false, then the handler on ctx.req and ctx.res", async () => {
    const app = new Koa();
    app.use(async (ctx: KoaContext) => {
      ctx.respond = false;
      await handler(ctx.req, ctx.res);
    });
    const s = await listen(app.callback());
    try {
      await expectAnswers(s.url);
    } finally {
      s.close();
    }
  });

  /** Fastify serving the handler on the raw request and reply (its own parsers kept, or replaced by one that leaves the body), at its URL. */
  const onFastifyServer = async (keepParsers: boolean, use: (url: string) => Promise<void>): Promise<void> => {
    const app = Fastify();
    if (!keepParsers) {
      app.removeAllContentTypeParsers();
      app.addContentTypeParser("*", (_request, _payload, done) => done(null));
    }
    app.post("/rpc", (request, reply) => {
      reply.hijack();
      return handler(request.raw, reply.raw);
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      await use(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/rpc`);
    } finally {
      await app.close();
    }
  };

  onFastify(
    "Fastify with its own JSON parser, which reads the body first: -32000 and an error saying so, not a hang",
    async () => {
      const errors: unknown[] = [];
      setLogger({ ...quiet, error: (...args: unknown[]) => errors.push(args[0]) });
      try {
        await onFastifyServer(true, async (url) => {
          expect(await post(url, call("add", [1, 2]))).toEqual({
            status: 200,
            type: "application/json",
            body: '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server error"},"id":null}',
          });
        });
        expect(errors).toEqual([
          expect.stringMatching(/^rpcserver: nodeHandler: the request's body was read before the handler was called/),
        ]);
      } finally {
        setLogger(quiet);
      }
    },
  );

  onFastify("Fastify: its parsers leave the body, the reply hijacked, the handler on the raw ones", () =>
    onFastifyServer(false, expectAnswers),
  );
});
