/**
 * The development server as the main entry (`rpcserver`) types it: `serve` resolves to
 * {@link DevServer}, a structural type of this package's own, not to `node:http`'s `Server`.
 *
 * Why: the main entry re-exports `serve`, and a declaration file that imports `node:http` does not
 * compile without `@types/node`, so every browser, Deno or edge project importing `rpcserver` would
 * fail to type-check for the sake of a server it cannot run. Nothing this module's declarations
 * reach names a Node type; `rpcserver/server`, the Node entry, exports the same function typed with
 * `http.Server`, for those who want the whole of Node's API.
 *
 * @module
 */
import type { NoContext } from "../core/context-marks";
import type { ServeOptions, ServeOptionsFor } from "./serve-options";

export type { ServeOptions, ServeOptionsFor } from "./serve-options";

/**
 * Where the development server listens, as {@link DevServer.address} gives it: the fields of
 * Node's `net.AddressInfo`.
 *
 * @example
 * import { serve, type DevServerAddress } from "rpcserver";
 * const server = await serve("127.0.0.1", 0);
 * // { address: "127.0.0.1", family: "IPv4", port: 39215 }, with the port the system picked:
 * const { address, family } = server.address() as DevServerAddress;
 * [address, family]; // ["127.0.0.1", "IPv4"]
 * server.close();
 *
 * @since 5.0.10
 * @category server
 */
export interface DevServerAddress {
  /** The address it is bound to: `"127.0.0.1"`, `"::"`... */
  readonly address: string;
  /** `"IPv4"` or `"IPv6"`. */
  readonly family: string;
  /** The port: the one the system picked when `serve` was given port 0. */
  readonly port: number;
}

/**
 * The running development server, as the main entry's {@link serve} resolves to it: what one does
 * with it (read its port, stop it, hear of its errors), in types that need nothing from Node.
 *
 * At run time it is `node:http`'s `Server` with `url` and `port` added, assignable to
 * `DevServer`. For the rest of Node's API, import `serve` from `rpcserver/server` (the same
 * function, typed `Promise<http.Server & { url, port }>`), which needs `@types/node`.
 *
 * @example
 * import { serve, type DevServer } from "rpcserver";
 * const server: DevServer = await serve("localhost", 0);
 * server.listening; // true
 * server.url.startsWith("http://localhost:"); // true
 * server.url === `http://localhost:${server.port}/`; // true
 * server.on("error", (error) => console.error(error.message));
 * server.close(() => console.log("closed"));
 * server.closeAllConnections(); // now, rather than when keep-alive connections end
 * server.listening; // false
 *
 * @since 5.0.10
 * @category server
 */
export interface DevServer {
  /**
   * The URL it serves, as its listening line prints it: `http://localhost:5000/`, with the port
   * the system picked for port 0, `localhost` for a server on every interface, an IPv6 address in
   * brackets. Kept once closed.
   */
  readonly url: string;
  /** The port it listens on: the one the system picked when `serve` was given port 0. Kept once closed. */
  readonly port: number;
  /** `true` from the moment `serve` resolves until `close()` is called. */
  readonly listening: boolean;
  /** Where it listens (the port picked for port 0 included); `null` once closed. */
  address(): DevServerAddress | string | null;
  /**
   * Stops taking new connections; `callback` runs once the open ones have ended, with an Error if
   * the server was not listening. Keep-alive connections hold it open: see `closeAllConnections`.
   */
  close(callback?: (error?: Error) => void): this;
  /** Ends every open connection at once, idle or busy (Node 18.2 and later). */
  closeAllConnections(): void;
  /** Lets the process exit while the server is listening. */
  unref(): this;
  /** Undoes `unref`: the listening server keeps the process alive again (the default). */
  ref(): this;
  /** `"close"`: the server has closed and its connections have ended. */
  on(event: "close", listener: () => void): this;
  /** `"error"`: a server error after it started listening (already logged by `serve`). */
  on(event: "error", listener: (error: Error) => void): this;
  /** As `on`, for the next event only. */
  once(event: "close", listener: () => void): this;
  /** As `on`, for the next event only. */
  once(event: "error", listener: (error: Error) => void): this;
  /** Removes a listener added with `on` or `once`. */
  off(event: "close", listener: () => void): this;
  /** Removes a listener added with `on` or `once`. */
  off(event: "error", listener: (error: Error) => void): this;
}

