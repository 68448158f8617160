/**
 * Dotted names: a contract's methods are one flat table of full names (`users.get`, `admin.ban`),
 * as the wire, dispatch and the OpenRPC document see them; the handlers and the client see the
 * same names as a tree, one branch per first segment. These types and `nest` read the one from the
 * other, so that no other module splits a name.
 *
 * @module
 */

/**
 * The branches of names `K`: the first segment of each dotted name. `then` makes no branch (an
 * object with a `then` member would be taken for a Promise) and neither does an empty segment.
 *
 * @example
 * import type { BranchNames } from "rpcserver/types";
 * type B = BranchNames<"users.get" | "users.list" | "ping">; // "users"
 *
 * @since 5.0.10
 * @category contract
 */
export type BranchNames<K> = K extends `${infer H}.${string}` ? (H extends "then" | "" ? never : H) : never;

/**
 * The names of `K` that are not dotted: the leaves at this level of the tree.
 *
 * @example
 * import type { LeafNames } from "rpcserver/types";
 * type L = LeafNames<"users.get" | "ping">; // "ping"
 *
 * @since 5.0.10
 * @category contract
 */
export type LeafNames<K> = K extends `${string}.${string}` ? never : K;

/**
 * The members of flat table `M` under branch `H`, named from there (`users.get` is `get` under
 * `users`; `a.b.c` is `b.c` under `a`).
 *
 * @example
 * import type { BranchOf } from "rpcserver/types";
 * type Users = BranchOf<{ "users.get": 1; "users.list": 2; ping: 3 }, "users">; // { readonly get: 1; readonly list: 2 }
 *
 * @since 5.0.10
 * @category contract
 */
export type BranchOf<M, H extends string> = {
  readonly [K in keyof M as K extends `${H}.${infer R}` ? R : never]: M[K];
};

/** The full name of `name` under branch `branch`: `users` and `get` make `users.get`. @internal */
export const joinName = (branch: string, name: string): string => `${branch}.${name}`;

/** The rest of `name` under branch `branch` (`get` for `users.get` under `users`), or `undefined` when it is not under it. @internal */
export const nameUnder = (branch: string, name: string): string | undefined =>
  name.length > branch.length + 1 && name.startsWith(branch) && name[branch.length] === "."
    ? name.slice(branch.length + 1)
    : undefined;

/** Is `segment` a segment no name may hold: `then` (an object with it is taken for a Promise), or empty? @internal */
export const isRefusedSegment = (segment: string): boolean => segment === "then" || segment === "";

/** Defines `key` on `target` (a function's `name` and `length` are not writable, but configurable). */
const put = (target: object, key: string, value: unknown): void => {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: false, writable: false });
};

/**
 * The tree of a flat table: each name as it is, and beside it each branch (the first segment of
 * the dotted names) holding the rest of its names, the same way down. A branch that is also a
 * name of its own is that member with the branch's members added to it (a function keeps its
 * call). Every object made is frozen. @internal
 */
export const nest = (flat: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  const tree = Object.create(null) as Record<string, unknown>;
  const branches = new Map<string, Record<string, unknown>>();
  for (const [name, value] of Object.entries(flat)) {
    tree[name] = value;
    const dot = name.indexOf(".");
    const head = name.slice(0, dot);
    if (dot <= 0 || isRefusedSegment(head)) continue;
    let branch = branches.get(head);
    if (branch === undefined) branches.set(head, (branch = Object.create(null) as Record<string, unknown>));
    branch[name.slice(dot + 1)] = value;
  }
  for (const [head, members] of branches) {
    const inner = nest(members);
    const own = tree[head];
    if (typeof own === "function") {
      for (const [key, value] of Object.entries(inner)) put(own, key, value);
      Object.freeze(own);
    } else tree[head] = inner;
  }
  return Object.freeze(tree);
};
