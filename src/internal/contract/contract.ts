/**
 * Contracts: one definition of an API, read by both ends of the wire.
 *
 * A contract names each method with its io-ts codecs and what its OpenRPC document shows. The
 * server implements it (`implement`, `server`), the client calls it (`rpcserver/client`), and
 * the document describes it: the codecs are written once.
 *
 * @module
 */
import type * as t from "io-ts";
import { hasFunctions } from "../core/guards";
import { isRefusedSegment, joinName } from "./names";
import type { MethodExample, MethodInfo } from "../core/method-info";
import type { ParamsArgs } from "../core/methods";
import {
  isStandardSchema,
  type ResultOfSchema,
  type Schema,
  type StandardSchemaV1,
  type TypeOfSchema,
  type WireOfSchema,
} from "../core/schema";

/**
 * One method of a contract: its params codec, its result codec, the codec of the values it streams
 * and its documentation, all optional, as {@link MethodInfo} holds them. Without `params` the
 * method takes none; without `result` its result is `unknown` and sent as the handler gives it;
 * with `stream` its handler may be an `async function*` yielding values of that type.
 *
 * @example
 * import * as t from "io-ts";
 * import type { Entry } from "rpcserver";
 * const add: Entry = { params: t.tuple([t.number, t.number]), result: t.number, summary: "Adds" };
 *
 * @since 5.0.10
 * @category contract
 */
export type Entry = MethodInfo<Schema, Schema, Schema>;

/**
 * The entries of a contract, by method name.
 *
 * @since 5.0.10
 * @category contract
 */
export type Entries = { readonly [name: string]: Entry };

/**
 * What `contract` takes: entries by name and, under a name, whole contracts (a branch: their
 * methods named `name.method`, at any depth).
 *
 * @example
 * import * as t from "io-ts";
 * import { contract, type Definition } from "rpcserver";
 * const users = contract({ get: { params: t.tuple([t.number]), result: t.string } });
 * const definition: Definition = { users, ping: { result: t.literal("pong") } };
 *
 * @since 5.0.10
 * @category contract
 */
export type Definition = { readonly [name: string]: Entry | Contract<Entries> };

/** The full names of definition `D`: its entries' names, and each branch's names under its own. */
type FlatName<D> = {
  [K in keyof D & string]: D[K] extends Contract<infer S> ? `${K}.${keyof S & string}` : K;
}[keyof D & string];

/** The entry of full name `P` in definition `D`. */
type FlatEntry<D, P> = P extends keyof D
  ? D[P]
  : P extends `${infer H}.${infer R}`
    ? H extends keyof D
      ? D[H] extends Contract<infer S>
        ? S[R & keyof S]
        : never
      : never
    : never;

/** Does definition `D` hold a contract? */
type HasBranch<D> = { [K in keyof D]: D[K] extends Contract<Entries> ? K : never }[keyof D];

/**
 * The entries of definition `D` by full name: each branch's methods named `branch.method`, its
 * own entries as they are (a definition without branches is its own entries).
 *
 * @example
 * import * as t from "io-ts";
 * import type { Contract, Flatten } from "rpcserver";
 * type Api = Flatten<{ users: Contract<{ get: { result: t.StringC } }>; ping: { result: t.NullC } }>;
 * // { readonly "users.get": { result: t.StringC }; readonly ping: { result: t.NullC } }
 *
 * @since 5.0.10
 * @category contract
 */
export type Flatten<D> = [HasBranch<D>] extends [never]
  ? D extends Entries
    ? D
    : never
  : { readonly [P in FlatName<D>]: FlatEntry<D, P> extends infer E extends Entry ? E : never };

/**
 * A contract: its entries, method names kept as literal types.
 *
 * @example
 * import * as t from "io-ts";
 * import { contract, type Contract } from "rpcserver";
 * const api = contract({ ping: { result: t.literal("pong") } });
 * const same: Contract<{ readonly ping: { readonly result: t.LiteralC<"pong"> } }> = api;
 *
 * @since 5.0.10
 * @category contract
 */
