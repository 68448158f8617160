/**
 * `fetchHandler`: JSON-RPC over HTTP as a web-standard `(request: Request) => Promise<Response>`,
 * for every runtime that speaks the Fetch API (Bun, Deno, Cloudflare Workers, Hono, Next.js route
 * handlers, Node through an adapter). It answers as the development server does: the head by
 * ./route (the guard, the page, a preflight, 405), the body read within a limit, then `answerHttp`
 * (./answer). No `node:` module, and no I/O but the request's body and the `Response`.
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
import type { Methods } from "../core/methods";
import type { JsonOptions } from "../core/options";
import { refusedContext } from "../core/served-body";
import type { AnyStage } from "../core/stages";
import { DEFAULT_INFO } from "../documents/openrpc";
import type { OpenRpcInfo } from "../documents/openrpc-types";
import { answerHttp, type HttpStreamAnswer } from "./answer";
import { browserGuard } from "./browser-guard";
import { discoverable } from "./discovery";
import { servedPage } from "./inspector-route";
import {
  checkServedOptions,
  corsOption,
  NO_HEADERS,
  refusedBody,
  route,
  say,
  SERVER_ERROR_BODY,
  type Gate,
  type HeaderValues,
} from "./route";

/** The default body limit: 1 MiB, as docs/integrations.md recommends (JSON-RPC requests are small). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * What `fetchHandler` is told beyond its methods, besides dispatch's options (`maxBatchSize`,
 * `debug`, `serializer`...): the HTTP server's, with the development server's names and defaults.
 *
 * @example
 * import type { FetchServerOptions } from "rpcserver/fetch";
 * const options: FetchServerOptions = { allowedHosts: ["api.example"], maxBodyBytes: 64 * 1024, inspector: false };
 *
 * @since 5.0.10
 * @category fetch
 */
export interface FetchServerOptions {
  /**
   * The most bytes a POST body may have. A larger one is answered 413 with a JSON-RPC error
   * (-32600, id `null`) and is not read further. Default 1 MiB; `Infinity` for no limit.
   */
  readonly maxBodyBytes?: number;
  /**
   * What `rpc.discover` says about the service (OpenRPC's info: `title`, `version`...), or `false`
   * not to answer `rpc.discover`. Default: title `JSON-RPC service`, version `0.0.0`.
   */
  readonly openrpc?: Partial<OpenRpcInfo> | false;
  /**
   * The inspector page: a browser's GET (an `Accept` that names `text/html`) of the path the handler
   * is mounted on gets a page that reads `rpc.discover` and calls the methods at that path. Any
   * other GET gets 405. `false` turns the page off (every GET gets 405). Default `true`.
   */
  readonly inspector?: boolean;
  /**
   * More names a request's `Host` may give (any case, the port ignored; `".example"` takes
   * `example` and every name under it), or `true` not to check `Host`. Default: loopback names
   * (`localhost`, `127.x.x.x`, `[::1]`) and IP addresses, as the development server bound to every
   * interface: a service reached by a name (`api.example`) must list it. Any other `Host` is
   * refused (403): a web page whose name an attacker points at the server (DNS rebinding) reaches
   * no method.
   */
  readonly allowedHosts?: readonly string[] | true;
  /**
   * More origins a request's `Origin` may give, as browsers send them (`"https://app.example"`;
   * `"null"` for a sandboxed page or a `file:` URL). Default: pages on a loopback host. A request
   * from any other page is refused (403); one without `Origin` (curl, a server) is not checked.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * CORS, so that a page of another origin can read the answers: `true` for the origins already
   * allowed, or `{ origins }` to allow these too. A preflight (OPTIONS) from an allowed origin is
   * answered 204; every answer to it carries `Access-Control-Allow-Origin` (that origin, never
   * `*`). Default `false`: no CORS headers, and an OPTIONS is 405.
   */
  readonly cors?: boolean | { readonly origins?: readonly string[] };
}

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

/** Any contract's server, as the handler reads it at run time. */
interface AnyApp {
  readonly methods: Methods;
  readonly stages: ReadonlyArray<AnyStage>;
  readonly options: (...context: unknown[]) => JsonOptions;
}

/** A contract's server, not a table: no method is an array, and a server's `stages` is one. */
const isApp = (x: unknown): x is AnyApp =>
  typeof x === "object" &&
  x !== null &&
  !(x instanceof Map) &&
  Array.isArray((x as { stages?: unknown }).stages) &&
  typeof (x as { options?: unknown }).options === "function" &&
  typeof (x as { methods?: unknown }).methods === "object";

