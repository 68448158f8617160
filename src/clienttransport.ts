/**
 * Client transports: how a client's request body reaches a server and its answer comes back.
 *
 * A transport is one function: the request body (JSON text) and an `AbortSignal` in, a
 * `TaskEither` of the answer body out (`""` when there is none, as for notifications). It never
 * rejects: a failure is a `TransportError`. Two ship here: `http` on the standard `fetch`, and
 * `local`, which dispatches in-process. Write your own for anything else.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { TaskEither } from "fp-ts/TaskEither";
import { asyncDispatch } from "./async_main";
import { DIRECT, jsonCopy, NEVER, NOT_PLAIN, type Direct } from "./calls";
import type { TransportError } from "./clienterror";
import {
  aborted,
  answerLimit,
  answerOf,
  declaredLength,
  extraHeaders,
  failure,
  headersOf,
  network,
  tooLarge,
} from "./httpanswer";
import type { Methods } from "./methods";
import type { Env, JsonOptions } from "./options";
import { Async } from "./effect";
import { dispatcher, type Answer } from "./pipeline";
import { toDict, type Response as RpcResponse } from "./response";
import { writeResponse } from "./serializer";

/**
 * Sends one request body and answers the response body (`""` when the server sends none). Must
 * stop when `signal` aborts (answering `aborted`), and never reject.
 *
 * @example
 * import * as TE from "fp-ts/TaskEither";
 * import type { Transport } from "rpcserver/client";
 * // A transport that answers every call with the same error: for a test.
 * const down: Transport = () => TE.right('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Down"},"id":null}');
 *
 * @since 5.0.10
 * @category client
 */
export type Transport = ((
  body: string,
  options: TransportOptions,
) => TaskEither<TransportError, string | ParsedAnswer>) & {
  /**
   * The ids for calls through this transport, when it wants ids of its own. Default: one counter
   * for the whole process, shared by every client and `batch`, so that clients sharing a channel
   * (through a wrapper of a connection's transport, which does not keep this member) never send
   * the same id.
   */
  readonly nextId?: () => number;
};

/**
 * What a transport is told with each body: the call's signal, and the ids of the requests in the
 * body, in order (`undefined` for a notification), for a transport that matches answers by id.
 *
 * @since 5.0.10
 * @category client
 */
export interface TransportOptions {
  readonly signal: AbortSignal;
  readonly ids?: ReadonlyArray<number | undefined>;
}

/**
 * An answer a transport has parsed already (a connection reads every message to route it), handed
 * on as the value rather than as text to be parsed again.
 *
 * @since 5.0.10
 * @category client
 */
export interface ParsedAnswer {
  readonly json: unknown;
}

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
 * import { client, http } from "rpcserver/client";
 * import { api } from "./api"; // your contract
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

/** The deserializer of `local`'s direct path: the request is a value already. */
const given = (request: unknown): unknown => request;

/** The options of `local`'s direct path when it was given none. */
const GIVEN: JsonOptions = { deserializer: given as (request: string) => unknown };

/**
 * `local`'s answer as values: what `JSON.parse` would make of the answer's text, without the text.
 * Each response whose result, error and id are plain JSON is copied ({@link jsonCopy}); any other
 * is written by the default serializer, as over the wire (a NaN result is -32603, a `Date` its ISO
 * text), and parsed back. `""` for no answer.
 */
const asValues =
  (env: Env) =>
  (answer: Answer): "" | ParsedAnswer => {
    if (answer === undefined) return "";
    if (!Array.isArray(answer)) return { json: responseValue(env, answer as RpcResponse) };
    const json: unknown[] = [];
    for (const response of answer) json.push(responseValue(env, response));
    return { json };
  };

/**
 * One response as the value its text parses to (see {@link asValues}): its response object (as
 * the default serializer writes it: `result` null for none, no `data` for `NODATA`) copied when
 * plain, else written and parsed.
 */
const responseValue = (env: Env, response: RpcResponse): unknown => {
  try {
    const copy = jsonCopy(toDict(response));
    if (copy !== NOT_PLAIN) return copy;
  } catch {
    // A getter that throws: the text path below meets it as the serializer does.
  }
  return JSON.parse(writeResponse(undefined, env.debug, response)) as unknown;
};

/**
 * A transport that dispatches in-process with `asyncDispatch(body, methods, options)`: for tests,
 * and for a front end that embeds its server (in a worker, say). For a server made with `server`,
 * pass its `methods` and its `options(context)`.
 *
 * A client given this transport itself (not a wrapper of it) skips the JSON text both ways: it
 * hands the request over as the value its text would parse to and takes the responses back as the
 * values their text would parse to, with the same answers as through text (results still decoded
 * by the contract's codecs; a result the serializer would refuse still -32603; a `Date` still its
 * ISO text). With a `serializer` or a `deserializer` in `options`, every call goes through text.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, local } from "rpcserver/client";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * const calc = client(api, local(implement(api, { add: (a, b) => E.right(a + b) })));
 * await calc.add(1, 2)(); // { _tag: "Right", right: 3 }
 *
 * @since 5.0.10
 * @category client
 */
export const local = (methods: Methods, options?: JsonOptions): Transport => {
  const transport: Transport =
    (body, { signal }) =>
    () => {
      if (signal.aborted) return Promise.resolve(E.left(aborted(signal.reason)));
      return asyncDispatch(body, methods as never, options as never).then(
        (answer) => E.right(answer),
        (cause: unknown) => E.left(network(cause)),
      );
    };
  // A dispatcher of this transport's own: it keeps its composition while the options stay the same.
  const run = dispatcher(Async, asValues);
  const direct: Direct = (request, { signal }) => {
    if (signal.aborted) return E.left(aborted(signal.reason));
    // Options are read at each call, as asyncDispatch reads them: a serializer or a deserializer
    // of the user's sees text (the request written again from its value: the same text).
    if (options !== undefined && (options.serializer !== undefined || options.deserializer !== undefined)) {
      return transport(JSON.stringify(request), { signal })();
    }
    try {
      const answer = run(
        request,
        methods,
        options === undefined ? GIVEN : { ...options, deserializer: given as (request: string) => unknown },
      );
      return answer instanceof Promise
        ? answer.then(E.right, (cause: unknown) => E.left(network(cause)))
        : E.right(answer);
    } catch (cause) {
      return E.left(network(cause));
    }
  };
  return Object.assign(transport, { [DIRECT]: direct });
};
