/**
 * rpcserver/server: the development server, typed with Node's `http.Server` (the main entry's
 * `serve`, whose types need nothing from Node), `nodeHandler` (`fetchHandler` on Node's `req` and
 * `res`, for `node:http`, Express, Connect, Fastify and Koa), and `browserGuard`, the check of a
 * request's `Host` and `Origin`, for any other server a browser can reach. Node-only: its types
 * need `@types/node`.
 *
 * @example
 * import { browserGuard, serve } from "rpcserver/server";
 * const server = await serve("localhost", 0, { cors: true });
 * const guard = browserGuard({ listening: "127.0.0.1" });
 * // Go on:
 * guard({ host: "localhost:5000" }); // undefined
 * server.close();
 *
 * @module
 */
export {
  browserGuard,
  type BrowserGuardOptions,
  type GuardedHeaders,
  type Refusal,
} from "./internal/http/browser-guard";
export { nodeHandler, type NodeHandler } from "./internal/node/node-handler";
export type { ServeOptions, ServeOptionsFor } from "./internal/node/serve-options";
export { DEFAULT_HOST, DEFAULT_PORT, serve } from "./internal/node/server";
