/**
 * The `http` transport: each request body POSTed on the standard `fetch`, its answer read within a
 * bound on its length.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { NEVER, type Transport } from "../transport";
import { answerLimit, answerOf, declaredLength, extraHeaders, failure, headersOf, tooLarge } from "./http-answer";

/**
 * Options of the {@link http} transport.
 *
 * @since 5.0.10
 * @category client
 */
export interface HttpOptions {
  /**
   * Headers for each request, or a function giving them at each request (for a token that
   * expires). One named as a default (`content-type` and `accept`, both `application/json`)
   * replaces it, whatever its case.
   */
  readonly headers?:
    | Readonly<Record<string, string>>
    | (() => Readonly<Record<string, string>> | PromiseLike<Readonly<Record<string, string>>>);
  /** The `fetch` to use. Default: the global one (Node 18+, Bun, Deno, browsers). */
  readonly fetch?: typeof fetch;
  /**
   * The longest answer taken, in bytes of its body (as received, after any decompression);
   * `Infinity` for no bound. A longer one fails the call with `TransportError` `tooLarge` (its
   * `limit` is this) and is not read to its end: refused at its `content-length` when it has one,
   * else cancelled once that many bytes have come, so it is never held whole. Default 64 MiB
   * (`64 * 1024 * 1024`): far above any answer a JSON-RPC client should await, and within what one
   * string can hold on every engine (V8's limit is about 512 MiB).
   */
  readonly maxAnswerBytes?: number;
}

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
 * `tooLarge`, refused without being read whole. Throws a `RangeError` when `maxAnswerBytes` is
 * not a positive integer (or `Infinity`).
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
export const http = (url: string | URL, options: HttpOptions = {}): Transport => {
  const limit = answerLimit("http", options.maxAnswerBytes);
  return (body, { signal }) =>
    async () => {
      try {
        const init: RequestInit = { method: "POST", body, headers: headersOf(await extraHeaders(options.headers)) };
        // A call that nothing can abort hands fetch no signal (see NEVER).
        if (signal !== NEVER) init.signal = signal;
        const response = await (options.fetch ?? fetch)(url, init);
        const text = await bodyText(response, limit);
        return text === TOO_LARGE ? E.left(tooLarge(limit)) : answerOf(response.ok, response.status, text);
      } catch (cause) {
        return E.left(failure(signal, cause));
      }
    };
};
