/**
 * `fetchHandler` (rpcserver/fetch), from the sources: driven with Node's own (undici) `Request`
 * objects, and through a real `node:http` server (`nodeHandler`, which is fetchHandler on Node's
 * `req` and `res`), side by side with the development server (`serve`) answering the same
 * requests: the same status, headers and body. The `@ts-expect-error` lines are compiled by
 * `tsc` (npm run typecheck): each fails to compile without its comment.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { contract, JsonRpcError, server, Success, withContext } from "../src";
import { fetchHandler, DEFAULT_MAX_BODY_BYTES, type FetchHandler } from "../src/fetch";
import { setLogger, type Logger } from "../src/internal/core/logger";
import { nodeHandler, serve, type NodeHandler } from "../src/server";

const call = (method: string, params?: unknown, id: number | string | null = 1): string =>
  JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }), id });
const notify = (method: string, params?: unknown): string =>
  JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });

const methods = {
  add: (a: number, b: number) => Success(a + b),
  log: () => Success(null),
  count: async function* (to: number) {
    for (let i = 1; i <= to; i++) yield i;
    return Success(`counted to ${to}`);
  },
};

const post = (handler: FetchHandler, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  handler(new Request("http://localhost/rpc", { method: "POST", headers, body }));

const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined };
beforeAll(() => setLogger(quiet));

describe("with Node's Request objects", () => {
  const handler = fetchHandler(methods);

  test("a single call: 200 JSON", async () => {
    const response = await post(handler, call("add", [1, 2]));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.text()).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
  });

  test("a batch: one array", async () => {
    const response = await post(handler, `[${call("add", [1, 2], 1)},${notify("log")},${call("add", [3, 4], 2)}]`);
    expect(JSON.parse(await response.text())).toEqual([
      { jsonrpc: "2.0", result: 3, id: 1 },
      { jsonrpc: "2.0", result: 7, id: 2 },
    ]);
  });

  test("a notification: 204 without Accept: text/event-stream, 202 with it", async () => {
    const plain = await post(handler, notify("log"));
    expect([plain.status, await plain.text(), plain.headers.get("content-type")]).toEqual([204, "", null]);
    const mcp = await post(handler, notify("log"), { Accept: "application/json, text/event-stream" });
    expect([mcp.status, await mcp.text()]).toEqual([202, ""]);
  });

  test("a parse error: 200 and -32700", async () => {
    const response = await post(handler, "{not json");
    expect(response.status).toBe(200);
    expect(JSON.parse(await response.text())).toMatchObject({ error: { code: -32700 }, id: null });
  });

  test("a streamed method over server-sent events: every value in order, then the answer", async () => {
    const response = await post(handler, call("count", [3], 7), { Accept: "text/event-stream" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const data = (await response.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as unknown);
    expect(data).toEqual([
      { jsonrpc: "2.0", method: "$/progress", params: { token: 7, value: 1 } },
      { jsonrpc: "2.0", method: "$/progress", params: { token: 7, value: 2 } },
      { jsonrpc: "2.0", method: "$/progress", params: { token: 7, value: 3 } },
      { jsonrpc: "2.0", result: "counted to 3", id: 7 },
    ]);
  });

  test("a body over the limit: 413 and a JSON-RPC error, declared or not, and nothing dispatched", async () => {
    let ran = 0;
    const small = fetchHandler({ hit: () => Success(++ran) }, { maxBodyBytes: 64 });
    const body = call("hit", ["x".repeat(100)]);
    const declared = await post(small, body);
    expect(declared.status).toBe(413);
    expect(declared.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(await declared.text())).toEqual({
      jsonrpc: "2.0",
      error: { code: -32600, message: "Invalid Request", data: "the body is over 64 bytes" },
      id: null,
    });
    // No Content-Length: a stream, counted as it is read.
    const bytes = new TextEncoder().encode(body);
    const streamed = await small(
      new Request("http://localhost/rpc", {
        method: "POST",
        body: new ReadableStream<Uint8Array>({
          start: (controller) => {
            controller.enqueue(bytes.slice(0, 40));
            controller.enqueue(bytes.slice(40));
            controller.close();
          },
        }),
        duplex: "half",
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    expect(ran).toBe(0);
    const fits = await post(small, call("hit"));
    expect(await fits.text()).toBe('{"jsonrpc":"2.0","result":1,"id":1}');
    expect(DEFAULT_MAX_BODY_BYTES).toBe(1024 * 1024);
    const big = await post(handler, call("add", [1, "x".repeat(DEFAULT_MAX_BODY_BYTES)]));
    expect(big.status).toBe(413);
  });

  test("a body that breaks off: 400, never a rejection, and nothing dispatched", async () => {
    let ran = 0;
    const counted = fetchHandler({ hit: () => Success(++ran) });
    const response = await counted(
      new Request("http://localhost/rpc", {
        method: "POST",
        body: new ReadableStream<Uint8Array>({
          start: (controller) => {
            controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","method":"hit",'));
            controller.error(new Error("connection reset"));
          },
        }),
        duplex: "half",
      } as RequestInit),
    );
    expect([response.status, await response.text(), ran]).toEqual([
      400,
      "rpcserver: the request could not be read\n",
      0,
    ]);
  });

  test("GET: the inspector page when the client asks for HTML, at the handler's path; 405 otherwise", async () => {
    const page = await handler(new Request("http://localhost/rpc?x=1", { headers: { Accept: "text/html" } }));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("vary")).toBe("Accept");
    expect(await page.text()).toContain('<meta name="rpcserver-url" content="/rpc">');
    const curl = await handler(new Request("http://localhost/rpc", { headers: { Accept: "*/*" } }));
    expect([curl.status, curl.headers.get("allow"), curl.headers.get("vary")]).toEqual([405, "POST", "Accept"]);
    expect(await curl.text()).toBe("rpcserver: send JSON-RPC 2.0 requests with POST\n");
    const off = fetchHandler(methods, { inspector: false });
    const browser = await off(new Request("http://localhost/rpc", { headers: { Accept: "text/html" } }));
    expect([browser.status, browser.headers.get("vary")]).toEqual([405, null]);
    const put = await handler(new Request("http://localhost/rpc", { method: "PUT", body: "x" }));
    expect(put.status).toBe(405);
  });

  test("the inspector page is loaded on its first GET; a page that cannot load is a 500 and a log line, never a rejection", async () => {
    // The page's module fails to load (a bundle whose chunk is gone): a fetchHandler of sources loaded afresh.
    const lines: unknown[] = [];
    let broken: typeof fetchHandler | undefined;
    jest.isolateModules(() => {
      jest.doMock("../src/internal/inspector/page", () => {
        throw new Error("the chunk is gone");
      });
      ({ fetchHandler: broken } = jest.requireActual<typeof import("../src/fetch")>("../src/fetch"));
    });
    // The logger lives on globalThis: the one the isolated sources log to.
    const previous = setLogger({
      error: (line) => void lines.push(line),
      warn: () => undefined,
      info: () => undefined,
    });
    try {
      const handle = broken!(methods);
      const page = await handle(new Request("http://localhost/rpc", { headers: { Accept: "text/html" } }));
      expect([page.status, page.headers.get("content-type"), await page.text()]).toEqual([
        500,
        "text/plain; charset=utf-8",
        "rpcserver: the inspector page could not be loaded\n",
      ]);
      expect(lines).toEqual([expect.stringContaining("the inspector page could not be loaded: the chunk is gone")]);
      // The same handler still answers a POST.
      const post = await handle(new Request("http://localhost/rpc", { method: "POST", body: call("add", [1, 2]) }));
      expect(await post.json()).toEqual({ jsonrpc: "2.0", result: 3, id: 1 });
    } finally {
      setLogger(previous);
      jest.dontMock("../src/internal/inspector/page");
    }
  });

  test("DNS rebinding and foreign pages are refused with 403, as the development server refuses them", async () => {
    const rebound = await handler(
      new Request("http://evil.example/rpc", { method: "POST", body: call("add", [1, 2]) }),
    );
    expect(rebound.status).toBe(403);
    expect(rebound.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await rebound.text()).toMatch(/^rpcserver: refused: the Host header "evil.example"/);
    const foreign = await post(handler, call("add", [1, 2]), { Origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    const named = fetchHandler(methods, { allowedHosts: ["api.example"] });
    const ok = await named(new Request("http://api.example/rpc", { method: "POST", body: call("add", [1, 2]) }));
    expect(ok.status).toBe(200);
    const any = fetchHandler(methods, { allowedHosts: true });
    const anyHost = await any(new Request("http://evil.example/rpc", { method: "POST", body: call("add", [1, 2]) }));
    expect(anyHost.status).toBe(200);
    const loopbackPage = await post(handler, call("add", [1, 2]), { Origin: "http://localhost:5173" });
    expect([loopbackPage.status, loopbackPage.headers.get("access-control-allow-origin")]).toEqual([200, null]);
  });

  test("CORS only when asked: the allowed origin on every answer, and a preflight's 204", async () => {
    const origin = "https://app.example";
    const cors = fetchHandler(methods, { cors: { origins: [origin] } });
    const answer = await post(cors, call("add", [1, 2]), { Origin: origin });
    expect([answer.status, answer.headers.get("access-control-allow-origin"), answer.headers.get("vary")]).toEqual([
      200,
      origin,
      "Origin",
    ]);
    const preflight = await cors(
      new Request("http://localhost/rpc", {
        method: "OPTIONS",
        headers: {
          Origin: origin,
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "content-type",
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(Object.fromEntries(preflight.headers)).toMatchObject({
      "access-control-allow-origin": origin,
      "access-control-allow-methods": "POST",
      "access-control-allow-headers": "content-type",
      "access-control-max-age": "600",
    });
    const without = await handler(
      new Request("http://localhost/rpc", {
        method: "OPTIONS",
        headers: { Origin: "http://localhost:5173", "Access-Control-Request-Method": "POST" },
      }),
    );
    expect([without.status, without.headers.get("access-control-allow-origin")]).toEqual([405, null]);
    const tooLarge = await fetchHandler(methods, { cors: true, maxBodyBytes: 1 })(
      new Request("http://localhost/rpc", { method: "POST", headers: { Origin: "http://localhost:3000" }, body: "{}" }),
    );
    expect([tooLarge.status, tooLarge.headers.get("access-control-allow-origin")]).toEqual([
      413,
      "http://localhost:3000",
    ]);
  });

  test("rpc.discover: on by default, off with openrpc: false", async () => {
    const on = await post(
      fetchHandler(methods, { openrpc: { title: "Calc", version: "1.2.3" } }),
      call("rpc.discover"),
    );
    const document = JSON.parse(await on.text()) as { result: { info: unknown; methods: { name: string }[] } };
    expect(document.result.info).toEqual({ title: "Calc", version: "1.2.3" });
    expect(document.result.methods.map((m) => m.name)).toEqual(["add", "log", "count"]);
    const off = await post(fetchHandler(methods, { openrpc: false }), call("rpc.discover"));
    expect(JSON.parse(await off.text())).toMatchObject({ error: { code: -32601 } });
    expect(() => fetchHandler(methods, { openrpc: { title: 3 as never } })).toThrow(
      "fetchHandler: openrpc's title and version must be strings",
    );
  });

  test("a bad option is the TypeError the development server gives for it, named for the handler", async () => {
    const bad: Array<Record<string, unknown>> = [{ openrpc: "yes" }, { inspector: "yes" }, { allowedOrigins: "x" }];
    for (const options of bad) {
      let served: unknown;
      try {
        (await serve("127.0.0.1", 0, { methods, ...options } as never)).close();
      } catch (thrown) {
        served = thrown;
      }
      expect(served).toBeInstanceOf(TypeError);
      const said = (served as TypeError).message.replace(/^serve: /, "fetchHandler: ");
      expect(() => fetchHandler(methods, options as never)).toThrow(new TypeError(said));
    }
    expect(() => fetchHandler(methods, { maxBodyBytes: -1 })).toThrow(
      new TypeError("fetchHandler: maxBodyBytes must be a number of bytes (Infinity for no limit)"),
    );
  });

  test("the request's signal aborts the method's ctx.signal", async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const aborted = new Promise<string>((resolve) => {
      const wait = (ctx: { signal: AbortSignal }) =>
        new Promise<ReturnType<typeof Success>>((done) => {
          ctx.signal.addEventListener("abort", () => {
            resolve("aborted");
            done(Success("late"));
          });
          started();
        });
      const handler = fetchHandler({ wait }, { context: () => ({}) });
      const leaving = new AbortController();
      void handler(new Request("http://localhost/rpc", { method: "POST", body: call("wait"), signal: leaving.signal }));
      void running.then(() => leaving.abort());
    });
    expect(await aborted).toBe("aborted");
  });

  test("context(request): made for each request, typed against the methods; a JsonRpcError it throws is the answer", async () => {
    const whoami = withContext<{ user: string }>().withCodecs({ result: t.string }, (ctx) => Success(ctx.user));
    const handler = fetchHandler(
      { whoami },
      {
        context: async (request) => {
          const user = request.headers.get("X-User");
          if (user === null) throw new JsonRpcError(401, "Unauthorized");
          return { user };
        },
      },
    );
    const ada = await post(handler, call("whoami"), { "X-User": "ada" });
    expect(await ada.text()).toBe('{"jsonrpc":"2.0","result":"ada","id":1}');
    const nobody = await post(handler, call("whoami"));
    expect([nobody.status, await nobody.text()]).toEqual([
      200,
      '{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized"},"id":null}',
    ]);
    const broken = fetchHandler(
      { whoami },
      {
        context: (): { user: string } => {
          throw new Error("db down");
        },
      },
    );
    expect(JSON.parse(await (await post(broken, call("whoami"))).text())).toMatchObject({ error: { code: -32000 } });
    // @ts-expect-error: the methods need a context, and no context function makes one
    fetchHandler({ whoami });
    // @ts-expect-error: the context made is not the one the methods need
    fetchHandler({ whoami }, { context: () => ({ name: "ada" }) });
    // @ts-expect-error: context is a function of the request, not a value
    expect(() => fetchHandler({ whoami }, { context: { user: "ada" } })).toThrow(
      "fetchHandler: context must be a function of the request",
    );
  });

  test("relay is mcpHandler's option: fetchHandler and nodeHandler refuse it rather than ignore their context", () => {
    const relay = (): Promise<string> => Promise.resolve('{"jsonrpc":"2.0","result":"elsewhere","id":1}');
    const ping = () => Success("pong");
    // @ts-expect-error: fetchHandler has no relay option
    expect(() => fetchHandler({ ping }, { relay })).toThrow(
      new TypeError("fetchHandler: relay is an option of mcpHandler (rpcserver/mcp), not of fetchHandler"),
    );
    // @ts-expect-error: nor has nodeHandler
    expect(() => nodeHandler({ ping }, { relay })).toThrow(
      new TypeError("nodeHandler: relay is an option of mcpHandler (rpcserver/mcp), not of nodeHandler"),
    );
  });

  test("a contract's server: its stages run, its context is made from the request", async () => {
    const api = contract({ whoami: { result: t.string } });
    const app = server(api)
      .context<{ token: string }>()
      .use((c) =>
        c.context.token === "t1" ? E.right({ ...c, context: { user: "ann" } }) : E.left({ code: 401, message: "No" }),
      )
      .implement({ whoami: (ctx) => E.right(ctx.user) });
    const handler = fetchHandler(app, {
      context: (request) => ({ token: request.headers.get("Authorization") ?? "" }),
    });
    expect(await (await post(handler, call("whoami"), { Authorization: "t1" })).text()).toBe(
      '{"jsonrpc":"2.0","result":"ann","id":1}',
    );
    expect(JSON.parse(await (await post(handler, call("whoami"))).text())).toMatchObject({ error: { code: 401 } });
    const discovered = JSON.parse(
      await (await post(handler, call("rpc.discover"), { Authorization: "t1" })).text(),
    ) as {
      result: { methods: { name: string }[] };
    };
    expect(discovered.result.methods.map((m) => m.name)).toEqual(["whoami"]);
    // @ts-expect-error: the server takes a context: the function that makes it is required
    fetchHandler(app);
    // @ts-expect-error: it must make the server's context
    fetchHandler(app, { context: () => ({ token: 1 }) });
    const plain = server(contract({ ping: { result: t.string } })).implement({ ping: () => E.right("pong") });
    expect(await (await post(fetchHandler(plain), call("ping"))).text()).toBe(
      '{"jsonrpc":"2.0","result":"pong","id":1}',
    );
  });
});

/** A node:http server serving `handler` on Node's req and res: `nodeHandler`, which is fetchHandler there. */
const nodeServer = async (handler: NodeHandler): Promise<{ url: string; close: () => void }> => {
  const httpServer = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => {
      httpServer.close();
      httpServer.closeAllConnections();
    },
  };
};

interface Exchange {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** One raw HTTP exchange, headers as they came but those of the connection and the framing. */
const exchange = (url: string, method: string, headers: Record<string, string>, body?: string) =>
  new Promise<Exchange>((resolve, reject) => {
    const request = http.request(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const kept = Object.entries(response.headers).filter(
          ([name]) => !["date", "connection", "keep-alive", "content-length", "transfer-encoding"].includes(name),
        );
        resolve({
          status: response.statusCode ?? 0,
          headers: Object.fromEntries(kept.map(([name, value]) => [name, String(value)])),
          body: Buffer.concat(chunks).toString("utf8"),
        });
      });
    });
    request.on("error", reject);
    request.end(body);
  });

