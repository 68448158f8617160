/**
 * What a client call can fail with: a tagged union to `match` on, in four kinds.
 *
 * @module
 */

/**
 * The server answered with a JSON-RPC error. `data` is absent when the error has none. When the
 * call's contract entry declares the error (its `errors` list an entry of this `code`, and that
 * entry's `data` schema, if it has one, accepts the data), the error is a {@link DeclaredError}:
 * `declared` is `true` and `data` is decoded by that schema. Any other server error has no
 * `declared` member and its `data` as sent (also when the declared schema refuses it).
 *
 * @example
 * import type { ServerError } from "rpcserver/client";
 * const e: ServerError = { _tag: "ServerError", code: 404, message: "No such person" };
 *
 * @since 5.0.10
 * @category client
 */
export interface ServerError {
  readonly _tag: "ServerError";
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
  /** `true` for an error the call's contract entry declares (see {@link DeclaredError}); absent otherwise. */
  readonly declared?: boolean;
}

/**
 * A server error that the call's contract entry declares in its `errors`: `declared` is `true`,
 * `code` is the declared code (a literal type), and `data` is decoded by the declared `data`
 * schema (io-ts codec or Standard Schema), typed by it. A call's Left narrows to one: check
 * `declared`, then `code`, as oRPC's typed errors do (a server may answer any code, with any data:
 * `declared` is what says the data passed the schema).
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement, RpcError } from "rpcserver";
 * import { client, local } from "rpcserver/client";
 * const api = contract({
 *   greet: { params: t.type({ name: t.string }), errors: [{ code: 404, message: "No such person", data: t.type({ name: t.string }) }] },
 * });
 * const methods = implement(api, { greet: ({ name }) => RpcError(404, "No such person", { name }) });
 * const answer = await client(api, local(methods))["greet"]({ name: "Ann" })();
 * answer;
 * // { _tag: "Left", left: { _tag: "ServerError", declared: true, code: 404, message: "No such person", data: { name: "Ann" } } }
 * if (E.isLeft(answer) && answer.left._tag === "ServerError" && answer.left.declared && answer.left.code === 404) {
 *   answer.left.data.name; // typed: a string
 * }
 *
 * @since 5.0.10
 * @category client
 */
export interface DeclaredError<Code extends number = number, Data = unknown> {
  readonly _tag: "ServerError";
  readonly declared: true;
  readonly code: Code;
  readonly message: string;
  readonly data: Data;
}

/**
 * A server error that is none of the errors the call's contract entry declares: a
 * {@link ServerError} whose `declared` is not `true`, so that checking `declared` leaves the
 * declared ones.
 *
 * @example
 * import type { UndeclaredError } from "rpcserver/client";
 * const e: UndeclaredError = { _tag: "ServerError", code: -32603, message: "Internal error" };
 *
 * @since 5.0.10
 * @category client
 */
export interface UndeclaredError extends ServerError {
  readonly declared?: false;
}

/**
 * The request did not get an answer through: the network failed, the HTTP status said so (and the
 * body was no JSON-RPC answer), the call was aborted by its signal, it timed out, the connection
 * it was made on closed before its answer came or refused it (too many calls awaiting answers), or
 * the answer was longer than the transport takes, nobody serves the subject it was sent to (NATS),
 * a streamed call's values came with a gap (NATS), or the server redirected it (`http` follows no
 * redirect).
 *
 * @example
 * import type { TransportError } from "rpcserver/client";
 * const e: TransportError = { _tag: "TransportError", reason: "timeout", timeoutMs: 500 };
 * const big: TransportError = { _tag: "TransportError", reason: "tooLarge", limit: 64 * 1024 * 1024 };
 * const nobody: TransportError = { _tag: "TransportError", reason: "noResponders", subject: "rpc.examples" };
 * const lost: TransportError = { _tag: "TransportError", reason: "gap", expected: 101, came: 201 };
 * const moved: TransportError = { _tag: "TransportError", reason: "redirect", status: 307, location: "https://elsewhere.example/" };
 *
 * @since 5.0.10
 * @category client
 */
