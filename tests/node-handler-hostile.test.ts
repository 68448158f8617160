/**
 * `nodeHandler` against a hostile or careless peer, on real sockets (node:net and node:http), where
 * tests/node-handler.test.ts is the handler as documented: a client that half-closes after its
 * request, a handler mounted under a path by Express, a response a middleware began. Each case is
 * one a defect was found in; the development server (`serve`) is the reference where both answer.
 */
import * as http from "node:http";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import express from "express";
import Fastify from "fastify";
import { Success } from "../src";
import { nodeHandler } from "../src/server";
import { serve } from "../src/internal/node/server";
import { setLogger, type Logger } from "../src/internal/core/logger";
import { onFastify } from "./integrations/harness";

const call = (method: string, params?: unknown, id: number = 1): string =>
  JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }), id });

const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined };
beforeAll(() => setLogger(quiet));
afterEach(() => setLogger(quiet));

/** A listening server on 127.0.0.1 (node:http's, or a framework's listener on one). */
const listen = async (listener: http.RequestListener): Promise<{ port: number; close: () => void }> => {
  const httpServer = http.createServer(listener);
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  return {
    port: (httpServer.address() as AddressInfo).port,
    close: () => {
      httpServer.close();
      httpServer.closeAllConnections();
    },
  };
};

/** A POST of `body` to `path` as raw bytes. */
const rawPost = (path: string, body: string, head = ""): string =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/**
 * Sends `data` on a new connection, then half-closes it (shutdown(SHUT_WR)) when `halfClose`,
 * and resolves to everything received until the server closes the connection.
 */
const exchange = (port: number, data: string, halfClose = false): Promise<string> =>
  new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.write(data, () => {
      if (halfClose) socket.end();
    });
  });

const bodyOf = (answer: string): string => answer.slice(answer.indexOf("\r\n\r\n") + 4);

describe("a client that half-closes after its request", () => {
  /**
   * A method that answers only once the server has seen the client's FIN: without the half-open
   * mode node:http has ended the socket by then, whatever the method says.
   */
  const afterFin = () => {
    let fin!: () => void;
    const seen = new Promise<void>((resolve) => (fin = resolve));
    const methods = {
      late: async () => {
        await seen;
        return Success("late");
      },
    };
    /** `fin` once `socket` has ended (now, or when it does). */
    const watch = (socket: net.Socket): void => {
      if (socket.readableEnded) fin();
      else socket.once("end", fin);
    };
    return { methods, watch };
  };

  test("gets its answer on node:http, as from the development server", async () => {
    const { methods, watch } = afterFin();
    const handler = nodeHandler(methods);
    const s = await listen((req, res) => {
      watch(req.socket);
      void handler(req, res);
    });
    try {
      const answer = await exchange(s.port, rawPost("/rpc", call("late")), true);
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(bodyOf(answer)).toBe('{"jsonrpc":"2.0","result":"late","id":1}');
    } finally {
      s.close();
    }
  });

  onFastify("gets its answer from Fastify", async () => {
    const { methods, watch } = afterFin();
    const handler = nodeHandler({ ...methods, add: (a: number, b: number) => Success(a + b) });
    const app = Fastify();
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", (_request, _payload, done) => done(null));
    app.post("/rpc", (request, reply) => {
      watch(request.raw.socket);
      reply.hijack();
      return handler(request.raw, reply.raw);
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const { port } = app.server.address() as AddressInfo;
      // A first request, so that the handler has seen the server before any FIN (Fastify may call
      // it a turn after the request's head).
      expect(bodyOf(await exchange(port, rawPost("/rpc", call("add", [1, 2]), "Connection: close\r\n")))).toBe(
        '{"jsonrpc":"2.0","result":3,"id":1}',
      );
      const answer = await exchange(port, rawPost("/rpc", call("late")), true);
      expect(bodyOf(answer)).toBe('{"jsonrpc":"2.0","result":"late","id":1}');
    } finally {
      await app.close();
    }
  });
});

describe("mounted under a path by Express (app.use)", () => {
  test("the inspector page calls the path it is served at, not Express's stripped req.url", async () => {
    const app = express();
    app.use("/api/rpc", nodeHandler({ add: (a: number, b: number) => Success(a + b) }));
    const s = await listen(app);
    try {
      const page = await exchange(
        s.port,
        "GET /api/rpc?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html\r\nConnection: close\r\n\r\n",
      );
      expect(page).toMatch(/^HTTP\/1\.1 200 /);
      const called = /<meta name="rpcserver-url" content="([^"]*)">/.exec(page)?.[1];
      expect(called).toBe("/api/rpc");
      // Where the page posts its calls, they are answered.
      const answer = await exchange(s.port, rawPost(called ?? "", call("add", [1, 2]), "Connection: close\r\n"));
      expect(bodyOf(answer)).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
    } finally {
      s.close();
    }
  });
});