describe("through a real node:http server, beside the development server", () => {
  let dev: Awaited<ReturnType<typeof serve>>;
  let ours: Awaited<ReturnType<typeof nodeServer>>;

  beforeAll(async () => {
    // Bound to every interface, as fetchHandler's guard assumes: the same hosts and refusals.
    dev = await serve("", 0, { methods, cors: { origins: ["https://app.example"] } });
    ours = await nodeServer(nodeHandler(methods, { cors: { origins: ["https://app.example"] } }));
  });
  afterAll(() => {
    dev.close();
    dev.closeAllConnections();
    ours.close();
  });

  const devUrl = (): string => `http://127.0.0.1:${dev.port}/`;
  const json = { "Content-Type": "application/json" };
  const events = { ...json, Accept: "application/json, text/event-stream" };
  type Case = [name: string, method: string, headers: Record<string, string>, body: string | undefined];
  const cases: Case[] = [
    ["a single call", "POST", json, call("add", [1, 2])],
    ["a batch", "POST", json, `[${call("add", [1, 2], 1)},${call("add", [3, 4], 2)}]`],
    ["a notification", "POST", json, notify("log")],
    ["a notification asking for events", "POST", events, notify("log")],
    ["a parse error", "POST", json, "{not json"],
    ["an empty body", "POST", json, ""],
    ["a streamed method over events", "POST", events, call("count", [3])],
    ["a streamed method, plain JSON", "POST", json, call("count", [3])],
    ["a browser's GET of /", "GET", { Accept: "text/html,application/xhtml+xml;q=0.9" }, undefined],
    ["curl's GET of /", "GET", { Accept: "*/*" }, undefined],
    ["a PUT", "PUT", {}, "x"],
    ["a rebinding page's Host", "POST", { ...json, Host: "evil.example:80" }, call("add", [1, 2])],
    ["a foreign page's Origin", "POST", { ...json, Origin: "https://evil.example" }, call("add", [1, 2])],
    ["an allowed page's call", "POST", { ...json, Origin: "https://app.example" }, call("add", [1, 2])],
    [
      "an allowed page's preflight",
      "OPTIONS",
      {
        Origin: "https://app.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "x-a",
      },
      undefined,
    ],
    [
      "a preflight from a foreign page",
      "OPTIONS",
      { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" },
      undefined,
    ],
  ];

  /** The guard's refusals: the same but for their advice, which names the handler's options rather than the command's flags. */
  const refused = ["a rebinding page's Host", "a foreign page's Origin", "a preflight from a foreign page"];

  test.each(cases)("%s: the same status, headers and body", async (name, method, headers, body) => {
    const expected = await exchange(devUrl(), method, headers, body);
    const got = await exchange(ours.url, method, headers, body);
    if (!refused.includes(name)) return expect(got).toEqual(expected);
    // Where the server listens is not the handler's to know: that sentence and the advice differ.
    const advised = (text: string | undefined): string | undefined =>
      text
        ?.replace(/\. To accept .*$/s, "")
        .replace(/(The server listens on every interface, and|The nodeHandler) answers/, "answers");
    expect({ ...got, body: advised(got?.body) }).toEqual({ ...expected, body: advised(expected?.body) });
    expect(got?.body).toMatch(/in the nodeHandler's allowed(Hosts option|Origins, or in cors\.origins)/);
    expect(expected?.body).toMatch(/the rpcserver command: --allowed-(host|origin)/);
    expect(got?.body).not.toContain("rpcserver command");
  });

  test("a deliberate difference: a browser's GET of another path gets the page (the handler's own path)", async () => {
    const html = { Accept: "text/html" };
    expect((await exchange(`${devUrl()}other`, "GET", html)).status).toBe(405);
    const page = await exchange(`${ours.url}other`, "GET", html);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<meta name="rpcserver-url" content="/other">');
  });

  test("rpc.discover answers on both, with the same methods", async () => {
    const [a, b] = await Promise.all(
      [devUrl(), ours.url].map((url) => exchange(url, "POST", json, call("rpc.discover"))),
    );
    const names = (x: Exchange | undefined) =>
      (JSON.parse(x?.body ?? "{}") as { result: { methods: { name: string }[] } }).result.methods.map((m) => m.name);
    expect(names(b)).toEqual(names(a));
  });

  test("the client leaving aborts the method's ctx.signal", async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let seen!: (reason: string) => void;
    const aborted = new Promise<string>((resolve) => (seen = resolve));
    const endless = async function* (ctx: { signal: AbortSignal }) {
      ctx.signal.addEventListener("abort", () => seen("aborted"));
      started();
      // Endless for the client (about 5 s): a run without the abort fails by its time-out, and ends.
      for (let i = 0; i < 1000; i++) {
        yield i;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return Success("ended");
    };
    const leaving = await nodeServer(nodeHandler({ endless }, { context: () => ({}) }));
    const client = new AbortController();
    const response = fetch(leaving.url, {
      method: "POST",
      headers: { Accept: "text/event-stream" },
      body: call("endless"),
      signal: client.signal,
    }).catch(() => undefined);
    await running;
    client.abort();
    await response;
    expect(await aborted).toBe("aborted");
    leaving.close();
  });
});
