/**
 * Clients: one function per method, each making a call (`RpcCall`) that sends its request when run.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type * as t from "io-ts";
import type { CallOptions, RpcCall, RpcStream } from "./call";
import { nextCallId } from "./call-ids";
import { makeCall, makeStream } from "./calls";
import { notDeclared, refusal } from "./read-answer";
import { requestHead } from "./request-body";
import type { CallError, DeclaredError, InvalidAnswer } from "./errors";
import type { Transport } from "./transport";
import type { ExpectedContext, NoContext } from "../core/context-marks";
import { isObject, isRecord, isThenable } from "../core/guards";
import {
  isContract,
  spreadsArguments,
  type CallArgsOf,
  type Contract,
  type Entries,
  type Entry,
  type ResultOf,
} from "../contract/contract";
import { nest, type BranchNames, type BranchOf } from "../contract/names";
import type { MethodError } from "../core/method-info";
import {
  failureLines,
  isStandardSchema,
  jsonSchemaOf,
  toCodec,
  type Schema,
  type StandardCodec,
  type StandardSchemaV1,
  type TypeOfSchema,
} from "../core/schema";

/** What a declared error's `data` schema decodes to: a Standard Schema's output, an io-ts decoder's type. */
type ErrorDataOf<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends t.Decoder<never, infer A>
    ? A
    : unknown;

/** One declared error of an entry's `errors` as the client gets it: its code, its data decoded. */
type DeclaredOf<X> = X extends { readonly code: infer C extends number }
  ? DeclaredError<C, X extends { readonly data: infer S } ? ErrorDataOf<S> : unknown>
  : never;

/**
 * The errors a contract entry declares, as the client gets them: one {@link DeclaredError} per
 * entry of its `errors` (its code a literal type when the contract is written inline, its `data`
 * the decoded type of its schema), `never` when it declares none.
 *
 * @example
 * import * as t from "io-ts";
 * import type { DeclaredErrorsOf } from "rpcserver/client";
 * type E = DeclaredErrorsOf<{ errors: readonly [{ code: 404; message: string; data: t.TypeC<{ id: t.NumberC }> }] }>;
 * // DeclaredError<404, { id: number }>
 *
 * @since 5.0.10
 * @category client
 */
export type DeclaredErrorsOf<E> = E extends { readonly errors: ReadonlyArray<infer X> } ? DeclaredOf<X> : never;

/**
 * The client function of contract entry `E`: the method's arguments in, an {@link RpcCall} (or
 * {@link RpcStream}) out.
 *
 * @example
 * import * as t from "io-ts";
 * import type { ClientFunction } from "rpcserver/client";
 * type Add = ClientFunction<{ params: t.TupleC<[t.NumberC, t.NumberC]>; result: t.NumberC }>;
 * // (a: number, b: number) => RpcCall<number, CallError<never>>
 *
 * @since 5.0.10
 * @category client
 */
export type ClientFunction<E> = (
  ...args: CallArgsOf<E>
) => E extends { readonly stream: infer S extends Schema }
  ? RpcStream<TypeOfSchema<S>, ResultOf<E>, CallError<DeclaredErrorsOf<E>>>
  : RpcCall<ResultOf<E>, CallError<DeclaredErrorsOf<E>>>;

/**
 * The client of a contract: one function per method, taking the method's arguments (decoded
 * form: a `Date` where the codec makes one) and making an {@link RpcCall} of its decoded result,
 * whose Left is a `CallError` of the errors its entry declares (a `ClientError` when none). For an
 * entry with `stream`, the call is an {@link RpcStream} of the values that codec decodes to.
 * Dotted names are also a tree: `remote.users.get(1)` beside `remote["users.get"](1)`, one
 * branch per first segment, at any depth.
 *
 * @since 5.0.10
 * @category client
 */
