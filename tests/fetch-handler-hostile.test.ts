/**
 * `fetchHandler` (rpcserver/fetch) as the field meets it, on real sockets: served by
 * `@hono/node-server` inside a Hono app as docs/fetch.md mounts it (`app.all("/rpc", (c) =>
 * handler(c.req.raw))`), called by Node's `fetch` and by raw TCP clients. Each case here was a
 * defect found by probing the handler as a hostile peer or a hurried integrator would.
 */
import * as http from "node:http";
import * as net from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import { Success } from "../src";
import { fetchHandler, type FetchHandler } from "../src/fetch";
import { setLogger, type Logger } from "../src/internal/core/logger";
import { serve } from "../src/server";

const call = (method: string, params?: unknown, id: number | string | null = 1): string =>
  JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }), id });

const methods = { add: (a: number, b: number) => Success(a + b) };

/** What the handler logged, by level. */
const logged: { error: string[]; warn: string[]; info: string[] } = { error: [], warn: [], info: [] };
const recording: Logger = {
  error: (message) => logged.error.push(String(message)),
  warn: (message) => logged.warn.push(String(message)),
  info: (message) => logged.info.push(String(message)),
};
beforeAll(() => setLogger(recording));
beforeEach(() => {
  logged.error.length = 0;
  logged.warn.length = 0;
  logged.info.length = 0;
});

/**
 * What these tests use of Hono and @hono/node-server, typed here: their own declarations need the
 * DOM's types (MessageEvent, CloseEvent), which this project's tsconfig leaves out.
 */
interface HonoContext {
  readonly req: { readonly raw: Request; json: () => Promise<unknown> };
}
type MiddlewareHandler = (c: HonoContext, next: () => Promise<void>) => Promise<void>;
interface Hono {
  use: (middleware: MiddlewareHandler) => void;
  all: (path: string, handle: (c: HonoContext) => Promise<Response>) => void;
  fetch: (request: Request) => Promise<Response>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Hono } = require("hono") as { Hono: new () => Hono };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { serve: honoServe } = require("@hono/node-server") as {
  serve: (options: { fetch: Hono["fetch"]; port: number; hostname: string }) => http.Server;
};

