/**
 * Streamed calls: an {@link RpcStream} sent asking for its values (`open`), which arrive through
 * the transport's `onValue`, are decoded, wait in a small buffer for the consumer, and end with
 * the call's answer; and their fold into a `TaskEither` (`foldStream`).
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { TaskEither } from "fp-ts/TaskEither";
import { CALL, type RpcStream, type Spec } from "./call";
import { aborted, network, type ClientError } from "./errors";
import { decodedValue } from "./read-answer";
import { run } from "./send";

/**
 * How many values a run holds that its consumer has not taken: past this, the transport's
 * `onValue` Promise waits for the consumer, and the transport stops reading (a server that
 * honours back-pressure then waits at its `yield`). Small, so that memory stays bounded, and more
 * than one, so that a consumer as fast as the producer seldom makes the transport wait.
 *
 * @internal
 */
export const STREAM_BUFFER = 16;

/**
 * A streamed call under way (see {@link open}): an async iterator of its values, decoded, whose
 * last step (`done: true`) holds the call's `Either`, also in `result`. It never throws: a failure
 * (an error answer, a value the stream codec refuses, a lost transport) ends the iteration and is
 * in `result`. `return()` (leaving a `for await` loop with `break`) cancels the call on the other
 * side; its `result` is then a `TransportError` of reason `aborted`, unless the answer came first.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, local, open, type StreamRun } from "rpcserver/client";
 * const api = contract({ count: { params: t.tuple([t.number]), stream: t.number, result: t.string } });
 * const methods = implement(api, {
 *   count: async function* (to) {
 *     for (let i = 1; i <= to; i++) yield i;
 *     return E.right(`counted to ${to}`);
 *   },
 * });
 * const run: StreamRun<number, string> = open(client(api, local(methods)).count(2));
 * await run.next(); // { done: false, value: 1 }
 * await run.next(); // { done: false, value: 2 }
 * await run.next(); // { done: true, value: { _tag: "Right", right: "counted to 2" } }
 *
 * @since 5.0.10
 * @category client
 */
export interface StreamRun<V, A, L extends ClientError = ClientError> extends AsyncIterableIterator<
  V,
  E.Either<L, A>,
  undefined
> {
  /** The run itself: it is iterated once. */
  [Symbol.asyncIterator](): StreamRun<V, A, L>;
  /** The next value, or once the call has ended `{ done: true, value }` with its `Either`. Never rejects. */
  next(): Promise<IteratorResult<V, E.Either<L, A>>>;
  /** Stops the run: the call is cancelled unless it has been answered, and the buffered values are dropped. */
  return(): Promise<IteratorReturnResult<E.Either<L, A>>>;
  /** The call's answer: its decoded result, or why it failed. Never rejects. */
  readonly result: Promise<E.Either<L, A>>;
}

type Step<V, R> = IteratorResult<V, R>;

/** One run of a streamed call: the call sent with `onValue`, the values between it and the consumer. */
class Run<V, A, L extends ClientError> implements StreamRun<V, A, L> {
  readonly result: Promise<E.Either<L, A>>;
  private settle: (answer: E.Either<L, A>) => void = () => undefined;
  private ended: E.Either<L, A> | undefined;
  private readonly buffer: V[] = [];
  /** Calls of `next()` waiting for a value (more than one only when `next()` is called without awaiting). */
  private readonly consumers: Array<(step: Step<V, E.Either<L, A>>) => void> = [];
  /** What the transport waits for in `onValue` while the buffer is full: room (one Promise for every such call). */
  private room: Promise<void> | undefined;
  private makeRoom: (() => void) | undefined;
  /** Aborts the call: the signal handed to the transport, joined with the caller's. */
  private readonly controller = new AbortController();
  private readonly caller: AbortSignal | undefined;

  constructor(private readonly spec: Spec<A>) {
    this.result = new Promise((resolve) => (this.settle = resolve));
    const { signal, timeoutMs } = spec.options;
    this.caller = signal;
    if (signal?.aborted === true) this.controller.abort(signal.reason);
    else signal?.addEventListener("abort", this.callerAborted, { once: true });
    try {
      run(spec, { signal: this.controller.signal, timeoutMs }, this.take).then(this.end, this.lost);
    } catch (cause) {
      this.lost(cause);
    }
  }

  [Symbol.asyncIterator](): StreamRun<V, A, L> {
    return this;
  }

  next(): Promise<Step<V, E.Either<L, A>>> {
    if (this.buffer.length > 0) {
      const value = this.buffer.shift() as V;
      if (this.buffer.length < STREAM_BUFFER) this.release();
      return Promise.resolve({ done: false, value });
    }
    if (this.ended !== undefined) return Promise.resolve({ done: true, value: this.ended });
    return new Promise((resolve) => this.consumers.push(resolve));
  }

  return(): Promise<IteratorReturnResult<E.Either<L, A>>> {
    this.buffer.length = 0;
    this.cancel(undefined);
    return this.result.then((value) => ({ done: true, value }));
  }

  /**
   * The transport's `onValue`: the value decoded, then handed to a waiting consumer or buffered;
   * a Promise only when the buffer is full, resolved once the consumer has taken one. A value
   * after the end (the call cancelled: its signal tells the transport) is dropped.
   */
  private readonly take = (value: unknown): void | Promise<void> => {
    if (this.ended !== undefined) return;
    const decoded = decodedValue(this.spec, value);
    if (E.isLeft(decoded)) {
      // A value the codec refuses ends the call: the values before it are still the consumer's.
      this.end(decoded);
      this.controller.abort();
      return;
    }
    const consumer = this.consumers.shift();
    if (consumer !== undefined) return consumer({ done: false, value: decoded.right as V });
    this.buffer.push(decoded.right as V);
    if (this.buffer.length < STREAM_BUFFER) return;
    // A transport that does not wait calls again meanwhile: it is told the same, and the buffer grows.
    return (this.room ??= new Promise((resolve) => (this.makeRoom = resolve)));
  };

