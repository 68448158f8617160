/**
 * A streaming method's call: the async generator an `async function*` method returns, drained by
 * the call stage. Each value it yields is encoded by the method's stream codec and handed to its
 * request's sink (`stream.ts`), which is waited for before the generator is asked for the next
 * one; what it returns is then read as a method's return value is. Sync dispatch refuses it, as
 * it refuses a Promise, without running it.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Kind, URIS } from "fp-ts/HKT";
import { ERROR_INTERNAL_ERROR } from "../codes";
import { methodNameOf } from "../describe";
import type { Effect } from "../effect";
import { isThenable } from "../guards";
import { logSafely } from "../logger";
import { streamCodecOf } from "../methods";
import type { Env } from "../options";
import { requestCancelled } from "../progress-wire";
import { ErrorResponse } from "../response";
import { follow, signalIn } from "../signal";
import { issueLines, SchemaRefused, standardOf, type Issues, type StandardCodec } from "../schema";
import { idOf, type Call } from "../stages";
import { drainedStreamOf, endStream, type Stream } from "../stream";
import { nextTurn, Pace } from "../turns";
import { refusePromise, thrownError } from "./failures";
import type { Invocation } from "./resolve";
import { settle, Unsettled, type Ending } from "./settle";

/** How one value is made ready to send: encoded by an io-ts codec, or checked by a Standard Schema. */
type Encode = (value: unknown) => unknown;

/** A value a stream schema checked: its value, or a {@link SchemaRefused} thrown with its lines. */
const checkedValue = (decoded: E.Either<Issues, unknown>): unknown => {
  if (E.isLeft(decoded)) throw new SchemaRefused(issueLines(decoded.left, "stream"), "stream");
  return decoded.right;
};

/** The method's stream codec as one function, or `undefined` (the values are sent as yielded). */
const encoderOf = (codec: ReturnType<typeof streamCodecOf>): Encode | undefined => {
  if (codec === undefined) return undefined;
  if (standardOf(codec) === undefined) return (value) => codec.encode(value);
  // A Standard Schema checks each value, and may answer a Promise: its lines start at `stream`.
  const standard = codec as unknown as StandardCodec;
  return (value) => {
    const decoded = standard.decode(value);
    return isThenable(decoded) ? decoded.then(checkedValue) : checkedValue(decoded);
  };
};

/** Stops the generator (its `finally` runs); what stopping throws is logged, never answered. */
const stop = async (source: AsyncIterator<unknown>, name: string): Promise<void> => {
  try {
    await source.return?.(undefined);
  } catch (thrown) {
    logSafely(`rpcserver: method "${name}" raised an exception while it was stopped`, thrown);
  }
};

/** Throws why the stream was ended from outside, once it was. */
const unlessEnded = (stream: Stream): void => {
  const { ended } = stream;
  if (ended !== undefined) throw ended;
};

/** Stops the generator, then throws `thrown`: the method's exception. */
const halt = async (source: AsyncIterator<unknown>, name: string, thrown: unknown): Promise<never> => {
  await stop(source, name);
  throw thrown;
};

/**
 * Drains `source`: each value encoded, handed to its stream's sink and waited for before the next
 * `next()` (so the generator never runs more than one value ahead of what the sink has taken), then
 * its return value. The event loop gets a turn within a bounded number of values (`../turns`): a
 * generator that never waits on I/O would otherwise run in microtasks alone, and nothing else in
 * the process would run (no other request, no disconnect, cancel or time-out) until it ended. An
 * encode that throws, a value the schema refuses or a sink that throws or rejects stops the
 * generator, and is the method's exception; so is what the generator throws.
 * Once its stream is ended from outside (`endStream`), the generator is stopped at its next yield,
 * its value dropped, and the reason thrown (it goes nowhere: the request was answered otherwise,
 * or will not be answered).
 */
const drain = async (
  source: AsyncIterator<unknown>,
  encode: Encode | undefined,
  stream: Stream,
  name: string,
): Promise<unknown> => {
  // Ended before the method was even called (a slow stage, an async params schema): none of it runs.
  if (stream.ended !== undefined) return halt(source, name, stream.ended);
  // Ended later, it is stopped from outside: at once if it waits at a yield for its sink (a slow
  // client holds it no longer), else at its next yield (a generator queues `return()` behind a
  // running `next()`). The checks below then drop that value, and throw the reason. A sink that
  // never takes its value leaves this drain waiting, holding nothing but itself: its request
  // needs no more from it. (Racing each wait against the end would cost every value a Promise.)
  stream.wake = () => void stop(source, name);
  const pace = new Pace();
  for (;;) {
    const step = await source.next();
    if (step.done === true) return step.value;
    try {
      // Read after each wait: the end may have come meanwhile.
      unlessEnded(stream);
      let value = encode === undefined ? step.value : encode(step.value);
      if (isThenable(value)) {
        value = await value;
        unlessEnded(stream);
      }
      const { sink } = stream;
      if (sink !== undefined) {
        const took = sink(value);
        if (isThenable(took)) await took;
        unlessEnded(stream);
      }
      if (pace.due()) {
        await nextTurn();
        unlessEnded(stream);
      }
    } catch (thrown) {
      return halt(source, name, thrown);
    }
  }
};

/** Sync dispatch cannot drain a stream: it is refused, and stopped before it runs. */
const refuseStream = (source: AsyncIterator<unknown>, call: Call): ErrorResponse => {
  const name = methodNameOf(call.request);
  void stop(source, name);
  logSafely(`rpcserver: method "${name}" returned an async generator to sync dispatch`);
  return ErrorResponse(
    ERROR_INTERNAL_ERROR,
    "Internal error",
    "The method returned an async generator; use asyncDispatch",
    idOf(call.request),
  );
};

/**
 * What a streaming method returned: drained in async dispatch (each value to its request's sink,
 * or dropped without one), then its return value read through the ending as a Promise's value
 * would be; refused by sync dispatch.
 */
export class Streaming<R> extends Unsettled<R> {
  constructor(
    private readonly source: AsyncIterator<unknown>,
    private readonly invocation: Invocation,
  ) {
    super();
  }

  wait<F extends URIS, C extends Call>(F: Effect<F>, env: Env, call: C, ending: Ending<C, R>): Kind<F, R> {
    const { source, invocation } = this;
    if (!F.concurrent) return F.of(ending.failed(refuseStream(source, call)));
    const fail = (thrown: unknown): R => ending.failed(thrownError(env, call, "method", thrown));
    const { request } = invocation;
    // The method's signal aborting (its client gone, a cancel, a caller's abort: whatever reaches
    // it) ends its stream, as `endStream` does: it stops at its next yield, whether it reads its
    // signal or not.
    const signal = signalIn(invocation.context);
    const release = follow(signal, () => endStream(request, requestCancelled()));
    const drained = drain(
      source,
      encoderOf(streamCodecOf(invocation.method)),
      drainedStreamOf(request),
      methodNameOf(request),
    ).finally(release);
    return F.wait(
      drained,
      (returned) => settle(F, env, call, "method", returned, ending),
      fail,
      (thenable) => ending.failed(refusePromise(call, "method", thenable)),
    );
  }

  /** The same stream, ended another way (a notification's: its answer dropped). It holds no `R`. */
  endedAs<B>(): Streaming<B> {
    return this as unknown as Streaming<B>;
  }
}
