/**
 * Lazy branches: a branch of a contract whose handlers are loaded on its first call, for a cold
 * start that pays only for what it runs.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { isFromResult, type Method } from "../core/methods";
import { requestCancelled } from "../core/progress-wire";
import { follow, signalIn, type Followed } from "../core/signal";

/**
 * A branch of handlers loaded on its first call: what {@link lazy} makes, given in `implement`'s
 * handlers where the branch's handlers would be. `T` is the implemented table it loads.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement, lazy, type Implemented, type Lazy, type NoContext } from "rpcserver";
 * const admin = contract({ ban: { params: t.tuple([t.string]), result: t.boolean } });
 * const later: Lazy<Implemented<typeof admin.methods, NoContext>> = lazy(async () => ({
 *   default: implement(admin, { ban: () => E.right(true) }),
 * }));
 *
 * @since 5.0.10
 * @category contract
 */
export interface Lazy<T> {
  readonly _tag: "Lazy";
  /** The table, loaded once: concurrent first calls share one load; a load that fails is tried again at the next call. */
  readonly load: () => Promise<unknown>;
  /** The type of the table it loads (never set: a phantom, for the compiler). */
  readonly _table?: T;
}

/**
 * A module namespace's default export when it has one (`import()` of a module that exports the
 * table as default), else the value; a table whose method is named `default` (a function) is the
 * table itself.
 */
type DefaultOf<L> = L extends { readonly default: infer D } ? (D extends (...args: never[]) => unknown ? L : D) : L;

/**
 * The table a loader's answer holds: its default export, and that one's when it has one too
 * (`import()` of a CommonJS module compiled from `export default`, typed `{ default: { default: T } }`
 * under `"module": "nodenext"`).
 */
type TableOf<L> = DefaultOf<DefaultOf<L>>;

/**
 * A branch loaded on its first call: `load` answers the branch's implemented table (what
 * `implement(branchContract, handlers)` made), or a module whose default export is one
 * (`() => import("./admin.js")`); a named export is `() => import("./admin.js").then((m) => m.admin)`.
 * The first call to any method of the branch loads it, once (concurrent first calls share that
 * load); a load that fails (or answers no table) fails the calls waiting for it (-32603 Internal
 * error, the cause logged, and in its `data` with `debug`) and is tried again at the next call.
 * `rpc.discover` lists the branch from the contract, without loading it.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { asyncDispatch, contract, implement, lazy } from "rpcserver";
 * const admin = contract({ ban: { params: t.tuple([t.string]), result: t.boolean } });
 * const api = contract({ admin, ping: { result: t.string } });
 * // In an application: lazy(() => import("./admin.js")), the module's default export the table.
 * const methods = implement(api, {
 *   admin: lazy(async () => implement(admin, { ban: () => E.right(true) })),
 *   ping: () => E.right("pong"),
 * });
 * await asyncDispatch('{"jsonrpc":"2.0","method":"admin.ban","params":["eve"],"id":1}', methods);
 * // '{"jsonrpc":"2.0","result":true,"id":1}'
 *
 * @since 5.0.10
 * @category contract
 */
export const lazy = <L>(load: () => PromiseLike<L>): Lazy<TableOf<L>> => {
  if (typeof load !== "function")
    throw new TypeError(`lazy: expected a function that loads a table, got ${typeof load}`);
  let pending: Promise<unknown> | undefined;
  const once = (): Promise<unknown> => {
    if (pending === undefined) {
      const loading = Promise.resolve()
        .then(load)
        .then((value) => {
          const table = tableOf(value);
          if (table === undefined)
            throw new TypeError("it answered no table (an object of methods, or a module whose default export is one)");
          return table;
        });
      pending = loading;
      // A failed load is forgotten, so that the next call tries again.
      loading.then(undefined, () => {
        if (pending === loading) pending = undefined;
      });
    }
    return pending;
  };
  return Object.freeze({ _tag: "Lazy" as const, load: once });
};

/**
 * The table a loader answered: a module's default export, or the value itself; `undefined` when
 * neither is an object. Node's own `import()` of a CommonJS module compiled from `export default`
 * gives `{ default: module.exports }`, its table one `default` further: taken too.
 */
const tableOf = (value: unknown): Readonly<Record<string, unknown>> | undefined => {
  if (!isObject(value)) return undefined;
  const module = isObject(value.default) ? value.default : value;
  return module.__esModule === true && isObject(module.default) ? module.default : module;
};

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null;

