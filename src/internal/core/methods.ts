/**
 * Methods: what a method is, registering functions that requests can call (`method`, `withParams`,
 * `withCodecs`), the hidden marks a method carries, and finding methods in a table again. What a
 * method says about itself is in `method-info.ts`; the context-first forms in `context-methods.ts`.
 *
 * Lookups see own entries only, so a request for `toString`, `constructor` or `__proto__` never
 * reaches `Object.prototype` and gets -32601 unless such a method was registered.
 *
 * @module
 */
import type * as t from "io-ts";
import type { Expects, NoContext } from "./context-marks";
import type { MethodInfo, MethodOptions } from "./method-info";
import type { Result } from "./result";
import { hasFunctions } from "./guards";
import { toCodec, type ResultOfSchema, type Schema, type TypeOfSchema } from "./schema";
import { warn } from "./warnings";

/**
 * A method: a function returning a Result (sync dispatch), a Promise of one or an async generator
 * streaming values before it returns one (async dispatch). Array params arrive spread, object
 * params as one argument, and the context, when dispatch is given one, first.
 *
 * @since 5.0.10
 * @category model
 */
export type Method = (...args: never[]) => Result | PromiseLike<Result> | AsyncGenerator<unknown, Result, unknown>;

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
 * What a method whose results have type `A` returns: a `Result<A>`, or a Promise of one (async
 * dispatch).
 *
 * @example
 * import { Success, type Returns } from "rpcserver";
 * const now = (): Returns<string> => Success(new Date().toISOString());
 *
 * @since 5.0.10
 * @category model
 */
export type Returns<A> = Result<A> | PromiseLike<Result<A>>;

/**
 * The context mark of a method written without a context parameter: none, unless it takes no
 * arguments at all (then a context passed first is harmless, and it fits any dispatch).
 *
 * @example
 * import type { ExpectsNone } from "rpcserver/types";
 * type Mark = ExpectsNone<(n: number) => never>; // Expects<NoContext>
 *
 * @since 5.0.10
 * @category context
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ExpectsNone<F> = F extends () => unknown ? Expects<any> : Expects<NoContext>;

/**
 * A method whose params are checked by the io-ts codec `C` and whose result is encoded by the
 * codec `R`: it receives the decoded params and returns a `Result` of `R`'s type (any value
 * without `R`). With a stream codec `S`, it may also be an `async function*` that yields values of
 * `S`'s type and returns that Result.
 *
 * @example
 * import * as t from "io-ts";
 * import { Success, type MethodOf } from "rpcserver";
 * const add: MethodOf<t.TupleC<[t.NumberC, t.NumberC]>, t.NumberC> = (a, b) => Success(a + b);
 * add(1, 2); // { _tag: "Right", right: { result: 3 } }
 *
 * @since 5.0.10
 * @category model
 */
export type MethodOf<C extends Schema, R extends Schema = t.UnknownC, S extends Schema = never> = (
  ...args: ParamsArgs<TypeOfSchema<C>>
) =>
  | Returns<ResultOfSchema<R>>
  | ([S] extends [never] ? never : AsyncGenerator<ResultOfSchema<S>, Result<ResultOfSchema<R>>, unknown>);

const GLOBAL = Symbol.for("rpcserver.globalMethods");
const PARAMS = Symbol.for("rpcserver.paramsCodec");
const RESULT = Symbol.for("rpcserver.resultCodec");
const STREAM = Symbol.for("rpcserver.streamCodec");
const INFO = Symbol.for("rpcserver.methodInfo");
const RESERVED = Symbol.for("rpcserver.reservedName");
const OUTCOME = Symbol.for("rpcserver.outcome");
const CONTEXTUAL = Symbol.for("rpcserver.contextual");
const DESCRIBES = Symbol.for("rpcserver.describes");
const FROM_RESULT = Symbol.for("rpcserver.fromResult");

type Registry = { [name: string]: Method };

/** What a method carries (its codecs, its documentation) is a hidden, fixed property of the function. */
const define = (f: object, key: symbol, value: unknown): void => {
  Object.defineProperty(f, key, { value, configurable: true, enumerable: false, writable: false });
};