const JSON_TYPE = "application/json";

/** The answer to a body over the limit: 413, and the JSON-RPC error a client reads. */
const tooLarge = (limit: number, cors: HeaderValues): Response =>
  answerOf(413, { "Content-Type": JSON_TYPE, ...cors }, refusedBody(`the body is over ${limit} bytes`));

/** A `Response` with headers whose values may be numbers (`Access-Control-Max-Age`). */
const answerOf = (
  status: number,
  headers: HeaderValues,
  body: string | ReadableStream<Uint8Array> | null,
): Response => {
  const init = new Headers();
  for (const name of Object.keys(headers)) init.set(name, String(headers[name]));
  return new Response(status === 204 ? null : body, { status, headers: init });
};

/** What reading a POST's body came to: its bytes, more than the limit, or a stream that broke off. */
type Read = Uint8Array | "over" | { readonly broken: unknown };

/**
 * The body's bytes, or `"over"` once more than `limit` came (the rest not read): a declared
 * `Content-Length` over the limit is refused before a byte is read. A stream that errors (the
 * client left mid-upload) is `broken`: the client's doing, unlike anything else that fails here.
 */
const readBody = async (
  body: ReadableStream<Uint8Array> | null,
  declared: string | null,
  limit: number,
): Promise<Read> => {
  if (declared !== null && Number(declared) > limit) {
    body?.cancel().catch(() => undefined);
    return "over";
  }
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > limit) {
        reader.cancel().catch(() => undefined);
        return "over";
      }
      chunks.push(value);
    }
  } catch (broken) {
    return { broken };
  }
  // One array of this realm: dispatch checks `instanceof Uint8Array`, and a runtime's chunks may be another's.
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

/** A body something read before the handler was called (a middleware's `c.req.json()`): nothing left to dispatch. */
const READ_BEFORE =
  "the request's body was read before the handler was called (by a middleware or a body parser: Hono's " +
  "c.req.json()? Fastify's content-type parsers?); call the handler with the request before anything reads its body";

/** The path and query of a URL (what the development server's `req.url` is). */
const pathOf = (url: string): string => {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
};

/** The context's answer: its options for dispatch, or the `Response` of its refusal. */
type Made = { readonly options: JsonOptions } | { readonly refused: Response };

/** The answer to a request this server failed (not its client): -32000 "Server error", and `why` logged as an error of `who`. */
const serverError = (who: string, why: string, cors: HeaderValues): Response => {
  say("error", `rpcserver: ${who}: ${why}`);
  return answerOf(200, { "Content-Type": JSON_TYPE, ...cors }, SERVER_ERROR_BODY);
};

const refusedBy = (who: string, thrown: unknown, o: JsonOptions, cors: HeaderValues): Response => {
  const refusal = refusedContext(thrown, o.serializer);
  return refusal === undefined
    ? serverError(who, `the context function failed: ${messageOf(thrown)}`, cors)
    : answerOf(200, { "Content-Type": JSON_TYPE, ...cors }, refusal);
};

/** Everything a handler needs, checked once when it is made. */
interface Prepared {
  readonly methods: Methods;
  readonly gate: Gate;
  readonly limit: number;
  readonly dispatchOptions: (request: Request, cors: HeaderValues) => Promise<Made>;
}

const checkOptions = (options: FetchServerOptions, who: string): void => {
  const { maxBodyBytes } = options;
  if (maxBodyBytes !== undefined && (typeof maxBodyBytes !== "number" || !(maxBodyBytes >= 0))) {
    throw new TypeError(`${who}: maxBodyBytes must be a number of bytes (Infinity for no limit)`);
  }
  checkServedOptions(options, who);
};

