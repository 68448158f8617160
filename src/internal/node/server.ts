/**
 * The development server: JSON-RPC over HTTP with `node:http`, for trying methods out, never for
 * production.
 *
 * Rules (interface specification, "Development server"):
 * - POST on any path: the body is dispatched with the async dispatcher, so async methods work; the
 *   answer is 200 with `Content-Type: application/json`, or 204 with no body when there is nothing
 *   to send (a notification, a batch of notifications).
 * - A POST whose `Accept` names `text/event-stream` is answered on MCP's Streamable HTTP wire
 *   (`answerHttp`): 202 for notifications alone, the same JSON when the answer comes before any
 *   value, else an event stream of the values methods stream, then the answer, written at the
 *   client's pace. The client closing the connection first aborts the methods' `signal`.
 * - A browser's GET of `/` (its `Accept` names `text/html`) answers the inspector page (unless
 *   `inspector: false`), which reads `rpc.discover` and calls the methods from the same origin; see
 *   inspector-route.ts.
 * - Any other HTTP method, and any other GET: 405 with `Allow: POST`.
 * - The body is handed to dispatch as bytes: invalid UTF-8 and text that is not JSON are answered
 *   with the JSON-RPC parse error (-32700), like any other bad request. An encoded body
 *   (`Content-Encoding`) is not decoded: 415, with the JSON-RPC error -32600 naming the coding.
 * - Requests are handled concurrently; a client that goes away, a broken or half-sent request, a
 *   stream error: each is logged and dropped, and the server goes on answering.
 * - On start it logs where it listens (through `log().warn`, so the default logger prints it on
 *   stderr); each request is logged at info level (silent by default).
 * - It answers `rpc.discover` with the OpenRPC document of the methods it serves (unless they have
 *   a method of that name, or `openrpc: false`), built at each call, so methods registered later
 *   are in it; with a `context`, the document leaves it out (dispatch tells `rpc.discover`).
 * - Browsers (see `browserGuard`, the one check): before anything else, a request whose `Host` is
 *   not an allowed host, or whose `Origin` (when sent) is not an allowed origin, is refused with 403
 *   and a text that names the header and the option that allows it; nothing is dispatched. Bound to
 *   a loopback address, the allowed hosts are loopback names only (so a page whose name was made to
 *   point at 127.0.0.1, DNS rebinding, is refused); bound elsewhere, IP addresses too. The allowed
 *   origins are loopback pages; `allowedHosts`, `allowedOrigins` and `cors.origins` add to both.
 * - CORS only when asked (`cors`): a preflight (OPTIONS with `Origin` and
 *   `Access-Control-Request-Method`) from an allowed origin is 204 with the Access-Control-Allow-*
 *   headers, and every answer to such an origin carries `Access-Control-Allow-Origin`.
 * - No TLS, no authentication, no request size limit, no `maxBatchSize`: anyone who can reach the
 *   port without a browser can run every registered method, with a body and a batch as large as
 *   memory allows.
 *
 * The pieces: the browser guard in ../http/browser-guard.ts; the requests answered by the one
 * HTTP path (../http/exchange.ts, `nodeHandler`'s and `fetchHandler`'s) through ./node-exchange.ts,
 * with its log in ./request-log.ts; the options in ./serve-options.ts; here, `serve` itself: its
 * arguments checked, the server made, started, and its address told.
 *
 * Only the Node-only modules (this folder) touch `node:`; this one loads `node:http` when `serve`
 * is called, so importing the package (which re-exports `serve`) loads no Node module in a browser,
 * Deno or Bun. Its types name `http.Server`, so they need `@types/node`: the package re-exports
 * `serve` through serve.ts, typed with `DevServer`, whose declarations need nothing from Node.
 *
 * @module
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { messageOf } from "../core/describe";
import { globalMethods } from "../core/methods";
import { DEFAULT_INFO } from "../documents/openrpc";
import { browserGuard, hostnameOf, isAddress, type BrowserGuardOptions } from "../http/browser-guard";
import { discoverable } from "../http/discovery";
import { isPagePath, servedPage } from "../http/inspector-route";
import * as inspectorModule from "../inspector/page";
import type { Made, Service } from "../http/exchange";
import { checkServedOptions, corsOption, say, type Gate } from "../http/route";
import { nodeExchange } from "./node-exchange";
import { requestLog } from "./request-log";
import type { NoContext } from "../core/context-marks";
import type { ServeOptions, ServeOptionsFor } from "./serve-options";

/**
 * The default host of {@link serve}: the empty string listens on every network interface.
 *
 * @since 5.0.10
 * @category server
 */
