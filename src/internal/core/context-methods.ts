/**
 * The context-first forms of `withParams` and `withCodecs` (`withContext<Ctx>()`), for methods that
 * take a context of type `Ctx` first, then their decoded params.
 *
 * @module
 */
import type * as t from "io-ts";
import type { Expects } from "./context-marks";
import type { MethodInfo } from "./method-info";
import {
  markContextual,
  withCodecs,
  withParams,
  type Method,
  type MethodOf,
  type ParamsArgs,
  type Returns,
} from "./methods";
import type { Schema, TypeOfSchema } from "./schema";

/**
 * `withParams` and `withCodecs` for methods that take a context of type `Ctx` first (see
 * {@link withContext}).
 *
 * @since 5.0.10
 * @category context
 */
export interface ContextMethods<Ctx> {
  /** {@link withParams} for a method taking `(context: Ctx, ...params)`. @typeParam F the method */
  readonly withParams: <
    C extends Schema,
    F extends (context: Ctx, ...args: ParamsArgs<TypeOfSchema<C>>) => Returns<unknown>,
  >(
    codec: C,
    f: F,
  ) => F & Expects<Ctx>;
  /** {@link withCodecs} for a method taking `(context: Ctx, ...params)`. @typeParam F the method */
  readonly withCodecs: <
    C extends Schema = t.Any,
    R extends Schema = t.UnknownC,
    S extends Schema = never,
    F extends (context: Ctx, ...args: ParamsArgs<TypeOfSchema<C>>) => ReturnType<MethodOf<C, R, S>> = (
      context: Ctx,
      ...args: ParamsArgs<TypeOfSchema<C>>
    ) => ReturnType<MethodOf<C, R, S>>,
  >(
    info: MethodInfo<C, R, S>,
    f: F,
  ) => F & Expects<Ctx>;
}

const contextMethods: ContextMethods<unknown> = {
  withParams: ((codec: Schema, f: Method) =>
    markContextual(withParams(codec, f as never))) as ContextMethods<unknown>["withParams"],
  withCodecs: ((info: MethodInfo, f: Method) =>
    markContextual(withCodecs(info, f as never))) as ContextMethods<unknown>["withCodecs"],
};

/**
 * The context-first forms of `withParams` and `withCodecs`: the method takes a context of type
 * `Ctx`, then its decoded params. Dispatch hands the context first to every method when it has
 * one, so which form a method is written in is a typed rule: a dispatch whose context (as its
 * stages turn it) is not a `Ctx` does not compile with such a method, nor one with a context
 * with a method made by the plain `withParams` or `withCodecs`. At run time they are the plain
 * functions, and the method is marked as taking a context (the `rpcserver` command refuses to
 * serve it without one).
 *
 * @example
 * import * as t from "io-ts";
 * import { dispatch, Success, withContext } from "rpcserver";
 * const { withCodecs } = withContext<{ user: string }>();
 * const methods = { greet: withCodecs({ params: t.type({ greeting: t.string }) }, (ctx, p) => Success(`${p.greeting}, ${ctx.user}`)) };
 * dispatch('{"jsonrpc":"2.0","method":"greet","params":{"greeting":"hi"},"id":1}', methods, { context: { user: "ann" } });
 * // '{"jsonrpc":"2.0","result":"hi, ann","id":1}'
 *
 * @since 5.0.10
 * @category context
 */
export const withContext = <Ctx>(): ContextMethods<Ctx> => contextMethods;
