/**
 * The development server's browser guard (`browserGuard`): the check that a request's `Host` names
 * this server (no DNS rebinding) and its `Origin`, when sent, is a page allowed to call it; with
 * the parsing of host names and origins it needs, and the refusals it answers with.
 *
 * @module
 */

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
export const hostnameOf = (hostPort: string): string | undefined => {
  const match = HOST_PORT.exec(hostPort);
  return match === null ? undefined : (match[1] ?? match[2] ?? "").toLowerCase();
};

const isLoopback = (hostname: string): boolean =>
  hostname === "localhost" || LOOPBACK_IPV4.test(hostname) || LOOPBACK_IPV6.test(hostname);

/** An IP address (IPv6 unbracketed): a name no DNS answer can move to another machine. */
export const isAddress = (hostname: string): boolean => IPV4.test(hostname) || hostname.includes(":");

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
 * refusal?.header; // "host"
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

const hostRefusal = (
  value: string,
  hostname: string | undefined,
  listening: string,
  loopback: boolean,
  who: string | undefined,
): Refusal => {
  const named = hostname === undefined ? "is not a host name and port" : `names ${hostname}`;
  const accepts =
    who !== undefined
      ? `The ${who} answers requests addressed to an IP address or localhost`
      : loopback
        ? `The server listens on ${listening}, a loopback address, so it answers only requests addressed to localhost, 127.0.0.1 or [::1]`
        : `The server listens on ${listening === "" || listening === "::" || listening === "0.0.0.0" ? "every interface" : listening}, ` +
          "and answers requests addressed to an IP address or localhost";
  const allow = hostname === undefined ? "" : ` --allowed-host ${hostname}`;
  const how =
    who !== undefined
      ? `list it in the ${who}'s allowedHosts option`
      : `list it in allowedHosts (the rpcserver command:${allow || " --allowed-host NAME"})`;
  return {
    header: "host",
    value,
    message:
      `rpcserver: refused: the Host header "${value}" ${named}. ${accepts}: a web page whose ` +
      "name was made to point at this machine (DNS rebinding) must not reach its methods. To accept " +
      `requests addressed to ${hostname ?? "that name"}, ${how}.\n`,
  };
};

const originRefusal = (value: string, who: string | undefined): Refusal => ({
  header: "origin",
  value,
  message:
    `rpcserver: refused: the Origin header "${value}" is not a page of this machine: only pages on localhost, ` +
    "127.0.0.1 or [::1] may call this server, or any web site one visits could call its methods. To accept " +
    `calls from that page, list its origin in ${who === undefined ? "" : `the ${who}'s `}allowedOrigins` +
    `${who === undefined ? ` (the rpcserver command: --allowed-origin ${value})` : ""}, ` +
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
 * // Go on:
 * guard({ host: "localhost:5000" }); // undefined
 * // Refuse (403): { header: "host", value: "evil.example:5000", message: "rpcserver: refused: the Host header ..." }
 * const refusal = guard({ host: "evil.example:5000" });
 * [refusal?.header, refusal?.value]; // ["host", "evil.example:5000"]
 * // With ws: new WebSocketServer({ host, port, verifyClient: ({ req }, done) => {
 * //   const refusal = guard(req.headers);
 * //   if (refusal === undefined) done(true); else done(false, 403, refusal.message);
 * // } })
 *
 * @since 5.0.10
 * @category server
 */
export const browserGuard = (options: BrowserGuardOptions): ((headers: GuardedHeaders) => Refusal | undefined) =>
  guardFor(options, undefined);

/**
 * {@link browserGuard}, its refusals advising as `who` serves: the development server (`undefined`:
 * its listening address known, the `rpcserver` command's flags named), or an HTTP handler of that
 * name (where it is served not known to it, its options named). @internal
 */
export const guardFor = (
  options: BrowserGuardOptions,
  who: string | undefined,
): ((headers: GuardedHeaders) => Refusal | undefined) => {
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
      if (hostname === undefined || !hostAllowed(hostname))
        return hostRefusal(host, hostname, listening, loopback, who);
      if (known.size < MAX_KNOWN_HOSTS) known.add(host);
    }
    if (origin !== undefined && !originAllowed(origin)) return originRefusal(origin, who);
    return undefined;
  };
};
