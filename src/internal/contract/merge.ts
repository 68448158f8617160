/**
 * Merging: several contracts as one, or several methods tables as one, each name defined once.
 *
 * @module
 */
import { contract, isContract, type Contract, type Entries } from "./contract";
import { isMethodMap, type Method } from "../core/methods";

/** A methods table `merge` takes: what `implement` makes, any object of methods, or a Map of them. */
type Mergeable = { readonly [name: string]: Method } | ReadonlyMap<string, Method>;

/** The names of a contract or a table (a Map's are not known until run time). */
type NamesOf<X> = X extends Contract<infer M> ? keyof M : X extends ReadonlyMap<string, Method> ? never : keyof X;

/** The names two or more of `T` define. */
type Twice<T, Seen = never> = T extends readonly [infer H, ...infer R]
  ? (NamesOf<H> & Seen) | Twice<R, Seen | NamesOf<H>>
  : never;

/** Every member of `T` refused, with the message, when a name is defined twice. */
type MergeRefusal<T> = [Twice<T>] extends [never]
  ? unknown
  : { readonly [K in keyof T]: `merge: "${Twice<T> & string}" is defined twice` };

/** The entries of contracts `T`, together. */
type EntriesOf<T> = T extends readonly [Contract<infer M>, ...infer R] ? M & EntriesOf<R> : unknown;

/** The methods of tables `T`, together (a Map's under any name). */
type MethodsOf<T> = T extends readonly [infer H, ...infer R]
  ? (H extends ReadonlyMap<string, Method> ? { readonly [name: string]: Method } : H) & MethodsOf<R>
  : unknown;

/** One object holding every name of `T`, for the compiler to show as one. */
type Together<X> = { readonly [K in keyof X]: X[K] };

/**
 * Merges contracts into one contract, or methods tables (what `implement` makes, or any) into one
 * table (objects or Maps of methods; the table merged is an object): every name of each, as it
 * is. A name defined twice is refused: a compile error when the names are known (the message names
 * it), and a `TypeError`. Contracts and tables are not mixed
 * (implement the contract first). To put a contract under a name instead, nest it:
 * `contract({ users, admin })`.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, dispatch, implement, merge } from "rpcserver";
 * const math = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * const text = contract({ upper: { params: t.tuple([t.string]), result: t.string } });
 * const api = merge(math, text); // a contract of add and upper
 * const methods = merge(
 *   implement(math, { add: (a, b) => E.right(a + b) }),
 *   implement(text, { upper: (s) => E.right(s.toUpperCase()) }),
 * );
 * Object.keys(api.methods); // ["add", "upper"]
 * dispatch('{"jsonrpc":"2.0","method":"upper","params":["hi"],"id":1}', methods); // '{"jsonrpc":"2.0","result":"HI","id":1}'
 *
 * @since 5.0.10
 * @category contract
 */
// One signature for contracts and tables: with an overload each, a name defined twice failed both,
// and the compiler's "No overload matches this call" put the refusal under the other's complaint.
export function merge<
  const T extends readonly [Contract<Entries>, ...Array<Contract<Entries>>] | readonly [Mergeable, ...Mergeable[]],
>(
  ...parts: T & MergeRefusal<T>
): T extends readonly [Contract<Entries>, ...Array<Contract<Entries>>]
  ? Contract<Together<EntriesOf<T>>>
  : Together<MethodsOf<T>>;
export function merge(...parts: ReadonlyArray<Contract<Entries> | Mergeable>): Contract<Entries> | Mergeable {
  if (parts.length === 0) throw new TypeError("merge: expected contracts or methods tables, got none");
  const contracts = parts.filter((part) => isContract(part)).length;
  if (contracts !== 0 && contracts !== parts.length) {
    throw new TypeError("merge: expected contracts or methods tables, not both (implement the contracts first)");
  }
  const merged = Object.create(null) as Record<string, unknown>;
  for (const part of parts) {
    if (typeof part !== "object" || part === null) {
      throw new TypeError(`merge: expected a contract or a methods table, got ${String(part)}`);
    }
    const named = isMethodMap(part as Mergeable)
      ? [...(part as ReadonlyMap<string, Method>)]
      : Object.entries(contracts === 0 ? part : (part as Contract<Entries>).methods);
    for (const [name, value] of named) {
      if (Object.hasOwn(merged, name)) throw new TypeError(`merge: "${name}" is defined twice`);
      // Defined, not assigned: a method named `__proto__` is a name like any other.
      Object.defineProperty(merged, name, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  if (contracts === 0) return Object.freeze(merged) as Mergeable;
  // Built by `contract`, as every contract is: its entries (full names already) checked there once more.
  return contract(merged as never);
}
