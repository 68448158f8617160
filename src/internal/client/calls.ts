/**
 * Calls as values: the call of a request (`makeCall`), and of a request that streams
 * (`makeStream`: also an `AsyncIterable` of its values), each sent when run (./send); and the free
 * functions that send a call otherwise: `withOptions` (other options) and `notify` (as a
 * notification).
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { CALL, type CallOptions, type RpcCall, type RpcNotification, type RpcStream, type Spec } from "./call";
import { StreamError, type ClientError } from "./errors";
import { run, send } from "./send";
import { open } from "./streams";

const sentNotification = (): E.Either<ClientError, void> => E.right(undefined);

const runNotification = (spec: Spec<unknown>): Promise<E.Either<ClientError, void>> =>
  send(spec, undefined, sentNotification);

/** A call or notification under construction: its function, its members not yet set. */
type Building<T> = (() => Promise<unknown>) & { -readonly [K in keyof T]?: T[K] };

/** The call of `spec`, sent when run. (Its members set one by one: `Object.assign` cost twice as much.) @internal */
export const makeCall = <A>(spec: Spec<A>): RpcCall<A> => {
  const call: Building<RpcCall<A>> = () => run(spec);
  call[CALL] = spec;
  call.notification = false;
  return call as RpcCall<A>;
};

/** The last step of a run, as a loop takes it: a failure thrown (a loop has no place for the Either). */
const thrownIfFailed = <V>(step: IteratorResult<V, E.Either<ClientError, unknown>>): IteratorResult<V, undefined> => {
  if (step.done !== true) return step;
  if (E.isLeft(step.value)) throw new StreamError(step.value.left);
  return { done: true, value: undefined };
};

/**
 * What iterating a stream does (`for await (const v of call)`): `open` it, its result dropped when
 * the call succeeds, thrown as a {@link StreamError} when it fails. Leaving the loop (`return`)
 * throws nothing. One function for every stream.
 */
function iterate<V>(this: RpcStream<V, unknown>): AsyncIterator<V, undefined> {
  const run = open(this);
  return {
    next: () => run.next().then(thrownIfFailed),
    return: () => run.return().then(() => ({ done: true, value: undefined })),
  };
}

/**
 * The call of a streaming `spec` (its `stream` set): a call that is also an `AsyncIterable` of its
 * values. @internal
 */
export const makeStream = <V, A>(spec: Spec<A>): RpcStream<V, A> => {
  const call = makeCall(spec) as Building<RpcStream<V, A>>;
  call[Symbol.asyncIterator] = iterate;
  return call as RpcStream<V, A>;
};

/**
 * A call with other options (a signal, a timeout), pipeable: the client's options are kept where
 * these say nothing. A stream stays a stream ({@link RpcStream}).
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { pipe } from "fp-ts/function";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, local, withOptions } from "rpcserver/client";
 * const api = contract({ slow: { result: t.string } });
 * const { slow } = client(api, local(implement(api, { slow: () => E.right("done") })));
 * await pipe(slow(), withOptions({ timeoutMs: 500 }))(); // { _tag: "Right", right: "done" }
 * // No time left: it fails at once, unsent.
 * await pipe(slow(), withOptions({ timeoutMs: 0 }))();
 * // { _tag: "Left", left: { _tag: "TransportError", reason: "timeout", timeoutMs: 0 } }
 *
 * @since 5.0.10
 * @category client
 */
export const withOptions =
  (options: CallOptions) =>
  <C extends RpcCall<unknown> | RpcNotification>(call: C): C => {
    const spec = { ...call[CALL], options: { ...call[CALL].options, ...defined(options) } };
    return (
      call.notification ? toNotification(spec) : spec.stream === undefined ? makeCall(spec) : makeStream(spec)
    ) as C;
  };

/** The options that are set (an explicit `undefined` keeps the client's). @internal */
export const defined = (options: CallOptions): CallOptions => {
  const out: { signal?: AbortSignal; timeoutMs?: number } = {};
  if (options.signal !== undefined) out.signal = options.signal;
  if (options.timeoutMs !== undefined) out.timeoutMs = options.timeoutMs;
  return out;
};

const toNotification = (spec: Spec<unknown>): RpcNotification => {
  const call: Building<RpcNotification> = () => runNotification(spec);
  call[CALL] = spec;
  call.notification = true;
  return call as RpcNotification;
};

/**
 * The same request sent as a notification: no id, no answer awaited (Right `undefined` once the
 * transport has sent it); only sending can fail.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, local, notify } from "rpcserver/client";
 * const api = contract({ log: { params: t.tuple([t.string]) } });
 * const { log } = client(api, local(implement(api, { log: () => E.right(null) })));
 * await notify(log("started"))(); // { _tag: "Right", right: undefined }
 *
 * @since 5.0.10
 * @category client
 */
export const notify = (call: RpcCall<unknown>): RpcNotification => toNotification(call[CALL]);