/** The handler's parts, from a table or a server and the options; `who` names the handler in its errors. */
const prepare = (methodsOrApp: unknown, given: unknown, who: string): Prepared => {
  if (typeof methodsOrApp !== "object" || methodsOrApp === null) {
    throw new TypeError(`${who}: give a methods table (an object or a Map) or a contract's server`);
  }
  const options = (given ?? {}) as FetchServerOptions & JsonOptions & { readonly context?: unknown };
  checkOptions(options, who);
  const { maxBodyBytes, openrpc, inspector, allowedHosts, allowedOrigins, cors: corsGiven, context, ...rest } = options;
  if (context !== undefined && typeof context !== "function") {
    throw new TypeError(`${who}: context must be a function of the request`);
  }
  const make = context as ((request: Request) => unknown) | undefined;
  const app = isApp(methodsOrApp) ? methodsOrApp : undefined;
  const cors = corsOption(corsGiven, who);
  const guard = browserGuard({
    listening: "",
    allowedHosts,
    allowedOrigins: [...(allowedOrigins ?? []), ...cors.origins],
  });
  const title = openrpc === false ? undefined : (openrpc?.title ?? DEFAULT_INFO.title);
  const gate: Gate = {
    guard,
    cors: cors.on,
    page: inspector === false ? undefined : (url) => servedPage(title, url.split("?", 1)[0]),
    pagePath: () => true,
  };
  const base: JsonOptions = app === undefined ? rest : { ...rest, ...app.options() };
  const dispatchOptions = async (request: Request, corsHeaders: HeaderValues): Promise<Made> => {
    if (make === undefined) return { options: base };
    try {
      const made = await make(request);
      return { options: app === undefined ? { ...rest, context: made } : { ...rest, ...app.options(made) } };
    } catch (thrown) {
      return { refused: refusedBy(who, thrown, rest, corsHeaders) };
    }
  };
  const table = app === undefined ? (methodsOrApp as Methods) : app.methods;
  return {
    methods: discoverable(table, openrpc, who),
    gate,
    limit: maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    dispatchOptions,
  };
};

/** The `Response` of `answerHttp`'s answer, with the CORS headers. */
const responseOf = (answered: HttpStreamAnswer, cors: HeaderValues): Response =>
  answerOf(answered.status, { ...answered.headers, ...cors }, answered.body);

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
export function fetchHandler<M extends Entries, In, Cur>(
  app: Server<M, In, Cur>,
  ...options: AppOptionsArg<In>
): FetchHandler;
export function fetchHandler<C = NoContext, X = NoContext, const S extends ReadonlyArray<AnyStage> = readonly []>(
  methods: MethodsFor<C>,
  ...options: TableOptionsArg<C, X, S>
): FetchHandler;
export function fetchHandler(methodsOrApp: unknown, options?: unknown): FetchHandler {
  return handlerOf("fetchHandler", methodsOrApp, options);
}

/**
 * The fetch handler `fetchHandler` makes, for `who` (`fetchHandler`, or `nodeHandler`, which is this
 * handler on Node's req and res): its TypeErrors and log lines name it. @internal
 */
export const handlerOf = (who: string, methodsOrApp: unknown, options?: unknown): FetchHandler => {
  const { methods, gate, limit, dispatchOptions } = prepare(methodsOrApp, options, who);
  const handle = async (request: Request): Promise<Response> => {
    if (!isRequest(request)) return serverError(who, NOT_A_REQUEST, NO_HEADERS);
    const headers = request.headers;
    const header = (name: string): string | undefined =>
      headers.get(name) ?? (name === "host" ? hostOf(request.url) : undefined);
    const routed = route(gate, request.method, pathOf(request.url), header);
    if (!routed.dispatch) {
      request.body?.cancel().catch(() => undefined);
      return answerOf(routed.status, routed.headers, routed.body);
    }
    const { cors } = routed;
    if (request.bodyUsed || request.body?.locked === true) return serverError(who, READ_BEFORE, cors);
    const read = await readBody(request.body, headers.get("content-length"), limit);
    if (read === "over") return tooLarge(limit, cors);
    if (!(read instanceof Uint8Array)) {
      say("info", `rpcserver: ${who}: ${request.method} ${request.url}: not answered (${messageOf(read.broken)})`);
      return answerOf(
        400,
        { "Content-Type": "text/plain; charset=utf-8" },
        "rpcserver: the request could not be read\n",
      );
    }
    const made = await dispatchOptions(request, cors);
    if ("refused" in made) return made.refused;
    let answered: HttpStreamAnswer;
    try {
      answered = await answerHttp(read, methods, {
        ...made.options,
        accept: headers.get("accept"),
        signal: request.signal,
      } as never);
    } catch (thrown) {
      return serverError(who, `dispatch failed: ${messageOf(thrown)}`, cors);
    }
    return responseOf(answered, cors);
  };
  // Only a bug of this module gets here: logged as one, and never a rejection.
  return (request) =>
    handle(request).catch((thrown: unknown) => serverError(who, `could not answer: ${messageOf(thrown)}`, NO_HEADERS));
};

/** A request's URL's host, for one made without a `Host` header (`new Request(url)` in a test). */
const hostOf = (url: string): string | undefined => {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};