export type ContractClient<M extends Entries> = {
  readonly [K in keyof M | BranchNames<keyof M>]: (K extends keyof M ? ClientFunction<M[K]> : unknown) &
    (K extends BranchNames<keyof M> & string ? ContractClient<BranchOf<M, K>> : unknown);
};

/**
 * A value as JSON carries it back: what `JSON.stringify` makes of it (a `Date` is its ISO text),
 * for a client that has no codec to decode with.
 *
 * @example
 * import type { Json } from "rpcserver/client";
 * type D = Json<{ at: Date; n: number }>; // { at: string; n: number }
 *
 * @since 5.0.10
 * @category client
 */
export type Json<A> = A extends {
  /** What `JSON.stringify` calls (a `Date`'s gives its ISO text). */
  readonly toJSON: () => infer J;
}
  ? J
  : A extends string | number | boolean | null
    ? A
    : A extends undefined
      ? null
      : A extends ReadonlyArray<infer X>
        ? Array<Json<X>>
        : A extends object
          ? { [K in keyof A as A[K] extends (...args: never[]) => unknown ? never : K]: Json<A[K]> }
          : unknown;

/** The result a method of a plain table answers with: `A` of its `Result<A>` (or a Promise of one). */
type Answered<R> = [Awaited<R>] extends [E.Either<unknown, infer S>]
  ? S extends { readonly result: infer A }
    ? A
    : unknown
  : unknown;

/** A plain method's arguments as its client function takes them: the context dropped when it has one. */
type CallerArgs<P, C> = [C] extends [NoContext] ? P : P extends [unknown, ...infer Rest] ? Rest : P;

/**
 * The client of a methods table known by its type alone (no codecs, so nothing is encoded or
 * decoded): each function takes the method's parameters (the context dropped, for a method
 * marked as taking one, or for all when `Ctx` is `"context"`) and answers the JSON form of its
 * result (`Json<A>`). A method that is an `async function*` makes an {@link RpcStream} of the JSON
 * form of what it yields.
 *
 * @since 5.0.10
 * @category client
 */
export type TableClient<T, Ctx extends "context" | "no context" = "no context"> = {
  readonly [K in Exclude<keyof T, "then" | "toJSON"> & string]: T[K] extends (...args: infer P) => infer R
    ? (
        ...args: CallerArgs<P, ExpectedContext<T[K], Ctx extends "context" ? unknown : NoContext>>
      ) => [R] extends [AsyncGenerator<infer V, infer G, never>]
        ? RpcStream<Json<V>, Json<Answered<G>>>
        : RpcCall<Json<Answered<R>>>
    : never;
};

/**
 * Options of a client: the call options of every call (a signal, a timeout), which a call's own
 * `withOptions` overrides.
 *
 * @since 5.0.10
 * @category client
 */
export type ClientOptions = CallOptions;

/** The transport's own ids when it has them, else the process-wide counter's (see `nextCallId`). */
const idsFor = (transport: Transport): (() => number) =>
  typeof transport.nextId === "function" ? transport.nextId : nextCallId;

/**
 * A result (`of` "result") or a streamed value (`of` "stream") as the program gets it: decoded by
 * the codec when there is one. A schema that answers a Promise refuses it: answers are read at once.
 */
const decoderOf =
  (codec: Pick<t.Any, "decode"> | StandardCodec | undefined, of: "result" | "stream") =>
  (value: unknown): E.Either<InvalidAnswer, unknown> => {
    if (codec === undefined) return E.right(value);
    const decoded = codec.decode(value) as E.Either<unknown, unknown> | PromiseLike<unknown>;
    if (!("_tag" in decoded)) {
      decoded.then(undefined, () => undefined);
      return E.left(refusal(of, value, `${of}: the ${of} schema returned a Promise; ${of}s are decoded synchronously`));
    }
    return E.isRight(decoded) ? decoded : E.left(refusal(of, value, failureLines(codec, decoded.left, of).join("; ")));
  };

