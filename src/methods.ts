/**
 * Methods: registering functions that requests can call, and finding them again.
 *
 * Lookups see own entries only, so a request for `toString`, `constructor` or `__proto__` never
 * reaches `Object.prototype` and gets -32601 unless such a method was registered.
 *
 * @module
 */
import type * as t from "io-ts";
import type { Result } from "./result";
import { warn } from "./warnings";

/**
 * A method: a function returning a Result (sync dispatch) or a Result or a Promise of one
 * (async dispatch). Array params arrive spread, object params as one argument, and the
 * context, when dispatch is given one, first.
 *
 * @since 5.0.10
 * @category model
 */
export type Method = (...args: never[]) => Result | PromiseLike<Result>;

/**
 * The methods a dispatch can call: a plain object or a `Map` from name to method.
 *
 * @since 5.0.10
 * @category model
 */
export type Methods = { readonly [name: string]: Method } | ReadonlyMap<string, Method>;

/**
 * The arguments a method receives for params of type `A`: a tuple spreads, anything else
 * arrives as one argument.
 *
 * @since 5.0.10
 * @category model
 */
export type ParamsArgs<A> = A extends ReadonlyArray<unknown> ? A : [params: A];

/**
 * A method whose params are checked by the io-ts codec `C`: it receives the decoded params.
 *
 * @since 5.0.10
 * @category model
 */
export type MethodOf<C extends t.Any> = (...args: ParamsArgs<t.TypeOf<C>>) => Result | PromiseLike<Result>;

/**
 * Options of {@link method}: the name to register under, and an io-ts codec for the params.
 *
 * @since 5.0.10
 * @category model
 */
export interface MethodOptions<C extends t.Any = t.Any> {
  readonly name?: string;
  readonly params?: C;
}

const GLOBAL = Symbol.for("rpcserver.globalMethods");
const PARAMS = Symbol.for("rpcserver.paramsCodec");

type Registry = { [name: string]: Method };

/**
 * The process-wide methods that `method` fills and dispatch uses when given no `methods`.
 * Initially empty. It has no prototype, so any name, `__proto__` included, is an ordinary key; and
 * it lives on `globalThis` so that the ESM and CommonJS builds share it. Each worker thread has its
 * own.
 *
 * @example
 * import { globalMethods, method, Success } from "rpcserver";
 * method(function ping() { return Success("pong"); });
 * Object.keys(globalMethods); // ["ping"]
 *
 * @since 5.0.10
 * @category registry
 */
export const globalMethods: Registry = ((globalThis as { [GLOBAL]?: Registry })[GLOBAL] ??= Object.create(
  null,
) as Registry);

/** Spec spelling of {@link globalMethods}. @since 5.0.10 @category aliases */
export const global_methods = globalMethods;

const register = <F extends Method>(f: F, options: MethodOptions): F => {
  if (typeof f !== "function") throw new TypeError(`method: expected a function, got ${typeof f}`);
  const name = options.name ?? f.name;
  if (typeof name !== "string" || name === "") {
    throw new TypeError("method: the function has no name; pass one, as in method(f, 'name')");
  }
  if (name.startsWith("rpc.")) {
    warn(`method name "${name}" starts with "rpc.", which JSON-RPC 2.0 reserves for its own extensions`);
  }
  if (options.params !== undefined) withParams(options.params, f as never);
  globalMethods[name] = f;
  return f;
};

/**
 * Registers a function in `globalMethods` and returns it unchanged, type included. Forms:
 * `method(f)`, `method(f, "name")`, `method(f, { name, params })`, `method("name")(f)` and
 * `method({ name, params })(f)`. The default name is the function's own; a nameless function is a
 * `TypeError`. A name already taken is replaced without warning; a name starting with `rpc.`
 * warns. With `params`, an io-ts codec, the params are decoded first (failing params get -32602
 * with a report of the failing paths) and the method's parameter types are inferred from it.
 *
 * @example
 * import * as t from "io-ts";
 * import { method, Success } from "rpcserver";
 * method(function ping() { return Success("pong"); });
 * method({ name: "add", params: t.tuple([t.number, t.number]) })((a, b) => Success(a + b));
 *
 * @since 5.0.10
 * @category registry
 */
export function method<F extends Method>(f: F, name?: string): F;
export function method<C extends t.Any, F extends MethodOf<C>>(f: F, options: MethodOptions<C>): F;
export function method<C extends t.Any>(
  options: MethodOptions<C> & { readonly params: C },
): <F extends MethodOf<C>>(f: F) => F;
export function method(nameOrOptions: string | MethodOptions): <F extends Method>(f: F) => F;
export function method(
  target: Method | string | MethodOptions,
  nameOrOptions?: string | MethodOptions,
): Method | (<F extends Method>(f: F) => F) {
  if (typeof target === "function") {
    return register(target, typeof nameOrOptions === "string" ? { name: nameOrOptions } : (nameOrOptions ?? {}));
  }
  const options: MethodOptions = typeof target === "string" ? { name: target } : target;
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`method: expected a function, a name or options, got ${String(target)}`);
  }
  return <F extends Method>(f: F): F => register(f, options);
}

/**
 * Gives a method an io-ts codec for its params, for methods kept in your own `methods` object
 * rather than registered with `method`. Returns `f` itself, its parameter types inferred from the
 * codec.
 *
 * @example
 * import * as t from "io-ts";
 * import { dispatch, Success, withParams } from "rpcserver";
 * const methods = { add: withParams(t.tuple([t.number, t.number]), (a, b) => Success(a + b)) };
 * dispatch('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}', methods);
 *
 * @since 5.0.10
 * @category registry
 */
export const withParams = <C extends t.Any, F extends MethodOf<C>>(codec: C, f: F): F => {
  Object.defineProperty(f, PARAMS, { value: codec, configurable: true, enumerable: false, writable: false });
  return f;
};

/** The params codec a method carries, if any. @internal */
export const paramsCodecOf = (f: Method): t.Any | undefined => (f as { [PARAMS]?: t.Any })[PARAMS];

const hasOwn = Object.prototype.hasOwnProperty;

/** The method registered under `name` as an own entry, if it is a function. @internal */
export const lookup = (methods: Methods, isMap: boolean, name: string): Method | undefined => {
  const f = isMap
    ? (methods as ReadonlyMap<string, Method>).get(name)
    : hasOwn.call(methods, name)
      ? (methods as Registry)[name]
      : undefined;
  return typeof f === "function" ? f : undefined;
};
