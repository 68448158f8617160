/**
 * How the code a request runs (a method, a stage of yours) ends, in either effect: what it gives
 * back is read, a Promise is waited for (or refused by sync dispatch), and an exception or a
 * rejection becomes the error for that request alone. Shared by resolve, the call and your stages.
 *
 * @module
 */
import type { Kind, URIS } from "fp-ts/HKT";
import type { Effect } from "../effect";
import { isThenable } from "../guards";
import type { Env } from "../options";
import type { ErrorResponse } from "../response";
import type { Call } from "../stages";
import { refusePromise, thrownError } from "./failures";

/**
 * How the code a request runs ends: `read` turns what it gave back into `R`, `failed` turns the
 * error it came to (an exception, a refused Promise) into `R`. The call stage ends in a Response;
 * a stage in the next call or an error; a notification with no stage to see its answer in nothing.
 */
export interface Ending<C, R> {
  readonly read: (call: C, value: unknown) => R | Unsettled<R>;
  readonly failed: (error: ErrorResponse) => R;
}

/**
 * What the code a request runs (a method, a stage) gave back, read by `read`, and waited for first
 * if it is a Promise. Reading it may throw (a Proxy, a getter): that counts as that code's
 * exception. Shared by the call and your stages, and by both effects.
 */
export const settle = <F extends URIS, C extends Call, R>(
  F: Effect<F>,
  env: Env,
  call: C,
  what: string,
  value: unknown,
  ending: Ending<C, R>,
): Kind<F, R> => {
  try {
    // Reading `then` may throw too (a Proxy): inside the try, as that code's own exception.
    if (!isThenable(value)) return checked(F, env, call, ending, ending.read(call, value));
  } catch (thrown) {
    return F.of(threw(env, call, what, ending, thrown));
  }
  // The Promise is met in a function of its own: what every request runs stays small enough for V8
  // to inline into the call stage (a notification paid about 4% for the call it made here).
  return settleLater(F, env, call, what, value, ending);
};

/** {@link settle} of a Promise (or any thenable): waited for, or refused by sync dispatch. */
const settleLater = <F extends URIS, C extends Call, R>(
  F: Effect<F>,
  env: Env,
  call: C,
  what: string,
  value: PromiseLike<unknown>,
  ending: Ending<C, R>,
): Kind<F, R> => {
  const fail = (thrown: unknown): R => threw(env, call, what, ending, thrown);
  try {
    return F.wait(
      value,
      (settled) => {
        try {
          return checked(F, env, call, ending, ending.read(call, settled));
        } catch (thrown) {
          return F.of(fail(thrown));
        }
      },
      fail,
      (thenable) => ending.failed(refusePromise(call, what, thenable, env)),
    );
  } catch (thrown) {
    return F.of(fail(thrown));
  }
};

/** What the code threw (or rejected with), as its ending's failure. */
const threw = <C extends Call, R>(env: Env, call: C, what: string, ending: Ending<C, R>, thrown: unknown): R =>
  ending.failed(thrownError(env, call, what, thrown));

/**
 * What `read` made of a method's answer: `R`, or what it cannot be yet (a result an async result
 * schema is still checking, a stream still to drain), waited for as the method's own Promise is
 * (refused by sync dispatch). One `instanceof` on the common path, whatever the kinds of waiting.
 */
const checked = <F extends URIS, C extends Call, R>(
  F: Effect<F>,
  env: Env,
  call: C,
  ending: Ending<C, R>,
  read: R | Unsettled<R>,
): Kind<F, R> => (read instanceof Unsettled ? read.wait(F, env, call, ending) : F.of(read));

/** What a method's answer cannot be yet: `wait` waits for it in `F` (or refuses it) and ends it by `ending`. */
export abstract class Unsettled<R> {
  abstract wait<F extends URIS, C extends Call>(F: Effect<F>, env: Env, call: C, ending: Ending<C, R>): Kind<F, R>;
}

/** A result an async result schema is still checking: `done` makes the answer of what it gives. */
export class Checking<R> extends Unsettled<R> {
  constructor(
    readonly pending: PromiseLike<unknown>,
    readonly done: (checked: unknown) => R,
  ) {
    super();
  }

  wait<F extends URIS, C extends Call>(F: Effect<F>, env: Env, call: C, { failed }: Ending<C, R>): Kind<F, R> {
    return F.wait(
      this.pending,
      (value) => F.of(this.done(value)),
      (thrown) => failed(thrownError(env, call, "method", thrown)),
      (thenable) => failed(refusePromise(call, "result schema of method", thenable, env)),
    );
  }
}