/** What a declared error's data schema answers: an Either, or (an async Standard Schema) a Promise of one. */
type DataDecoder = (data: unknown) => unknown;

/**
 * The errors an entry declares, as a function from a server error to the declared error it is, or
 * `undefined`: the first declaration of its code whose data schema (io-ts codec or Standard
 * Schema, made once) accepts the data (absent data is `undefined` to the schema); a declaration
 * without one accepts any. A schema that answers a Promise accepts nothing: errors are read at once.
 */
const errorDecoder = (entry: Entry) => {
  const listed: ReadonlyArray<MethodError> = Array.isArray(entry.errors)
    ? (entry.errors as ReadonlyArray<MethodError>)
    : [];
  const declarations = listed
    .filter((error) => isObject(error))
    .map((error) => ({
      code: error.code,
      decode: error.data === undefined ? undefined : (toCodec(error.data) as { readonly decode: DataDecoder }).decode,
    }));
  if (declarations.length === 0) return notDeclared;
  return (code: number, message: string, error: Readonly<Record<string, unknown>>): DeclaredError | undefined => {
    const has = "data" in error;
    for (const declaration of declarations) {
      if (declaration.code !== code) continue;
      if (declaration.decode === undefined) {
        return has
          ? { _tag: "ServerError", declared: true, code, message, data: error["data"] }
          : ({ _tag: "ServerError", declared: true, code, message } as DeclaredError);
      }
      const decoded = declaration.decode(error["data"]);
      if (isThenable(decoded)) {
        decoded.then(undefined, () => undefined);
        continue;
      }
      if (E.isRight(decoded as E.Either<unknown, unknown>)) {
        const data = (decoded as E.Right<unknown>).right;
        return has || data !== undefined
          ? { _tag: "ServerError", declared: true, code, message, data }
          : ({ _tag: "ServerError", declared: true, code, message } as DeclaredError);
      }
    }
    return undefined;
  };
};

/**
 * Whether a Standard Schema takes its params as a list, from the `type` of its input JSON Schema
 * (`"array"`: spread, as `ArgsOf` types it; another type: one argument); `undefined` when it gives
 * none, or a union, or its `jsonSchema` throws.
 */
const schemaSpreads = (schema: StandardSchemaV1): boolean | undefined => {
  const type = jsonSchemaOf(schema, "input")?.["type"];
  return typeof type === "string" ? type === "array" : undefined;
};

/** The params a contract method sends: its arguments encoded by its params codec. */
const paramsEncoder = (schema: Schema | undefined) => {
  const codec = schema as t.Any | undefined;
  if (codec === undefined) return (): undefined => undefined;
  if (isStandardSchema(codec)) {
    // A schema checks what the server receives: the arguments are sent as given, spread when the
    // schema takes them as a list, else the first alone. Its JSON Schema says which once; without
    // one, each one-argument call asks the schema (a validation that may fail, so kept off the
    // common path).
    const spreads = schemaSpreads(codec);
    if (spreads !== undefined) return spreads ? (args: unknown[]): unknown => args : (args: unknown[]) => args[0];
    const standard = toCodec(codec);
    return (args: unknown[]): unknown => (args.length !== 1 || standard.is(args) ? args : args[0]);
  }
  const spreads = spreadsArguments(codec);
  return (args: unknown[]): unknown =>
    codec.encode(spreads === true || (spreads === undefined && codec.is(args)) ? args : args[0]);
};

/** The stubs of a contract's methods. */
const contractClient = (c: Contract<Entries>, transport: Transport, options: CallOptions, nextId: () => number) => {
  const stubs: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [method, entry] of Object.entries(c.methods)) {
    const encode = paramsEncoder(entry.params);
    const decode = decoderOf(toCodec(entry.result) as t.Any | StandardCodec | undefined, "result");
    const declared = errorDecoder(entry);
    const head = requestHead(method);
    if (entry.stream === undefined) {
      stubs[method] = (...args: unknown[]) =>
        makeCall({ method, head, params: () => encode(args), decode, declared, transport, options, nextId });
      continue;
    }
    const stream = decoderOf(toCodec(entry.stream) as t.Any | StandardCodec, "stream");
    stubs[method] = (...args: unknown[]) =>
      makeStream({ method, head, params: () => encode(args), decode, stream, declared, transport, options, nextId });
  }
  return nest(stubs);
};

