/**
 * The one Node HTTP path (src/internal/node/node-exchange.ts: `nodeHandler` and the development
 * server) and `fetchHandler` under @hono/node-server, against a hostile peer on real sockets:
 * requests pipelined behind one being answered when the connection is reset, clients that leave
 * while a method runs or streams, lengths that lie, bodies at the limit's edge, a context function
 * that throws, bodies and methods with nothing to dispatch, header floods, 500 connections at once
 * and 10,000 requests on one keep-alive connection. Every case waits on events, never on time: an
 * exchange that never settles fails its test by jest's timeout. What tests/node-handler-hostile.test.ts
 * and tests/server.test.ts already hold (a half-close, TRACE, a mid-body disconnect of the CLI's
 * server, 20 pipelined requests' listeners) is not repeated here.
 */
import * as http from "node:http";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";
import express from "express";
import { JsonRpcError, Success } from "../src";
import { fetchHandler } from "../src/fetch";
import { nodeHandler, type NodeHandler } from "../src/server";
import { serve } from "../src/internal/node/server";
import { setLogger, type Logger } from "../src/internal/core/logger";

const call = (method: string, params?: unknown, id: number = 1): string =>
  JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }), id });

/** What was logged, by level. */
const logged = { error: [] as unknown[], info: [] as unknown[] };
const collecting: Logger = {
  error: (message: unknown) => void logged.error.push(message),
  warn: () => undefined,
  info: (message: unknown) => void logged.info.push(message),
};
beforeAll(() => setLogger(collecting));
beforeEach(() => {
  logged.error.length = 0;
  logged.info.length = 0;
});

