/**
 * The development server: JSON-RPC over HTTP with `node:http`, for trying methods out, never for
 * production.
 *
 * Rules (interface specification, "Development server"):
 * - POST on any path: the body is dispatched with the async dispatcher, so async methods work; the
 *   answer is 200 with `Content-Type: application/json`, or 204 with no body when there is nothing
 *   to send (a notification, a batch of notifications).
 * - Any other HTTP method: 405 with `Allow: POST`.
 * - The body is handed to dispatch as bytes: invalid UTF-8 and text that is not JSON are answered
 *   with the JSON-RPC parse error (-32700), like any other bad request.
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
 * This is the only module besides the CLI that touches `node:`; it loads `node:http` when `serve`
 * is called, so importing the package (which re-exports `serve`) loads no Node module in a browser,
 * Deno or Bun. Its types name `http.Server`, so they need `@types/node`: the package re-exports
 * `serve` through devserver.ts, typed with `DevServer`, whose declarations need nothing from Node.
 *
 * @module
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dispatchToJson } from "./async_main";
import { ERROR_SERVER_ERROR } from "./codes";
import { messageOf } from "./describe";
import type { ServeOptions } from "./devserver";
import { log } from "./logger";
import { globalMethods, type Methods } from "./methods";
import { DEFAULT_TITLE, openRpcDocument, withDiscovery, type OpenRpcInfo } from "./openrpc";
import type { Options } from "./options";
import { VERSION } from "./version";

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

export type { ServeOptions } from "./devserver";

/** Logging must never stop the server, so a logger that throws is ignored. */
const say = (level: "error" | "warn" | "info", message: string): void => {
  try {
    log()[level](message);
  } catch {
    // Nothing to do: the server goes on.
  }
};

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

/**
 * How many accepted `Host` values a guard remembers, so that the next request with one is a set
 * lookup: a server is addressed under a handful of names and ports; past this, each is parsed.
 */
const MAX_KNOWN_HOSTS = 64;

