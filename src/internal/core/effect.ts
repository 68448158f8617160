/**
 * The two effects the one pipeline runs in. The pipeline (`pipeline/compose.ts`) is written once against
 * an {@link Effect}: an fp-ts `Monad1` plus the two things that differ between sync and async
 * dispatch, waiting for a Promise and running a batch. It is instantiated twice:
 *
 * - {@link Sync}: fp-ts's `Identity`. A stage's `Either` is the answer itself; a Promise (from a
 *   method or an async stage) cannot be waited for, so it is refused: -32603 for that request.
 * - {@link Async}: {@link Later}, a value now or a Promise of it. It stays synchronous until a
 *   method (or a stage) really returns a Promise, so a plain method costs async dispatch no
 *   Promise and no tick per request; every request of a batch runs at once. Its users see it as a
 *   `TaskEither` ({@link toTaskEither}); async stages may return one.
 *
 * A computation that can answer early runs in `EitherT` over the effect: `Either<E, A>` in sync
 * dispatch, `Later<Either<E, A>>` in async dispatch. A Later's Promise never rejects out of a
 * request: every exception is turned into an Either by the stage that could throw it, and what a
 * request a stage broke still makes reject is caught by that request's net (`recover`).
 *
 * @module
 */
import type { Either } from "fp-ts/Either";
import type { Kind, URIS } from "fp-ts/HKT";
import * as I from "fp-ts/Identity";
import type { Monad1 } from "fp-ts/Monad";
import type { TaskEither } from "fp-ts/TaskEither";

/**
 * A value now, or a Promise of it (which never rejects in the pipeline): a Task that does not
 * defer what is already there.
 *
 * @example
 * import type { Later } from "rpcserver/pipeline";
 * const now: Later<number> = 1;
 * const later: Later<number> = Promise.resolve(1);
 *
 * @since 5.0.10
 * @category effect
 */
export type Later<A> = A | Promise<A>;

/**
 * The fp-ts URI of {@link Later}, for `Kind<LaterURI, A>`.
 *
 * @example
 * import type { Kind } from "fp-ts/HKT";
 * import type { LaterURI } from "rpcserver/pipeline";
 * const value: Kind<LaterURI, number> = 1; // a Later<number>
 *
 * @since 5.0.10
 * @category effect
 */
export const LaterURI = "rpcserver/Later";
/** The type of {@link LaterURI}. @since 5.0.10 @category effect */
export type LaterURI = typeof LaterURI;

declare module "fp-ts/HKT" {
  interface URItoKind<A> {
    readonly [LaterURI]: Later<A>;
  }
}

const identity = <A>(a: A): A => a;

const apply = <A, B>(f: (a: A) => B, a: A): B => f(a);

/** Only the pipeline makes the Promises in a Later (`Promise.resolve` of any thenable), so `instanceof` is exact. */
const isPromise = (value: unknown): value is Promise<unknown> => value instanceof Promise;

const chainLater = <A, B>(fa: Later<A>, f: (a: A) => Later<B>): Later<B> => (isPromise(fa) ? fa.then(f) : f(fa));

/**
 * The `Monad` instance of {@link Later}.
 *
 * @example
 * import { Later } from "rpcserver/pipeline";
 * // Synchronously, for a value:
 * Later.map(1, (n) => n + 1); // 2
 * await Later.map(Promise.resolve(1), (n) => n + 1); // 2
 *
 * @since 5.0.10
 * @category effect
 */
export const Later: Monad1<LaterURI> = {
  URI: LaterURI,
  // The same function as Sync's `of`: a call site the two effects share (settle, the call) then
  // sees one target, which V8 inlines, rather than two.
  of: identity,
  map: chainLater,
  ap: (fab, fa) => chainLater(fab, (f) => chainLater(fa, f)),
  chain: chainLater,
};

/**
 * What the pipeline needs of an effect beyond `Monad`: how a Promise is met, and how a batch runs.
 *
 * @example
 * import type { URIS } from "fp-ts/HKT";
 * import { Async, Sync, type Effect } from "rpcserver/pipeline";
 * const waits = <F extends URIS>(F: Effect<F>): boolean => F.concurrent;
 * waits(Sync); // false
 * waits(Async); // true
 *
 * @since 5.0.10
 * @category effect
 */