/** A POST of `body` as raw bytes; `head` holds more header lines. */
const rawPost = (body: string | Buffer, head = "", path = "/rpc"): Buffer =>
  Buffer.concat([
    Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${head}` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    ),
    Buffer.from(body),
  ]);

/** A raw connection, and everything it receives until the server closes it. */
const connect = (port: number): { socket: net.Socket; received: Promise<string> } => {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  const received = new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
  });
  return { socket, received };
};

const statusLine = (answer: string): string => answer.slice(0, answer.indexOf("\r\n"));
const bodyOf = (answer: string): string => answer.slice(answer.indexOf("\r\n\r\n") + 4);

/** A promise and the function that resolves it. */
const signalled = (): { seen: Promise<void>; see: () => void } => {
  let see!: () => void;
  const seen = new Promise<void>((resolve) => (see = resolve));
  return { seen, see };
};

/** `count` promises, each resolved once by `hit`. */
const counter = (count: number): { all: Promise<void>; hit: () => void } => {
  const { seen, see } = signalled();
  let hits = 0;
  return {
    all: seen,
    hit: () => {
      hits += 1;
      if (hits === count) see();
    },
  };
};

/** A node:http server on 127.0.0.1 with `listener`. */
const listen = async (listener: http.RequestListener): Promise<{ port: number; close: () => void }> => {
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
};

/** What this file uses of Koa (its own types do not compile against the installed content-disposition's). */
interface KoaContext {
  respond: boolean;
  readonly req: http.IncomingMessage;
  readonly res: http.ServerResponse;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Koa = require("koa") as new () => {
  on: (event: "error", listener: (error: unknown) => void) => void;
  use: (middleware: (ctx: KoaContext) => Promise<void>) => void;
  callback: () => http.RequestListener;
};

// Hono's own declarations need the DOM's types, which this project's tsconfig leaves out.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { serve: honoServe } = require("@hono/node-server") as {
  serve: (options: { fetch: (request: Request) => Promise<Response>; port: number; hostname: string }) => http.Server;
};

/** A served handler: its port, the Promises of the exchanges it started (where it tells them), and how to close it. */
interface Mounted {
  readonly port: number;
  readonly settled: Array<Promise<void>>;
  readonly close: () => void;
}

/** `handler` in node:http. */
const onHttp = async (handler: NodeHandler): Promise<Mounted> => {
  const settled: Array<Promise<void>> = [];
  const s = await listen((req, res) => void settled.push(handler(req, res)));
  return { ...s, settled };
};

/** `handler` in Express, express.json() before it. */
const onExpress = async (handler: NodeHandler): Promise<Mounted> => {
  const settled: Array<Promise<void>> = [];
  const app = express();
  app.use(express.json());
  app.post("/rpc", (req, res) => void settled.push(handler(req, res)));
  const s = await listen(app);
  return { ...s, settled };
};

/** `handler` in Koa, as docs/integrations.md mounts it. */
const onKoa = async (handler: NodeHandler): Promise<Mounted> => {
  const settled: Array<Promise<void>> = [];
  const app = new Koa();
  // Koa prints every error of a response's socket (a client's reset: ECONNRESET, EPIPE) with
  // its stack unless the app listens for them: its own logging, not the handler's.
  app.on("error", () => undefined);
  app.use(async (ctx: KoaContext) => {
    ctx.respond = false;
    const exchange = handler(ctx.req, ctx.res);
    settled.push(exchange);
    await exchange;
  });
  const s = await listen(app.callback());
  return { ...s, settled };
};

type Mount = (handler: NodeHandler) => Promise<Mounted>;
const mounts: ReadonlyArray<[string, Mount]> = [
  ["nodeHandler in node:http", onHttp],
  ["nodeHandler in Express, after express.json()", onExpress],
  ["nodeHandler in Koa", onKoa],
];

/** An endless stream whose `finally` is counted. */
const endlessCounted = (started: () => void, finished: () => void) =>
  async function* () {
    started();
    try {
      for (let i = 0; ; i++) yield i;
    } finally {
      finished();
    }
  };

/** A method that waits for its signal; its start, its abort and its `finally` counted. */
const untilAborted =
  (started: () => void, aborted: () => void, finished: () => void) => async (ctx: { readonly signal: AbortSignal }) => {
    started();
    try {
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) resolve();
        ctx.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      aborted();
      return Success("stopped");
    } finally {
      finished();
    }
  };

const PIPELINED = 12;

describe("a connection reset while requests are pipelined behind the one being answered", () => {
  // Node gives the `res` of a request queued behind another no socket, and closes it never: an
  // event stream written to it waited for a `drain` that never came (its method never stopped,
  // its `finally` never ran, the handler's Promise never settled), and its signal never aborted
  // (a reset has no FIN). Each fails before the mend in node-exchange.ts and client-fin.ts.
  const streams = (path: string): Buffer =>
    Buffer.concat(
      Array.from({ length: PIPELINED }, (_, i) =>
        rawPost(call("endless", [], i), "Accept: text/event-stream\r\n", path),
      ),
    );

  test.each(mounts)("%s: every event stream stops, its finally runs, every exchange settles", async (_, mount) => {
    const started = counter(PIPELINED);
    const finished = counter(PIPELINED);
    const s = await mount(nodeHandler({ endless: endlessCounted(started.hit, finished.hit) }));
    try {
      const { socket } = connect(s.port);
      socket.pause();
      socket.write(streams("/rpc"));
      await started.all;
      socket.resetAndDestroy();
      await finished.all;
      expect(s.settled).toHaveLength(PIPELINED);
      await Promise.all(s.settled);
      expect(logged.error).toEqual([]);
    } finally {
      s.close();
    }
  });

  test("the development server: every event stream stops and its finally runs", async () => {
    const started = counter(PIPELINED);
    const finished = counter(PIPELINED);
    const dev = await serve("127.0.0.1", 0, { methods: { endless: endlessCounted(started.hit, finished.hit) } });
    try {
      const { socket } = connect(dev.port);
      socket.pause();
      socket.write(streams("/"));
      await started.all;
      socket.resetAndDestroy();
      await finished.all;
      expect(logged.error).toEqual([]);
    } finally {
      dev.close();
      dev.closeAllConnections();
    }
  });

  test.each(mounts)("%s: every slow method's signal aborts and its finally runs", async (_, mount) => {
    const started = counter(PIPELINED);
    const aborted = counter(PIPELINED);
    const finished = counter(PIPELINED);
    const handler = nodeHandler(
      { wait: untilAborted(started.hit, aborted.hit, finished.hit) } as never,
      {
        context: () => ({}),
      } as never,
    );
    const s = await mount(handler);
    try {
      const { socket } = connect(s.port);
      socket.write(Buffer.concat(Array.from({ length: PIPELINED }, (_, i) => rawPost(call("wait", [], i)))));
      await started.all;
      socket.resetAndDestroy();
      await aborted.all;
      await finished.all;
      await Promise.all(s.settled);
    } finally {
      s.close();
    }
  });
});

describe("a client that leaves while its call runs", () => {
  test.each(mounts)(
    "%s: a slow method's ctx.signal and the context's request.signal abort, its finally runs",
    async (_, mount) => {
      const started = signalled();
      const aborted = signalled();
      const finished = signalled();
      let seen: { signal: AbortSignal; header: string | null } | undefined;
      const handler = nodeHandler(
        { wait: untilAborted(started.see, aborted.see, finished.see) } as never,
        {
          context: (request: Request) => {
            seen = { signal: request.signal, header: request.headers.get("x-who") };
            return {};
          },
        } as never,
      );
      const s = await mount(handler);
      try {
        const { socket } = connect(s.port);
        socket.write(rawPost(call("wait"), "X-Who: a\r\nX-Who: b\r\n"));
        await started.seen;
        expect(seen?.signal.aborted).toBe(false);
        socket.destroy();
        await aborted.seen;
        await finished.seen;
        await Promise.all(s.settled);
        expect(seen?.signal.aborted).toBe(true);
        expect(seen?.header).toBe("a, b");
      } finally {
        s.close();
      }
    },
  );

  test("fetchHandler under @hono/node-server: a slow method's ctx.signal aborts, its finally runs", async () => {
    const started = signalled();
    const aborted = signalled();
    const finished = signalled();
    const handler = fetchHandler(
      { wait: untilAborted(started.see, aborted.see, finished.see) } as never,
      {
        context: () => ({}),
      } as never,
    );
    const server = honoServe({ fetch: handler, port: 0, hostname: "127.0.0.1" });
    await new Promise<void>((resolve) => server.once("listening", resolve));
    try {
      const { socket } = connect((server.address() as AddressInfo).port);
      socket.write(rawPost(call("wait")));
      await started.seen;
      socket.destroy();
      await aborted.seen;
      await finished.seen;
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });

  test.each(mounts)("%s: an event stream over SSE stops and its finally runs", async (_, mount) => {
    const started = signalled();
    const finished = signalled();
    const s = await mount(nodeHandler({ endless: endlessCounted(started.see, finished.see) }));
    try {
      const { socket } = connect(s.port);
      const head = new Promise<string>((resolve) => socket.once("data", (chunk: Buffer) => resolve(chunk.toString())));
      socket.write(rawPost(call("endless"), "Accept: text/event-stream\r\n"));
      expect(await head).toMatch(/^HTTP\/1\.1 200 [^]*content-type: text\/event-stream/i);
      await started.seen;
      socket.destroy();
      await finished.seen;
      await Promise.all(s.settled);
    } finally {
      s.close();
    }
  });
});

describe("a body that is not what its head says", () => {
  const counted = () => {
    let calls = 0;
    return {
      methods: {
        add: (a: number, b: number) => {
          calls += 1;
          return Success(a + b);
        },
      },
      calls: () => calls,
    };
  };

  test("a Content-Length longer than the body, then a FIN: nothing dispatched, Node's 400, the exchange settles", async () => {
    const { methods, calls } = counted();
    const s = await onHttp(nodeHandler(methods));
    try {
      const { socket, received } = connect(s.port);
      socket.write(
        `POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n${call("add", [1, 2])}`,
        () => void socket.end(),
      );
      expect(statusLine(await received)).toBe("HTTP/1.1 400 Bad Request");
      await Promise.all(s.settled);
      expect(calls()).toBe(0);
      expect(logged.error).toEqual([]);
      expect(logged.info).toEqual([expect.stringContaining("POST /rpc: not answered")]);
    } finally {
      s.close();
    }
  });

  test("a Content-Length shorter than the body: the rest is a bad request, the connection closed, no method called", async () => {
    const { methods, calls } = counted();
    const s = await onHttp(nodeHandler(methods));
    try {
      const { socket, received } = connect(s.port);
      const body = call("add", [1, 2]);
      socket.write(`POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length - 6}\r\n\r\n${body}`);
      const answer = await received;
      expect(answer.endsWith("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")).toBe(true);
      expect(answer).not.toContain('"result"');
      await Promise.all(s.settled);
      expect(calls()).toBe(0);
      expect(logged.error).toEqual([]);
    } finally {
      s.close();
    }
  });

  test.each([
    ["nodeHandler in node:http", onHttp],
    ["nodeHandler in Koa", onKoa],
  ] as Array<[string, Mount]>)(
    "%s: a reset after half the body: nothing dispatched, the exchange settles, no error logged",
    async (_, mount) => {
      const { methods, calls } = counted();
      const s = await mount(nodeHandler(methods));
      try {
        const { socket, received } = connect(s.port);
        const whole = rawPost(call("add", [1, 2]));
        const half = whole.subarray(0, whole.length - 10);
        socket.write(half, () => socket.resetAndDestroy());
        await received;
        // The handler was called (its head came), and its exchange settles.
        while (s.settled.length === 0) await new Promise((resolve) => setImmediate(resolve));
        await Promise.all(s.settled);
        expect(calls()).toBe(0);
        expect(logged.error).toEqual([]);
      } finally {
        s.close();
      }
    },
  );
});

describe("the body limit at its edge", () => {
  const body = call("add", [1, 2]);
  const limit = Buffer.byteLength(body);
  const chunked = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n0\r\n\r\n`;

  test("exactly at the limit, with a length and chunked: answered, the connection kept", async () => {
    const s = await onHttp(nodeHandler({ add: (a: number, b: number) => Success(a + b) }, { maxBodyBytes: limit }));
    try {
      const { socket, received } = connect(s.port);
      socket.write(
        `${rawPost(body).toString()}POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n` +
          `Connection: close\r\n\r\n${chunked(body)}`,
      );
      const answer = await received;
      expect(answer.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
      expect(answer.match(/\{"jsonrpc":"2.0","result":3,"id":1\}/g)).toHaveLength(2);
    } finally {
      s.close();
    }
  });

  test("one byte over, chunked: 413 and the connection closed; one byte over, declared: 413", async () => {
    const s = await onHttp(nodeHandler({ add: (a: number, b: number) => Success(a + b) }, { maxBodyBytes: limit - 1 }));
    try {
      for (const sent of [
        `POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(body)}`,
        rawPost(body).toString(),
      ]) {
        const { socket, received } = connect(s.port);
        socket.write(sent);
        const answer = await received;
        expect(statusLine(answer)).toBe("HTTP/1.1 413 Payload Too Large");
        expect(answer.toLowerCase()).toContain("connection: close");
      }
      await Promise.all(s.settled);
    } finally {
      s.close();
    }
  });
});