export const DEFAULT_HOST = "";

/**
 * The default port of {@link serve}, as in the specification.
 *
 * @since 5.0.10
 * @category server
 */
export const DEFAULT_PORT = 5000;

/** The highest TCP port number. */
const MAX_PORT = 65535;

/** The host part of a URL a person can paste: a wildcard address becomes `localhost`, IPv6 gets brackets. */
const urlHost = (name: string): string => {
  if (name === "" || name === "0.0.0.0" || name === "::") return "localhost";
  return name.includes(":") ? `[${name}]` : name;
};

/** Where the server listens, in words. */
const where = (name: string, port: number): string =>
  name === "" || name === "0.0.0.0" || name === "::" ? `every interface, port ${port}` : `host ${name}, port ${port}`;

const reasons: { readonly [code: string]: string } = {
  EADDRINUSE: "the port is already in use",
  EACCES: "permission denied (ports below 1024 usually need privileges)",
  EADDRNOTAVAIL: "the address is not one of this machine's",
  ENOTFOUND: "unknown host name",
  EAI_AGAIN: "the host name could not be resolved",
};

/** A listen failure, translated once: a message that says what went wrong and where; `code` kept. */
const listenError = (name: string, port: number, thrown: unknown): Error => {
  const code = (thrown as { code?: unknown } | null)?.code;
  const reason = typeof code === "string" && code in reasons ? `${reasons[code]} (${code})` : messageOf(thrown);
  const error = new Error(`rpcserver: cannot listen on ${where(name, port)}: ${reason}`, { cause: thrown });
  if (typeof code === "string") Object.defineProperty(error, "code", { value: code, enumerable: true });
  return error;
};

/** The allowed hosts with the name `serve` was given, when it is a host name: it names this server. */
const withName = (allowedHosts: ServeOptions["allowedHosts"], name: string): ServeOptions["allowedHosts"] => {
  if (allowedHosts === true || (allowedHosts !== undefined && !Array.isArray(allowedHosts))) return allowedHosts;
  const hostname = hostnameOf(name);
  const named = hostname !== undefined && hostname !== "" && !isAddress(hostname);
  return named ? [...((allowedHosts as readonly string[] | undefined) ?? []), hostname] : allowedHosts;
};

/** `serve`'s host name and port, checked. */
const checkPlace = (name: string, port: number): void => {
  if (typeof name !== "string") throw new TypeError(`serve: the host name must be a string, got ${typeof name}`);
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > MAX_PORT) {
    throw new RangeError(`serve: the port must be an integer from 0 to ${MAX_PORT}, got ${String(port)}`);
  }
};

/** `serve`'s options, checked for their types (the lists are checked by `browserGuard`). */
const checkOptions = (options: ServeOptions): void => {
  const { methods, debug } = options;
  if (methods !== undefined && (typeof methods !== "object" || methods === null)) {
    throw new TypeError(`serve: methods must be an object or a Map, got ${methods === null ? "null" : typeof methods}`);
  }
  if (debug !== undefined && typeof debug !== "boolean") {
    throw new TypeError(`serve: debug must be a boolean, got ${typeof debug}`);
  }
  checkServedOptions(options, "serve");
};

/** Starts `server` listening on `name`:`port`; once bound, the gate's guard is made for the address bound. */
const listen = (
  server: Server,
  name: string,
  port: number,
  gate: Gate,
  guarding: (listening: string) => BrowserGuardOptions,
): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    const onError = (thrown: unknown): void => {
      server.off("listening", onListening);
      reject(listenError(name, port, thrown));
    };
    const onListening = (): void => {
      server.off("error", onError);
      // Before any request: what `name` resolved to is the address to judge `Host` by.
      const bound = (server.address() as AddressInfo | null)?.address;
      if (bound !== undefined) gate.guard = browserGuard(guarding(bound));
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    if (name === "") server.listen(port);
    else server.listen(port, name);
  });