/**
 * The process-wide methods that `method` fills and dispatch uses when given no `methods`.
 * Initially empty. It has no prototype, so any name, `__proto__` included, is an ordinary key; and
 * it lives on `globalThis` so that the ESM and CommonJS builds share it. Each worker thread has its
 * own.
 *
 * @example
 * import { globalMethods, method, Success } from "rpcserver";
 * method(function ping() { return Success("pong"); });
 * "ping" in globalMethods; // true
 * Object.getPrototypeOf(globalMethods); // null
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
  if (name.startsWith("rpc.") && reservedNameOf(f) !== name) {
    warn(`method name "${name}" starts with "rpc.", which JSON-RPC 2.0 reserves for its own extensions`);
  }
  const { name: _name, ...info } = options;
  if (Object.keys(info).length > 0) attach("method", info, f);
  globalMethods[name] = f;
  return f;
};

/**
 * Registers a function in `globalMethods` and returns it unchanged, type included. Forms:
 * `method(f)`, `method(f, "name")`, `method(f, { name, params })`, `method("name")(f)` and
 * `method({ name, params })(f)`. The default name is the function's own; a nameless function is a
 * `TypeError`. A name already taken is replaced without warning; a name starting with `rpc.`
 * warns (except `rpc.discover` registered as `method(discover(info))`). With `params`, an io-ts
 * codec, the params are decoded first (failing params get -32602 with a report of the failing
 * paths) and the method's parameter types are inferred from it. With `result`, an io-ts codec, the
 * value the method returns in `Success(...)` must be of its type, and is encoded by it before it
 * is sent. The other options ({@link MethodInfo}) document the method in its OpenRPC document.
 *
 * @example
 * import * as t from "io-ts";
 * import { dispatch, method, Success } from "rpcserver";
 * method(function ping() { return Success("pong"); });
 * method({ name: "add", params: t.tuple([t.number, t.number]) })((a, b) => Success(a + b));
 * dispatch('{"jsonrpc":"2.0","method":"add","params":[1,null],"id":1}');
 * // '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":["params[1]: expected number, got null"]},"id":1}'
 * method({
 *   name: "half",
 *   params: t.tuple([t.number]),
 *   result: t.number,
 *   summary: "Half of a number",
 *   examples: [{ params: [3], result: 1.5 }],
 * })((n) => Success(n / 2));
 *
 * @since 5.0.10
 * @category registry
 */
export function method<F extends Method>(f: F, name?: string): F;
export function method<
  C extends Schema,
  F extends MethodOf<C, R, S>,
  R extends Schema = t.UnknownC,
  S extends Schema = never,
>(f: F, options: MethodOptions<C, R, S>): F;
export function method<C extends Schema>(
  options: MethodOptions<C> & { readonly params: C; readonly result?: undefined },
): <F extends MethodOf<C>>(f: F) => F;
export function method<O extends MethodOptions<Schema, Schema> & { readonly result: Schema }>(
  options: O & MethodOptions<O extends { readonly params: infer C extends Schema } ? C : t.Any, O["result"]>,
): <F extends MethodOf<O extends { readonly params: infer C extends Schema } ? C : t.Any, O["result"]>>(f: F) => F;
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
    // Whatever the caller passed, as String() says it.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
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
 * dispatch('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}', methods); // '{"jsonrpc":"2.0","result":3,"id":1}'
 *
 * @since 5.0.10
 * @category registry
 */
export function withParams<C extends Schema, F extends MethodOf<C>>(codec: C, f: F): F & ExpectsNone<F>;
export function withParams(codec: Schema, f: Method): Method {
  define(f, PARAMS, toCodec(codec));
  return f;
}

/** The params codec a method carries, if any. @internal */
export const paramsCodecOf = (f: Method): t.Any | undefined => (f as { [PARAMS]?: t.Any })[PARAMS];

/**
 * Gives a method its codecs and documentation ({@link MethodInfo}), for methods kept in your own
 * `methods` object rather than registered with `method`: `params` decodes its params, `result`
 * encodes its result (and types the value in `Success`), `stream` encodes each value an
 * `async function*` method yields (and types it), the rest goes into its OpenRPC document.
 * Returns `f` itself. Calling it again adds to what `f` carries. A `params` that cannot decode or
 * a `result` or `stream` that cannot encode is a `TypeError`.
 *
 * @example
 * import * as t from "io-ts";
 * import { DateFromISOString } from "io-ts-types";
 * import { asyncDispatch, dispatch, Success, withCodecs } from "rpcserver";
 * const methods = {
 *   tomorrow: withCodecs({ params: t.tuple([DateFromISOString]), result: DateFromISOString }, (day) =>
 *     Success(new Date(day.getTime() + 86_400_000)),
 *   ),
 * };
 * dispatch('{"jsonrpc":"2.0","method":"tomorrow","params":["2024-01-01T00:00:00.000Z"],"id":1}', methods);
 * // '{"jsonrpc":"2.0","result":"2024-01-02T00:00:00.000Z","id":1}'
 * const count = withCodecs({ params: t.tuple([t.number]), stream: t.number }, async function* (to) {
 *   for (let i = 1; i <= to; i++) yield i; // streamed where the transport can carry it; dropped here
 *   return Success(to);
 * });
 * await asyncDispatch('{"jsonrpc":"2.0","method":"count","params":[3],"id":2}', { count }); // '{"jsonrpc":"2.0","result":3,"id":2}'
 *
 * @since 5.0.10
 * @category registry
 */
