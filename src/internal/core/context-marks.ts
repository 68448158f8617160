/**
 * The context's phantom marks: the context a method expects (`Expects`), what an `Around` stage
 * turns it into (`TypedAround`, `AddsSignal`), and how the types read them, one stage at a time
 * (`After`). They exist in the types only; `dispatch-context.ts` checks a whole dispatch with them.
 *
 * Dispatch passes its `context` option (after your stages have had their say) as every method's
 * first argument. Nothing at run time can check that a method was written for that: a method
 * written without one gets the context where its params belong. So the rule lives in the types. A
 * method made by `withCodecs`, `withParams` or a contract's `implement` carries the context it
 * expects as a phantom member (no run-time property), and the dispatch functions check it
 * against the context their options give, as your typed stages turn it: a method that takes no
 * context under a dispatch that gives one, or the reverse, or a context of the wrong type, is a
 * compile error.
 *
 * @module
 */
import type * as E from "fp-ts/Either";
import type { TaskEither } from "fp-ts/TaskEither";
import type { NOCONTEXT } from "./sentinels";
import type { AnyStage, Around, Call } from "./stages";

declare const EXPECTS: unique symbol;
declare const TURNS: unique symbol;
declare const STAGES_TURN: unique symbol;

/**
 * The context type of a dispatch that gives none (no `context` option, or `NOCONTEXT`).
 *
 * @since 5.0.10
 * @category context
 */
export type NoContext = typeof NOCONTEXT;

/**
 * A method's phantom mark: the context it expects as its first argument (`NoContext`: none). It
 * exists in the types only. A function without it (a plain method) is not checked.
 *
 * @example
 * import type { Expects, Method } from "rpcserver";
 * type UserMethod = Method & Expects<{ user: string }>;
 *
 * @since 5.0.10
 * @category context
 */
export interface Expects<C> {
  /** Phantom: never present at run time. */
  readonly [EXPECTS]?: (context: C) => void;
}

/**
 * An `Around` stage with the context it receives (`In`) and passes on (`Out`), as `observe` and
 * `timeout` type themselves: a phantom member, nothing at run time.
 *
 * @example
 * import { timeout } from "rpcserver";
 * import type { TypedAround } from "rpcserver/types";
 * const stage: TypedAround<{ user: string }, { user: string; signal: AbortSignal }> = timeout<{ user: string }>(1000);
 *
 * @since 5.0.10
 * @category context
 */
export interface TypedAround<In, Out> extends Around {
  /** Phantom: never present at run time. */
  readonly [TURNS]: (context: In) => Out;
}

/**
 * A list of stages with the context it receives (`In`) and passes on (`Out`): the type of a
 * `server(...)` app's `stages`, so that dispatching its methods with them checks the context given
 * against the server's declared one (a phantom member, nothing at run time). A list of stages typed
 * no more precisely (`AnyStage[]`) passes the context on as given: only what a stage's type says
 * turns it.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, server } from "rpcserver";
 * import type { TypedStages } from "rpcserver/types";
 * const app = server(contract({ whoami: { result: t.string } }))
 *   .context<{ user: string }>()
 *   .implement({ whoami: (ctx) => E.right(ctx.user) });
 * const stages: TypedStages<{ user: string }, { user: string }> = app.stages;
 *
 * @since 5.0.10
 * @category context
 */
export interface TypedStages<In, Out> extends ReadonlyArray<AnyStage> {
  /** Phantom: never present at run time. */
  readonly [STAGES_TURN]: (context: In) => Out;
}

/**
 * The context after a server's stages `S`, handed context `C`: their declared result when `C` is
 * what they take, else a refusal; `Unmarked` for a list that is not a server's.
 */
export type AfterStages<S, C, Unmarked> = typeof STAGES_TURN extends keyof S
  ? S[typeof STAGES_TURN & keyof S] extends (context: infer In) => infer Out
    ? [C] extends [In]
      ? Out
      : Refused<C>
    : Unmarked
  : Unmarked;

/**
 * A context with the `AbortSignal` that `timeout` adds: a plain-object context gains `signal`, any
 * other is left as it is (the library's default, `TimeoutOptions.context` aside).
 *
 * @example
 * import type { WithSignal } from "rpcserver";
 * type C = WithSignal<{ user: string }>; // { user: string } & { readonly signal: AbortSignal }
 *
 * @since 5.0.10
 * @category context
 */
export type WithSignal<C> = C extends object ? C & { readonly signal: AbortSignal } : C;

declare const ADDS_SIGNAL: unique symbol;

