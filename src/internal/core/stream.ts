/**
 * Where a streaming method's values go: a method written as an `async function*` yields values
 * before it returns its result, and a transport that can carry them (a connection's progress
 * notifications, an HTTP event stream) gives the request a {@link StreamSink} for them with
 * {@link streamTo}. The call stage (`pipeline/streaming.ts`) hands each value, encoded by the
 * method's stream codec, to the sink of its request, and drops it when the request has none.
 *
 * @module
 */
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

/** Each request's sink, by the very object the pipeline validated (and the call stage holds). */
const sinks = new WeakMap<Request, StreamSink>();

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
  sinks.set(request, sink);
};

/** The sink of `request`, if a transport gave one. @internal */
export const sinkOf = (request: Request): StreamSink | undefined => sinks.get(request);

/**
 * A stage passed `next` on in the place of `request`: the sink, if any, goes with it. Called only
 * when the two differ. @internal
 */
export const passSink = (request: Request, next: Request): void => {
  const sink = sinks.get(request);
  if (sink !== undefined && isObjectKey(next)) sinks.set(next, sink);
};

const isObjectKey = (value: unknown): value is Request => typeof value === "object" && value !== null;

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
