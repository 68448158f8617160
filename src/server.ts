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
 * - No TLS, no authentication, no request size limit, no `maxBatchSize`: anyone who can reach the
 *   port can run every registered method, with a body and a batch as large as memory allows.
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

/** What a request that made dispatch itself fail gets (a bad option, say): -32000, and a log line. */
const SERVER_ERROR_BODY = JSON.stringify({
  jsonrpc: "2.0",
  error: { code: ERROR_SERVER_ERROR, message: "Server error" },
  id: null,
});

const send = (
  res: ServerResponse,
  status: number,
  headers: { readonly [name: string]: string | number },
  body = "",
): void => {
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
  if (json === "") send(res, 204, {});
  else send(res, 200, { "Content-Type": "application/json" }, json);
  say("info", `rpcserver: ${line} ${json === "" ? 204 : 200}`);
};

const NOT_ALLOWED = "rpcserver: send JSON-RPC 2.0 requests with POST\n";

/** The request handler: one per server, all requests concurrent. */
const handler =
  (methods: Methods | undefined, options: Options) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    const line = `${req.method ?? "?"} ${req.url ?? "?"}`;
    req.on("error", (e) => say("info", `rpcserver: ${line}: request stream error (${messageOf(e)}); not answered`));
    res.on("error", (e) => say("info", `rpcserver: ${line}: response stream error (${messageOf(e)})`));

    if (req.method !== "POST") {
      req.resume(); // drain the body so the connection can be reused
      send(res, 405, { Allow: "POST", "Content-Type": "text/plain; charset=utf-8" }, NOT_ALLOWED);
      say("info", `rpcserver: ${line} 405`);
      return;
    }

    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      // A Uint8Array of this realm: dispatch checks `instanceof Uint8Array`.
      const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      answer(bytes, methods, options, res, line).catch((thrown: unknown) => {
        // Only a bug of this module gets here; the process must not die of an unhandled rejection.
        say("error", `rpcserver: ${line}: could not answer: ${messageOf(thrown)}`);
        res.destroy();
      });
    });
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
  const server = http.createServer(handler(served, dispatchOptions));
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
