/**
 * Streamed calls through a `local` transport: each call's values handed from its method's sink to
 * the call's `onValue`, as the values the wire would carry (copied as JSON), one at a time.
 *
 * @internal
 * @module
 */
import * as E from "fp-ts/Either";
import type { JsonOptions } from "../../core/options";
import { requestCancelled as cancelled } from "../../core/progress-wire";
import type { AnyStage, Call } from "../../core/stages";
import { streamTo, type StreamSink } from "../../core/stream";
import { jsonCopy, NOT_PLAIN } from "../json-copy";
import { streamedId, type TransportOptions } from "../transport";

/** What a value becomes on the wire: its JSON form, as the client of a server elsewhere would read it. */
const wireCopy = (value: unknown): unknown => {
  const copy = jsonCopy(value);
  if (copy !== NOT_PLAIN) return copy;
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
};

/**
 * The sink of one streamed call: each value copied and handed to `onValue`, waited for (the
 * generator waits at its `yield` meanwhile: back-pressure). Once the call's signal has aborted
 * (its consumer left, a value was refused, it timed out), the sink rejects, which stops the
 * generator (its `finally` runs).
 */
const sinkOf =
  (onValue: NonNullable<TransportOptions["onValue"]>, signal: AbortSignal): StreamSink =>
  (value) => {
    if (signal.aborted) throw cancelled();
    const taken = onValue(wireCopy(value));
    if (taken === undefined) return;
    return taken.then(() => {
      if (signal.aborted) throw cancelled();
    });
  };

/**
 * The sink of a plain call that can be stopped (a time-out or a signal of its caller's): its values
 * are dropped, as a plain call over HTTP drops them, and once the call's signal has aborted the
 * sink rejects, which stops the generator at its next `yield` (its `finally` runs) as the aborted
 * request of a server elsewhere would.
 */
const stopOn =
  (signal: AbortSignal): StreamSink =>
  () => {
    if (signal.aborted) throw cancelled();
  };

/**
 * The streamed calls under way through one `local` transport, by id, and the stage that gives each
 * its sink: one stage for all of them, so that the dispatcher keeps its composition from call to
 * call (a stage made per call would compose the pipeline again each time).
 *
 * @internal
 */
export class LocalStreams {
  private readonly sinks = new Map<unknown, StreamSink>();

  /** First of the stages: the request of a streamed call gets its sink, and passes it on to the others. */
  private readonly stage = (call: Call): E.Either<never, Call> => {
    const sink = this.sinks.get(call.request.id);
    if (sink !== undefined) streamTo(call.request, sink);
    return E.right(call);
  };

  /** The options of a streamed call: `options` with the stage first (a new object, equal member by member). */
  options(options: JsonOptions | undefined): JsonOptions {
    const stages: AnyStage[] = [this.stage, ...(options?.stages ?? [])];
    return { ...options, stages };
  }

  /**
   * Runs `dispatch` (which dispatches with {@link options}) with the sink of the call registered
   * under its id (`streamedId`: `ids[0]`, or the request's own), removed once its answer has come:
   * `onValue`'s, or without one (a plain call) a sink that only stops the method once the call's
   * signal has aborted. A call whose id is missing or already taken here is dispatched without one:
   * its values are dropped.
   */
  run<R>(request: unknown, transportOptions: TransportOptions, dispatch: () => R): R {
    const { signal, onValue } = transportOptions;
    const id = streamedId(request, transportOptions);
    if (id === undefined || this.sinks.has(id)) return dispatch();
    this.sinks.set(id, onValue === undefined ? stopOn(signal) : sinkOf(onValue, signal));
    let answer: R;
    try {
      answer = dispatch();
    } catch (thrown) {
      this.sinks.delete(id);
      throw thrown;
    }
    if (answer instanceof Promise) return answer.finally(() => this.sinks.delete(id)) as R;
    // Answered at once: a method that did not stream.
    this.sinks.delete(id);
    return answer;
  }
}