/** A Hono app on a real socket: `before` (a middleware) runs first, then `mount` hands the request to the handler. */
const hono = async (
  mount: (app: Hono) => void,
  before?: MiddlewareHandler,
): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  const app = new Hono();
  if (before !== undefined) app.use(before);
  mount(app);
  const server = honoServe({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/rpc`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const post = (url: string, body: string): Promise<Response> =>
  fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body });

describe("a request the handler cannot read through no fault of the client", () => {
  const handler: FetchHandler = fetchHandler(methods);

  test("a body a middleware read first: -32000 and an error that says so, not the client's 400 logged at info", async () => {
    // A logging or validating middleware that reads the body (Hono's c.req.json() reads c.req.raw).
    const seen: unknown[] = [];
    const app = await hono(
      (a) => a.all("/rpc", (c) => handler(c.req.raw)),
      async (c, next) => {
        seen.push(await c.req.json());
        await next();
      },
    );
    try {
      const response = await post(app.url, call("add", [1, 2]));
      expect(seen).toEqual([{ jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 }]);
      expect([response.status, response.headers.get("content-type")]).toEqual([200, "application/json"]);
      expect(JSON.parse(await response.text())).toEqual({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Server error" },
        id: null,
      });
      expect(logged.error).toHaveLength(1);
      expect(logged.error[0]).toContain("the request's body was read before the handler was called");
      expect(logged.info).toEqual([]);
    } finally {
      await app.close();
    }
  });

  test.each([
    ["of a declared length", { "Content-Length": String(Buffer.byteLength(call("add", [1, 2]))) }],
    ["of no declared length", {}],
  ])("a body %s locked by a reader before the handler, nothing read: -32000 and the same error", async (_, headers) => {
    const request = new Request("http://localhost/rpc", {
      method: "POST",
      headers,
      body: call("add", [1, 2]),
    });
    request.body?.getReader();
    expect(request.bodyUsed).toBe(false);
    const response = await handler(request);
    expect(JSON.parse(await response.text())).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Server error" },
      id: null,
    });
    expect(logged.error).toHaveLength(1);
    expect(logged.error[0]).toContain("the request's body was read before the handler was called");
    expect(logged.info).toEqual([]);
  });

  test("not a Request (Hono's c.req, not c.req.raw): -32000 and an error that says what to pass", async () => {
    const app = await hono((a) => a.all("/rpc", (c) => handler(c.req as unknown as Request)));
    try {
      const response = await post(app.url, call("add", [1, 2]));
      expect(response.status).toBe(200);
      expect(JSON.parse(await response.text())).toMatchObject({ error: { code: -32000 }, id: null });
      expect(logged.error).toHaveLength(1);
      expect(logged.error[0]).toContain("fetchHandler takes a web Request");
      expect(logged.info).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

/** One raw exchange over node:http: status, the headers that are not framing, the body. */
const exchange = (
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
): Promise<{ status: number; headers: Record<string, string>; body: string }> =>
  new Promise((resolve, reject) => {
    const request = http.request(url, { method: "POST", headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const framing = ["date", "connection", "keep-alive", "content-length", "transfer-encoding"];
        const kept = Object.entries(response.headers).filter(([name]) => !framing.includes(name));
        resolve({
          status: response.statusCode ?? 0,
          headers: Object.fromEntries(kept.map(([name, value]) => [name, String(value)]).sort()),
          body: Buffer.concat(chunks).toString("utf8"),
        });
      });
    });
    request.on("error", reject);
    request.end(body);
  });

describe("an encoded body (Content-Encoding), which no host here decodes", () => {
  test("415 with Accept-Encoding: identity and an error that names the coding, on both servers alike", async () => {
    let ran = 0;
    const counted = {
      add: (a: number, b: number) => {
        ran++;
        return Success(a + b);
      },
    };
    const dev = await serve("127.0.0.1", 0, { methods: counted });
    const app = await hono((a) => a.all("/rpc", (c) => fetchHandler(counted)(c.req.raw)));
    try {
      const zipped = gzipSync(call("add", [1, 2]));
      const headers = { "Content-Type": "application/json", "Content-Encoding": "gzip" };
      const expected = {
        status: 415,
        headers: { "accept-encoding": "identity", "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          error: {
            code: -32600,
            message: "Invalid Request",
            data: "the body is encoded (Content-Encoding: gzip): send it unencoded",
          },
          id: null,
        }),
      };
      expect(await exchange(dev.url, headers, zipped)).toEqual(expected);
      expect(await exchange(app.url, headers, zipped)).toEqual(expected);
      expect(ran).toBe(0);
      // identity is no encoding: dispatched as before.
      const plain = new TextEncoder().encode(call("add", [1, 2]));
      const identity = { "Content-Encoding": "identity" };
      expect((await exchange(dev.url, identity, plain)).body).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
      expect((await exchange(app.url, identity, plain)).body).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
    } finally {
      dev.close();
      dev.closeAllConnections();
      await app.close();
    }
  });
});

describe("held under probing (kept so)", () => {
  test("the body limit is enforced as the body streams: a chunked body past it that never ends gets its 413", async () => {
    let ran = 0;
    const handler = fetchHandler({ hit: () => Success(++ran) }, { maxBodyBytes: 1000 });
    const app = await hono((a) => a.all("/rpc", (c) => handler(c.req.raw)));
    const { port } = new URL(app.url);
    const socket = net.connect(Number(port), "127.0.0.1");
    try {
      const head = await new Promise<string>((resolve, reject) => {
        let got = "";
        socket.on("data", (chunk: Buffer) => {
          got += chunk.toString("latin1");
          if (got.includes("\r\n\r\n")) resolve(got);
        });
        socket.on("error", reject);
        const chunk = "x".repeat(600);
        // Two chunks past the limit, and no last chunk: a handler that waited for the end would never answer.
        socket.write(`POST /rpc HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n`);
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      });
      expect(head.startsWith("HTTP/1.1 413 ")).toBe(true);
      expect(ran).toBe(0);
    } finally {
      socket.destroy();
      await app.close();
    }
  });
});

describe("a client that leaves a stream after its Request was collected", () => {
  /** A full collection (V8's `gc`, reached without `--expose-gc` on the command line), after a turn. */
  const collect = async (): Promise<void> => {
    await new Promise((go) => setImmediate(go));
    setFlagsFromString("--expose-gc");
    (runInNewContext("gc") as () => void)();
  };

  test("its signal still stops the method: undici's Request follows a signal only while the Request lives", async () => {
    const seen = { yielded: 0, finished: false };
    const handler = fetchHandler({
      endless: async function* () {
        try {
          for (;;) {
            seen.yielded += 1;
            yield seen.yielded;
          }
        } finally {
          seen.finished = true;
        }
      },
    });
    const gone = new AbortController();
    // Made here and held by nothing of the test's: only what the handler keeps keeps it.
    const response = await handler(
      new Request("http://127.0.0.1/rpc", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
        body: call("endless"),
        signal: gone.signal,
      }),
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    await collect();
    gone.abort();
    // The method stops at its next yield and the stream ends; without the hold, it runs on for ever.
    let reads = 0;
    while (!(await reader.read()).done && reads < 10_000) reads += 1;
    expect(seen.finished).toBe(true);
    expect(reads).toBeLessThan(10_000);
  });
});
