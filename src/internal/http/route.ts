/**
 * What the HTTP servers here (the development server, `fetchHandler`) answer a request by its head
 * alone, before any body is read: the browser guard's 403, the inspector page, a CORS preflight,
 * 405; or that its POST body is to be dispatched, with the CORS headers of its answer. Written once,
 * runtime-neutral: the Node handler writes the answer to `res`, the fetch handler returns it as a
 * `Response`, so both answer the same request with the same status, headers and body.
 *
 * @module
 */
import { ERROR_INVALID_REQUEST } from "../core/codes";
import { log } from "../core/logger";
import type { GuardedHeaders, Refusal } from "./browser-guard";
import { acceptsHtml, varyingByAccept, type ServedPage } from "./inspector-route";
import { serverErrorOf } from "./json-answer";

/** Logging must never stop a server, so a logger that throws is ignored. */
export const say = (level: "error" | "warn" | "info", message: string): void => {
  try {
    log()[level](message);
  } catch {
    // Nothing to do: the server goes on.
  }
};

/** Headers of an answer, as the servers here write them. */
export type HeaderValues = { readonly [name: string]: string | number };

/** No headers: one object, so that "no CORS" is a comparison. */
export const NO_HEADERS: HeaderValues = {};

/** What a request that made dispatch itself fail gets (a bad option, say): -32000, and a log line. */
export const SERVER_ERROR_BODY = serverErrorOf(null);

/**
 * The body of a POST refused as a whole, before dispatch (too large, encoded): JSON-RPC's -32600
 * with id `null`, so that a client reading JSON reads why (`data`).
 */
export const refusedBody = (why: string): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    error: { code: ERROR_INVALID_REQUEST, message: "Invalid Request", data: why },
    id: null,
  });

/** The text of a 405. */
export const NOT_ALLOWED = "rpcserver: send JSON-RPC 2.0 requests with POST\n";

/**
 * How long a browser may keep a preflight's answer: 10 minutes, so a page does not preflight every
 * call, and a change of the server's options is seen soon (Chrome caps it at 2 hours anyway).
 */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

const TEXT = "text/plain; charset=utf-8";

/** A 403's headers: its text is plain text, never sniffed as anything else. */
const REFUSED_HEADERS: HeaderValues = { "Content-Type": TEXT, "X-Content-Type-Options": "nosniff" };

/** What a server checks and serves before it dispatches: the guard, CORS, the inspector page. */
export interface Gate {
  /** The development server sets it again once listening: the address bound (`localhost` may be 127.0.0.1 or ::1) decides. */
  guard: (headers: GuardedHeaders) => Refusal | undefined;
  readonly cors: boolean;
  /**
   * The inspector page for a browser's GET of `url` (a path and query), or a Promise of it (a fetch
   * handler loads the page on its first GET); `undefined` when it is off.
   */
  readonly page: ((url: string) => ServedPage | Promise<ServedPage>) | undefined;
  /** Is `url` (a path and query) where the page is served? */
  readonly pagePath: (url: string) => boolean;
}

/** The answer to a request by its head: everything but a POST, and a POST refused. */
export interface HeadAnswer {
  readonly dispatch: false;
  readonly status: 200 | 204 | 403 | 405 | 415;
  readonly headers: HeaderValues;
  /** The body (`""` for the 204 of a preflight). */
  readonly body: string;
  /** The status as a log line says it (`200 (inspector page)`). */
  readonly said: string;
  /** The guard's refusal, for a 403. */
  readonly refusal?: Refusal;
}

/** A POST to dispatch: its answer carries `cors` (none when CORS is off or no `Origin` was sent). */
export interface ToDispatch {
  readonly dispatch: true;
  readonly cors: HeaderValues;
}

/** A `Content-Encoding` that is one: no header, `""` and `identity` are none. */
const isEncoded = (coding: string | undefined): coding is string =>
  coding !== undefined &&
  coding.split(",").some((name) => name.trim() !== "" && name.trim().toLowerCase() !== "identity");

/**
 * A POST whose body is encoded (gzip...): neither server decodes one (nor does Node, Bun or Deno
 * before them), and dispatched as it came it would be -32700 for bytes that are not UTF-8, which
 * says nothing of the cause. 415, and `Accept-Encoding: identity` as RFC 9110 (15.5.16) asks.
 */
const encoded = (coding: string, cors: HeaderValues): HeadAnswer => ({
  dispatch: false,
  status: 415,
  headers: { ...cors, "Content-Type": "application/json", "Accept-Encoding": "identity" },
  body: refusedBody(`the body is encoded (Content-Encoding: ${coding}): send it unencoded`),
  said: "415 (encoded body)",
});

/** The inspector page, as a browser's GET of it is answered. */
const pageAnswer = ({ headers, body }: ServedPage): HeadAnswer => ({
  dispatch: false,
  status: 200,
  headers,
  body,
  said: "200 (inspector page)",
});

