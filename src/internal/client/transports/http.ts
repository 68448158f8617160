/**
 * The `http` transport: each request body POSTed on the standard `fetch`, its answer read within a
 * bound on its length.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { NEVER, streamedId, type Transport } from "../transport";
import { isEventStream } from "../../http/event-stream-reader";
import { decodedChunks, eventAnswer, type EventChunks } from "./event-answer";
import { answerLimit, answerOf, declaredLength, extraHeaders, headersOf, STREAM_HEADERS } from "./http-answer";
import { failure, redirect, tooLarge, type TransportError } from "../errors";

/**
 * Options of the {@link http} transport.
 *
 * @example
 * import type { HttpTransportOptions } from "rpcserver/client";
 * const options: HttpTransportOptions = { headers: { authorization: "Bearer t1" }, maxAnswerBytes: 1024 * 1024 };
 *
 * @since 5.0.10
 * @category client
 */
export interface HttpTransportOptions {
  /**
   * Headers for each request, or a function giving them at each request (for a token that
   * expires). One named as a default (`content-type` and `accept`, both `application/json`)
   * replaces it, whatever its case.
   */
  readonly headers?:
    | Readonly<Record<string, string>>
    | (() => Readonly<Record<string, string>> | PromiseLike<Readonly<Record<string, string>>>)
    | undefined;
  /** The `fetch` to use. Default: the global one (Node 18+, Bun, Deno, browsers). */
  readonly fetch?: typeof fetch | undefined;
  /**
   * The longest answer taken, in bytes of its body (as received, after any decompression);
   * `Infinity` for no bound. A longer one fails the call with `TransportError` `tooLarge` (its
   * `limit` is this) and is not read to its end: refused at its `content-length` when it has one,
   * else cancelled once that many bytes have come, so it is never held whole. Default 64 MiB
   * (`64 * 1024 * 1024`): far above any answer a JSON-RPC client should await, and within what one
   * string can hold on every engine (V8's limit is about 512 MiB). An event stream (a streamed
   * call's answer) is bounded event by event, each counted in characters (never more than its
   * bytes): the stream itself goes on as long as the method streams.
   */
  readonly maxAnswerBytes?: number | undefined;
}

/**
 * Options of the {@link http} transport, under their old name.
 *
 * @deprecated Use {@link HttpTransportOptions}; removed in 6.0. The main entry has an `HttpOptions` too
 * (`answerHttp`'s, now `AnswerHttpOptions`): one name meant two things.
 *
 * @example
 * import type { HttpOptions, HttpTransportOptions } from "rpcserver/client";
 * const options: HttpOptions = { maxAnswerBytes: 1024 * 1024 };
 * const same: HttpTransportOptions = options;
 *
 * @since 5.0.10
 * @category client
 */
export type HttpOptions = HttpTransportOptions;

/**
 * The body of a response that is an event stream, to read as it arrives; `undefined` for any other.
 * A `fetch` of the user's whose response has no body stream has read it already: its text is the
 * one chunk.
 */
const eventsOf = (response: Response): EventChunks | undefined => {
  const headers = response.headers as Headers | undefined;
  if (!isEventStream(headers?.get("content-type"))) return undefined;
  const body = response.body as ReadableStream<Uint8Array> | null | undefined;
  if (body !== undefined && body !== null) return decodedChunks(body);
  let read = false;
  return {
    read: async () => (read ? undefined : ((read = true), await response.text())),
    cancel: () => undefined,
  };
};

/** The statuses fetch would follow: the redirects. */
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * The failure of a response that is a redirect, which the transport does not follow; `undefined`
 * for any other. Asked with `redirect: "manual"`, Node's fetch gives the redirect itself (its
 * status, its `Location`); a browser's gives an opaque one (`type` `"opaqueredirect"`, status 0,
 * no headers). A user's `fetch` that followed anyway answers the final response: not a redirect.
 */
const redirected = (response: Response, url: string | URL): TransportError | undefined => {
  const type = (response as { type?: string }).type;
  if (type !== "opaqueredirect" && !REDIRECTS.has(response.status)) return undefined;
  const body = response.body as ReadableStream<Uint8Array> | null | undefined;
  void body?.cancel().catch(() => undefined);
  const given = (response.headers as Headers | undefined)?.get("location") ?? null;
  let location: string | undefined;
  try {
    location = given === null ? undefined : new URL(given, url).href;
  } catch {
    location = given ?? undefined;
  }
  return redirect(response.status, location);
};

/** What {@link bodyText} answers for a body longer than the limit. */
const TOO_LARGE = Symbol("tooLarge");

