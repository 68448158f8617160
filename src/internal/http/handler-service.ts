/**
 * The options an HTTP handler (`fetchHandler`, `nodeHandler`) is made with, checked once into the
 * {@link Service} it answers with (./exchange): its methods (a table, or a contract's server and its
 * stages) with `rpc.discover`, the browser guard, CORS and the inspector page, the body limit, and
 * how each request's dispatch options are made (the `context` function's result, or its refusal),
 * or the relay that takes the bodies instead (`mcpHandler`'s workers elsewhere).
 *
 * @module
 */
import { DEFAULT_INFO } from "../documents/openrpc";
import type { OpenRpcInfo } from "../documents/openrpc-types";
import type { Methods } from "../core/methods";
import type { JsonOptions } from "../core/options";
import type { Relay } from "../core/relay";
import type { AnyStage } from "../core/stages";
import { heartbeatOf } from "./answer";
import { guardFor } from "./browser-guard";
import { discoverable } from "./discovery";
import { refusedBy, type Made, type Service } from "./exchange";
import { servedPage } from "./inspector-route";
import { checkServedOptions, corsOption, type Gate } from "./route";

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
   * With events accepted, how long a request waits for its first value or its answer before the
   * answer becomes an event stream (its head sent), and then the interval of the comments that keep
   * a silent stream alive: see `answerHttp`'s `heartbeatMs`. `0`: never. Default: 15,000.
   */
  readonly heartbeatMs?: number | undefined;
  /**
   * The most bytes a POST body may have. A larger one is answered 413 with a JSON-RPC error
   * (-32600, id `null`) and is not read further. Default 1 MiB; `Infinity` for no limit.
   */
  readonly maxBodyBytes?: number | undefined;
  /**
   * What `rpc.discover` says about the service (OpenRPC's info: `title`, `version`...), or `false`
   * not to answer `rpc.discover`. Default: title `JSON-RPC service`, version `0.0.0`.
   */
  readonly openrpc?: Partial<OpenRpcInfo> | false | undefined;
  /**
   * The inspector page: a browser's GET (an `Accept` that names `text/html`) of the path the handler
   * is mounted on gets a page that reads `rpc.discover` and calls the methods at that path. Any
   * other GET gets 405. `false` turns the page off (every GET gets 405). Default `true`.
   */
  readonly inspector?: boolean | undefined;
  /**
   * More names a request's `Host` may give (any case, the port ignored; `".example"` takes
   * `example` and every name under it), or `true` not to check `Host`. Default: loopback names
   * (`localhost`, `127.x.x.x`, `[::1]`) and IP addresses, as the development server bound to every
   * interface: a service reached by a name (`api.example`) must list it. Any other `Host` is
   * refused (403): a web page whose name an attacker points at the server (DNS rebinding) reaches
   * no method.
   */
  readonly allowedHosts?: readonly string[] | true | undefined;
  /**
   * More origins a request's `Origin` may give, as browsers send them (`"https://app.example"`;
   * `"null"` for a sandboxed page or a `file:` URL). Default: pages on a loopback host. A request
   * from any other page is refused (403); one without `Origin` (curl, a server) is not checked.
   */
  readonly allowedOrigins?: readonly string[] | undefined;
  /**
   * CORS, so that a page of another origin can read the answers: `true` for the origins already
   * allowed, or `{ origins }` to allow these too. A preflight (OPTIONS) from an allowed origin is
   * answered 204; every answer to it carries `Access-Control-Allow-Origin` (that origin, never
   * `*`). Default `false`: no CORS headers, and an OPTIONS is 405.
   */
  readonly cors?: boolean | { readonly origins?: readonly string[] } | undefined;
}

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

const checkOptions = (options: FetchServerOptions, who: string): void => {
  const { maxBodyBytes } = options;
  if (maxBodyBytes !== undefined && (typeof maxBodyBytes !== "number" || !(maxBodyBytes >= 0))) {
    throw new TypeError(`${who}: maxBodyBytes must be a number of bytes (Infinity for no limit)`);
  }
  heartbeatOf(options.heartbeatMs, who);
  checkServedOptions(options, who);
};

/**
 * The service of a handler named `who` (in its TypeErrors and log lines), from a table or a
 * contract's server and the handler's options. Without a `context` function, every request is
 * dispatched with the same options, made here once.
 */
export const serviceOf = (who: string, methodsOrApp: unknown, given: unknown, relay?: Relay): Service => {
  if (typeof methodsOrApp !== "object" || methodsOrApp === null) {
    throw new TypeError(`${who}: give a methods table (an object or a Map) or a contract's server`);
  }
  const options = (given ?? {}) as FetchServerOptions &
    JsonOptions & { readonly context?: unknown; readonly relay?: unknown };
  checkOptions(options, who);
  const {
    maxBodyBytes,
    openrpc,
    inspector,
    allowedHosts,
    allowedOrigins,
    cors: corsGiven,
    context,
    relay: misplaced,
    ...rest
  } = options;
  if (context !== undefined && typeof context !== "function") {
    throw new TypeError(`${who}: context must be a function of the request`);
  }
  // Only mcpHandler relays (its own argument): here it would be taken for a dispatch option and do nothing.
  if (misplaced !== undefined) {
    throw new TypeError(`${who}: relay is an option of mcpHandler (rpcserver/mcp), not of ${who}`);
  }
  const make = context as ((request: Request) => unknown) | undefined;
  const app = isApp(methodsOrApp) ? methodsOrApp : undefined;
  const cors = corsOption(corsGiven, who);
  const guard = guardFor(
    { listening: "", allowedHosts, allowedOrigins: [...(allowedOrigins ?? []), ...cors.origins] },
    who,
  );
  const title = openrpc === false ? undefined : (openrpc?.title ?? DEFAULT_INFO.title);
  const gate: Gate = {
    guard,
    cors: cors.on,
    // Loaded on the page's first GET: see InspectorModule.
    page:
      inspector === false
        ? undefined
        : (url) => import("../inspector/page").then((page) => servedPage(page, title, url.split("?", 1)[0])),
    pagePath: () => true,
  };
  const same: Made = { options: app === undefined ? rest : { ...rest, ...app.options() } };
  const table = app === undefined ? (methodsOrApp as Methods) : app.methods;
  return {
    who,
    // mcpHandler's workers elsewhere (docs/mcp.md): the bodies past the checks go there.
    ...(relay !== undefined ? { relay } : {}),
    methods: discoverable(table, openrpc, who),
    gate,
    limit: maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    dispatchOptions:
      make === undefined
        ? () => same
        : async (incoming, corsHeaders) => {
            try {
              const made = await make(incoming.request());
              return { options: app === undefined ? { ...rest, context: made } : { ...rest, ...app.options(made) } };
            } catch (thrown) {
              return { refused: refusedBy(who, thrown, rest, corsHeaders) };
            }
          },
  };
};
