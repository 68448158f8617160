/**
 * The options of the development server's `serve`, in a file of their own: both the main entry's
 * lazy `serve` (serve.ts) and Node's (server.ts) take them, and serve.ts loads server.ts, so the
 * type lives where neither imports the other for it.
 *
 * @module
 */
import type { NoContext, WithSignal } from "../core/context-marks";
import type { GivenContext, MethodsFor } from "../core/dispatch-context";
import type { Methods } from "../core/methods";
import type { OpenRpcInfo } from "../documents/openrpc-types";

/**
 * Extras of {@link serve} beyond the specification's `(name, port)`; all optional.
 *
 * @example
 * import { serve, type ServeOptions } from "rpcserver";
 * const options: ServeOptions = {
 *   context: { user: "dev" },
 *   debug: true,
 *   openrpc: { title: "My API" },
 *   cors: { origins: ["http://app.example:8080"] }, // a page served elsewhere may call it and read the answers
 * };
 * const server = await serve("localhost", 0, options);
 * server.close();
 *
 * @since 5.0.10
 * @category server
 */
export interface ServeOptions {
  /** The methods to serve. Default: `globalMethods`, the methods registered with `method`. */
  readonly methods?: Methods;
  /**
   * Passed as the first argument to every method, the same value for every request (and left out
   * of the `rpc.discover` document). Default: none.
   */
  readonly context?: unknown;
  /** Sends an uncaught exception's message in the error's `data`. Default `false`. */
  readonly debug?: boolean | undefined;
  /**
   * What `rpc.discover` says about the service (OpenRPC's info: `title`, `version`...), or `false`
   * not to answer `rpc.discover`. Default: title `JSON-RPC service`, version `0.0.0` (never the
   * library's name: give your service's), and the
   * server's URL in `servers`.
   */
  readonly openrpc?: Partial<OpenRpcInfo> | false | undefined;
  /**
   * More names a request's `Host` may give (any case, the port ignored; `".example"` takes
   * `example` and every name under it), or `true` not to check `Host`. Default: bound to a loopback
   * address (`"localhost"`, `127.0.0.0/8`, `"::1"`), loopback names only (`localhost`, `127.x.x.x`,
   * `[::1]`); bound elsewhere (`""`, `"0.0.0.0"`, a LAN address), any IP address too. The `name`
   * given to `serve`, when it is a host name, is always accepted. Any other `Host` is refused (403):
   * a web page whose name an attacker points at this machine (DNS rebinding) reaches no method.
   */
  readonly allowedHosts?: readonly string[] | true | undefined;
  /**
   * More origins a request's `Origin` may give, as browsers send them (`"https://app.example:8443"`;
   * `"null"` for a sandboxed page or a `file:` URL). Default: pages on a loopback host
   * (`http://localhost:5173`, `http://127.0.0.1:3000`, any port). A request from any other page is
   * refused (403), so a site one visits cannot call the methods. A request without `Origin` (curl, a
   * Node client) is not a browser's and is not checked.
   */
  readonly allowedOrigins?: readonly string[] | undefined;
  /**
   * CORS, so that a page served from another origin can read the answers: `true` for the origins
   * already allowed (loopback pages and `allowedOrigins`), or `{ origins }` to allow these too. A
   * preflight (OPTIONS) from an allowed origin is answered 204 with `Access-Control-Allow-Methods:
   * POST`, the headers it asks for, and `Access-Control-Max-Age: 600`; every answer to it carries
   * `Access-Control-Allow-Origin` (that origin, never `*`). Default `false`: no CORS headers, and an
   * OPTIONS is 405.
   */
  readonly cors?: boolean | { readonly origins?: readonly string[] } | undefined;
  /**
   * The inspector page: a browser's GET of `/` (an `Accept` that names `text/html`) is answered with
   * a page that reads `rpc.discover` and lets one call the methods, from the server's own origin
   * (`inspectorPage` of `rpcserver/inspector`; docs/inspector.md). A GET of another path, or
   * whose `Accept` does not name `text/html` (curl's and `fetch`'s default, any type, does not),
   * still gets 405. `false` turns the page off: then every GET gets 405. Default `true`.
   */
  readonly inspector?: boolean | undefined;
}

/**
 * {@link ServeOptions} as `serve` types them: `C` is the `context` given, and the methods are
 * checked against what they will receive (the context, a plain object gaining the request's
 * `signal`), so a table whose methods take a context that was not given (or another) does not
 * compile.
 *
 * @example
 * import { serve, withContext, Success, type ServeOptionsFor } from "rpcserver";
 * import * as t from "io-ts";
 * const whoami = withContext<{ user: string }>().withParams(t.type({}), (ctx) => Success(ctx.user));
 * const options: ServeOptionsFor<{ user: string }> = { methods: { whoami }, context: { user: "dev" } };
 * const server = await serve("localhost", 0, options);
 * server.close();
 *
 * @since 5.0.10
 * @category server
 */
export type ServeOptionsFor<C = NoContext> = Omit<ServeOptions, "methods" | "context"> & {
  /** The methods to serve, each accepting the context it will receive. Default: `globalMethods`. */
  readonly methods?: MethodsFor<WithSignal<GivenContext<NoInfer<C>>>>;
  /** Passed as the first argument to every method (a plain object gains the request's `signal`). */
  readonly context?: C;
};
