/**
 * What a client call is: a `TaskEither<ClientError, A>` that also carries its request (a
 * {@link Spec}, under a symbol), so that free functions can send it otherwise (`withOptions`,
 * `notify`, `batch`) and no helper has to live on the client object, where a method name could
 * clash with it. Its options, a signal and a timeout, are here too. Types only, and the symbol.
 *
 * @module
 */
import type * as E from "fp-ts/Either";
import type { TaskEither } from "fp-ts/TaskEither";
import type { ClientError, DeclaredError, InvalidAnswer } from "./errors";
import type { Transport } from "./transport";

/**
 * Options of a call (or of every call of a client): an `AbortSignal` that cancels it, and a
 * timeout in milliseconds after which it fails with a `timeout` `TransportError`.
 *
 * `timeoutMs` may be any length: one past what a timer can hold (2^31 - 1 ms, about 24.8 days)
 * waits that long all the same, and `Infinity` means no time-out. A call with no time left (0, a
 * negative number, `NaN`: a deadline already past) fails with `timeout` at once and is not sent,
 * as a call whose signal is already aborted fails with `aborted`.
 *
 * @example
 * import type { CallOptions } from "rpcserver/client";
 * const options: CallOptions = { signal: new AbortController().signal, timeoutMs: 5000 };
 *
 * @since 5.0.10
 * @category client
 */
export interface CallOptions {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
}

/** Where a call keeps its {@link Spec}. */
export const CALL = Symbol.for("rpcserver.call");

/** What a call sends and how it reads its answer. */
export interface Spec<A> {
  readonly method: string;
  /** The request text up to the method's name included ({@link requestHead}), written once per method. */
  readonly head: string;
  /** The params as sent (already encoded), or `undefined` for none; `encode` runs when the call does. */
  readonly params: () => unknown;
  readonly decode: (result: unknown) => E.Either<InvalidAnswer, A>;
  /**
   * Set for a call that streams (its {@link RpcStream}): each value as the program gets it, decoded
   * by the entry's stream codec (a table's client: the value as it came).
   */
  readonly stream?: (value: unknown) => E.Either<InvalidAnswer, unknown>;
  /**
   * The error as one the call's contract entry declares (its data decoded), or `undefined` when it
   * is none of them. `error` is the response's `error` object, its `code` and `message` checked.
   */
  readonly declared: (
    code: number,
    message: string,
    error: Readonly<Record<string, unknown>>,
  ) => DeclaredError | undefined;
  readonly transport: Transport;
  readonly options: CallOptions;
  readonly nextId: () => number;
}

/**
 * A call not yet sent: run it (`await call()`) to send it and get its `Either`. It is a
 * `TaskEither<L, A>`, so `pipe(call, TE.map(...))` works; `withOptions`, `notify` and `batch` read
 * the request it carries. `L` is `ClientError`, or for a contract entry that declares errors a
 * `CallError` of them (a `DeclaredError` per code, to narrow by `declared` and `code`).
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as TE from "fp-ts/TaskEither";
 * import { pipe } from "fp-ts/function";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, local, type RpcCall } from "rpcserver/client";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * const { add } = client(api, local(implement(api, { add: (a, b) => E.right(a + b) })));
 * const three: RpcCall<number> = add(1, 2); // not sent yet
 * const doubled = pipe(three, TE.map((n) => n * 2));
 * await doubled(); // { _tag: "Right", right: 6 }
 *
 * @since 5.0.10
 * @category client
 */
export interface RpcCall<A, L extends ClientError = ClientError> extends TaskEither<L, A> {
  readonly [CALL]: Spec<A>;
  readonly notification: false;
}

/**
 * The call of a method that streams (a contract entry with `stream`, a table's `async function*`):
 * an {@link RpcCall}, which run as a `TaskEither` asks for no values (the server drops them) and
 * answers the result alone, that is also an `AsyncIterable` of the values, each decoded by the
 * entry's stream codec. `for await (const value of call)` sends the call asking for its values and
 * ends when the answer comes (the result is then dropped: take it with `open`); `open(call)` and
 * `foldStream(initial, f)(call)` give the result too. `withOptions` keeps it an `RpcStream`;
 * `batch` and `notify` send it as the plain call it also is.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, local, type RpcStream } from "rpcserver/client";
 * const api = contract({ count: { params: t.tuple([t.number]), stream: t.number, result: t.string } });
 * const methods = implement(api, {
 *   count: async function* (to) {
 *     for (let i = 1; i <= to; i++) yield i;
 *     return E.right(`counted to ${to}`);
 *   },
 * });
 * const counting: RpcStream<number, string> = client(api, local(methods)).count(3);
 * const seen: number[] = [];
 * for await (const n of counting) seen.push(n);
 * seen; // [1, 2, 3]
 * await counting(); // { _tag: "Right", right: "counted to 3" }
 *
 * @since 5.0.10
 * @category client
 */
export interface RpcStream<V, A, L extends ClientError = ClientError> extends RpcCall<A, L>, AsyncIterable<V> {}

/**
 * A notification not yet sent (see {@link notify}): no id, no answer awaited; only sending can fail.
 *
 * @since 5.0.10
 * @category client
 */
export interface RpcNotification extends TaskEither<ClientError, void> {
  readonly [CALL]: Spec<unknown>;
  readonly notification: true;
}