/** A `Host` value or the part of an origin after `scheme://`: a name or `[IPv6]`, then an optional port. */
const HOST_PORT = /^(?:\[([0-9a-f:.]+)\]|([^\s:[\]/@?#]+))(?::\d*)?$/i;

const IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** 127.0.0.0/8, and the IPv6 loopback: `::1`, written long, or as an IPv4-mapped 127 address. */
const LOOPBACK_IPV4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const LOOPBACK_IPV6 = /^(?:::1|(?:0{1,4}:){7}0{0,3}1|(?:::|(?:0{1,4}:){5})ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/** The lower-case host name of a `host[:port]` or `[v6][:port]` text; `undefined` if it is not one. */
const hostnameOf = (hostPort: string): string | undefined => {
  const match = HOST_PORT.exec(hostPort);
  return match === null ? undefined : (match[1] ?? match[2] ?? "").toLowerCase();
};

const isLoopback = (hostname: string): boolean =>
  hostname === "localhost" || LOOPBACK_IPV4.test(hostname) || LOOPBACK_IPV6.test(hostname);

/** An IP address (IPv6 unbracketed): a name no DNS answer can move to another machine. */
const isAddress = (hostname: string): boolean => IPV4.test(hostname) || hostname.includes(":");

/** The hostname of an allowed-host entry: a name, an address, either with a port (ignored). */
const hostEntry = (entry: unknown): string => {
  if (typeof entry === "string" && entry !== "") {
    // A bare IPv6 address has several colons and no brackets: it is whole.
    const name = entry.indexOf(":") !== entry.lastIndexOf(":") && !entry.startsWith("[") ? entry : hostnameOf(entry);
    if (name !== undefined && name !== "" && name !== ".") return name.toLowerCase();
  }
  throw new TypeError(`allowedHosts: ${JSON.stringify(entry)} is not a host name (as in "dev.example" or ".example")`);
};

/** An allowed-origin entry as browsers send it (`scheme://host[:port]`, lower case, no default port), or `null`. */
const originEntry = (entry: unknown): string => {
  if (entry === "null") return entry;
  if (typeof entry === "string") {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    const bare = url !== undefined && url.pathname === "/" && url.search === "" && url.hash === "";
    if (url !== undefined && bare && url.username === "" && url.origin !== "null" && !entry.endsWith("#")) {
      return url.origin;
    }
  }
  throw new TypeError(
    `allowedOrigins: ${JSON.stringify(entry)} is not an origin (scheme://host[:port], as in "http://localhost:5173", ` +
      'or "null"): a browser\'s Origin header has no path',
  );
};

/**
 * What {@link browserGuard} is told: where the server listens, and what to accept beyond its
 * defaults.
 *
 * @example
 * import { browserGuard, type BrowserGuardOptions } from "rpcserver/server";
 * const options: BrowserGuardOptions = { listening: "127.0.0.1", allowedOrigins: ["http://localhost:5173"] };
 * const guard = browserGuard(options);
 *
 * @since 5.0.10
 * @category server
 */
export interface BrowserGuardOptions {
  /**
   * The address (or name) the server is bound to, as given to `listen` or read from
   * `server.address().address`. Loopback (`localhost`, `127.0.0.0/8`, `::1`): the accepted hosts
   * are loopback names only. Anything else (`""`, `0.0.0.0`, `::`, a LAN address): IP addresses are
   * accepted too, since they are how other machines reach it and no DNS answer can move them.
   */
  readonly listening: string;
  /**
   * More host names to accept in `Host` (any case, a port ignored; `".example"` takes `example`
   * and every name under it), or `true` not to check `Host` at all.
   */
  readonly allowedHosts?: readonly string[] | true | undefined;
  /**
   * More origins to accept in `Origin`, as a browser sends them (`"https://app.example:8443"`,
   * compared exactly; `"null"` for sandboxed pages and `file:` URLs). Loopback pages
   * (`http://localhost:5173`...) are always accepted.
   */
  readonly allowedOrigins?: readonly string[] | undefined;
}

/**
 * Why {@link browserGuard} refuses a request: the header (`"host"` or `"origin"`), its value, and a
 * message for the person at the browser, which says how to allow it.
 *
 * @example
 * import { browserGuard, type Refusal } from "rpcserver/server";
 * const refusal: Refusal | undefined = browserGuard({ listening: "localhost" })({ host: "evil.example" });
 * // refusal?.header === "host"
 *
 * @since 5.0.10
 * @category server
 */
export interface Refusal {
  /** The header refused. */
  readonly header: "host" | "origin";
  /** Its value, as the request gave it. */
  readonly value: string;
  /** What to answer with 403 (one line and a newline): the header, why, and the option to allow it. */
  readonly message: string;
}

/**
 * The headers {@link browserGuard} reads (lower-case names, as Node gives them): Node's
 * `req.headers` is one, so is `ws`'s `info.req.headers`.
 *
 * @example
 * import { browserGuard, type GuardedHeaders } from "rpcserver/server";
 * const headers: GuardedHeaders = { host: "localhost:5000", origin: "http://localhost:5173" };
 * browserGuard({ listening: "localhost" })(headers); // undefined
 *
 * @since 5.0.10
 * @category server
 */
export interface GuardedHeaders {
  readonly host?: string | undefined;
  readonly origin?: string | undefined;
}

const hostRefusal = (value: string, hostname: string | undefined, listening: string, loopback: boolean): Refusal => {
  const named = hostname === undefined ? "is not a host name and port" : `names ${hostname}`;
  const accepts = loopback
    ? `listens on ${listening}, a loopback address, so it answers only requests addressed to localhost, 127.0.0.1 or [::1]`
    : `listens on ${listening === "" || listening === "::" || listening === "0.0.0.0" ? "every interface" : listening}, ` +
      "and answers requests addressed to an IP address or localhost";
  const allow = hostname === undefined ? "" : ` --allowed-host ${hostname}`;
  return {
    header: "host",
    value,
    message:
      `rpcserver: refused: the Host header "${value}" ${named}. The server ${accepts}: a web page whose ` +
      "name was made to point at this machine (DNS rebinding) must not reach its methods. To accept " +
      `requests addressed to ${hostname ?? "that name"}, list it in allowedHosts (the rpcserver command:${allow || " --allowed-host NAME"}).\n`,
  };
};

const originRefusal = (value: string): Refusal => ({
  header: "origin",
  value,
  message:
    `rpcserver: refused: the Origin header "${value}" is not a page of this machine: only pages on localhost, ` +
    "127.0.0.1 or [::1] may call this server, or any web site one visits could call its methods. To accept " +
    `calls from that page, list its origin in allowedOrigins (the rpcserver command: --allowed-origin ${value}), ` +
    "or in cors.origins to let it read the answers too.\n",
});

/**
 * The check the development server makes of every request before it reads the body, for any other
 * server that a browser can reach (a WebSocket upgrade, an HTTP handler): returns `undefined` to
 * go on, or the {@link Refusal} to answer with (403 and its `message`).
 *
 * When to use it: a server on a developer's machine that browsers can reach. Any web page can send
 * a POST, or open a WebSocket, to `localhost` (an `Origin` the server does not know), and a page
 * whose name the attacker points at 127.0.0.1 is same-origin with the server (a `Host` the server
 * does not know: DNS rebinding); this refuses both.
 *
 * Details:
 * - `Host`: its host name (the port is not checked: a rebinding page can use any port) must be a
 *   loopback name (`localhost`, `127.0.0.0/8`, `::1`) or in `allowedHosts`; when `listening` is
 *   not loopback, any IP address too. A request with no `Host` (HTTP/1.0) is not a browser's: it
 *   passes.
 * - `Origin`, when sent: a loopback page (`http` or `https`, any port), or in `allowedOrigins`.
 *   Browsers send it with every cross-origin request, every POST and every WebSocket.
 * - Cheap: a regular expression and a set lookup per request. It throws a `TypeError` at once
 *   for a list entry that is not a host name or an origin.
 *
 * Gotchas: it is no authentication; a process on the machine (or, bound to a public address,
 * anyone) sends the headers it likes. Behind a proxy that rewrites `Host`, list the proxy's name.
 *
 * @example
 * import { browserGuard } from "rpcserver/server";
 * const guard = browserGuard({ listening: "127.0.0.1", allowedOrigins: ["http://localhost:5173"] });
 * guard({ host: "localhost:5000" }); // undefined: go on
 * guard({ host: "evil.example:5000" }); // { header: "host", value: "evil.example:5000", message: "rpcserver: refused: ..." }
 * // With ws: new WebSocketServer({ host, port, verifyClient: ({ req }, done) => {
 * //   const refusal = guard(req.headers);
 * //   if (refusal === undefined) done(true); else done(false, 403, refusal.message);
 * // } })
 *
 * @since 5.0.10
 * @category server
 */
export const browserGuard = (options: BrowserGuardOptions): ((headers: GuardedHeaders) => Refusal | undefined) => {
  const { listening, allowedHosts, allowedOrigins } = options;
  if (typeof listening !== "string") throw new TypeError("browserGuard: listening must be a string");
  if (allowedHosts !== undefined && allowedHosts !== true && !Array.isArray(allowedHosts)) {
    throw new TypeError("allowedHosts must be an array of host names or true");
  }
  if (allowedOrigins !== undefined && !Array.isArray(allowedOrigins)) {
    throw new TypeError("allowedOrigins must be an array of origins");
  }
  const bound = listening.startsWith("[") ? listening.slice(1, -1).toLowerCase() : listening.toLowerCase();
  const loopback = isLoopback(bound);
  const hosts = new Set<string>();
  const domains: string[] = [];
  for (const entry of allowedHosts === true ? [] : (allowedHosts ?? [])) {
    const name = hostEntry(entry);
    if (name.startsWith(".")) domains.push(name);
    else hosts.add(name);
  }
  const origins = new Set((allowedOrigins ?? []).map(originEntry));
  const hostAllowed = (hostname: string): boolean =>
    isLoopback(hostname) ||
    hosts.has(hostname) ||
    (!loopback && isAddress(hostname)) ||
    domains.some((domain) => hostname.endsWith(domain) || hostname === domain.slice(1));
  const originAllowed = (origin: string): boolean => {
    if (origins.has(origin)) return true;
    const lower = origin.toLowerCase();
    if (origins.has(lower)) return true;
    const rest = lower.startsWith("http://")
      ? lower.slice(7)
      : lower.startsWith("https://")
        ? lower.slice(8)
        : undefined;
    const hostname = rest === undefined ? undefined : hostnameOf(rest);
    return hostname !== undefined && isLoopback(hostname);
  };
  // The Host values accepted so far: a client sends the same one on every request, so the check is
  // one set lookup; only accepted values are kept, and at most MAX_KNOWN_HOSTS.
  const known = new Set<string>();
  return ({ host, origin }) => {
    if (host !== undefined && allowedHosts !== true && !known.has(host)) {
      const hostname = hostnameOf(host);
      if (hostname === undefined || !hostAllowed(hostname)) return hostRefusal(host, hostname, listening, loopback);
      if (known.size < MAX_KNOWN_HOSTS) known.add(host);
    }
    if (origin !== undefined && !originAllowed(origin)) return originRefusal(origin);
    return undefined;
  };
};

/** What a request that made dispatch itself fail gets (a bad option, say): -32000, and a log line. */
const SERVER_ERROR_BODY = JSON.stringify({
  jsonrpc: "2.0",
  error: { code: ERROR_SERVER_ERROR, message: "Server error" },
  id: null,
});

type Headers = { readonly [name: string]: string | number };

const NO_HEADERS: Headers = {};
const JSON_TYPE: Headers = { "Content-Type": "application/json" };

const send = (res: ServerResponse, status: number, headers: Headers, body = ""): void => {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, { ...headers, ...(status === 204 ? {} : { "Content-Length": Buffer.byteLength(body) }) });
  res.end(status === 204 ? undefined : body);
};

/** Dispatches one POST body and sends the answer: 200 with JSON, or 204 when there is nothing to send. */
const answer = async (
  bytes: Uint8Array,
  methods: Methods | undefined,
  options: Options,
  res: ServerResponse,
  line: string,
  cors: Headers,
): Promise<void> => {
  let json: string;
  try {
    json = await dispatchToJson(bytes, methods, options);
  } catch (thrown) {
    say("error", `rpcserver: ${line}: dispatch failed: ${messageOf(thrown)}`);
    json = SERVER_ERROR_BODY;
  }
  if (res.destroyed) {
    say("info", `rpcserver: ${line}: the client went away before the answer`);
    return;
  }
  if (json === "") send(res, 204, cors);
  else send(res, 200, cors === NO_HEADERS ? JSON_TYPE : { ...JSON_TYPE, ...cors }, json);
  say("info", `rpcserver: ${line} ${json === "" ? 204 : 200}`);
};

const NOT_ALLOWED = "rpcserver: send JSON-RPC 2.0 requests with POST\n";

/**
 * How long a browser may keep a preflight's answer: 10 minutes, so a page does not preflight every
 * call, and a change of the server's options is seen soon (Chrome caps it at 2 hours anyway).
 */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Refusals logged at warn level, each header value once: a page that keeps retrying must not flood
 * the log. Past this many distinct values, refusals are logged at info level only.
 */
const MAX_WARNED_REFUSALS = 100;

/** What the handler checks before it dispatches: the guard, and whether CORS is on. */
interface Gate {
  /** Set again once listening: the address bound (`localhost` may be 127.0.0.1 or ::1) decides. */
  guard: (headers: GuardedHeaders) => Refusal | undefined;
  readonly cors: boolean;
  readonly warned: Set<string>;
}

/** The CORS headers of an answer to an allowed `origin`, or none. */
const corsHeaders = (gate: Gate, origin: string | undefined): Headers =>
  gate.cors && origin !== undefined ? { "Access-Control-Allow-Origin": origin, Vary: "Origin" } : NO_HEADERS;

/** A preflight from an allowed origin: 204 with what the page may send. */
const preflight = (req: IncomingMessage, res: ServerResponse, cors: Headers): void => {
  const asked = req.headers["access-control-request-headers"];
  const privateNetwork = req.headers["access-control-request-private-network"] === "true";
  send(res, 204, {
    ...cors,
    Vary: "Origin, Access-Control-Request-Headers",
    "Access-Control-Allow-Methods": "POST",
    ...(asked === undefined ? {} : { "Access-Control-Allow-Headers": asked }),
    ...(privateNetwork ? { "Access-Control-Allow-Private-Network": "true" } : {}),
    "Access-Control-Max-Age": PREFLIGHT_MAX_AGE_SECONDS,
  });
};

const refuse = (res: ServerResponse, gate: Gate, refusal: Refusal, line: string): void => {
  const key = `${refusal.header} ${refusal.value}`;
  const first = !gate.warned.has(key) && gate.warned.size < MAX_WARNED_REFUSALS;
  if (first) gate.warned.add(key);
  say(first ? "warn" : "info", `rpcserver: ${line} 403: ${refusal.message.trimEnd()}`);
  send(res, 403, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" }, refusal.message);
};

/** The request handler: one per server, all requests concurrent. */
const handler =
  (methods: Methods | undefined, options: Options, gate: Gate) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    const line = `${req.method ?? "?"} ${req.url ?? "?"}`;
    req.on("error", (e) => say("info", `rpcserver: ${line}: request stream error (${messageOf(e)}); not answered`));
    res.on("error", (e) => say("info", `rpcserver: ${line}: response stream error (${messageOf(e)})`));

    const headers = req.headers;
    const refusal = gate.guard(headers);
    if (refusal !== undefined) {
      req.resume(); // drain the body: it is never dispatched
      refuse(res, gate, refusal, line);
      return;
    }
    const cors = corsHeaders(gate, headers.origin);

    if (req.method !== "POST") {
      req.resume(); // drain the body so the connection can be reused
      if (req.method === "OPTIONS" && cors !== NO_HEADERS && headers["access-control-request-method"] !== undefined) {
        preflight(req, res, cors);
        say("info", `rpcserver: ${line} 204 (CORS preflight)`);
        return;
      }
      send(res, 405, { ...cors, Allow: "POST", "Content-Type": "text/plain; charset=utf-8" }, NOT_ALLOWED);
      say("info", `rpcserver: ${line} 405`);
      return;
    }

    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      // A Uint8Array of this realm: dispatch checks `instanceof Uint8Array`.
      const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      answer(bytes, methods, options, res, line, cors).catch((thrown: unknown) => {
        // Only a bug of this module gets here; the process must not die of an unhandled rejection.
        say("error", `rpcserver: ${line}: could not answer: ${messageOf(thrown)}`);
        res.destroy();
      });
    });
  };

/** `serve`'s `cors` option, checked: whether it is on, and the origins it adds. */
const corsOption = (cors: ServeOptions["cors"]): { readonly on: boolean; readonly origins: readonly string[] } => {
  if (cors === undefined || cors === false) return { on: false, origins: [] };
  if (cors === true) return { on: true, origins: [] };
  const origins = (cors as { origins?: unknown } | null)?.origins;
  if (typeof cors !== "object" || cors === null || (origins !== undefined && !Array.isArray(origins))) {
    throw new TypeError("serve: cors must be true, false or { origins: [...] }");
  }
  return { on: true, origins: (origins as readonly string[] | undefined) ?? [] };
};

/** The allowed hosts with the name `serve` was given, when it is a host name: it names this server. */
const withName = (allowedHosts: ServeOptions["allowedHosts"], name: string): ServeOptions["allowedHosts"] => {
  if (allowedHosts === true || (allowedHosts !== undefined && !Array.isArray(allowedHosts))) return allowedHosts;
  const hostname = hostnameOf(name);
  const named = hostname !== undefined && hostname !== "" && !isAddress(hostname);
  return named ? [...(allowedHosts ?? []), hostname] : allowedHosts;
};

/**
 * The development server, typed with Node's `http.Server`: the main entry's `serve` (see it for
 * what the server does), the same function, whose result is typed `DevServer` there so that the
 * package's types need nothing from Node. Import it from here to use the rest of Node's API on the
 * server; this entry's types need `@types/node`.
 *
 * @example
 * import type { Server } from "node:http";
 * import { serve } from "rpcserver/server";
 * const server: Server = await serve("localhost", 0);
 * server.keepAliveTimeout = 1000; // Node's API, which DevServer does not list
 * server.close();
 *
 * @since 5.0.10
 * @category server
 */
export const serve = async (
  name: string = DEFAULT_HOST,
  port: number = DEFAULT_PORT,
  options: ServeOptions = {},
): Promise<Server> => {
  if (typeof name !== "string") throw new TypeError(`serve: the host name must be a string, got ${typeof name}`);
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > MAX_PORT) {
    throw new RangeError(`serve: the port must be an integer from 0 to ${MAX_PORT}, got ${String(port)}`);
  }
  const { methods, debug, openrpc } = options;
  if (methods !== undefined && (typeof methods !== "object" || methods === null)) {
    throw new TypeError(`serve: methods must be an object or a Map, got ${methods === null ? "null" : typeof methods}`);
  }
  if (debug !== undefined && typeof debug !== "boolean") {
    throw new TypeError(`serve: debug must be a boolean, got ${typeof debug}`);
  }
  if (openrpc !== undefined && openrpc !== false && (typeof openrpc !== "object" || openrpc === null)) {
    throw new TypeError(`serve: openrpc must be an object or false, got ${openrpc === null ? "null" : typeof openrpc}`);
  }
  if (options.allowedOrigins !== undefined && !Array.isArray(options.allowedOrigins)) {
    throw new TypeError("serve: allowedOrigins must be an array of origins");
  }
  const cors = corsOption(options.cors);
  const guarding = (listening: string): BrowserGuardOptions => ({
    listening,
    allowedHosts: withName(options.allowedHosts, name),
    allowedOrigins: [...(options.allowedOrigins ?? []), ...cors.origins],
  });
  // Bad lists are the caller's TypeError now; the guard is made again once the address is known.
  const gate: Gate = { guard: browserGuard(guarding(name)), cors: cors.on, warned: new Set() };
  const dispatchOptions: Options = {
    ...(options.context === undefined ? {} : { context: options.context }),
    ...(options.debug === undefined ? {} : { debug: options.debug }),
  };
  const http = await import("node:http");
  // The server's URL is known once it listens: `rpc.discover` reads it then.
  const at: { url?: string } = {};
  const info = (): OpenRpcInfo => ({
    title: DEFAULT_TITLE,
    version: VERSION,
    ...(at.url === undefined ? {} : { servers: [{ name: "development server", url: at.url }] }),
    ...(openrpc === false ? {} : openrpc),
  });
  // A bad title or version is the caller's TypeError now, rather than -32603 at each rpc.discover.
  if (openrpc !== false) {
    try {
      openRpcDocument({}, info());
    } catch {
      throw new TypeError("serve: openrpc's title and version must be strings");
    }
  }
  const served = openrpc === false ? methods : withDiscovery(methods ?? globalMethods, info);
  const server = http.createServer(handler(served, dispatchOptions, gate));
  // A client that sends its request and then half-closes (shutdown(SHUT_WR), `nc -N`) still gets its
  // answer: by default Node ends such a socket at once, before an async dispatch can reply. The
  // property is undocumented but has been on http.Server since Node 0.x; where absent, it is inert.
  (server as { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true;

  await new Promise<void>((resolve, reject) => {
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

  server.on("error", (thrown) => say("error", `rpcserver: server error: ${messageOf(thrown)}`));
  const actual = (server.address() as AddressInfo | null)?.port ?? port;
  at.url = `http://${urlHost(name)}:${actual}/`;
  say(
    "warn",
    `rpcserver: listening on ${at.url} (${where(name, actual)}; development only: no TLS, no authentication)`,
  );
  return server;
};
