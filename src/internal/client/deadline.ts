/**
 * A call's signal and timeout: the send of a call (or of a batch) run under them, settled at the
 * first of the answer, the caller's abort and the timer.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { CallOptions } from "./call";
import { aborted, network, timedOut, type ClientError } from "./errors";
import { NEVER } from "./transport";

/**
 * The longest delay a timer holds: `setTimeout` takes a longer one (or `Infinity`) as 1 ms, so a
 * time-out of 2^31 ms fired at once. Longer time-outs are waited in steps of this.
 */
const MAX_DELAY = 2 ** 31 - 1;

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
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (answer: E.Either<ClientError, A>): void => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      settle(answer);
    };
    const onAbort = (): void => {
      done(E.left(aborted(signal?.reason)));
      controller.abort(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined) {
      const expire = (): void => {
        done(E.left(timedOut(timeoutMs)));
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      };
      // A timer never fires early, so what is left after each step is the time-out less the steps.
      const wait = (left: number): void => {
        timer = left > MAX_DELAY ? setTimeout(() => wait(left - MAX_DELAY), MAX_DELAY) : setTimeout(expire, left);
      };
      wait(timeoutMs);
    }
    send(controller.signal).then(done, (cause: unknown) => done(E.left(network(cause))));
  });
};