/**
 * The stubs of a table known by its type alone: a Proxy, since there are no names at run time.
 * Symbols (`inspect`, `toPrimitive`, iterators), `then` (so that `await` and `Promise.resolve`
 * do not take the client for a Promise) and `toJSON` answer `undefined`.
 */
const tableClient = (transport: Transport, options: CallOptions, nextId: () => number): object => {
  const cache = new Map<string, unknown>();
  return new Proxy(Object.create(null) as object, {
    get: (_target, key) => {
      if (typeof key !== "string" || key === "then" || key === "toJSON") return undefined;
      let stub = cache.get(key);
      if (stub === undefined) {
        const head = requestHead(key);
        // Any method may be an `async function*` (the table's type says which): every call can stream.
        stub = (...args: unknown[]) =>
          makeStream({
            method: key,
            head,
            // One plain object is sent as named params, anything else positionally.
            params: () => (args.length === 0 ? undefined : args.length === 1 && isRecord(args[0]) ? args[0] : args),
            decode: E.right,
            stream: E.right,
            declared: notDeclared,
            transport,
            options,
            nextId,
          });
        cache.set(key, stub);
      }
      return stub;
    },
  });
};

/**
 * A client: one function per method, each making an {@link RpcCall} (a `TaskEither<ClientError,
 * A>`) that sends its request through `transport` when run.
 *
 * - `client(contract, transport, options?)`: the methods of a contract. A method with positional
 *   params takes them as arguments (`api.add(1, 2)`), one with named params one object
 *   (`api.greet({ name })`). Params are encoded by the contract's params codec before sending, the
 *   result decoded by its result codec (a `Date` comes back a `Date`; a result it refuses is an
 *   `InvalidAnswer`), an error's `data` by the codec of its code in `errors`.
 * - `client<typeof methods>(transport, options?)`: a methods table known by its type alone, for a
 *   team without a contract: params typed from the functions, nothing encoded or decoded (results
 *   typed as their JSON form). Add `"context"` (`client<typeof methods, "context">`) when the
 *   table is dispatched with a context and its plain functions take it first.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement, Success } from "rpcserver";
 * import { client, local } from "rpcserver/client";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * // In the same process; over HTTP, `http("http://localhost:5000")` in place of `local(...)`.
 * const calc = client(api, local(implement(api, { add: (a, b) => E.right(a + b) })));
 * await calc.add(1, 2)(); // { _tag: "Right", right: 3 }
 * // A methods table known by its type alone:
 * const methods = { add: (a: number, b: number) => Success(a + b) };
 * await client<typeof methods>(local(methods)).add(1, 2)(); // { _tag: "Right", right: 3 }
 *
 * @since 5.0.10
 * @category client
 */
export function client<M extends Entries>(
  c: Contract<M>,
  transport: Transport,
  options?: ClientOptions,
): ContractClient<M>;
export function client<T, Ctx extends "context" | "no context" = "no context">(
  transport: Transport,
  options?: ClientOptions,
): TableClient<T, Ctx>;
export function client(
  first: Contract<Entries> | Transport,
  second?: Transport | ClientOptions,
  third?: ClientOptions,
): unknown {
  if (typeof first === "function") return tableClient(first, (second ?? {}) as CallOptions, idsFor(first));
  if (!isContract(first)) throw new TypeError("client: expected a contract (from contract()) or a transport function");
  if (typeof second !== "function") throw new TypeError("client: expected a transport function after the contract");
  return contractClient(first, second, third ?? {}, idsFor(second));
}