describe("a response a middleware began before the handler was called", () => {
  /** A server whose middleware writes to `res` as `begin` says, then calls the handler; and what happened. */
  const begunBy = async (begin: (res: http.ServerResponse) => void) => {
    let calls = 0;
    const errors: unknown[] = [];
    setLogger({ ...quiet, error: (...args: unknown[]) => errors.push(args[0]) });
    const handler = nodeHandler({
      add: (a: number, b: number) => {
        calls += 1;
        return Success(a + b);
      },
    });
    let handled!: (settled: Promise<void>) => void;
    const settled = new Promise<void>((resolve) => (handled = resolve));
    const s = await listen((req, res) => {
      begin(res);
      handled(handler(req, res));
    });
    return { s, settled, calls: () => calls, errors };
  };

  test("half written: nothing dispatched, an error logged, the connection closed (no answer left hanging)", async () => {
    const { s, settled, calls, errors } = await begunBy((res) => {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.write("partial");
    });
    try {
      const received = exchange(s.port, rawPost("/rpc", call("add", [1, 2])));
      await settled;
      expect(calls()).toBe(0);
      expect(errors).toEqual([expect.stringContaining("the response was begun before the handler was called")]);
      // The connection closes (it was left open, the answer never ended): never an answer that looks whole.
      expect(await received).not.toContain("0\r\n\r\n");
    } finally {
      s.close();
    }
  });

  test("finished: nothing dispatched, its answer left whole, the connection kept", async () => {
    const { s, settled, calls } = await begunBy((res) => {
      res.writeHead(200, { "Content-Type": "text/plain", "Content-Length": 4 }).end("done");
    });
    try {
      // Two requests on one connection: the second is answered too.
      const both = rawPost("/rpc", call("add", [1, 2])) + rawPost("/rpc", call("add", [1, 2]), "Connection: close\r\n");
      const answer = await exchange(s.port, both);
      await settled;
      expect(answer.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
      expect(answer.match(/\r\n\r\ndone/g)).toHaveLength(2);
      expect(calls()).toBe(0);
    } finally {
      s.close();
    }
  });
});

describe("pipelined requests pending at once on one connection", () => {
  const PIPELINED = 20;

  /** Methods that answer once `PIPELINED` calls are pending, and a look at the socket when they all are. */
  const gated = () => {
    let calls = 0;
    let release!: () => void;
    const all = new Promise<void>((resolve) => (release = resolve));
    let socket: net.Socket | undefined;
    let pendingListeners = -1;
    const methods = {
      wait: async (i: number) => {
        calls += 1;
        if (calls === PIPELINED) {
          pendingListeners = socket?.listenerCount("end") ?? -1;
          release();
        }
        await all;
        return Success(i);
      },
    };
    return { methods, seen: (s: net.Socket) => (socket = s), listeners: () => pendingListeners };
  };

  const pipelined = (path: string): string =>
    Array.from({ length: PIPELINED }, (_, i) =>
      rawPost(path, call("wait", [i], i), i === PIPELINED - 1 ? "Connection: close\r\n" : ""),
    ).join("");

  test("nodeHandler adds one end listener to their socket, not one each (over EventEmitter's 10: a warning)", async () => {
    const { methods, seen, listeners } = gated();
    const handler = nodeHandler(methods);
    let before = -1;
    const s = await listen((req, res) => {
      if (before === -1) before = req.socket.listenerCount("end");
      seen(req.socket);
      void handler(req, res);
    });
    try {
      const answer = await exchange(s.port, pipelined("/rpc"));
      expect(answer.match(/"result":\d+/g)).toHaveLength(PIPELINED);
      expect(listeners()).toBe(before + 1);
    } finally {
      s.close();
    }
  });

  test("so does the development server", async () => {
    const { methods, seen, listeners } = gated();
    const dev = await serve("127.0.0.1", 0, { methods });
    let before = -1;
    (dev as unknown as http.Server).on("connection", (socket: net.Socket) => {
      before = socket.listenerCount("end");
      seen(socket);
    });
    try {
      const answer = await exchange(dev.port, pipelined("/"));
      expect(answer.match(/"result":\d+/g)).toHaveLength(PIPELINED);
      expect(listeners()).toBe(before + 1);
    } finally {
      dev.close();
      dev.closeAllConnections();
    }
  });
});

describe("a method the Fetch API will not make a Request with", () => {
  test("TRACE is answered 405 as by the development server (not 400), the guard still first", async () => {
    const add = (a: number, b: number) => Success(a + b);
    const handler = nodeHandler({ add });
    const s = await listen((req, res) => void handler(req, res));
    const dev = await serve("127.0.0.1", 0, { methods: { add } });
    const trace = (host: string): string => `TRACE /rpc HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
    const statusLine = (answer: string): string => answer.slice(0, answer.indexOf("\r\n"));
    try {
      const answer = await exchange(s.port, trace("127.0.0.1"));
      expect(statusLine(answer)).toBe("HTTP/1.1 405 Method Not Allowed");
      expect(statusLine(await exchange(dev.port, trace("127.0.0.1")))).toBe("HTTP/1.1 405 Method Not Allowed");
      expect(answer.toLowerCase()).toContain("allow: post");
      expect(statusLine(await exchange(s.port, trace("evil.example")))).toBe("HTTP/1.1 403 Forbidden");
    } finally {
      s.close();
      dev.close();
      dev.closeAllConnections();
    }
  });
});

describe("a context that keeps only its request's signal", () => {
  test("the client leaving still aborts it after the Request was collected", async () => {
    const seen = { aborted: false };
    const handler = nodeHandler(
      {
        wait: async (ctx: { readonly client: AbortSignal }) => {
          await new Promise<void>((settle) => ctx.client.addEventListener("abort", () => settle(), { once: true }));
          seen.aborted = true;
          return Success("left");
        },
      },
      // The web Request is dropped at once: only its signal is kept.
      { context: (request: Request) => ({ client: request.signal }) },
    );
    const server = http.createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const socket = net.connect(port, "127.0.0.1");
      await new Promise((go) => socket.once("connect", go));
      const body = JSON.stringify({ jsonrpc: "2.0", method: "wait", id: 1 });
      socket.write(
        `POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      // A few turns for the request to reach the method, then a full collection, then the client leaves.
      for (let i = 0; i < 10; i += 1) await new Promise((go) => setImmediate(go));
      setFlagsFromString("--expose-gc");
      (runInNewContext("gc") as () => void)();
      socket.destroy();
      for (let i = 0; i < 1_000 && !seen.aborted; i += 1) await new Promise((go) => setTimeout(go, 5));
      expect(seen.aborted).toBe(true);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});
