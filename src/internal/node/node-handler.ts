/**
 * `nodeHandler`: the one HTTP path (../http/exchange), which `fetchHandler` answers with, on Node's
 * own request and response (`node:http`, Express, Connect, Fastify's raw ones, Koa's
 * `ctx.req`/`ctx.res`), through ./node-exchange: the same options, answers and checks as
 * `fetchHandler`'s, with no web object made for a request.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Entries } from "../contract/contract";
import type { Server } from "../contract/implement";
import type { NoContext } from "../core/context-marks";
import type { MethodsFor } from "../core/dispatch-context";
import type { AnyStage } from "../core/stages";
import {
  serviceBehind,
  type AppOptionsArg,
  type ContextNeeded,
  type FetchHandler,
  type NativeFetchHandler,
  type TableOptionsArg,
} from "../http/fetch-handler";
import { serviceOf } from "../http/handler-service";
import { nodeExchange } from "./node-exchange";

/**
 * A Node request handler: answers `req` on `res`. The Promise settles once the answer is written
 * (or the client left); it never rejects.
 *
 * @since 5.0.10
 * @category server
 */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * JSON-RPC over HTTP as a Node request handler, `(req, res) => Promise<void>`: `fetchHandler` (`rpcserver/fetch`)
 * (the same options, answers and checks) on Node's `IncomingMessage` and `ServerResponse`.
 *
 * When to use it: to serve methods from `node:http`, Express, Connect, Fastify or Koa in one line,
 * an event stream written at the client's pace.
 *
 * Details:
 * - The body is read from `req` as the handler asks for it: a body over `maxBodyBytes` (1 MiB by
 *   default) is not read further, answered 413, and its connection closed after the answer. A body
 *   a framework's parser read first (`req.body`: Express's `raw`, `text` or `json`) is taken as it
 *   is (a parsed JSON value as its JSON again).
 * - `context(request)` gets a web `Request` of the POST's head (its method, URL and headers; its
 *   body, read by the handler, is not in it), made only when there is a `context` function.
 * - The client going away aborts the methods' signal and ends an event stream.
 * - A client that half-closes after its request still gets its answer: the `node:http` server
 *   the handler is called from is made half-open (`httpAllowHalfOpen`), as the development server is.
 * - Given a fetch handler this package made (`fetchHandler`'s, `mcpHandler`'s of `rpcserver/mcp`
 *   without sessions), it serves that handler's service, options and all, on Node's request and
 *   response: no web `Request` is made. Any other function is a TypeError (serve it with a fetch
 *   adapter); `mcpHandler`'s with sessions (a `SessionFetchHandler`) does not compile.
 *
 * @example
 * import { createServer } from "node:http";
 * import { Success } from "rpcserver";
 * import { nodeHandler } from "rpcserver/server";
 * const handler = nodeHandler({ add: (a: number, b: number) => Success(a + b) }, { maxBatchSize: 100 });
 * const server = createServer((req, res) => void handler(req, res));
 * // Express: app.post("/rpc", handler). Koa: ctx.respond = false; await handler(ctx.req, ctx.res).
 * server.close();
 *
 * @since 5.0.10
 * @category server
 */
export function nodeHandler<C = NoContext, X = NoContext, const S extends ReadonlyArray<AnyStage> = readonly []>(
  methods: MethodsFor<C>,
  ...options: TableOptionsArg<C, X, S>
): NodeHandler;
export function nodeHandler(handler: NativeFetchHandler): NodeHandler;
export function nodeHandler<M extends Entries, In, Cur>(
  app: Server<M, In, Cur>,
  ...options: AppOptionsArg<In>
): NodeHandler;
// Only to name what is missing: a server that declares a context, given without options.
export function nodeHandler<M extends Entries, In, Cur>(app: Server<M, In, Cur> & ContextNeeded<In>): NodeHandler;
export function nodeHandler(methodsOrApp: unknown, options?: unknown): NodeHandler {
  if (typeof methodsOrApp !== "function") return nodeExchange(serviceOf("nodeHandler", methodsOrApp, options));
  const service = serviceBehind(methodsOrApp as FetchHandler);
  if (service === undefined) {
    throw new TypeError(
      "nodeHandler: a function it was given is no fetch handler of rpcserver's (fetchHandler, mcpHandler without sessions); serve another with a fetch adapter",
    );
  }
  if (options !== undefined) throw new TypeError("nodeHandler: a fetch handler brings its own options; give none");
  return nodeExchange(service);
}
