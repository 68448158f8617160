/**
 * `fetchHandler`: JSON-RPC over HTTP as a web-standard `(request: Request) => Promise<Response>`,
 * for every runtime that speaks the Fetch API (Bun, Deno, Cloudflare Workers, Hono, Next.js route
 * handlers). What it answers, and how, is the one HTTP path's (./exchange), which `nodeHandler` and
 * the development server answer with too; here, a `Request` is read as that path reads a request,
 * and its reply made a `Response`. No `node:` module, and no I/O but the request's body and the
 * `Response`.
 *
 * @module
 */
import type { Server } from "../contract/implement";
import type { Entries } from "../contract/contract";
import type { NoContext, Refused, WithSignal } from "../core/context-marks";
import type {
  ContextFits,
  DispatchContext,
  MethodsFor,
  StagesAsGiven,
  StagesTakeMade,
  TypedOptions,
} from "../core/dispatch-context";
import { messageOf } from "../core/describe";
import type { JsonOptions } from "../core/options";
import type { AnyStage } from "../core/stages";
import { answerExchange, serverError, type Incoming, type Read, type Reply, type Service } from "./exchange";
import { heldBySignal } from "./held-request";
import { serviceOf, type FetchServerOptions } from "./handler-service";
import { NO_HEADERS } from "./route";

/**
 * The options of `fetchHandler` for a methods table: dispatch's (`stages` typed by the context),
 * the server's ({@link FetchServerOptions}), and `context`, made for each request.
 *
 * @example
 * import type { FetchHandlerOptions } from "rpcserver/fetch";
 * const options: FetchHandlerOptions<{ user: string }> = {
 *   context: (request) => ({ user: request.headers.get("X-User") ?? "anonymous" }),
 *   maxBatchSize: 100,
 * };
 *
 * @since 5.0.10
 * @category fetch
 */
export type FetchHandlerOptions<C = NoContext, S = readonly []> = Omit<
  TypedOptions<JsonOptions, C, S, WithSignal<C>>,
  "context"
> &
  FetchServerOptions & {
    /**
     * The methods' context, made for each request (from its headers: a token, a session). A plain
     * object gains the request's `signal`. A thrown (or rejected) `JsonRpcError` is the answer, 200
     * with id `null`; anything else is -32000, as a failed dispatch. Without it, methods get none.
     */
    readonly context?: (request: Request) => C | Promise<C>;
  };

/**
 * The options of `fetchHandler` for a contract's server (`server(api)...implement(...)`): the
 * server brings its stages, so these are the rest of dispatch's and the server's, and `context`
 * when the server declares one (then it is required, typed by the server's context).
 *
 * @example
 * import type { AppHandlerOptions } from "rpcserver/fetch";
 * const options: AppHandlerOptions<{ token: string }> = {
 *   context: (request) => ({ token: request.headers.get("Authorization") ?? "" }),
 * };
 *
 * @since 5.0.10
 * @category fetch
 */
export type AppHandlerOptions<In> = Omit<JsonOptions, "context" | "stages"> &
  FetchServerOptions &
  ([In] extends [NoContext]
    ? {
        /** None: the server declares no context. */
        readonly context?: undefined;
      }
    : {
        /** The server's context, made for each request (a `JsonRpcError` thrown is the answer, id `null`). */
        readonly context: (request: Request) => In | Promise<In>;
      });

/**
 * What a compile error names when an HTTP handler is given a server that declares a context, and
 * no options: the `context` function it needs (`fetchHandler(app, { context: (request) => ... })`).
 * Never a value.
 *
 * @example
 * import type { ContextNeeded } from "rpcserver/fetch";
 * type Needed = ContextNeeded<{ user: string }>; // { context: (request: Request) => { user: string } | Promise<...> }
 *
 * @since 5.0.10
 * @category fetch
 */
export interface ContextNeeded<In> {
  /** The options' `context` function: this server's handlers take a context. */
  readonly context: (request: Request) => In | Promise<In>;
}