export function withCodecs<
  C extends Schema = t.Any,
  R extends Schema = t.UnknownC,
  S extends Schema = never,
  F extends MethodOf<C, R, S> = MethodOf<C, R, S>,
>(info: MethodInfo<C, R, S>, f: F): F & ExpectsNone<F>;
export function withCodecs(info: MethodInfo<Schema, Schema, Schema>, f: Method): Method {
  return attach("withCodecs", info, f);
}

/** Gives `f` the codecs and documentation of `info`; `who` names the caller in its TypeErrors. */
const attach = <F>(who: string, info: MethodInfo<Schema, Schema, Schema>, f: F): F => {
  if (typeof f !== "function") throw new TypeError(`${who}: expected a function, got ${typeof f}`);
  if (typeof info !== "object" || info === null) {
    throw new TypeError(`${who}: expected the method's codecs and documentation, got ${String(info)}`);
  }
  // A Standard Schema is turned into a codec here, once: dispatch then runs one code path.
  const params = info.params === undefined ? undefined : toCodec(info.params);
  const result = info.result === undefined ? undefined : toCodec(info.result);
  const stream = info.stream === undefined ? undefined : toCodec(info.stream);
  if (params !== undefined && !hasFunctions(params, "decode")) {
    throw new TypeError(`${who}: params must be an io-ts codec or a Standard Schema`);
  }
  if (result !== undefined && !hasFunctions(result, "encode")) {
    throw new TypeError(`${who}: result must be an io-ts codec or a Standard Schema`);
  }
  if (stream !== undefined && !hasFunctions(stream, "encode")) {
    throw new TypeError(`${who}: stream must be an io-ts codec or a Standard Schema`);
  }
  if (params !== undefined) define(f, PARAMS, params);
  if (result !== undefined) define(f, RESULT, result);
  if (stream !== undefined) define(f, STREAM, stream);
  define(f, INFO, Object.freeze({ ...infoOf(f as never), ...info }));
  return f;
};

/** The result codec a method carries, if any. @internal */
export const resultCodecOf = (f: Method): t.Encoder<unknown, unknown> | undefined =>
  (f as { [RESULT]?: t.Encoder<unknown, unknown> })[RESULT];

/** The stream codec a method carries (what encodes each value it yields), if any. @internal */
export const streamCodecOf = (f: Method): t.Encoder<unknown, unknown> | undefined =>
  (f as { [STREAM]?: t.Encoder<unknown, unknown> })[STREAM];

/** What a method carries for its OpenRPC document (its codecs included). @internal */
export const infoOf = (f: Method): MethodInfo => {
  const info = (f as { [INFO]?: MethodInfo })[INFO];
  const params = paramsCodecOf(f);
  // A params codec given by `withParams` alone is part of the information too.
  return info === undefined
    ? params === undefined
      ? {}
      : { params }
    : params === undefined
      ? info
      : { ...info, params };
};

/**
 * Lets `f` be registered with `method` under the reserved name `name` (an `rpc.` name) without the
 * warning: for the library's own extensions, such as `rpc.discover`. @internal
 */
export const reserveName = <F extends Method>(f: F, name: string): F => {
  define(f, RESERVED, name);
  return f;
};

/**
 * Marks `f` as answering in the contract vocabulary: an `Either<ErrorResult, A>`, a `TaskEither` of
 * one, or a Promise of one, whose Right is the result itself (not a `{ result }`). Only a mark can
 * say so: a `Right({ result: 1 })` is both a `Result<number>` and an `Either<ErrorResult, {
 * result: number }>`. @internal
 */
export const markOutcome = <F extends Method>(f: F): F => {
  define(f, OUTCOME, true);
  return f;
};

/** Does `f` answer in the contract vocabulary? @internal */
export const isOutcome = (f: Method): boolean => (f as { [OUTCOME]?: unknown })[OUTCOME] === true;

/**
 * Marks `f`, a contract handler, as written in the `Result` vocabulary (`Success(...)`, a Right of
 * `{ result }`): `fromResult` marks it, so that `implement` and a lazy branch take it as the method
 * it already is rather than as an Either of the result. @internal
 */
