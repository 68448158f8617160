/**
 * The context, typed: which context a method expects, and which one a dispatch hands it.
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
import type { Method } from "./methods";
import type { NOCONTEXT } from "./sentinels";
import type { Response } from "./response";
import type { Around, Call } from "./stages";

declare const EXPECTS: unique symbol;
declare const TURNS: unique symbol;

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
 * import { timeout, type TypedAround } from "rpcserver";
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
 * A table whose methods all accept context `C` (plain methods are not checked).
 *
 * @example
 * import { withContext, Success, type MethodsFor } from "rpcserver";
 * import * as t from "io-ts";
 * const methods: MethodsFor<{ user: string }> = {
 *   hello: withContext<{ user: string }>().withParams(t.array(t.undefined), (ctx) => Success(`hello ${ctx.user}`)),
 * };
 *
 * @since 5.0.10
 * @category context
 */
export type MethodsFor<C> = 0 extends 1 & C
  ? Table<C>
  : [C] extends [NoContext]
    ? MethodsWithoutContext | ReadonlyMap<string, Method & Expects<NoContext>>
    : Table<C>;

/** A table (an object or a Map) of methods that accept context `C`. */
type Table<C> = { readonly [name: string]: Method & Expects<C> } | ReadonlyMap<string, Method & Expects<C>>;

/**
 * A table dispatched without a `context` option: none of its methods may take a context. A compile
 * error naming this type means a method takes one: pass it as the `context` option. (An interface,
 * so that the error's first line names it.)
 *
 * @example
 * import { Success, type MethodsWithoutContext } from "rpcserver";
 * const methods: MethodsWithoutContext = { ping: () => Success("pong") };
 *
 * @since 5.0.10
 * @category context
 */
export interface MethodsWithoutContext {
  readonly [name: string]: Method & Expects<NoContext>;
}

/**
 * What a stage says, while the context is not typed there: anything goes (an `any` is the
 * compiler's word for "not checked", which is what it means here).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Unchecked = any;

/** The context a dispatch is given: `NoContext` without one; unchecked if the options' type does not say. */
type Given<O> = "context" extends keyof O
  ? unknown extends O["context" & keyof O]
    ? Unchecked
    : [Exclude<O["context" & keyof O], undefined>] extends [never]
      ? NoContext
      : Exclude<O["context" & keyof O], undefined>
  : NoContext;

/** The context a stage's answer passes on (a `Call<Out>` in an Either, a TaskEither or a Promise of an Either). */
type Passed<R> = [R] extends [PromiseLike<infer X>]
  ? Passed<X>
  : [R] extends [TaskEither<unknown, Call<infer Out>>]
    ? Out
    : [R] extends [E.Either<unknown, Call<infer Out>>]
      ? Out
      : Unchecked;

/** Marks a stage that refuses the context it is handed. @since 5.0.10 @category context */
export interface Refused<C> {
  readonly "a stage refuses the context": C;
}

/**
 * The context after stage `S`, handed context `C`. An `Around` stage says what it does by its
 * phantom members; `TypedAround<unknown, unknown>` (an `observe` typed nowhere) passes `C` on.
 */
export type After<S, C> = [S] extends [Around]
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
      : Refused<C>
    : Unchecked;

/**
 * What a stage function passes on: `unknown` (an untyped `Stage`, or a generic pass-through
 * `<C>(call: Call<C>) => E.right(call)`) says nothing of the context, so `C` goes on unchanged.
 */
type PassedOn<Out, C> = unknown extends Out ? C : Out;

/** The context after every stage of the tuple `S`; unchecked for an array of unknown length. */
type Through<S, C> =
  C extends Refused<unknown>
    ? C
    : S extends readonly [infer Head, ...infer Rest]
      ? Through<Rest, After<Head, C>>
      : S extends readonly []
        ? C
        : Unchecked;

/** The context a dispatch is given as its `context` option's type: none for `undefined`, unchecked for `unknown`. */
export type GivenContext<C> = unknown extends C
  ? Unchecked
  : [Exclude<C, undefined>] extends [never]
    ? NoContext
    : Exclude<C, undefined>;

/**
 * The context the methods of a dispatch receive, from its `context` option's type `C` and its
 * `stages` tuple `S` (an array of unknown length is not checked).
 *
 * @example
 * import type { DispatchContext } from "rpcserver";
 * type C = DispatchContext<{ user: string }, readonly []>; // { user: string }
 *
 * @since 5.0.10
 * @category context
 */
export type DispatchContext<C, S> = Through<S, GivenContext<C>>;

/**
 * A dispatch's `stages`, checked: `never` (a compile error) when a stage refuses the context it
 * is handed.
 *
 * @since 5.0.10
 * @category context
 */
export type CheckedStages<C, S> = S & (DispatchContext<C, S> extends Refused<unknown> ? never : unknown);

/**
 * The options of a dispatch with context type `C` and stages `S`, as the dispatch functions take
 * them (`O` their other options).
 *
 * @since 5.0.10
 * @category context
 */
export type TypedOptions<O, C, S> = Omit<O, "context" | "stages"> & {
  readonly context?: C;
  readonly stages?: CheckedStages<C, S> | undefined;
};

/**
 * The context the methods of a dispatch with options `O` receive: the `context` option (none if
 * absent), as the `stages` tuple turns it. A stage whose parameter refuses the context it is handed
 * makes a type that no method accepts.
 *
 * @example
 * import type { ContextOf } from "rpcserver";
 * type C = ContextOf<{ context: { token: string } }>; // { token: string }
 *
 * @since 5.0.10
 * @category context
 */
export type ContextOf<O> = "stages" extends keyof O
  ? [Exclude<O["stages" & keyof O], undefined>] extends [never]
    ? Given<O>
    : Through<Exclude<O["stages" & keyof O], undefined>, Given<O>>
  : Given<O>;

/**
 * What a dispatch's options must also be: when a stage refuses the context it is handed, a
 * `stages` no tuple fits, so the options themselves are the compile error.
 *
 * @since 5.0.10
 * @category context
 */
export type StagesFit<O> = ContextOf<O> extends Refused<infer C> ? { readonly stages: Refused<C> } : unknown;

/** The options of a dispatch when none are given: no context, no stages. @since 5.0.10 @category context */
export type NoOptions = Record<never, never>;

/**
 * The context a method was marked to expect (`withParams`, `withCodecs`, `withContext`, a
 * contract's server), or `Unmarked` for a plain function.
 *
 * @example
 * import type { ExpectedContext, Expects } from "rpcserver";
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

/**
 * What a `*ToResponse` dispatch answers each Response as: what `postProcess` returns, or the
 * Response itself without one.
 *
 * @example
 * import type { PostProcessed, Response } from "rpcserver";
 * type T = PostProcessed<{ postProcess: (response: Response) => string }>; // string
 *
 * @since 5.0.10
 * @category context
 */
export type PostProcessed<O> = O extends { readonly postProcess?: infer P }
  ? [Exclude<P, undefined>] extends [(response: never) => infer T]
    ? T
    : Response
  : Response;
