/**
 * Where a streaming method's values go: a method written as an `async function*` yields values
 * before it returns its result, and a transport that can carry them (a connection's progress
 * notifications, an HTTP event stream) gives the request a {@link StreamSink} for them with
 * {@link streamTo}. The call stage (`pipeline/streaming.ts`) hands each value, encoded by the
 * method's stream codec, to the sink of its request, and drops it when the request has none. A
 * stream ended from outside (`endStream`: a `timeout` stage answered first, the request was
 * cancelled) stops its method at its next yield.
 *
 * @module
 */
import type { JsonRpcError } from "./exceptions";
import { UNSENT } from "./progress-wire";
import type { Request } from "./request";

/**
 * Where one request's streamed values go, each already encoded by the method's stream codec. The
 * handler waits at its `yield` until the sink has taken the value it yielded (a sink that returns
 * nothing took it at once; one that returns a Promise took it when that resolves): it never runs
 * more than one value ahead of what the sink has taken. A sink that throws or rejects stops the
 * handler (its generator's `return()` runs its `finally`), and the request is answered with that
 * exception as the method's own: a `JsonRpcError` as given, anything else -32603.
 *
 * @example
 * import type { StreamSink } from "rpcserver/pipeline";
 * const seen: unknown[] = [];
 * const sink: StreamSink = (value) => {
 *   seen.push(value);
 * };
 *
 * @since 5.0.10
 * @category streams
 */
export type StreamSink = (value: unknown) => void | Promise<void>;

/**
 * One request's stream, as the pipeline knows it: where its values go, and whether it was ended
 * from outside (`endStream`). Shared by every request object that stands for the same request
 * (`passSink`), and read by the drain at each step rather than once, so that an end that comes
 * while the method runs reaches it. @internal
 */
export interface Stream {
  sink: StreamSink | undefined;
  /** Why the stream was ended from outside, once it was: the drain throws it. */
  ended: JsonRpcError | undefined;
  /** Set by the drain when it starts: stops the generator, for an end that comes while it runs. */
  wake: (() => void) | undefined;
}

/** Each request's stream, by the very object the pipeline validated (and the call stage holds). */
const streams = new WeakMap<Request, Stream>();

const isObjectKey = (value: unknown): value is Request => typeof value === "object" && value !== null;

/**
 * Gives `request` (a stage sees it as `call.request`: the object the call stage holds) a sink for
 * the values its method streams: for a transport of your own, from a stage, before the call goes
 * on. Without one (plain `dispatch` or `asyncDispatch` of a body) the values are drained and
 * dropped, and the result is answered as it is for any method: one handler serves every
 * transport. A stage that passes a new request object on passes its sink with it; an `Around`
 * stage that does must call `streamTo` for the new object itself.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { asyncDispatch, Success, type Call } from "rpcserver";
 * import { streamTo } from "rpcserver/pipeline";
 * const seen: unknown[] = [];
 * const collect = (call: Call) => {
 *   streamTo(call.request, (value) => {
 *     seen.push(value);
 *   });
 *   return E.right(call);
 * };
 * const methods = {
 *   count: async function* (to: number) {
 *     for (let i = 1; i <= to; i++) yield i;
 *     return Success("counted");
 *   },
 * };
 * await asyncDispatch('{"jsonrpc":"2.0","method":"count","params":[3],"id":1}', methods, { stages: [collect] });
 * // '{"jsonrpc":"2.0","result":"counted","id":1}'
 * seen; // [1, 2, 3]
 *
 * @since 5.0.10
 * @category streams
 */
export const streamTo = (request: Request, sink: StreamSink): void => {
  const stream = streams.get(request);
  if (stream === undefined) streams.set(request, { sink, ended: undefined, wake: undefined });
  else stream.sink = sink;
};

/**
 * The stream of `request`, made for it if it has none yet: the drain holds it from its start, so
 * that an end that comes later (`endStream`) reaches it. Streaming calls only. @internal
 */
export const streamOf = (request: Request): Stream => {
  let stream = streams.get(request);
  if (stream === undefined) {
    stream = { sink: undefined, ended: undefined, wake: undefined };
    if (isObjectKey(request)) streams.set(request, stream);
  }
  return stream;
};

/**
 * A stage passed `next` on in the place of `request`: the two share one stream (made now if there
 * is none yet), so that a sink or an end given to either later reaches the method too (a
 * connection ends the stream of the request it registered, before the stages). Called only when
 * the two differ. @internal
 */
export const passSink = (request: Request, next: Request): void => {
  if (isObjectKey(next)) streams.set(next, streamOf(request));
};

