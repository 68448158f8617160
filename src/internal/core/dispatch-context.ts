/**
 * The context a dispatch gives, typed: the context its options and stages hand the methods
 * (`DispatchContext`, `ContextOf`), the tables of methods that accept it (`MethodsFor`), and the
 * options the dispatch functions take (`TypedOptions`). A method that takes no context under a
 * dispatch that gives one, or the reverse, or a context of the wrong type, is a compile error.
 *
 * @module
 */
import type { After, AfterStages, Expects, NoContext, Refused, StagesNotATuple, Unchecked } from "./context-marks";
import type { Method } from "./methods";
import type { Response } from "./response";

/**
 * A table whose methods all accept context `C` (plain methods are not checked).
 *
 * @example
 * import { dispatch, withContext, Success } from "rpcserver";
 * import type { MethodsFor } from "rpcserver/types";
 * import * as t from "io-ts";
 * const methods: MethodsFor<{ user: string }> = {
 *   hello: withContext<{ user: string }>().withParams(t.array(t.undefined), (ctx) => Success(`hello ${ctx.user}`)),
 * };
 * dispatch('{"jsonrpc":"2.0","method":"hello","id":1}', methods, { context: { user: "ann" } });
 * // '{"jsonrpc":"2.0","result":"hello ann","id":1}'
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

/** The context a dispatch is given: `NoContext` without one. */
type Given<O> = "context" extends keyof O ? GivenContext<O["context" & keyof O]> : NoContext;

/**
 * The context after every stage of `S`: a tuple stage by stage, a server's stages as they are
 * typed (`TypedStages`), and a list of unknown length as what any number of its stages would leave
 * (the context given, when they only add to it; refused when one changes it: write such a list as
 * a tuple). Never unchecked: no `stages` can turn the check off.
 */
type Through<S, C> = 0 extends 1 & S
  ? C
  : C extends Refused<unknown>
    ? C
    : AfterStages<
        S,
        C,
        S extends readonly [infer Head, ...infer Rest]
          ? Through<Rest, After<Head, C>>
          : S extends readonly []
            ? C
            : S extends ReadonlyArray<infer Stage>
              ? Repeated<After<Stage, C>, C>
              : C
      >;

/**
 * The context after any number of stages that turn `C` into `Once`: `C` if they only add to it
 * (or pass nothing on: `never`), else refused by a mark that names the mend.
 */
type Repeated<Once, C> = [Once] extends [never]
  ? C
  : [Once] extends [Refused<unknown>]
    ? Once
    : [Once] extends [C]
      ? C
      : StagesNotATuple<C>;

/**
 * The context a dispatch is given as its `context` option's type: none for `undefined`, unchecked
 * only for `any` (an `unknown` context is checked as one: only methods that take anything fit).
 */
export type GivenContext<C> = 0 extends 1 & C
  ? Unchecked
  : [Exclude<C, undefined>] extends [never]
    ? NoContext
    : Exclude<C, undefined>;

/**
 * The context the methods of a dispatch receive, from its `context` option's type `C` and its
 * `stages` tuple `S` (an array of unknown length is not checked).
 *
 * @example
 * import type { DispatchContext } from "rpcserver/types";
 * type C = DispatchContext<{ user: string }, readonly []>; // { user: string }
 *
 * @since 5.0.10
 * @category context
 */
export type DispatchContext<C, S> = Through<S, GivenContext<C>>;

/**
 * What a server that makes each message's context with a function of its own (`serveNats`,
 * `fetchHandler`) requires of its options: nothing for methods that need no context (a plain
 * table), else a `context` of type `Make` whose context, through the stages (`Given`), is the one
 * the methods need. Their need is read from the table (`withContext`'s methods say theirs), as the
 * context function's parameter is typed by its place and so cannot set it. A refusal by the stages
 * is left to {@link StagesTakeMade}, whose error names it. Not exported by any entry.
 */
export type ContextFits<Needed, Given, Make> = [Needed] extends [NoContext]
  ? unknown
  : [Given] extends [Needed | Refused<unknown>]
    ? unknown
    : { readonly context: Make };

/**
 * What such a server (see {@link ContextFits}) requires of its options when its `stages` refuse the
 * context its function makes (`Given`, the context after them, is a refusal): a `context` of type
 * `Refuse`, one that answers the refusal, so that the function written fails to compile by what it
 * answers (and one missing is named as such). The check is on `context`, not on `stages`: with a
 * `context` function whose parameter is not annotated, the compiler first checks the call without
 * it (its made context not yet inferred, the type parameter at its default), and a `stages` checked
 * against that default would reject the call before the function is read. Not exported by any entry.
 */
export type StagesTakeMade<Given, Refuse> = [Given] extends [Refused<unknown>]
  ? { readonly context: [Given] extends [StagesNotATuple<unknown>] ? NamingMend<Refuse, Given> : Refuse }
  : unknown;

/** `Refuse` answering `Given` instead, so that the error names the mend ({@link StagesNotATuple}). */
type NamingMend<Refuse, Given> = Refuse extends (...args: infer A) => unknown ? (...args: A) => Given : Refuse;

/** Options `O` with their `stages` taken as given (`S`), for a server that checks them by {@link StagesTakeMade}. Not exported by any entry. */
export type StagesAsGiven<O, S> = Omit<O, "stages"> & { readonly stages?: S | undefined };

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
 * them (`O` their other options); `Staged` is the context the stages are handed (`answerHttp`'s
 * gains the request's `signal` first).
 *
 * @since 5.0.10
 * @category context
 */
export type TypedOptions<O, C, S, Staged = C> = Omit<O, "context" | "stages"> & {
  readonly context?: C;
  readonly stages?: CheckedStages<Staged, S> | undefined;
};

/**
 * The context the methods of a dispatch with options `O` receive: the `context` option (none if
 * absent), as the `stages` tuple turns it. A stage whose parameter refuses the context it is handed
 * makes a type that no method accepts.
 *
 * @example
 * import type { ContextOf } from "rpcserver/types";
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
 * What a `*ToResponse` dispatch answers each Response as: what `postProcess` returns, or the
 * Response itself without one.
 *
 * @example
 * import type { Response } from "rpcserver";
 * import type { PostProcessed } from "rpcserver/types";
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
