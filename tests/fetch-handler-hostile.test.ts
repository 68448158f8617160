/**
 * `fetchHandler` (rpcserver/fetch) as the field meets it, on real sockets: served by
 * `@hono/node-server` inside a Hono app as docs/fetch.md mounts it (`app.all("/rpc", (c) =>
 * handler(c.req.raw))`), called by Node's `fetch` and by raw TCP clients. Each case here was a
 * defect found by probing the handler as a hostile peer or a hurried integrator would.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Success } from "../src";
import { fetchHandler, type FetchHandler } from "../src/fetch";
import { setLogger, type Logger } from "../src/internal/core/logger";

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
  serve: (options: { fetch: Hono["fetch"]; port: number; hostname: string }) => Server;
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
  const { port } = server.address() as AddressInfo;
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