export interface Contract<M extends Entries> {
  readonly _tag: "Contract";
  readonly methods: M;
}

/**
 * A method's arguments, as its handler receives them and its client function takes them: the
 * decoded params of a tuple codec spread, anything else is one argument; no codec, none.
 *
 * @example
 * import * as t from "io-ts";
 * import type { ArgsOf } from "rpcserver";
 * type Args = ArgsOf<{ params: t.TupleC<[t.NumberC, t.StringC]> }>; // [number, string]
 *
 * @since 5.0.10
 * @category contract
 */
export type ArgsOf<E> = E extends { readonly params: infer C extends Schema } ? ParamsArgs<TypeOfSchema<C>> : [];

/**
 * A method's arguments as its client function takes them: what {@link ArgsOf} gives the handler
 * for an io-ts codec (the client encodes them), a Standard Schema's input (the client sends them as
 * given, and the server's schema checks them, and may transform them, for the handler).
 *
 * @example
 * import type { z } from "zod";
 * import type { CallArgsOf } from "rpcserver/types";
 * // The handler gets the string's length; the client sends the string.
 * type Args = CallArgsOf<{ params: z.ZodTuple<[z.ZodPipe<z.ZodString, z.ZodTransform<number, string>>], null> }>; // [string]
 *
 * @since 5.0.10
 * @category contract
 */
export type CallArgsOf<E> = E extends { readonly params: infer C extends Schema }
  ? ParamsArgs<C extends t.Any ? t.TypeOf<C> : WireOfSchema<C>>
  : [];

/**
 * A method's result as the program sees it (decoded: a `Date` for `DateFromISOString`);
 * `unknown` without a result codec.
 *
 * @example
 * import * as t from "io-ts";
 * import type { ResultOf } from "rpcserver";
 * type R = ResultOf<{ result: t.NumberC }>; // number
 *
 * @since 5.0.10
 * @category contract
 */
export type ResultOf<E> = E extends { readonly result: infer R extends Schema } ? TypeOfSchema<R> : unknown;

/** What a handler answers for an entry: its result codec's type, or its result schema's input (the schema checks it). */
export type HandlerResultOf<E> = E extends { readonly result: infer R extends Schema } ? ResultOfSchema<R> : unknown;

type WireParams<E> = E extends { readonly params: infer C extends Schema } ? WireOfSchema<C> : unknown;
type WireResult<E> = E extends { readonly result: infer R extends Schema }
  ? R extends t.Any
    ? t.OutputOf<R>
    : TypeOfSchema<R>
  : unknown;

/**
 * What `contract` checks of each entry beyond {@link Entry}: its examples in their wire form
 * (against the codecs' output types), and its name: no segment `then` (a client with a `then`
 * member would be taken for a Promise) or empty, no `rpc.` name (JSON-RPC reserves them), and no
 * dot in a branch's name (nest the contracts instead).
 *
 * @since 5.0.10
 * @category contract
 */
