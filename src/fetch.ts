/**
 * rpcserver/fetch: JSON-RPC over HTTP as a web-standard fetch handler, `(request: Request) =>
 * Promise<Response>`, for Bun, Deno, Cloudflare Workers, Hono, Next.js route handlers and Node
 * through an adapter. It answers as the development server does (its body limit aside: 1 MiB by
 * default here), and loads no `node:` module. See docs/fetch.md.
 *
 * @example
 * import { Success } from "rpcserver";
 * import { fetchHandler } from "rpcserver/fetch";
 * const handler = fetchHandler({ ping: () => Success("pong") });
 * const response = await handler(
 *   new Request("http://localhost/rpc", { method: "POST", body: '{"jsonrpc":"2.0","method":"ping","id":1}' }),
 * );
 * await response.text(); // '{"jsonrpc":"2.0","result":"pong","id":1}'
 *
 * @module
 */
export {
  fetchHandler,
  type AppHandlerOptions,
  type ContextNeeded,
  type FetchHandler,
  type FetchHandlerOptions,
} from "./internal/http/fetch-handler";
export { DEFAULT_MAX_BODY_BYTES, type FetchServerOptions } from "./internal/http/handler-service";