/**
 * The development server, typed with Node's `http.Server`: the main entry's `serve` (see it for
 * what the server does), the same function, whose result is typed `DevServer` there so that the
 * package's types need nothing from Node. Import it from here to use the rest of Node's API on the
 * server; this entry's types need `@types/node`.
 *
 * The server it resolves to also has `url`, the URL it serves (as its listening line prints it),
 * and `port`, the port it listens on (the one the system picked for port 0).
 *
 * @example
 * import { serve } from "rpcserver/server";
 * const server = await serve("localhost", 0); // node:http's Server, with url and port
 * server.keepAliveTimeout = 1000; // Node's API, which DevServer does not list
 * server.url; // "http://localhost:<port>/", and server.port the port the system picked
 * server.close();
 *
 * @since 5.0.10
 * @category server
 */
export const serve = async <C = NoContext>(
  name: string = DEFAULT_HOST,
  port: number = DEFAULT_PORT,
  typed?: ServeOptionsFor<C>,
): Promise<Server & { readonly url: string; readonly port: number }> => {
  const options = (typed ?? {}) as ServeOptions;
  checkPlace(name, port);
  checkOptions(options);
  const { methods, openrpc } = options;
  const cors = corsOption(options.cors, "serve");
  const guarding = (listening: string): BrowserGuardOptions => ({
    listening,
    allowedHosts: withName(options.allowedHosts, name),
    allowedOrigins: [...(options.allowedOrigins ?? []), ...cors.origins],
  });
  // Bad lists are the caller's TypeError now; the guard is made again once the address is known.
  const title = openrpc === false ? undefined : (openrpc?.title ?? DEFAULT_INFO.title);
  const page = options.inspector === false ? undefined : servedPage(inspectorModule, title);
  const gate: Gate = {
    guard: browserGuard(guarding(name)),
    cors: cors.on,
    page: page === undefined ? undefined : () => page,
    pagePath: (url) => isPagePath("GET", url),
  };
  const same: Made = {
    options: {
      ...(options.context === undefined ? {} : { context: options.context }),
      ...(options.debug === undefined ? {} : { debug: options.debug }),
    },
  };
  const http = await import("node:http");
  // The server's URL is known once it listens: `rpc.discover` reads it then.
  const at: { url?: string } = {};
  const served = discoverable(methods ?? globalMethods, openrpc, "serve", () =>
    at.url === undefined ? undefined : [{ name: "development server", url: at.url }],
  );
  // No body limit: a development server (the specification's has none).
  const service: Service = { who: "serve", methods: served, gate, limit: Infinity, dispatchOptions: () => same };
  const answer = nodeExchange(service, requestLog());
  const server = http.createServer((req, res) => void answer(req, res));
  // A client that sends its request and then half-closes (shutdown(SHUT_WR), `nc -N`) still gets its
  // answer: by default Node ends such a socket at once, before an async dispatch can reply. The
  // property is undocumented but has been on http.Server since Node 0.x; where absent, it is inert.
  (server as { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true;
  await listen(server, name, port, gate, guarding);

  server.on("error", (thrown) => say("error", `rpcserver: server error: ${messageOf(thrown)}`));
  const actual = (server.address() as AddressInfo | null)?.port ?? port;
  at.url = `http://${urlHost(name)}:${actual}/`;
  say(
    "warn",
    `rpcserver: listening on ${at.url} (${where(name, actual)}; development only: no TLS, no authentication)`,
  );
  if (page !== undefined) say("warn", `rpcserver: inspector: open ${at.url} in a browser to see and call the methods`);
  // Read-only, and kept once closed: where it listened, without the `address()` dance.
  return Object.defineProperties(server, {
    url: { value: at.url, enumerable: true },
    port: { value: actual, enumerable: true },
  }) as Server & { readonly url: string; readonly port: number };
};