export type Checked<M> = {
  readonly [K in keyof M]: K extends RefusedName
    ? `contract: "${K & string}" cannot be a name: ${K extends `rpc.${string}`
        ? `"rpc." begins the protocol's own methods (rpc.discover)`
        : K extends "then" | `then.${string}` | `${string}.then` | `${string}.then.${string}`
          ? `a part named "then" would make the contract (or a branch) a thenable, which await takes apart`
          : "no part of a dotted name may be empty"}`
    : M[K] extends Contract<Entries>
      ? K extends "rpc" | `${string}.${string}`
        ? `contract: a branch cannot be named "${K & string}": its methods would be named "${K & string}.…" (${K extends "rpc" ? "rpc. begins the protocol's own methods" : "a branch's name has no dot"})`
        : unknown
      : { readonly examples?: ReadonlyArray<MethodExample<WireParams<M[K]>, WireResult<M[K]>>> };
};

/** The names `contract` refuses: `rpc.*`, and any holding a segment `then` or an empty one. */
type RefusedName =
  | `rpc.${string}`
  | "then"
  | `then.${string}`
  | `${string}.then`
  | `${string}.then.${string}`
  | ""
  | `.${string}`
  | `${string}.`
  | `${string}..${string}`;

/**
 * Why a contract's result (or stream) Standard Schema cannot be one, or `never`. The server sends
 * the schema's output and the client checks that output with the same schema, so the schema must
 * accept its own output and give it back unchanged. The type-level rule: its output type is
 * assignable to its input type. Defaults pass (`.default()` makes a key optional in the input and
 * present in the output: the client's check fills in nothing), as do refinements and brands; a
 * transform to another type does not. A transform within one type (`n => n * 2`) passes this rule
 * but runs twice: keep result schemas free of such transforms. (A params schema may transform: the
 * client sends its input.) An io-ts codec, which encodes and decodes, is the way to a result whose
 * wire form differs.
 */
type ResultRefusal<K, E, Member extends "result" | "stream" = "result"> = E extends { readonly [M in Member]: infer R }
  ? R extends t.Any
    ? never
    : R extends StandardSchemaV1
      ? [StandardSchemaV1.InferOutput<R>] extends [StandardSchemaV1.InferInput<R>]
        ? never
        : `contract: the ${Member} schema of "${K & string}" gives a type it does not take (a transform), and the client checks the server's output with it again; use an io-ts codec (encode on the server, decode on the client) or a schema that accepts its own output (defaults and refinements do)`
      : never
  : never;

/**
 * Why `contract` refuses entries `M`, as a message, or `never` when it takes them. When there is
 * a reason, `contract`'s parameter type is that message, so the compiler's error names it in its
 * first line ("...is not assignable to parameter of type 'contract: the result schema of...'").
 *
 * @example
 * import type { z } from "zod";
 * import type { ContractRefusal } from "rpcserver/types";
 * type Ok = ContractRefusal<{ n: { result: z.ZodDefault<z.ZodNumber> } }>; // never: a default is fine
 * type No = ContractRefusal<{ len: { result: z.ZodPipe<z.ZodString, z.ZodTransform<number, string>> } }>; // the message
 *
 * @since 5.0.10
 * @category contract
 */
export type ContractRefusal<M> = {
  readonly [K in keyof M]: ResultRefusal<K, M[K]> | ResultRefusal<K, M[K], "stream">;
}[keyof M];

/** Both ends use a codec whole: the server decodes params and encodes results, the client the reverse, and `is` tells it how to pass arguments. */
const isCodec = (value: unknown): boolean => hasFunctions(value, "decode", "encode", "is");

/**
 * Refuses a full method name no client can carry or JSON-RPC reserves: one starting `rpc.`, or
 * holding a segment `then` or an empty one (`a.then`, `a..b`: the client's branch `a` would hold
 * a `then`, and be taken for a Promise).
 */
const checkName = (name: string): void => {
  if (name.startsWith("rpc.") || name.split(".").some(isRefusedSegment)) {
    throw new TypeError(
      `contract: "${name}" cannot be a method name (JSON-RPC reserves rpc.*; no client can carry a segment then or "")`,
    );
  }
};

/** Refuses an entry whose codecs are not codecs. */
const checkEntry = (name: string, entry: Entry): void => {
  if (typeof entry !== "object" || entry === null) throw new TypeError(`contract: ${name} must be an object`);
  if (entry.params !== undefined && !isCodec(entry.params) && !isStandardSchema(entry.params)) {
    throw new TypeError(`contract: ${name}.params must be an io-ts codec or a Standard Schema`);
  }
  for (const key of ["result", "stream"] as const) {
    const codec = entry[key];
    if (codec !== undefined && !isCodec(codec) && !isStandardSchema(codec)) {
      throw new TypeError(`contract: ${name}.${key} must be an io-ts codec or a Standard Schema`);
    }
  }
};