export type TransportError =
  /** The request or its answer failed on the way: `cause` is what the transport caught. */
  | { readonly _tag: "TransportError"; readonly reason: "network"; readonly cause: unknown }
  /**
   * An HTTP status other than 2xx, with a body that is no JSON-RPC answer; over NATS, the services
   * framework's error reply (`Nats-Service-Error-Code` as `status`, `Nats-Service-Error` as `body`).
   */
  | { readonly _tag: "TransportError"; readonly reason: "status"; readonly status: number; readonly body: string }
  /** The call's signal aborted it; `cause` is the signal's reason. */
  | { readonly _tag: "TransportError"; readonly reason: "aborted"; readonly cause: unknown }
  /** No answer within the call's `timeoutMs`. */
  | { readonly _tag: "TransportError"; readonly reason: "timeout"; readonly timeoutMs: number }
  /** The connection the call was made on closed before its answer came; `cause` is why it closed. */
  | { readonly _tag: "TransportError"; readonly reason: "closed"; readonly cause: unknown }
  /**
   * The connection refused the call: it already has `limit` outgoing calls awaiting answers (its
   * `maxOutgoing`). Nothing was sent; the call may be tried again once others have settled.
   */
  | { readonly _tag: "TransportError"; readonly reason: "overloaded"; readonly limit: number }
  /**
   * The answer was longer than the transport takes: more than `limit` bytes (`http`'s
   * `maxAnswerBytes`). It was not read to its end; the request may have run on the server.
   */
  | { readonly _tag: "TransportError"; readonly reason: "tooLarge"; readonly limit: number }
  /**
   * Nobody serves `subject`: NATS answered at once that no subscriber takes it (`rpcserver/nats`).
   * Nothing ran; the call may be tried again once a server has started.
   */
  | { readonly _tag: "TransportError"; readonly reason: "noResponders"; readonly subject: string }
  /**
   * A streamed call's values did not all come, in order, over a wire that can lose a message
   * (NATS: a nats-server restarted, or cut off a slow connection). The server numbers the messages
   * before its answer 1, 2, 3... and its answer says how many there were, so the answer counts as
   * number `count + 1`: the message numbered `expected` was due, and the one numbered `came` came
   * instead (higher: messages were lost; lower: a duplicate, or one out of order; 0: a message with
   * no number where one was due). The values before it were handed on, none after; the method
   * may have run to its end on the server.
   */
  | { readonly _tag: "TransportError"; readonly reason: "gap"; readonly expected: number; readonly came: number }
  /**
   * The server answered with a redirect (`status` 301, 302, 303, 307 or 308) to `location`, and the
   * `http` transport follows none: the request, its body and its headers went to the URL it was
   * given and nowhere else. `location` is the answer's `Location` header, resolved against that
   * URL; a browser hides both (its `fetch` gives an opaque answer): there `status` is 0 and
   * `location` absent. Give the client the URL the server redirects to.
   */
  | {
      readonly _tag: "TransportError";
      readonly reason: "redirect";
      readonly status: number;
      readonly location?: string;
    };

// One constructor per reason: every transport builds its errors with these, never by hand.

/** @internal */
export const network = (cause: unknown): TransportError => ({ _tag: "TransportError", reason: "network", cause });

/** @internal */
export const badStatus = (status: number, body: string): TransportError => ({
  _tag: "TransportError",
  reason: "status",
  status,
  body,
});

/** @internal */
export const aborted = (cause: unknown): TransportError => ({ _tag: "TransportError", reason: "aborted", cause });

/** @internal */
export const timedOut = (timeoutMs: number): TransportError => ({
  _tag: "TransportError",
  reason: "timeout",
  timeoutMs,
});

/** @internal */
export const closed = (cause: unknown): TransportError => ({ _tag: "TransportError", reason: "closed", cause });

/** @internal */
export const overloaded = (limit: number): TransportError => ({ _tag: "TransportError", reason: "overloaded", limit });

/** @internal */
export const tooLarge = (limit: number): TransportError => ({ _tag: "TransportError", reason: "tooLarge", limit });

/** @internal */
export const noResponders = (subject: string): TransportError => ({
  _tag: "TransportError",
  reason: "noResponders",
  subject,
});

/** @internal */
export const gap = (expected: number, came: number): TransportError => ({
  _tag: "TransportError",
  reason: "gap",
  expected,
  came,
});

/** @internal */
export const redirect = (status: number, location: string | undefined): TransportError => ({
  _tag: "TransportError",
  reason: "redirect",
  status,
  ...(location === undefined ? {} : { location }),
});

/** A failure of the request: `aborted` when the call's signal is why, else `network`. @internal */
export const failure = (signal: AbortSignal, cause: unknown): TransportError =>
  signal.aborted ? aborted(cause) : network(cause);

/**
 * An answer came that is not this call's: not JSON, not a JSON-RPC response (or, in a batch, two
 * responses with this call's id), one whose id matches no request (a success with a null id
 * included), none at all for a request, a result the contract's result codec refuses (with the
 * codec's report in `message`, or what it threw), or a value of a streamed call that its stream
 * codec refuses (`valueRefused`: the call is cancelled).
 *
 * @example
 * import type { InvalidAnswer } from "rpcserver/client";
 * const e: InvalidAnswer = { _tag: "InvalidAnswer", reason: "notJson", body: "<html>" };
 *
 * @since 5.0.10
 * @category client
 */
export type InvalidAnswer =
  | { readonly _tag: "InvalidAnswer"; readonly reason: "notJson"; readonly body: string }
  | { readonly _tag: "InvalidAnswer"; readonly reason: "notJsonRpc"; readonly answer: unknown }
  | { readonly _tag: "InvalidAnswer"; readonly reason: "unknownId"; readonly id: unknown }
  | { readonly _tag: "InvalidAnswer"; readonly reason: "noAnswer" }
  | {
      readonly _tag: "InvalidAnswer";
      readonly reason: "resultRefused";
      readonly result: unknown;
      readonly message: string;
    }
  /** A value a streamed call received that the entry's stream codec refuses (the call is then cancelled). */
  | {
      readonly _tag: "InvalidAnswer";
      readonly reason: "valueRefused";
      readonly value: unknown;
      readonly message: string;
    };