/**
 * Starts the development server: JSON-RPC 2.0 over HTTP on `name`:`port`, for development only.
 * Resolves, once listening, to a {@link DevServer} (its URL is `server.url`, its port
 * `server.port`; stop it with `server.close()`); the process then runs until stopped. The object is `node:http`'s
 * `Server`: `serve` from `rpcserver/server`, the same function, is typed so.
 *
 * When to use it: to try methods out with `curl` or a client library. In production, call
 * `asyncDispatch` from your own HTTP framework, which gives you TLS, authentication, limits and a
 * per-request `context`.
 *
 * Details:
 * - `name`: the host name or address; `""` (the default) listens on every network interface,
 *   `"localhost"` accepts only local connections. `port`: default 5000; `0` picks a free port.
 * - POST on any path is dispatched with the async dispatcher over `globalMethods` (or
 *   `options.methods`): 200 with `Content-Type: application/json`, or 204 and no body when there is
 *   nothing to send. A body that is not UTF-8 or not JSON gets the parse error (-32700).
 * - A browser's GET of `/` (its `Accept` names `text/html`) gets the inspector page, which lists
 *   the methods from `rpc.discover` and calls them (`inspectorPage` of `rpcserver/inspector`);
 *   `inspector: false` turns it off. Any other GET, and the other HTTP methods, get 405 with
 *   `Allow: POST`.
 * - Logs `rpcserver: listening on http://host:port/ ...` (and where the inspector page is) through
 *   the logger's `warn` (stderr by default) and one `info` line per request (silent by default;
 *   `setLogger(console)` shows them).
 * - Answers `rpc.discover` with the OpenRPC document of the methods it serves (see
 *   `openRpcDocument`), unless they have a method of that name; `openrpc` sets the document's
 *   info, or `false` turns this off. With a `context`, the document leaves it out: a method
 *   without a params codec does not list its first parameter.
 * - Browsers: a request whose `Host` is not a loopback name (when bound to a loopback address; when
 *   bound elsewhere, not an IP address either) or whose `Origin` is not a loopback page gets 403 and
 *   a text saying which header and how to allow it (`allowedHosts`, `allowedOrigins`): no web page
 *   the developer visits, rebound to 127.0.0.1 (DNS rebinding) or not, can call the methods. curl
 *   and Node clients send no `Origin` and pass. `cors` (opt-in) answers preflights and marks the
 *   answers for the allowed origins. The check is `browserGuard` of `rpcserver/server`.
 *
 * Gotchas (the risk of using it anywhere but your own machine):
 * - No TLS, no authentication: anyone who can reach the port can call every method. The default
 *   host listens on every interface; pass `"localhost"` to stay local.
 * - No request size limit and no `maxBatchSize`: one request may be as large as memory allows,
 *   and one batch may run any number of methods at once.
 *
 * Rejects with a `RangeError` for a port that is not an integer from 0 to 65535, a `TypeError` for
 * a name that is not a string or an option of the wrong type, and an `Error` whose `code` is the
 * system's (`EADDRINUSE`, `EACCES`...) when it cannot listen.
 *
 * @example
 * import { method, serve, Success } from "rpcserver";
 * method(function ping() { return Success("pong"); });
 * const server = await serve("localhost", 0);
 * server.url; // "http://localhost:<port>/", the port the system picked
 * // curl -X POST http://localhost:<port>/ -d '{"jsonrpc":"2.0","method":"ping","id":1}'
 * server.close();
 *
 * @since 5.0.10
 * @category server
 */
export const serve = <C = NoContext>(name?: string, port?: number, options?: ServeOptionsFor<C>): Promise<DevServer> =>
  // Node's serve, loaded when first called: the main entry (and a page's bundle of it) does not
  // carry the server. Its answer is typed `DevServer`: this compiles only while `http.Server` is
  // assignable to it, so the interface cannot promise what the server lacks.
  import("./server").then((server) => server.serve(name, port, options as ServeOptions));