// Always called as hasOwn.call(object, key), never unbound.
// eslint-disable-next-line @typescript-eslint/unbound-method
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Makes a contract: each method's io-ts codecs and documentation, by name. Names are kept as
 * literal types (`const`). A name `then` or starting with `rpc.` is refused (a compile error,
 * and a `TypeError`), as is a `params` or `result` that is not an io-ts codec (a `TypeError`).
 * Examples are typed in wire form: what the codecs encode to. The contract is frozen.
 *
 * A contract may hold contracts (see {@link Definition}): `contract({ users, admin, ping })` names
 * the methods of `users` `users.get`, `users.list`, ..., at any depth, as the wire, dispatch and
 * the OpenRPC document see them; `implement` and the client take them as a tree
 * (`remote.users.get(1)`). A full name defined twice is a `TypeError`.
 *
 * @example
 * import * as t from "io-ts";
 * import { contract } from "rpcserver";
 * export const api = contract({
 *   add: { params: t.tuple([t.number, t.number]), result: t.number, paramNames: ["a", "b"] },
 *   greet: { params: t.type({ name: t.string }), result: t.string, errors: [{ code: 404, message: "No such person" }] },
 * });
 * const users = contract({ get: { params: t.tuple([t.number]), result: t.string } });
 * const service = contract({ users, math: api });
 * Object.keys(service.methods); // ["users.get", "math.add", "math.greet"]
 *
 * @since 5.0.10
 * @category contract
 */
export const contract = <const D extends Definition>(
  methods: [ContractRefusal<D>] extends [never] ? D & Checked<D> : ContractRefusal<D>,
): Contract<Flatten<D>> => {
  if (typeof methods !== "object" || methods === null) {
    throw new TypeError(`contract: expected an object of methods, got ${String(methods)}`);
  }
  const flat: Record<string, Entry> = {};
  const add = (name: string, entry: Entry): void => {
    if (hasOwn.call(flat, name)) throw new TypeError(`contract: "${name}" is defined twice`);
    // Defined, not assigned: a method named `__proto__` is a name like any other.
    Object.defineProperty(flat, name, { value: entry, enumerable: true, writable: true, configurable: true });
  };
  for (const [name, value] of Object.entries(methods as Definition)) {
    checkName(name);
    if (isContract(value)) {
      // A dotted branch name would be two levels of the tree in one key: nest the contracts instead.
      if (name.includes(".")) throw new TypeError(`contract: the branch "${name}" cannot hold a dot (nest it)`);
      for (const [inner, entry] of Object.entries(value.methods)) {
        const full = joinName(name, inner);
        checkName(full);
        add(full, entry);
      }
      continue;
    }
    checkEntry(name, value);
    add(name, value);
  }
  return Object.freeze({ _tag: "Contract" as const, methods: Object.freeze(flat) as Flatten<D> });
};

/** Is `value` a contract (of any copy of this package)? @internal */
export const isContract = (value: unknown): value is Contract<Entries> =>
  typeof value === "object" &&
  value !== null &&
  (value as { _tag?: unknown })._tag === "Contract" &&
  typeof (value as { methods?: unknown }).methods === "object";

/**
 * Does a method with params codec `codec` take its arguments spread (a tuple or array type) or
 * as one object? Read once per method from io-ts's `_tag`s; a codec of another kind is asked at
 * each call whether the arguments, as an array, are a value of its type. @internal
 */
export const spreadsArguments = (codec: t.Any | undefined): boolean | undefined => {
  let c = codec as { _tag?: unknown; type?: unknown } | undefined;
  for (;;) {
    if (c === undefined) return true;
    switch (c._tag) {
      case "TupleType":
      case "ArrayType":
      case "ReadonlyArrayType":
        return true;
      case "InterfaceType":
      case "PartialType":
      case "StrictType":
      case "DictionaryType":
      case "IntersectionType":
      case "RecordType":
        return false;
      case "RefinementType":
      case "ReadonlyType":
      case "ExactType":
        c = c.type as typeof c;
        continue;
      default:
        return undefined;
    }
  }
};