export const markFromResult = <F extends object>(f: F): F => {
  define(f, FROM_RESULT, true);
  return f;
};

/** Was `f` marked by `fromResult`? @internal */
export const isFromResult = (f: unknown): boolean => (f as { [FROM_RESULT]?: unknown } | null)?.[FROM_RESULT] === true;

/** Marks `f` as taking a context first (made by `withContext` or a server with a context). @internal */
export const markContextual = <F extends Method>(f: F): F => {
  define(f, CONTEXTUAL, true);
  return f;
};

/** Was `f` made to take a context first? (A plain function cannot say.) @internal */
export const isContextual = (f: Method): boolean => (f as { [CONTEXTUAL]?: unknown })[CONTEXTUAL] === true;

/**
 * What the discovery method answers for the table a dispatch runs it from, and whether that
 * dispatch has a context: dispatch calls it in the method's place (see {@link markDescribes}). @internal
 */
export type Describes = (methods: Methods, context: boolean) => Result;

/**
 * Marks `f` as the discovery method: when a dispatch finds it in a table (and it carries no params
 * codec), it calls `describes(table, context)` instead of `f`, with the table it dispatches with
 * and whether it has a context. `f` itself stays what a direct call runs. @internal
 */
export const markDescribes = <F extends Method>(f: F, describes: Describes): F => {
  define(f, DESCRIBES, describes);
  return f;
};

/** The discovery method's `describes`, if `f` is one. @internal */
export const describesOf = (f: Method): Describes | undefined => {
  const describes = (f as { [DESCRIBES]?: unknown })[DESCRIBES];
  return typeof describes === "function" ? (describes as Describes) : undefined;
};

/**
 * Each method's declared parameter count, read once per function. V8 reads a function's `length`
 * through a native accessor it cannot inline: about 170 instructions at every call, a fifth of
 * what a notification costs past its JSON.parse. A method is a function, whose `length` is set
 * when it is made; one redefined by `Object.defineProperty` after its first dispatch is not seen
 * (the contract knows no method whose arity changes). A `length` that cannot be read (a getter, a
 * Proxy that throws) is not kept: it throws at every call, answering that request alone, as before.
 */
const arities = new WeakMap<Method, number>();

/**
 * The last method asked for, and its count: a run of calls to one method (a client's stream of
 * notifications, a batch) skips the WeakMap's hash lookup, 1-2% of a notification.
 */
let lastMethod: Method | undefined;
let lastArity = 0;

/** A method's declared parameter count (its `length`, read once). @internal */
export const arityOf = (f: Method): number => {
  if (f === lastMethod) return lastArity;
  let arity = arities.get(f);
  if (arity === undefined) {
    arity = f.length;
    arities.set(f, arity);
  }
  lastMethod = f;
  lastArity = arity;
  return arity;
};

/** The reserved name `f` may be registered under without a warning, if any. @internal */
export const reservedNameOf = (f: Method): unknown => (f as { [RESERVED]?: unknown })[RESERVED];

// Always called as hasOwn.call(object, key), never unbound.
// eslint-disable-next-line @typescript-eslint/unbound-method
const hasOwn = Object.prototype.hasOwnProperty;

/** Is the table a Map, of any realm (`instanceof Map` refuses one made in a `node:vm` context or an iframe)? @internal */
export const isMethodMap = (methods: Methods): methods is ReadonlyMap<string, Method> =>
  Object.prototype.toString.call(methods) === "[object Map]";

/**
 * The table's functions in its order: a Map's entries, or an object's own enumerable keys. A Map's
 * keys are whatever its maker put there (the type says strings; callers that name things check). @internal
 */
export const methodEntries = (methods: Methods): Array<readonly [string, Method]> => {
  const all: Array<readonly [string, unknown]> = isMethodMap(methods)
    ? [...methods.entries()]
    : Object.keys(methods).map((name) => [name, (methods as Readonly<Record<string, unknown>>)[name]] as const);
  return all.filter((entry): entry is readonly [string, Method] => typeof entry[1] === "function");
};

/** The method registered under `name` as an own entry, if it is a function. @internal */
export const lookup = (methods: Methods, isMap: boolean, name: string): Method | undefined => {
  const f = isMap
    ? (methods as ReadonlyMap<string, Method>).get(name)
    : hasOwn.call(methods, name)
      ? (methods as Registry)[name]
      : undefined;
  return typeof f === "function" ? f : undefined;
};