/** `timeout`'s own mark: whatever context it is handed gains the signal (phantom). @since 5.0.10 @category context */
export interface AddsSignal {
  /** Phantom: never present at run time. */
  readonly [ADDS_SIGNAL]: true;
}

/**
 * What a stage says, while the context is not typed there: anything goes (an `any` is the
 * compiler's word for "not checked", which is what it means here).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Unchecked = any;

/** The context a stage's answer passes on (a `Call<Out>` in an Either, a TaskEither or a Promise of an Either). */
type Passed<R> = 0 extends 1 & R
  ? unknown
  : [R] extends [PromiseLike<infer X>]
    ? Passed<X>
    : [R] extends [TaskEither<unknown, Call<infer Out>>]
      ? Out
      : [R] extends [E.Either<unknown, Call<infer Out>>]
        ? Out
        : unknown;

/** Marks a stage that refuses the context it is handed. @since 5.0.10 @category context */
export interface Refused<C> {
  readonly "a stage refuses the context": C;
}

/**
 * Marks `stages` of unknown length (an array, not a tuple) whose stages change the context they are
 * handed: the compiler cannot tell how many of them run, so it cannot tell the context after them.
 * A compile error naming it is mended by writing the list as a tuple: in the call, or `as const`.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { dispatch, withContext, Success, type Call } from "rpcserver";
 * const whoami = withContext<{ user: string }>().withCodecs({ result: t.string }, (ctx) => Success(ctx.user));
 * const login = (call: Call<{ token: string }>) => E.right({ ...call, context: { user: call.context.token } });
 * const stages = [login] as const; // without `as const`: StagesNotATuple
 * dispatch('{"jsonrpc":"2.0","method":"whoami","id":1}', { whoami }, { stages, context: { token: "ann" } });
 *
 * @since 5.0.10
 * @category context
 */
export interface StagesNotATuple<C> extends Refused<C> {
  readonly "write the stages as a tuple (as const)": C;
}

/**
 * The context after stage `S`, handed context `C`. An `Around` stage says what it does by its
 * phantom members; `TypedAround<unknown, unknown>` (an `observe` typed nowhere) passes `C` on. A
 * stage typed as no stage in particular (`any`, `AnyStage`, a stage function taking `Call<never>`)
 * says nothing, so `C` goes on unchanged: a stage may add to the context only what its type says,
 * never turn the check off. A union of stages gives what each would (and is refused if one is).
 */
export type After<S, C> = 0 extends 1 & S ? C : RefusedIfAny<AfterEach<S, C>, C>;

/** `R`, unless one of its members is a refusal: then the refusal of `C`. */
type RefusedIfAny<R, C> = [Extract<R, Refused<unknown>>] extends [never] ? R : Refused<C>;

/** {@link After} of each member of a union of stages `S` (distributed). */
type AfterEach<S, C> = S extends Around
  ? typeof ADDS_SIGNAL extends keyof S
    ? WithSignal<C>
    : typeof TURNS extends keyof S
      ? S[typeof TURNS & keyof S] extends (context: infer In) => infer Out
        ? unknown extends In
          ? unknown extends Out
            ? C
            : Out
          : [C] extends [In]
            ? Out
            : Refused<C>
        : C
      : C
  : S extends (call: infer P) => infer R
    ? [Call<C>] extends [P]
      ? PassedOn<Passed<R>, C>
      : [P] extends [Call<never>]
        ? [Call<never>] extends [P]
          ? PassedOn<Passed<R>, C>
          : Refused<C>
        : Refused<C>
    : Refused<C>;

/**
 * What a stage function passes on: `unknown` (an untyped `Stage`, or a generic pass-through
 * `<C>(call: Call<C>) => E.right(call)`) says nothing of the context, so `C` goes on unchanged.
 */
type PassedOn<Out, C> = unknown extends Out ? C : Out;

/**
 * The context a method was marked to expect (`withParams`, `withCodecs`, `withContext`, a
 * contract's server), or `Unmarked` for a plain function.
 *
 * @example
 * import type { Expects } from "rpcserver";
 * import type { ExpectedContext } from "rpcserver/types";
 * type C = ExpectedContext<(() => never) & Expects<{ user: string }>>; // { user: string }
 *
 * @since 5.0.10
 * @category context
 */
export type ExpectedContext<F, Unmarked = unknown> = typeof EXPECTS extends keyof F
  ? Exclude<F[typeof EXPECTS & keyof F], undefined> extends (context: infer C) => void
    ? C
    : Unmarked
  : Unmarked;