describe("a context function that throws", () => {
  test("an Error: -32000 and the error logged; a JsonRpcError: its error, id null; the connection kept", async () => {
    const handler = nodeHandler({ add: (a: number, b: number) => Success(a + b) }, {
      context: (request: Request) => {
        if (request.headers.get("x-refuse") === "rpc") throw new JsonRpcError(-32001, "refused", "no");
        throw new Error("the database is down");
      },
    } as never);
    const s = await onHttp(handler);
    try {
      const { socket, received } = connect(s.port);
      socket.write(
        Buffer.concat([
          rawPost(call("add", [1, 2])),
          rawPost(call("add", [1, 2]), "X-Refuse: rpc\r\nConnection: close\r\n"),
        ]),
      );
      const answer = await received;
      const bodies = answer
        .split(/HTTP\/1\.1 200 OK/)
        .slice(1)
        .map(bodyOf);
      expect(bodies).toEqual([
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server error"},"id":null}',
        '{"jsonrpc":"2.0","error":{"code":-32001,"message":"refused","data":"no"},"id":null}',
      ]);
      expect(logged.error).toEqual([expect.stringContaining("the context function failed: the database is down")]);
    } finally {
      s.close();
    }
  });
});

describe("requests with nothing to dispatch", () => {
  const methods = { add: (a: number, b: number) => Success(a + b) };

  test.each([
    ["an empty POST", "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 200 OK", -32700],
    [
      "a body that is not UTF-8",
      `POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\n\r\n\u00ff\u00fe\u00c0\u0080`,
      "HTTP/1.1 200 OK",
      -32700,
    ],
    ["HEAD", "HEAD /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "HTTP/1.1 405 Method Not Allowed", undefined],
    ["OPTIONS", "OPTIONS /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "HTTP/1.1 405 Method Not Allowed", undefined],
    [
      "GET, not a browser's",
      "GET /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
      "HTTP/1.1 405 Method Not Allowed",
      undefined,
    ],
  ])("%s: its answer on nodeHandler and on the development server alike", async (_, sent, status, code) => {
    const s = await onHttp(nodeHandler(methods));
    const dev = await serve("127.0.0.1", 0, { methods });
    try {
      for (const port of [s.port, dev.port]) {
        const { socket, received } = connect(port);
        // latin1: the bytes as written (0xff 0xfe 0xc0 0x80 for the body that is not UTF-8).
        socket.write(Buffer.from(sent.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"), "latin1"));
        const answer = await received;
        expect(statusLine(answer)).toBe(status);
        if (code === undefined) expect(answer.toLowerCase()).toContain("allow: post");
        else expect(JSON.parse(bodyOf(answer))).toMatchObject({ error: { code }, id: null });
      }
      await Promise.all(s.settled);
    } finally {
      s.close();
      dev.close();
      dev.closeAllConnections();
    }
  });

  test("a flood of 5,000 headers: Node's 431 before the handler, and the server answers the next client", async () => {
    const s = await onHttp(nodeHandler(methods));
    try {
      const { socket, received } = connect(s.port);
      const flood = Array.from({ length: 5000 }, (_, i) => `X-Flood-${i}: ${"v".repeat(20)}\r\n`).join("");
      socket.write(rawPost(call("add", [1, 2]), flood));
      expect(statusLine(await received)).toBe("HTTP/1.1 431 Request Header Fields Too Large");
      expect(s.settled).toHaveLength(0);
      const next = connect(s.port);
      next.socket.write(rawPost(call("add", [1, 2]), "Connection: close\r\n"));
      expect(bodyOf(await next.received)).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
    } finally {
      s.close();
    }
  });
});

describe("load", () => {
  const methods = { add: (a: number, b: number) => Success(a + b) };

  test("500 connections at once, one request each: each answered with its own result", async () => {
    const s = await onHttp(nodeHandler(methods));
    try {
      const answers = await Promise.all(
        Array.from({ length: 500 }, (_, i) => {
          const { socket, received } = connect(s.port);
          socket.write(rawPost(call("add", [i, 1], i), "Connection: close\r\n"));
          return received.then(bodyOf);
        }),
      );
      answers.forEach((answer, i) => expect(answer).toBe(`{"jsonrpc":"2.0","result":${i + 1},"id":${i}}`));
      expect(s.settled).toHaveLength(500);
      await Promise.all(s.settled);
    } finally {
      s.close();
    }
  });

  test("10,000 requests on one keep-alive connection (100 pipelined at a time): no listener nor memory kept", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    let socket: net.Socket | undefined;
    const handler = nodeHandler(methods);
    const s = await listen((req, res) => {
      socket = req.socket;
      void handler(req, res);
    });
    const client = net.connect(s.port, "127.0.0.1");
    let text = "";
    let waiting: { count: number; done: () => void } | undefined;
    client.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      const answered = text.split("HTTP/1.1 200 OK").length - 1;
      if (waiting !== undefined && answered >= waiting.count && text.endsWith(`"id":${waiting.count - 1}}`)) {
        waiting.done();
      }
    });
    /** 100 pipelined requests, resolved with their answers once all came. */
    const batch = (): Promise<string> => {
      const { seen, see } = signalled();
      text = "";
      waiting = { count: 100, done: see };
      client.write(Buffer.concat(Array.from({ length: 100 }, (_, i) => rawPost(call("add", [i, i], i)))));
      return seen.then(() => text);
    };
    const listeners = (): number[] =>
      ["end", "close", "data", "error", "drain", "timeout"].map((name) => socket?.listenerCount(name) ?? -1);
    try {
      const first = await batch();
      expect(first.match(/"result":\d+/g)).toHaveLength(100);
      const after = listeners();
      gc();
      const heap = process.memoryUsage().heapUsed;
      for (let round = 1; round < 100; round++) {
        const answers = await batch();
        expect(answers.match(/"result":\d+/g)).toHaveLength(100);
      }
      expect(listeners()).toEqual(after);
      gc();
      // Room for the heap's own noise; a closure kept per request would pass it.
      expect(process.memoryUsage().heapUsed - heap).toBeLessThan(8 * 1024 * 1024);
    } finally {
      client.destroy();
      s.close();
    }
  });
});