  /** The transport may go on. */
  private release(): void {
    const makeRoom = this.makeRoom;
    if (makeRoom === undefined) return;
    this.room = undefined;
    this.makeRoom = undefined;
    makeRoom();
  }

  /** The caller's signal aborted: the call is cancelled, as by `return()`, with its reason. */
  private readonly callerAborted = (): void => {
    this.buffer.length = 0;
    this.cancel(this.caller?.reason);
  };

  /** Cancels the call unless it has ended: its signal aborts (the transport stops), and it ends `aborted`. */
  private cancel(reason: unknown): void {
    if (this.ended !== undefined) return;
    this.controller.abort(reason);
    const cause: unknown = this.controller.signal.reason;
    this.end(E.left(aborted(cause)));
  }

  /**
   * The first end wins: the answer, a refused value, a cancel. Waiting consumers are done; a
   * waiting transport goes on (to see its signal).
   */
  private readonly end = (answer: E.Either<ClientError, A>): void => {
    if (this.ended !== undefined) return;
    const ended = answer as E.Either<L, A>;
    this.ended = ended;
    this.caller?.removeEventListener("abort", this.callerAborted);
    this.release();
    for (const consumer of this.consumers.splice(0)) consumer({ done: true, value: ended });
    this.settle(ended);
  };

  /** What a transport must not do (throw, or reject): a `network` failure, as for a plain call. */
  private readonly lost = (cause: unknown): void => this.end(E.left(network(cause)));
}

/**
 * Sends a streamed call asking for its values, and gives them as they arrive: a
 * {@link StreamRun}, an async iterator of the values (each decoded by the entry's stream codec)
 * whose `result` is the call's `Either`. Over `http` the server answers with an event stream, on a
 * connection with progress notifications, and over `local` the method's generator hands its
 * values over directly.
 *
 * - It never throws. A value the stream codec refuses ends the call with an `InvalidAnswer` of
 *   reason `valueRefused` (the values before it are still given) and cancels it.
 * - Leaving the loop (`break`, `return()`) or aborting the call's signal (its `withOptions`, its
 *   client's) cancels the call on the other side: the connection closes the event stream, a
 *   connection sends its cancel notification, `local` stops the generator. `result` is then a
 *   `TransportError` of reason `aborted`. A `timeoutMs` bounds the whole call.
 * - Back-pressure: the run holds at most 16 values the consumer has not taken. Past that, the
 *   transport waits before it reads on, so a consumer slower than the server slows the server
 *   (its generator waits at its `yield`) instead of filling memory.
 *
 * `for await (const value of call)` is `open(call)` with the result dropped.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, local, open } from "rpcserver/client";
 * const api = contract({
 *   search: { params: t.type({ q: t.string }), stream: t.type({ done: t.number }), result: t.array(t.string) },
 * });
 * const methods = implement(api, {
 *   search: async function* ({ q }) {
 *     yield { done: 1 };
 *     yield { done: 2 };
 *     return E.right([`${q}.ts`]);
 *   },
 * });
 * const run = open(client(api, local(methods)).search({ q: "main" }));
 * const progress: number[] = [];
 * for await (const { done } of run) progress.push(done);
 * progress; // [1, 2]
 * await run.result; // { _tag: "Right", right: ["main.ts"] }
 *
 * @since 5.0.10
 * @category client
 */
export const open = <V, A, L extends ClientError>(call: RpcStream<V, A, L>): StreamRun<V, A, L> =>
  new Run<V, A, L>(call[CALL]);

/**
 * Folds a streamed call's values into one, fp-ts style: a `TaskEither` of the fold and the result
 * (`[B, A]`), or the call's error. Values are folded as they arrive (nothing is kept but the fold),
 * under the back-pressure of {@link open}. If `f` throws, the call is cancelled and the task
 * rejects with what `f` threw.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { pipe } from "fp-ts/function";
 * import * as TE from "fp-ts/TaskEither";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, foldStream, local } from "rpcserver/client";
 * const api = contract({ count: { params: t.tuple([t.number]), stream: t.number, result: t.string } });
 * const methods = implement(api, {
 *   count: async function* (to) {
 *     for (let i = 1; i <= to; i++) yield i;
 *     return E.right(`counted to ${to}`);
 *   },
 * });
 * const { count } = client(api, local(methods));
 * const summed = pipe(
 *   count(4),
 *   foldStream(0, (sum, n: number) => sum + n),
 *   TE.map(([sum, text]) => `${text}: ${sum}`),
 * );
 * await summed(); // { _tag: "Right", right: "counted to 4: 10" }
 *
 * @since 5.0.10
 * @category client
 */
export const foldStream =
  <B, V>(initial: B, f: (b: B, value: V) => B) =>
  <A, L extends ClientError>(call: RpcStream<V, A, L>): TaskEither<L, readonly [B, A]> =>
  async () => {
    const values = open(call);
    let b = initial;
    // A throw of `f` leaves the loop: `for await` calls `return()`, which cancels the call.
    for await (const value of values) b = f(b, value);
    const answer = await values.result;
    return E.isLeft(answer) ? answer : E.right([b, answer.right] as const);
  };