export interface Effect<F extends URIS> extends Monad1<F> {
  /** Whether Promises are waited for: async stages and `timeout` are accepted only then. */
  readonly concurrent: boolean;
  /**
   * A Promise where a value was expected (a method's or an async stage's return): waited for and
   * settled by `onValue` (which may wait again: a result schema's check) / `onError` (async), or
   * refused at once by `refuse` (sync).
   */
  readonly wait: <A>(
    thenable: PromiseLike<unknown>,
    onValue: (value: unknown) => Kind<F, A>,
    onError: (thrown: unknown) => A,
    refuse: (thenable: PromiseLike<unknown>) => A,
  ) => Kind<F, A>;
  /** Every outcome of a batch, in order; async dispatch lets them run at once. */
  readonly all: <A>(outcomes: ReadonlyArray<Kind<F, A>>) => Kind<F, ReadonlyArray<A>>;
  /**
   * `onValue` of `f(a, x)`, or `onError` of what `f` throws or rejects with: the net under the
   * whole pipeline, for a failure outside every stage's own care. One step, so that async dispatch
   * pays one Promise reaction for the net and the output stage together; two arguments (the body
   * and the context) so that no closure is made per request to carry them.
   */
  readonly attempt: <A, X, B, C>(
    f: (a: A, x: X) => Kind<F, B>,
    a: A,
    x: X,
    onValue: (b: B) => C,
    onError: (thrown: unknown) => C,
  ) => Kind<F, C>;
  /**
   * `onValue` of what `fa` holds, or `onError` of what it rejects with, each also given `x`: the
   * net under each request that runs your stages (a sync throw its caller catches). `x` (the
   * request's arrival id) is passed rather than closed over, so that no closure is made per
   * request unless a Promise is met.
   */
  readonly recover: <A, X, B>(
    fa: Kind<F, A>,
    x: X,
    onValue: (a: A, x: X) => B,
    onError: (thrown: unknown, x: X) => B,
  ) => Kind<F, B>;
}

const attemptNow = <A, X, B, C>(
  f: (a: A, x: X) => B,
  a: A,
  x: X,
  onValue: (b: B) => C,
  onError: (thrown: unknown) => C,
): C => {
  try {
    return onValue(f(a, x));
  } catch (thrown) {
    return onError(thrown);
  }
};

/**
 * Sync dispatch: fp-ts's `Identity`; a Promise is refused. Its operations are written out here
 * rather than spread from `I.Monad`: fp-ts 2.14+ routes `Identity`'s `chain` through `dual`, which
 * copies its arguments into an array on every call (about 1 µs a stage, measured).
 *
 * @example
 * import { environment, pipeline, Sync } from "rpcserver/pipeline";
 * import { Success } from "rpcserver";
 * // Synchronously:
 * pipeline(Sync)(environment({ ping: () => Success("pong") }, undefined, false))('{"jsonrpc":"2.0","method":"ping","id":1}');
 * // { _tag: "Right", right: { result: "pong", id: 1 } }
 *
 * @since 5.0.10
 * @category effect
 */
export const Sync: Effect<I.URI> = {
  URI: I.URI,
  of: identity,
  map: (fa, f) => f(fa),
  ap: (fab, fa) => fab(fa),
  chain: (fa, f) => f(fa),
  concurrent: false,
  wait: (thenable, _onValue, _onError, refuse) => refuse(thenable),
  all: (outcomes) => outcomes,
  attempt: attemptNow,
  recover: (fa, x, onValue) => onValue(fa, x),
};

/**
 * Async dispatch: {@link Later}; a Promise is waited for, a batch runs at once.
 *
 * @example
 * import { Async, environment, pipeline } from "rpcserver/pipeline";
 * import { Success } from "rpcserver";
 * const env = environment({ ping: async () => Success("pong") }, undefined, true);
 * await pipeline(Async)(env)('{"jsonrpc":"2.0","method":"ping","id":1}'); // { _tag: "Right", right: { result: "pong", id: 1 } }
 *
 * @since 5.0.10
 * @category effect
 */
export const Async: Effect<LaterURI> = {
  ...Later,
  concurrent: true,
  wait: (thenable, onValue, onError) => Promise.resolve(thenable).then(onValue, onError),
  // Only outcomes that are Promises are waited for: a batch of plain methods builds no Promise.
  all: (outcomes) => (outcomes.some(isPromise) ? Promise.all(outcomes) : (outcomes as ReadonlyArray<never>)),
  attempt: <A, X, B, C>(
    f: (a: A, x: X) => Later<B>,
    a: A,
    x: X,
    onValue: (b: B) => C,
    onError: (thrown: unknown) => C,
  ) => {
    let outcome: Later<B>;
    try {
      outcome = f(a, x);
    } catch (thrown) {
      return onError(thrown);
    }
    return isPromise(outcome) ? outcome.then(onValue, onError) : attemptNow(apply, onValue, outcome, identity, onError);
  },
  recover: (fa, x, onValue, onError) =>
    isPromise(fa)
      ? fa.then(
          (a) => onValue(a, x),
          (thrown: unknown) => onError(thrown, x),
        )
      : onValue(fa, x),
};

/**
 * A `Later<Either>` as the fp-ts `TaskEither` it is to its users.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { toTaskEither } from "rpcserver/pipeline";
 * await toTaskEither(E.right(1))(); // { _tag: "Right", right: 1 }
 *
 * @since 5.0.10
 * @category effect
 */
export const toTaskEither =
  <E, A>(later: Later<Either<E, A>>): TaskEither<E, A> =>
  () =>
    Promise.resolve(later);

/**
 * An async front end's result as a Promise: a Later that is already a Promise is returned as it is
 * (an `async` function would add a Promise and two ticks); an exception (a bad option) rejects.
 * @internal
 */
export const promised =
  <Args extends unknown[], A>(f: (...args: Args) => Later<A>) =>
  (...args: Args): Promise<A> => {
    try {
      return Promise.resolve(f(...args));
    } catch (thrown) {
      // What `f` threw, passed on as it is.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(thrown);
    }
  };