/**
 * Ends the stream of `request` from outside, for `reason`: something other than its method answered
 * it (a `timeout` stage), or no answer of its method will be sent (cancelled, its connection
 * closed). Its method's generator is stopped at its next yield (at once if it waits at one for its
 * sink: its `return()`, so its `finally` runs), its sink takes nothing more, and its drain ends
 * with `reason` as the method's exception. A sink is not needed: a request without one stops the
 * same. Nothing is made for a request until this is called, so a request never ended this way
 * costs nothing. The first end stands. @internal
 */
export const endStream = (request: Request, reason: JsonRpcError): void => {
  if (!isObjectKey(request)) return;
  if (cuts.size !== 0) cuts.take(request)?.(reason);
  const stream = streams.get(request);
  if (stream === undefined) streams.set(request, { sink: undefined, ended: reason, wake: undefined });
  else if (stream.ended === undefined) {
    stream.ended = reason;
    stream.wake?.();
  }
};

/**
 * Is `value` what an `async function*` returns (an object with a `next` function and a
 * `Symbol.asyncIterator`)? Reading it may run user code (a Proxy): callers run it where an
 * exception is the method's own. @internal
 */
export const isStreamed = (value: unknown): value is AsyncIterator<unknown> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { next?: unknown }).next === "function" &&
  typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";

/**
 * Listeners by request object, each told once: one held as it is, more in a Set (two `traced`
 * stages on one pipeline listen to the same request). A Map, emptied by whoever listens once its
 * call is over: a WeakMap entry per request (or a `Stream` made for each) cost a traced dispatch a
 * third of its time in the garbage collector, for the rare request that streams or is cut.
 */
class ByRequest<A> {
  private readonly held = new Map<Request, ((a: A) => void) | Set<(a: A) => void>>();

  get size(): number {
    return this.held.size;
  }

  /** Adds `f` for `request`; returns what removes it. */
  add(request: Request, f: (a: A) => void): () => void {
    const before = this.held.get(request);
    if (before === undefined) this.held.set(request, f);
    else if (before instanceof Set) before.add(f);
    else this.held.set(request, new Set([before, f]));
    return () => {
      const held = this.held.get(request);
      if (held === f) this.held.delete(request);
      else if (held instanceof Set && held.delete(f) && held.size === 0) this.held.delete(request);
    };
  }

  /** Every listener of `request`, taken off, as one function (in the order they came), or `undefined`. */
  take(request: Request): ((a: A) => void) | undefined {
    const held = this.held.get(request);
    if (held === undefined) return undefined;
    this.held.delete(request);
    if (!(held instanceof Set)) return held;
    const all = [...held];
    return (a) => {
      for (const f of all) f(a);
    };
  }
}

/** The taps waiting for their request's drain (`tapStream`), by the request object the drain will hold. */
const taps = new ByRequest<unknown>();

/**
 * Puts `tap` before the sink of `request` once its method turns out to stream (its drain starts):
 * it sees each value the sink is handed (`rpcserver/otel`'s event per value), then the sink takes
 * it as before; without a sink, the values are still dropped. Returns what removes the tap: call
 * it when the call is over, streamed or not. @internal
 */
export const tapStream = (request: Request, tap: (value: unknown) => void): (() => void) => taps.add(request, tap);

/**
 * What hears of a request ended from outside (`endStream`: a cancel, the client gone, a deadline),
 * by the request object the wire ends: `rpcserver/otel`'s span, which the request's answer may
 * never end (a stage or a method that ignores its signal).
 */
const cuts = new ByRequest<JsonRpcError>();

/**
 * Calls `cut` when `request` is ended from outside (`endStream`), once, before its stream hears of
 * it. Returns what stops listening: call it when the call is over. `cut` must not throw. @internal
 */
export const onCut = (request: Request, cut: (reason: JsonRpcError) => void): (() => void) => cuts.add(request, cut);

/** How many requests have taps waiting for a drain: none once every tapped call is over (a test's look for a leak). @internal */
export const tapsHeld = (): number => taps.size;

/** How many requests are listened to for an end from outside: none once every traced call is over (a test's look for a leak). @internal */
export const cutsHeld = (): number => cuts.size;

/** The stream of `request` as its drain starts: {@link streamOf}, its sink behind the request's tap if it has one. @internal */
export const drainedStreamOf = (request: Request): Stream => {
  const stream = streamOf(request);
  if (taps.size === 0) return stream;
  const tap = taps.take(request);
  if (tap === undefined) return stream;
  const sink = stream.sink;
  // A step that sends nothing (rpcserver/mcp's, for a tool's value with no progress token) is no value to trace.
  stream.sink =
    sink === undefined
      ? (value) => {
          if (value !== UNSENT) tap(value);
        }
      : (value) => {
          if (value !== UNSENT) tap(value);
          return sink(value);
        };
  return stream;
};