/**
 * The options argument of an HTTP handler (`fetchHandler`, `nodeHandler`) for a contract's server:
 * required exactly when the server declares a context.
 */
export type AppOptionsArg<In> = [In] extends [NoContext]
  ? [options?: AppHandlerOptions<In>]
  : [options: AppHandlerOptions<In>];

/**
 * The options of an HTTP handler for a methods table, its `context` checked against the methods'
 * and the stages' (on `context`, not `stages`: see `StagesTakeMade`).
 */
type TableOptions<C, X, S> = StagesAsGiven<FetchHandlerOptions<X, S>, S> &
  NoInfer<
    ContextFits<C, DispatchContext<WithSignal<X>, S>, (request: Request) => C | Promise<C>> &
      StagesTakeMade<DispatchContext<WithSignal<X>, S>, (request: Request) => Refused<WithSignal<X>>>
  >;

/** The options argument of an HTTP handler for a methods table: required exactly when its methods need a context. */
export type TableOptionsArg<C, X, S> = [C] extends [NoContext]
  ? [options?: TableOptions<C, X, S>]
  : [options: TableOptions<C, X, S>];

/**
 * A fetch handler: a `Request` in, its `Response` out. It never rejects.
 *
 * @since 5.0.10
 * @category fetch
 */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Phantom, never present at run time: the mark of a fetch handler that keeps sessions of its own. */
declare const SERVE_IT_WITH_A_FETCH_ADAPTER: unique symbol;

/**
 * A fetch handler that keeps sessions in this process around the one HTTP path (`mcpHandler` of
 * `rpcserver/mcp` given `sessions`): a fetch adapter serves it; `nodeHandler` refuses it, a compile
 * error here (and a TypeError to JavaScript), since what it keeps is held on web `Request`s.
 *
 * @example
 * import { mcpHandler, mcpServer, type SessionFetchHandler } from "rpcserver/mcp";
 * const handler: SessionFetchHandler = mcpHandler(mcpServer({ name: "s", version: "1.0.0" }), { sessions: true });
 * // Bun.serve({ fetch: handler }); under Node, a fetch adapter (@hono/node-server's serve({ fetch: handler })).
 *
 * @since 5.0.10
 * @category fetch
 */
export type SessionFetchHandler = FetchHandler & { readonly [SERVE_IT_WITH_A_FETCH_ADAPTER]: true };

/**
 * What `nodeHandler` takes of fetch handlers: any but one that keeps sessions ({@link SessionFetchHandler}),
 * which the compiler refuses here. A function this package did not make still compiles, and is a
 * TypeError when given.
 */
export type NativeFetchHandler = FetchHandler & { readonly [SERVE_IT_WITH_A_FETCH_ADAPTER]?: never };

/** Nothing to do: what a cancel of a body already gone rejects with is of no use. */
const ignore = (): void => undefined;

/**
 * A `Response` of a reply. Its headers are given as a record, whose values the Fetch API makes
 * strings (`Access-Control-Max-Age` is a number), where a `Headers` filled one by one cost more.
 */
const responseOf = (reply: Reply): Response =>
  new Response(reply.status === 204 ? null : reply.body, {
    status: reply.status,
    headers: reply.headers as { readonly [name: string]: string },
  });

/**
 * The body's bytes, `"used"` when something read (or locked) it before the handler, or `"over"`
 * once more than `limit` came (the rest not read): a declared `Content-Length` over the limit is
 * refused before a byte is read, and one within it is read whole by the runtime (its framing holds
 * the body to it); a body of no declared length is read chunk by chunk, counted. A stream that errors (the client left mid-upload) is `broken`: the
 * client's doing, unlike anything else that fails here.
 */
