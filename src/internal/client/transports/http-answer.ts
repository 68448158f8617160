/**
 * What the two HTTP transports share (`http` on the standard `fetch`, `nodeHttp` on `node:http`):
 * their options, the request's headers, the bound on an answer's length, and how a response's
 * status and body become the transport's answer. Pure: no I/O, no `node:` module, so that
 * `rpcserver/client` imports it without reaching Node.
 *
 * @internal
 * @module
 */
import * as E from "fp-ts/Either";
import { badStatus, type TransportError } from "../errors";

/**
 * Headers for each request, or a function giving them at each request.
 *
 * @internal
 */
export type HeadersOption =
  | Readonly<Record<string, string>>
  | (() => Readonly<Record<string, string>> | PromiseLike<Readonly<Record<string, string>>>);

/** The default of `maxAnswerBytes`: 64 MiB. @internal */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** A response body that is a JSON-RPC answer whatever the status: some servers send errors with a 4xx or 5xx. @internal */
export const looksLikeJson = (text: string): boolean => {
  const first = text.trimStart()[0];
  return first === "{" || first === "[";
};

const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "application/json",
  accept: "application/json",
};

/**
 * The default headers of a call that asks for its values: an event stream accepted beside JSON
 * (both, as MCP's Streamable HTTP requires of clients); a server that streams nothing answers JSON.
 *
 * @internal
 */
export const STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "application/json",
  accept: "text/event-stream, application/json",
};

/**
 * The request's headers: the defaults (`defaults`: {@link STREAM_HEADERS} for a call that asks for
 * its values), each replaced by the user's header of the same name in any case (spread into one
 * object, `Content-Type` beside `content-type` would be joined by fetch into
 * `application/json, ...`). A fresh object each time: a `fetch` of the user's may add to the one it
 * is given, and `nodeHttp` adds `content-length`.
 *
 * @internal
 */
export const headersOf = (
  extra: Readonly<Record<string, string>> | undefined,
  defaults: Readonly<Record<string, string>> = DEFAULT_HEADERS,
): Record<string, string> => {
  const headers: Record<string, string> = {};
  if (extra === undefined) return Object.assign(headers, defaults);
  for (const [name, value] of Object.entries(defaults)) {
    if (!Object.keys(extra).some((key) => key.toLowerCase() === name)) headers[name] = value;
  }
  return Object.assign(headers, extra);
};

/**
 * The headers of one request: `headers` itself, or what the function gives (waited for only when
 * it answers a Promise: a transport with fixed headers pays no tick for them).
 *
 * @internal
 */
export const extraHeaders = (
  headers: HeadersOption | undefined,
): Readonly<Record<string, string>> | undefined | PromiseLike<Readonly<Record<string, string>>> =>
  typeof headers === "function" ? headers() : headers;

/**
 * The `maxAnswerBytes` of a transport's options, checked when the transport is made: a positive
 * integer, or `Infinity`.
 *
 * @internal
 */
export const answerLimit = (name: string, maxAnswerBytes: number | undefined): number => {
  const limit = maxAnswerBytes ?? MAX_ANSWER_BYTES;
  if (limit !== Infinity && !(Number.isSafeInteger(limit) && limit > 0))
    throw new RangeError(`${name}: maxAnswerBytes must be a positive integer or Infinity, got ${String(limit)}`);
  return limit;
};

/**
 * A `content-length` as the bound on a body can use it: its number when it is one and the body is
 * not encoded (a gzip body is decompressed, so its length bounds nothing), else `NaN`.
 *
 * @internal
 */
export const declaredLength = (declared: string | null | undefined, encoding: string | null | undefined): number =>
  typeof declared === "string" && declared !== "" && (encoding == null || encoding === "identity")
    ? Number(declared)
    : Number.NaN;

/**
 * A response's status (`ok`: 2xx) and body (read whole) as the transport's answer: a body that is JSON is the
 * answer whatever the status (a server may send a JSON-RPC error with a 4xx or 5xx); any other
 * status than 2xx is a `status` TransportError with the body; an empty 2xx body (notifications)
 * is `""`.
 *
 * @internal
 */
export const answerOf = (ok: boolean, status: number, text: string): E.Either<TransportError, string> =>
  ok || looksLikeJson(text) ? E.right(text) : E.left(badStatus(status, text));