/** Is `value` a lazy branch? @internal */
export const isLazy = (value: unknown): value is Lazy<unknown> =>
  typeof value === "object" &&
  value !== null &&
  (value as { _tag?: unknown })._tag === "Lazy" &&
  typeof (value as { load?: unknown }).load === "function";

/**
 * The loaded table's `member` (a name within the branch, `audit.last`): its own entry of that name
 * (a table `implement` made is flat), or down its own branches (a tree of plain handlers).
 */
const memberOf = (table: Readonly<Record<string, unknown>>, member: string): unknown => {
  if (Object.hasOwn(table, member)) return table[member];
  for (let dot = member.indexOf("."); dot > 0; dot = member.indexOf(".", dot + 1)) {
    const head = member.slice(0, dot);
    const branch = Object.hasOwn(table, head) ? table[head] : undefined;
    if (isObject(branch)) {
      const found = memberOf(branch, member.slice(dot + 1));
      if (found !== undefined) return found;
    }
  }
  return undefined;
};

/** How a wait for a load ended: the table, what the load failed with, or the caller left first. */
type Outcome = { readonly loaded: unknown } | { readonly failed: unknown };
const LEFT = Symbol("left");

const settled = (loading: Promise<unknown>): Promise<Outcome> =>
  loading.then(
    (loaded) => ({ loaded }),
    (failed: unknown) => ({ failed }),
  );

/**
 * Each load's callers that may leave before it settles, and then its outcome. One reaction on the
 * load tells them all: a reaction per caller would keep every caller (its arguments, its request)
 * for as long as the load is pending, which for an `import()` that hangs is the life of the process.
 */
interface Load {
  readonly callers: Set<(outcome: Outcome) => void>;
  outcome?: Outcome;
}
const loads = new WeakMap<Promise<unknown>, Load>();

const until = (loading: Promise<unknown>, signal: Followed): Promise<Outcome | typeof LEFT> => {
  let load = loads.get(loading);
  if (load === undefined) {
    const created: Load = { callers: new Set() };
    loads.set(loading, created);
    void settled(loading).then((outcome) => {
      created.outcome = outcome;
      for (const caller of created.callers) caller(outcome);
      created.callers.clear();
    });
    load = created;
  }
  if (load.outcome !== undefined) return Promise.resolve(load.outcome);
  const { callers } = load;
  return new Promise((resolve) => {
    let letGo = (): void => undefined;
    const caller = (outcome: Outcome): void => {
      letGo();
      resolve(outcome);
    };
    callers.add(caller);
    letGo = follow(signal, () => {
      callers.delete(caller);
      resolve(LEFT);
    });
  });
};

const messageOf = (thrown: unknown): string => (thrown instanceof globalThis.Error ? thrown.message : String(thrown));

/**
 * The method that stands for `member` of lazy branch `branch` (named `where`) until it is loaded:
 * it loads the branch (once) and calls the loaded method with the arguments dispatch gives it. It
 * answers in the contract vocabulary (it is marked so by `implement`), and takes the loaded method
 * as `implement` takes a handler: in that vocabulary (an Either, or a TaskEither, which it runs)
 * unless `fromResult` marked it, whose Right's `result` is taken out. @internal
 */
export const lazyMethod = (branch: Lazy<unknown>, member: string, where: string, contextual: boolean): Method => {
  const method = async (...args: unknown[]): Promise<unknown> => {
    // With a context, the request's signal (a cancel, the client gone, a `timeout`) ends the wait
    // for a load that may never settle: -32800, and nothing of the call is kept by the load.
    const signal = contextual ? signalIn(args[0]) : undefined;
    const outcome = await (signal === undefined ? settled(branch.load()) : until(branch.load(), signal));
    if (outcome === LEFT) throw requestCancelled();
    if ("failed" in outcome) {
      const cause = outcome.failed;
      throw new globalThis.Error(`the branch "${where}" could not be loaded: ${messageOf(cause)}`, { cause });
    }
    const table = outcome.loaded;
    const loaded = memberOf(table as Readonly<Record<string, unknown>>, member);
    if (typeof loaded !== "function") throw new TypeError(`the branch "${where}" loaded has no method "${member}"`);
    const returned: unknown = (loaded as (...a: unknown[]) => unknown)(...args);
    if (!isFromResult(loaded)) return typeof returned === "function" ? (returned as () => unknown)() : returned;
    const result = await returned;
    return E.isRight(result as E.Either<unknown, { result: unknown }>)
      ? E.right((result as E.Right<{ result: unknown }>).right.result)
      : result;
  };
  return method as unknown as Method;
};