const readBody = async (request: Request, limit: number): Promise<Read> => {
  // `body` is read last: an adapter's lighter `Request` (@hono/node-server's) makes the whole web
  // `Request` when it is read, and reads `arrayBuffer()` straight from Node's request.
  if (request.bodyUsed) return "used";
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    request.body?.cancel().catch(ignore);
    return "over";
  }
  try {
    // One array of this realm: dispatch checks `instanceof Uint8Array`, and a runtime's chunks may be another's.
    if (declared !== null) return new Uint8Array(await request.arrayBuffer());
    const body: ReadableStream<Uint8Array> | null = request.body;
    if (body === null) return new Uint8Array(0);
    if (body.locked) return "used";
    return await readCounted(body, limit);
  } catch (broken) {
    // A body locked by a reader before the handler (never read, so not `bodyUsed`) refuses to be read at all.
    return request.bodyUsed ? { broken } : "used";
  }
};

/** A body of no declared length, read until its end or past `limit` bytes. */
const readCounted = async (body: ReadableStream<Uint8Array>, limit: number): Promise<Read> => {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > limit) {
      reader.cancel().catch(ignore);
      return "over";
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
};

/** What an integrator passed instead of a `Request` (Hono's `c.req`) is told so, not answered as a client's fault. */
const isRequest = (given: unknown): given is Request =>
  typeof (given as Partial<Request> | null)?.headers?.get === "function" &&
  typeof (given as Partial<Request>).url === "string";

const NOT_A_REQUEST = "fetchHandler takes a web Request (in Hono: c.req.raw, not c.req)";

/** The path and query of a URL (what the development server's `req.url` is). */
const pathOf = (url: string): string => {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
};

/** A request's URL's host, for one made without a `Host` header (`new Request(url)` in a test). */
const hostOf = (url: string): string | undefined => {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};

/** A web `Request`, as the one HTTP path reads a request: its URL parsed only when asked (a GET, a log line). */
const incomingOf = (request: Request): Incoming => {
  // Held by its signal: Node's `Request` would stop following the client's once collected.
  const { headers, signal } = heldBySignal(request);
  return {
    method: request.method,
    target: () => pathOf(request.url),
    header: (name) => headers.get(name) ?? (name === "host" ? hostOf(request.url) : undefined),
    read: (limit) => readBody(request, limit),
    discard: () => void request.body?.cancel().catch(ignore),
    signal,
    request: () => request,
  };
};

/** rpcserver/mcp's sessions read a request as this path does (its guard's headers, a copy of its body). */
export { incomingOf };

/**
 * JSON-RPC over HTTP as a fetch handler: `(request: Request) => Promise<Response>`, answering as
 * the development server does, for a methods table or a contract's server.
 *
 * When to use it: to serve methods on any runtime with the Fetch API: `Bun.serve({ fetch })`,
 * `Deno.serve(handler)`, Cloudflare Workers (`export default { fetch: handler }`), Hono
 * (`app.post("/rpc", (c) => handler(c.req.raw))`), a Next.js route handler (`export const POST =
 * handler`), or Node through an adapter. It replaces the glue of docs/integrations.md.
 *
 * Details:
 * - POST: the body (at most `maxBodyBytes`, 1 MiB by default: else 413 and a JSON-RPC error; not
 *   encoded: else 415) is dispatched by `answerHttp`: 200 JSON, 204 for notifications; with
 *   `text/event-stream` in `Accept`, 202 for notifications alone, or the values methods stream as
 *   server-sent events then the answer. The request's `signal` aborts the methods' (a client that leaves stops them).
 * - `rpc.discover` answers the methods' OpenRPC document (`openrpc: false`: not).
 * - GET with `Accept: text/html`: the inspector page, calling the handler's own path
 *   (`inspector: false`: not); any other GET, and any other method, 405 with `Allow: POST`.
 * - Before anything, the development server's browser guard: a `Host` that is not a loopback
 *   name, an IP address or in `allowedHosts`, or an `Origin` that is not a loopback page or in
 *   `allowedOrigins`, is refused 403. CORS only when `cors` asks.
 * - `context(request)` makes each request's context, typed against the methods (or the server).
 * - A request it cannot serve through no fault of its client (its body read before the handler
 *   was called, or not a `Request`) is 200 with -32000, and an error logged that says why.
 *
 * Gotchas: deployed under a name (`api.example`), list it in `allowedHosts` (or `true`), or every
 * request is refused 403. Set `maxBatchSize`.
 *
 * @example
 * import { Success, withContext } from "rpcserver";
 * import { fetchHandler } from "rpcserver/fetch";
 * import * as t from "io-ts";
 * const whoami = withContext<{ user: string }>().withCodecs({ result: t.string }, (ctx) => Success(ctx.user));
 * const handler = fetchHandler({ whoami }, {
 *   context: (request) => ({ user: request.headers.get("X-User") ?? "anonymous" }),
 *   maxBatchSize: 100,
 * });
 * const response = await handler(new Request("http://localhost/rpc", {
 *   method: "POST",
 *   headers: { "X-User": "ada" },
 *   body: '{"jsonrpc":"2.0","method":"whoami","id":1}',
 * }));
 * response.status; // 200
 * await response.text(); // '{"jsonrpc":"2.0","result":"ada","id":1}'
 * // Bun.serve({ fetch: handler }); Deno.serve(handler); export default { fetch: handler };
 *
 * @since 5.0.10
 * @category fetch
 */