/**
 * The call could not be sent: its params codec's `encode` threw, or the request is not JSON (a
 * BigInt, a cycle). Nothing was sent.
 *
 * @example
 * import type { InvalidCall } from "rpcserver/client";
 * const e: InvalidCall = { _tag: "InvalidCall", method: "add", cause: new TypeError("BigInt") };
 *
 * @since 5.0.10
 * @category client
 */
export interface InvalidCall {
  readonly _tag: "InvalidCall";
  readonly method: string;
  readonly cause: unknown;
}

/**
 * Everything a client call can fail with.
 *
 * @example
 * import { matchClientError, type ClientError } from "rpcserver/client";
 * const describe = matchClientError({
 *   ServerError: (e) => `server said ${e.code} ${e.message}`,
 *   TransportError: (e) => `transport: ${e.reason}`,
 *   InvalidAnswer: (e) => `bad answer: ${e.reason}`,
 *   InvalidCall: (e) => `could not send ${e.method}`,
 * });
 * describe({ _tag: "TransportError", reason: "timeout", timeoutMs: 5 } satisfies ClientError); // "transport: timeout"
 *
 * @since 5.0.10
 * @category client
 */
export type ClientError = ServerError | TransportError | InvalidAnswer | InvalidCall;

/**
 * What a call fails with when its contract entry declares errors `D` (a union of
 * {@link DeclaredError}s): one of them, or any other {@link ClientError} (its server errors
 * {@link UndeclaredError}s). With no declared errors, `ClientError`.
 *
 * @example
 * import type { CallError, DeclaredError } from "rpcserver/client";
 * type E404 = CallError<DeclaredError<404, { name: string }>>;
 * const e: E404 = { _tag: "ServerError", declared: true, code: 404, message: "No such person", data: { name: "Ann" } };
 *
 * @since 5.0.10
 * @category client
 */
export type CallError<D extends DeclaredError = never> = [D] extends [never]
  ? ClientError
  : D | UndeclaredError | TransportError | InvalidAnswer | InvalidCall;

/**
 * Folds a {@link ClientError} by its `_tag`, one case per kind (exhaustive: a missing case is a
 * compile error). Pipeable: `pipe(error, matchClientError({ ... }))`, or with `TE.mapLeft`. The
 * error's type is inferred from where the fold is used, so the `ServerError` case of a call whose
 * entry declares errors gets them ({@link CallError}), to narrow by `declared` and `code`.
 *
 * @example
 * import { matchClientError } from "rpcserver/client";
 * const code = matchClientError({
 *   ServerError: (e) => e.code,
 *   TransportError: () => -1,
 *   InvalidAnswer: () => -2,
 *   InvalidCall: () => -3,
 * });
 * code({ _tag: "ServerError", code: 404, message: "No such person" }); // 404
 *
 * @since 5.0.10
 * @category client
 */
export const matchClientError =
  <B, Err extends ClientError = ClientError>(cases: {
    readonly [K in ClientError["_tag"]]: (error: Extract<Err, { readonly _tag: K }>) => B;
  }) =>
  (error: Err): B =>
    (cases[error._tag] as (error: Err) => B)(error);

/** A client error in a line: its kind, and its reason or its code and message. */
const lineOf = (error: ClientError): string => {
  switch (error._tag) {
    case "ServerError":
      return `ServerError ${error.code} ${error.message}`;
    case "InvalidCall":
      return `InvalidCall (${error.method})`;
    default:
      return `${error._tag} ${error.reason}`;
  }
};

/**
 * What `for await (const value of call)` throws when the streamed call fails (an error answer, a
 * lost connection, a refused value, a time-out): a loop has no place for the call's `Either`, so
 * its failure is thrown, the `ClientError` in `error`, after the values that came before it.
 * Leaving the loop (`break`, `return`) throws nothing. `open(call)` never throws: its `result`
 * holds the same `Either`.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement, RpcError } from "rpcserver";
 * import { client, local, StreamError } from "rpcserver/client";
 * const api = contract({ count: { params: t.tuple([t.number]), stream: t.number, result: t.string } });
 * const { count } = client(api, local(implement(api, {
 *   count: async function* (to) {
 *     yield 1;
 *     return to > 1 ? RpcError(400, "Too far") : E.right("done");
 *   },
 * })));
 * const seen: number[] = [];
 * try {
 *   for await (const n of count(2)) seen.push(n);
 * } catch (thrown) {
 *   if (thrown instanceof StreamError) thrown.error; // { _tag: "ServerError", code: 400, message: "Too far", ... }
 * }
 * seen; // [1]
 *
 * @since 5.0.10
 * @category client
 */
export class StreamError<L extends ClientError = ClientError> extends globalThis.Error {
  override readonly name = "StreamError";

  constructor(readonly error: L) {
    super(`the streamed call failed: ${lineOf(error)}`);
  }
}