/**
 * The body of `response` as text, or `TOO_LARGE` past `limit` bytes, never holding more than that.
 *
 * - A declared `content-length` is checked before reading, and a body within it read whole
 *   (`text()`, the fast path): fetch ends a body at its declared length. Not when the body is
 *   encoded (gzip): fetch decompresses it, so its length bounds nothing.
 * - Otherwise the body is read as a stream, its bytes counted, and cancelled once past the limit.
 * - A `fetch` of the user's whose response has no body stream (a stand-in with `text()` alone)
 *   has read it already: its text's length is checked (UTF-16 units, never more than its bytes).
 */
const bodyText = async (response: Response, limit: number): Promise<string | typeof TOO_LARGE> => {
  const body = response.body as ReadableStream<Uint8Array> | null | undefined;
  const headers = response.headers as Headers | undefined;
  const length = declaredLength(headers?.get("content-length"), headers?.get("content-encoding"));
  if (Number.isSafeInteger(length)) {
    if (length <= limit) return response.text();
    void body?.cancel().catch(() => undefined);
    return TOO_LARGE;
  }
  if (body === undefined) {
    const text = await response.text();
    return text.length > limit ? TOO_LARGE : text;
  }
  if (body === null) return "";
  const reader = body.getReader();
  // UTF-8 as `text()` decodes it (a byte-order mark dropped), a chunk at a time: the chunks are
  // not kept, so the answer is held once, as its text.
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) return text + decoder.decode();
    bytes += chunk.value.byteLength;
    if (bytes > limit) {
      // Cancelling ends the request: fetch stops reading and closes the connection.
      void reader.cancel().catch(() => undefined);
      return TOO_LARGE;
    }
    text += decoder.decode(chunk.value, { stream: true });
  }
};

/**
 * A transport that POSTs each request body to `url` with `content-type: application/json` and the
 * headers of `options`, on the standard `fetch`. A response whose body is JSON is the answer,
 * whatever its status (a server may send a JSON-RPC error with a 4xx or 5xx); any other status
 * than 2xx is a `TransportError` of reason `status`; an empty 2xx body (notifications) is `""`.
 * An answer longer than `maxAnswerBytes` (default 64 MiB) is a `TransportError` of reason
 * `tooLarge`, refused without being read whole. A redirect (301, 302, 303, 307, 308) is followed
 * nowhere: the call fails with a `TransportError` of reason `redirect`, with the status and the
 * `Location` it pointed to (in a browser, whose `fetch` hides both, status 0 and no location), and
 * the request went to `url` alone. Give the client the final URL. Throws a `RangeError` when `maxAnswerBytes` is
 * not a positive integer (or `Infinity`).
 *
 * A streamed call (`open`, `for await`) accepts `text/event-stream` beside `application/json`. A
 * server that streams answers with server-sent events, read as they arrive (in browsers too): each
 * `$/progress` whose `token` is the call's id is one value, handed on before more is read (so a slow
 * consumer slows the server), other notifications are skipped, and the message that is no
 * notification is the answer. Each event, not the whole stream, is bounded by `maxAnswerBytes`. A
 * stream that ends before the answer is a `TransportError` of reason `network`; leaving the loop
 * or aborting closes it, which the server sees. A server that streams nothing answers JSON, read as
 * any answer is.
 *
 * @example
 * import * as t from "io-ts";
 * import { contract } from "rpcserver";
 * import { client, http } from "rpcserver/client";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * const calc = client(api, http("http://localhost:5000", { headers: () => ({ authorization: "Bearer t1" }) }));
 * // Answers of 1 MiB at most: a longer one fails the call with { reason: "tooLarge", limit: 1048576 }.
 * const small = client(api, http("http://localhost:5000", { maxAnswerBytes: 1024 * 1024 }));
 *
 * @since 5.0.10
 * @category client
 */
export const http = (url: string | URL, options: HttpTransportOptions = {}): Transport => {
  const limit = answerLimit("http", options.maxAnswerBytes);
  return (body, transportOptions) => async () => {
    const { signal, onValue } = transportOptions;
    try {
      const extra = await extraHeaders(options.headers);
      const headers = onValue === undefined ? headersOf(extra) : headersOf(extra, STREAM_HEADERS);
      // A redirect is never followed: fetch's default would send the body and the headers (an API
      // key) again to wherever the server points, another origin included, and take its answer.
      const init: RequestInit = { method: "POST", body, headers, redirect: "manual" };
      // A call that nothing can abort hands fetch no signal (see NEVER).
      if (signal !== NEVER) init.signal = signal;
      const response = await (options.fetch ?? fetch)(url, init);
      const refused = redirected(response, url);
      if (refused !== undefined) return E.left(refused);
      const events = eventsOf(response);
      if (events !== undefined)
        return await eventAnswer(events, transportOptions, streamedId(body, transportOptions), limit);
      const text = await bodyText(response, limit);
      return text === TOO_LARGE ? E.left(tooLarge(limit)) : answerOf(response.ok, response.status, text);
    } catch (cause) {
      return E.left(failure(signal, cause));
    }
  };
};