/** A preflight from an allowed origin: 204 with what the page may send. */
const preflight = (cors: HeaderValues, header: (name: string) => string | undefined): HeadAnswer => {
  const asked = header("access-control-request-headers");
  const privateNetwork = header("access-control-request-private-network") === "true";
  return {
    dispatch: false,
    status: 204,
    headers: {
      ...cors,
      Vary: "Origin, Access-Control-Request-Headers",
      "Access-Control-Allow-Methods": "POST",
      ...(asked === undefined ? {} : { "Access-Control-Allow-Headers": asked }),
      ...(privateNetwork ? { "Access-Control-Allow-Private-Network": "true" } : {}),
      "Access-Control-Max-Age": PREFLIGHT_MAX_AGE_SECONDS,
    },
    body: "",
    said: "204 (CORS preflight)",
  };
};

/**
 * How a request is answered, by its method, its URL (path and query: `url` gives it, asked only
 * when a request other than a POST is answered, since a fetch handler parses a URL to tell it) and
 * its headers (`header` gives a lower-case name's value, `undefined` when absent): checked by the
 * guard first (403), then a POST is to be dispatched (unless its body is encoded: 415); a browser's
 * GET of the page's path gets the page (a Promise of it while a fetch handler loads the page), a
 * preflight from an allowed origin its 204, and anything else 405 with `Allow: POST`.
 */
export const route = (
  gate: Gate,
  method: string | undefined,
  url: () => string,
  header: (name: string) => string | undefined,
): HeadAnswer | Promise<HeadAnswer> | ToDispatch => {
  const origin = header("origin");
  const refusal = gate.guard({ host: header("host"), origin });
  if (refusal !== undefined) {
    return { dispatch: false, status: 403, headers: REFUSED_HEADERS, body: refusal.message, said: "403", refusal };
  }
  const cors =
    gate.cors && origin !== undefined ? { "Access-Control-Allow-Origin": origin, Vary: "Origin" } : NO_HEADERS;
  if (method === "POST") {
    const coding = header("content-encoding");
    return isEncoded(coding) ? encoded(coding, cors) : { dispatch: true, cors };
  }
  const onPagePath = gate.page !== undefined && method === "GET" && gate.pagePath(url());
  if (onPagePath && gate.page !== undefined && acceptsHtml(header("accept"))) {
    const page = gate.page(url());
    return page instanceof Promise ? page.then(pageAnswer) : pageAnswer(page);
  }
  if (method === "OPTIONS" && cors !== NO_HEADERS && header("access-control-request-method") !== undefined) {
    return preflight(cors, header);
  }
  const vary = onPagePath ? varyingByAccept(cors) : cors;
  return {
    dispatch: false,
    status: 405,
    headers: { ...vary, Allow: "POST", "Content-Type": TEXT },
    body: NOT_ALLOWED,
    said: "405",
  };
};

/** The `cors` option (`serve`'s, `fetchHandler`'s), checked: whether it is on, and the origins it adds. */
export const corsOption = (
  cors: boolean | { readonly origins?: readonly string[] } | undefined,
  who: string,
): { readonly on: boolean; readonly origins: readonly string[] } => {
  if (cors === undefined || cors === false) return { on: false, origins: [] };
  if (cors === true) return { on: true, origins: [] };
  const origins = (cors as { origins?: unknown } | null)?.origins;
  if (typeof cors !== "object" || cors === null || (origins !== undefined && !Array.isArray(origins))) {
    throw new TypeError(`${who}: cors must be true, false or { origins: [...] }`);
  }
  return { on: true, origins: (origins as readonly string[] | undefined) ?? [] };
};

/** What a value is, in a TypeError's words. */
const kindOf = (value: unknown): string => (value === null ? "null" : typeof value);

/**
 * The options both HTTP servers here take beyond dispatch's (`serve`'s, `fetchHandler`'s), checked
 * for their types; `who` names the server in the TypeError. The lists' entries are checked by
 * `browserGuard`, `cors` by {@link corsOption}.
 */
export const checkServedOptions = (
  options: { readonly openrpc?: unknown; readonly inspector?: unknown; readonly allowedOrigins?: unknown },
  who: string,
): void => {
  const { openrpc, inspector, allowedOrigins } = options;
  if (openrpc !== undefined && openrpc !== false && (typeof openrpc !== "object" || openrpc === null)) {
    throw new TypeError(`${who}: openrpc must be an object or false, got ${kindOf(openrpc)}`);
  }
  if (allowedOrigins !== undefined && !Array.isArray(allowedOrigins)) {
    throw new TypeError(`${who}: allowedOrigins must be an array of origins`);
  }
  if (inspector !== undefined && typeof inspector !== "boolean") {
    throw new TypeError(`${who}: inspector must be a boolean, got ${kindOf(inspector)}`);
  }
};
