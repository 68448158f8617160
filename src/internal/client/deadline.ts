/**
 * A call's signal and timeout: the send of a call (or of a batch) run under them, settled at the
 * first of the answer, the caller's abort and the timer.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { after } from "../core/timer";
import type { CallOptions } from "./call";
import { aborted, network, timedOut, type ClientError } from "./errors";
import { NEVER } from "./transport";

/**
 * Runs `send` under the call's signal and timeout: it settles at the first of the answer, the
 * caller's abort, and the timer, and leaves no listener or timer behind. (`AbortSignal.any` is
 * not in Node 18: the signals are joined by hand.)
 *
 * @internal
 */
export const guarded = <A>(
  options: CallOptions,
  send: (signal: AbortSignal) => Promise<E.Either<ClientError, A>>,
): Promise<E.Either<ClientError, A>> => {
  const { signal } = options;
  // Infinity is no time-out at all: no timer to arm.
  const timeoutMs = options.timeoutMs === Infinity ? undefined : options.timeoutMs;
  if (signal?.aborted === true) return Promise.resolve(E.left(aborted(signal.reason)));
  // `!(t > 0)` and not `t <= 0`: NaN too has no time left.
  if (timeoutMs !== undefined && !(timeoutMs > 0)) return Promise.resolve(E.left(timedOut(timeoutMs)));
  if (signal === undefined && timeoutMs === undefined) return send(NEVER);
  const controller = new AbortController();
  return new Promise<E.Either<ClientError, A>>((settle) => {
    let cancelTimer: (() => void) | undefined;
    const done = (answer: E.Either<ClientError, A>): void => {
      cancelTimer?.();
      signal?.removeEventListener("abort", onAbort);
      settle(answer);
    };
    const onAbort = (): void => {
      done(E.left(aborted(signal?.reason)));
      controller.abort(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    // Any length: one longer than a timer holds is waited out in steps (`after`).
    if (timeoutMs !== undefined) {
      cancelTimer = after(timeoutMs, () => {
        done(E.left(timedOut(timeoutMs)));
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      });
    }
    send(controller.signal).then(done, (cause: unknown) => done(E.left(network(cause))));
  });
};