export function fetchHandler<C = NoContext, X = NoContext, const S extends ReadonlyArray<AnyStage> = readonly []>(
  methods: MethodsFor<C>,
  ...options: TableOptionsArg<C, X, S>
): FetchHandler;
export function fetchHandler<M extends Entries, In, Cur>(
  app: Server<M, In, Cur>,
  ...options: AppOptionsArg<In>
): FetchHandler;
// Only to name what is missing: a server that declares a context, given without options.
export function fetchHandler<M extends Entries, In, Cur>(app: Server<M, In, Cur> & ContextNeeded<In>): FetchHandler;
export function fetchHandler(methodsOrApp: unknown, options?: unknown): FetchHandler {
  return handlerOf(serviceOf("fetchHandler", methodsOrApp, options));
}

/**
 * The service behind each fetch handler made here, so that `nodeHandler` can serve the same one on
 * Node's own request and response (no web `Request` made): one HTTP path, whichever end it is
 * reached from. Weak: a handler let go of lets its service go.
 */
const SERVICES = new WeakMap<FetchHandler, Service>();

/** The service a fetch handler of this package answers with; `undefined` for any other function. */
export const serviceBehind = (handler: FetchHandler): Service | undefined => SERVICES.get(handler);

/** The answer when this module failed to make one: only a bug of it gets here, logged as one. */
const bugAnswer = (service: Service, thrown: unknown): Response =>
  responseOf(serverError(service.who, `could not answer: ${messageOf(thrown)}`, NO_HEADERS));

/**
 * A request read already, answered as {@link handlerOf}'s handler answers it, never a rejection:
 * rpcserver/mcp's sessions hand a POST on with its body read and a signal of their own.
 */
export const answerIncoming = (service: Service, incoming: Incoming): Promise<Response> =>
  answerExchange(service, incoming).then(responseOf, (thrown: unknown) => bugAnswer(service, thrown));

/** The fetch handler of a service (`fetchHandler`'s, or one that takes some bodies itself: rpcserver/mcp's). */
export const handlerOf = (service: Service): FetchHandler => {
  const handle = async (request: Request): Promise<Response> =>
    responseOf(
      isRequest(request)
        ? await answerExchange(service, incomingOf(request))
        : serverError(service.who, NOT_A_REQUEST, NO_HEADERS),
    );
  // Only a bug of this module gets here: logged as one, and never a rejection.
  const handler: FetchHandler = (request) => handle(request).catch((thrown: unknown) => bugAnswer(service, thrown));
  SERVICES.set(handler, service);
  return handler;
};
