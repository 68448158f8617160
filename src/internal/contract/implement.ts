/**
 * The server side of a contract: handlers typed by it, and the context typed through your stages.
 *
 * Handlers speak one vocabulary, fp-ts's: an `Either<ErrorResult, A>`, a `TaskEither` of one, or a
 * Promise of one, where `A` is the contract's decoded result type. `Error(...)` and
 * `InvalidParams(...)` are such Lefts. A function written with `Success` (a `Result`) joins through
 * {@link fromResult}: a `Right({ result: 1 })` is both a `Result<number>` and an
 * `Either<ErrorResult, { result: number }>`, so only the way a function was registered can say
 * which it meant.
 *
 * @module
 */
import type * as E from "fp-ts/Either";
import type { TaskEither } from "fp-ts/TaskEither";
import type * as t from "io-ts";
import { asyncDispatch } from "../core/async-dispatch";
import type { AddsSignal, After, Expects, NoContext, Refused, TypedAround, TypedStages } from "../core/context-marks";
import { scoped } from "./branch-stages";
import { isContract, type ArgsOf, type Contract, type Entries, type Entry, type HandlerResultOf } from "./contract";
import { isLazy, lazyMethod, type Lazy } from "./lazy";
import { joinName, nameUnder, type BranchNames, type BranchOf, type LeafNames } from "./names";
import {
  isFromResult,
  markContextual,
  markFromResult,
  markOutcome,
  paramsCodecOf,
  resultCodecOf,
  streamCodecOf,
  withCodecs,
  type Method,
  type Methods,
} from "../core/methods";
import type { JsonOptions } from "../core/options";
import type { ErrorOf, ErrorResult, SuccessResult, UndeclaredErrorOf } from "../core/result";
import type { ResultOfSchema, Schema, StandardSchemaV1 } from "../core/schema";
import type { AnyStage, Around, Call } from "../core/stages";

/**
 * What a contract handler returns for results of type `A`: an Either, a TaskEither, or a Promise
 * of an Either. Its Right is the result (encoded by the contract's result codec before it is sent),
 * its Left the JSON-RPC error (`L`: any `ErrorResult`, or the errors an entry allows, see
 * {@link ErrorsOf}).
 *
 * @example
 * import * as TE from "fp-ts/TaskEither";
 * import type { Outcome } from "rpcserver";
 * const answer: Outcome<number> = TE.right(42);
 *
 * @since 5.0.10
 * @category contract
 */
export type Outcome<A, L = ErrorResult> = E.Either<L, A> | TaskEither<L, A> | PromiseLike<E.Either<L, A>>;

/**
 * A handler's arguments: the context first when the server has one (the dispatch rule), then the
 * method's arguments.
 *
 * @since 5.0.10
 * @category contract
 */
export type HandlerArgs<Entry, C> = [C] extends [NoContext] ? ArgsOf<Entry> : [context: C, ...ArgsOf<Entry>];

/**
 * The handler of a contract entry under context `C`. For an entry with `stream`, it may also be an
 * `async function*` that yields values of the stream codec's type (a stream schema's input) and
 * returns the Either.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import type { HandlerFor, NoContext } from "rpcserver";
 * const add: HandlerFor<{ params: t.TupleC<[t.NumberC, t.NumberC]>; result: t.NumberC }, NoContext> = (a, b) => E.right(a + b);
 * add(1, 2); // { _tag: "Right", right: 3 }
 *
 * @since 5.0.10
 * @category contract
 */
export type HandlerFor<Entry, C> = (
  ...args: HandlerArgs<Entry, C>
) =>
  | Outcome<HandlerResultOf<Entry>, ErrorsOf<Entry>>
  | (Entry extends { readonly stream: infer S extends Schema }
      ? AsyncGenerator<ResultOfSchema<S>, E.Either<ErrorsOf<Entry>, HandlerResultOf<Entry>>, unknown>
      : never);

/** The text of a standard JSON-RPC code, -32768 to -32000. */
type Digit = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9";
type StandardCodeText =
  | `-32${"0" | "1" | "2" | "3" | "4" | "5" | "6"}${Digit}${Digit}`
  | `-327${"0" | "1" | "2" | "3" | "4" | "5"}${Digit}`
  | `-3276${"0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8"}`;
type NumberOf<S> = S extends `${infer N extends number}` ? N : never;

/**
 * The codes JSON-RPC reserves, -32768 to -32000 (-32602 Invalid params, -32603 Internal error,
 * -32000 to -32099 for the server): a contract handler may always answer them.
 *
 * @example
 * import type { StandardCode } from "rpcserver";
 * const invalidParams: StandardCode = -32602;
 *
 * @since 5.0.10
 * @category contract
 */
export type StandardCode = NumberOf<StandardCodeText>;

/** A declared error's data in its wire form (what the client's schema reads): any, without a schema. */
type WireData<S> = S extends t.Any
  ? t.OutputOf<S>
  : S extends StandardSchemaV1
    ? StandardSchemaV1.InferInput<S>
    : S extends t.Decoder<infer I, unknown>
      ? I
      : unknown;

/** Each declaration of `X` as the error it allows: its code, with its data's type. */
type Declared<X> = X extends { readonly code: infer C extends number }
  ? ErrorOf<C, X extends { readonly data: infer S } ? WireData<S> : unknown>
  : never;

/** The codes of declarations `X`: `number` when one is not a literal (then they cannot be checked). */
type CodeOf<X> = X extends { readonly code: infer C extends number } ? C : number;

/**
 * The errors a handler of contract entry `Entry` may answer. An entry that declares `errors` (with
 * literal codes: a contract written inline) is held to them, as its client trusts them: each
 * declared code with its declared data (in wire form), a standard code (-32768 to -32000), or an
 * `UndeclaredError(...)`, the visible opt-in; anything else does not compile, the compiler's
 * message naming the code given and the ones allowed. `errors: []` allows only the standard codes
 * and opt-ins. An entry without `errors` declares nothing its client could trust: any
 * `ErrorResult`.
 *
 * @example
 * import * as t from "io-ts";
 * import type { ErrorsOf } from "rpcserver";
 * type Allowed = ErrorsOf<{ errors: readonly [{ code: 404; message: string; data: t.TypeC<{ id: t.NumberC }> }] }>;
 * // ErrorOf<404, { id: number }> | ErrorOf<StandardCode, unknown> | UndeclaredErrorOf
 *
 * @since 5.0.10
 * @category contract
 */
export type ErrorsOf<Entry> = Entry extends { readonly errors: ReadonlyArray<infer X> }
  ? number extends CodeOf<X>
    ? ErrorResult
    : Declared<X> | ErrorOf<StandardCode, unknown> | UndeclaredErrorOf
  : ErrorResult;

/**
 * One handler per method of contract entries `M`, under context `C`.
 *
 * @since 5.0.10
 * @category contract
 */
export type Handlers<M extends Entries, C> = { readonly [K in keyof M]: HandlerFor<M[K], C> | MethodServer<M[K], C> };

/**
 * The handlers of contract entries `M` as a tree: for a contract that holds contracts, each
 * branch's handlers under its name (`{ users: { get, list }, ping }` for `users.get`,
 * `users.list` and `ping`), at any depth. A branch may also be given whole (see {@link Branch}).
 * For a contract without dotted names it is {@link Handlers}.
 *
 * @example
 * import * as t from "io-ts";
 * import * as E from "fp-ts/Either";
 * import { contract, type HandlerTree, type NoContext } from "rpcserver";
 * const users = contract({ get: { params: t.tuple([t.number]), result: t.string } });
 * const api = contract({ users });
 * const handlers: HandlerTree<typeof api.methods, NoContext> = { users: { get: (id) => E.right(`user ${id}`) } };
 *
 * @since 5.0.10
 * @category contract
 */
export type HandlerTree<M extends Entries, C> = {
  readonly [K in LeafNames<keyof M> | BranchNames<keyof M>]: (K extends keyof M
    ? HandlerFor<M[K], C> | MethodServer<M[K], C>
    : unknown) &
    (K extends BranchNames<keyof M> & string ? Branch<BranchEntries<M, K>, C> : unknown);
};

/**
 * The entries of branch `K` of `M`, computed (`BranchOf` as a type of its own): a compile error in
 * a branch then shows the branch's own entries (`Handlers<{ get: ...; list: ... }, C>`), not the
 * whole contract's under `BranchOf<...>`.
 */
type BranchEntries<M, K extends string> = {
  readonly [N in keyof BranchOf<M, K>]: BranchOf<M, K>[N];
} extends infer B extends Entries
  ? B
  : never;

// The table is taken as flat handlers (each of its methods is typed as its handler too): a union
// member of its own, whose methods' types differ from the handlers', would leave a handler's
// parameters without a contextual type.
/**
 * A branch of a {@link HandlerTree}: its handlers as a tree, or flat (by their names in the
 * branch), which is also how the table `implement` made of the branch's own contract is taken
 * (`implement(usersApi, {...})`, its methods reused as they are), or that table loaded on the
 * branch's first call ({@link lazy}).
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement, lazy, type Branch, type NoContext } from "rpcserver";
 * const users = contract({ get: { params: t.tuple([t.number]), result: t.string } });
 * const table = implement(users, { get: (id) => E.right(`user ${id}`) });
 * const asTree: Branch<typeof users.methods, NoContext> = { get: (id) => E.right(`user ${id}`) };
 * const asTable: Branch<typeof users.methods, NoContext> = table;
 * const loaded: Branch<typeof users.methods, NoContext> = lazy(async () => table);
 *
 * @since 5.0.10
 * @category contract
 */
export type Branch<M extends Entries, C> =
  HandlerTree<M, C> | Handlers<M, C> | Lazy<Implemented<M, C>> | BranchServer<M, C>;

/**
 * A branch given as a server of its own (`server(branchApi).context<C>().use(...).implement(...)`),
 * its stages applied to its methods alone, after the stages of the server it is in (the order
 * written): what they add to the context is typed in its handlers, and nowhere else. The context it
 * takes must be the one the enclosing server's stages hand on at that point (`C`).
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, server, type BranchServer } from "rpcserver";
 * const admin = contract({ ban: { params: t.tuple([t.string]), result: t.boolean } });
 * const branch: BranchServer<typeof admin.methods, { user: string }> = server(admin)
 *   .context<{ user: string }>()
 *   .use((call) => (call.context.user === "root" ? E.right(call) : E.left({ code: 403, message: "Forbidden" })))
 *   .implement({ ban: () => E.right(true) });
 *
 * @since 5.0.10
 * @category contract
 */
export interface BranchServer<M extends Entries, C> {
  readonly contract: Contract<M>;
  readonly methods: { readonly [K in keyof M]: Method };
  readonly stages: TypedStages<C, unknown>;
}

declare const FOR_ENTRY: unique symbol;

/**
 * One method given as a server of its own (`server(api.methods.ban).context<C>().use(...).implement(handler)`),
 * its stages applied to it alone, after the stages of the server (and branches) it is in (the
 * order written): what they add to the context is typed in its handler, and nowhere else. The
 * context it takes must be the one the enclosing server's stages hand on at that point (`C`).
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, server, type MethodServer } from "rpcserver";
 * const api = contract({ ban: { params: t.tuple([t.string]), result: t.boolean } });
 * const ban: MethodServer<typeof api.methods.ban, { user: string }> = server(api.methods.ban)
 *   .context<{ user: string }>()
 *   .use((call) => (call.context.user === "root" ? E.right(call) : E.left({ code: 403, message: "Forbidden" })))
 *   .implement(() => E.right(true));
 *
 * @since 5.0.10
 * @category contract
 */
export interface MethodServer<En, C> {
  /** The contract entry it implements. */
  readonly entry: En;
  /** Phantom, never present at run time: with `entry`, holds a method server to the one entry it was written for (not one with more). */
  readonly [FOR_ENTRY]?: (entry: En) => void;
  /** Its stages, in order, typed by the context they take (`C`): run for this method alone. */
  readonly stages: TypedStages<C, unknown>;
}

/**
 * No handler for a name the contract does not have (also for handlers held in a variable), in
 * each branch given as an object of handlers too.
 */
type NoExtra<H, M> = {
  readonly [
    K in Exclude<keyof H, keyof M | BranchNames<keyof M>>
  ]: `implement: "${K & string}" is not a method or a branch of the contract`;
} & {
  readonly [K in keyof H & BranchNames<keyof M>]: H[K] extends
    | Lazy<unknown>
    | ((...args: never[]) => unknown)
    | { readonly contract: Contract<Entries>; readonly stages: ReadonlyArray<AnyStage> }
    ? unknown
    : NoExtra<H[K], BranchOf<M, K & string>>;
};

/**
 * The methods table a contract's handlers make: one method per entry (by its full name), carrying
 * its codecs and documentation, and (in the types) the context it expects. Each method is also
 * typed as its handler, so that a table's methods can be given as handlers again (to `implement`,
 * or as a branch of a larger contract).
 *
 * @since 5.0.10
 * @category contract
 */
export type Implemented<M extends Entries, C> = {
  readonly [K in keyof M]: HandlerFor<M[K], C> & Method & Expects<C>;
};

/**
 * Lets a function written in the `Result` vocabulary (`Success(...)`, `Error(...)`, `Returns<A>`)
 * be a contract handler: it is marked, not wrapped, and registered as the method it already is.
 *
 * @example
 * import * as t from "io-ts";
 * import { contract, dispatch, fromResult, implement, Success } from "rpcserver";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * const methods = implement(api, { add: fromResult((a: number, b: number) => Success(a + b)) });
 * dispatch('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}', methods); // '{"jsonrpc":"2.0","result":3,"id":1}'
 *
 * @since 5.0.10
 * @category contract
 */
export const fromResult = <Args extends unknown[], A, L extends ErrorResult = ErrorResult>(
  f: (...args: Args) => E.Either<L, SuccessResult<A>> | PromiseLike<E.Either<L, SuccessResult<A>>>,
): ((...args: Args) => Outcome<A, ResultErrors<L>>) => {
  if (typeof f !== "function") throw new TypeError(`fromResult: expected a function, got ${typeof f}`);
  markFromResult(f);
  return f as unknown as (...args: Args) => Outcome<A, ResultErrors<L>>;
};

/**
 * The errors of a `Result`-vocabulary function as its entry's declared errors are checked: those
 * its type names (`Either<ErrorOf<404, { id: number }>, SuccessResult<A>>`), or none when it names
 * only `ErrorResult` (a `Result<A>`, what `Success` gives), whose codes the compiler cannot know.
 */
type ResultErrors<L> = (<X>() => X extends L ? 1 : 2) extends <X>() => X extends ErrorResult ? 1 : 2 ? never : L;

/** What `implement` made of each method: its entry, and whether it takes a context. */
const made = new WeakMap<Method, { readonly entry: Entry; readonly contextual: boolean }>();

/**
 * The function to mark for an entry: the handler itself (no wrapper, no cost), unless it already
 * is a method `implement` made (the same function given twice, or a table's method given for
 * another entry) or carries codecs of its own: then a wrapper of the same length, so that each
 * entry keeps its own codecs.
 */
const ownable = (handler: Method): Method => {
  if (
    !made.has(handler) &&
    paramsCodecOf(handler) === undefined &&
    resultCodecOf(handler) === undefined &&
    streamCodecOf(handler) === undefined
  ) {
    return handler;
  }
  const call = handler as (...args: unknown[]) => unknown;
  const wrapper = (...args: unknown[]): unknown => call(...args);
  Object.defineProperty(wrapper, "length", { value: handler.length });
  return wrapper as Method;
};

/** A branch given as a server of its own: its table, and stages for its methods alone. */
interface GivenServer {
  readonly methods: object;
  readonly stages: ReadonlyArray<AnyStage>;
}

const isGivenServer = (value: unknown): value is GivenServer =>
  typeof value === "object" &&
  value !== null &&
  Array.isArray((value as { stages?: unknown }).stages) &&
  isContract((value as { contract?: unknown }).contract) &&
  typeof (value as { methods?: unknown }).methods === "object";

/** A method given as a server of its own: its handler, its stages, and whether it takes a context. */
interface GivenMethod {
  readonly handler: Method;
  readonly stages: ReadonlyArray<AnyStage>;
  readonly contextual: boolean;
}

/** The method servers `server(entry)...implement(handler)` made (a value of any other shape is not one). */
const methodServers = new WeakMap<object, GivenMethod>();

/** What a tree of handlers holds: handlers by full name, lazy branches, branch and method servers by name. */
interface Gathered {
  readonly found: Map<string, unknown>;
  readonly lazies: Map<string, Lazy<unknown>>;
  readonly servers: Array<readonly [where: string, server: GivenServer]>;
  readonly methodServers: Array<readonly [name: string, method: GivenMethod]>;
}

/**
 * Gathers a tree: a function is a handler, a lazy branch is kept whole, a method server is its
 * handler (its stages kept aside), a branch server's table is read under its name (its stages kept
 * aside), and any other object is a branch (its handlers, or a table `implement` made) read the
 * same way under its name.
 */
const gather = (handlers: object, prefix: string, into: Gathered): void => {
  for (const [key, value] of Object.entries(handlers) as Array<[string, unknown]>) {
    const name = prefix === "" ? key : joinName(prefix, key);
    if (into.found.has(name) || into.lazies.has(name)) throw new TypeError(`implement: "${name}" is given twice`);
    const given = typeof value === "object" && value !== null ? methodServers.get(value) : undefined;
    if (isLazy(value)) into.lazies.set(name, value);
    else if (given !== undefined) {
      into.methodServers.push([name, given]);
      into.found.set(name, given.handler);
    } else if (isGivenServer(value)) {
      into.servers.push([name, value]);
      gather(value.methods, name, into);
    } else if (typeof value === "object" && value !== null) gather(value, name, into);
    else into.found.set(name, value);
  }
};

/** The lazy branch whose name is the longest prefix of `name`: its name, it, and `name` under it. */
const lazyOf = (
  lazies: ReadonlyMap<string, Lazy<unknown>>,
  name: string,
): readonly [where: string, branch: Lazy<unknown>, member: string] | undefined => {
  let best: readonly [string, Lazy<unknown>, string] | undefined;
  for (const [where, branch] of lazies) {
    const member = nameUnder(where, name);
    if (member !== undefined && (best === undefined || where.length > best[0].length)) best = [where, branch, member];
  }
  return best;
};

/** The method of `entry` for handler `given`: it as it is when `implement` made it for that entry, else marked (or a wrapper, see `ownable`). */
const methodOf = (entry: Entry, given: Method, contextual: boolean): Method => {
  const before = made.get(given);
  if (before !== undefined && before.entry === entry && before.contextual === contextual) return given;
  const fromResult = isFromResult(given);
  const f = ownable(given);
  // A Result-vocabulary function is a method already; any other answers in Eithers.
  if (!fromResult) markOutcome(f);
  if (contextual) markContextual(f);
  return withCodecs(entry, f as never);
};

/**
 * The table of `handlers` for contract `c`, and the stages its branch servers bring, each scoped to
 * its branch; `contextual` marks the handlers as taking a context.
 */
const tableOf = <M extends Entries, C>(
  c: Contract<M>,
  handlers: object,
  contextual: boolean,
): { readonly methods: Implemented<M, C>; readonly branchStages: ReadonlyArray<AnyStage> } => {
  if (typeof handlers !== "object" || handlers === null) {
    throw new TypeError(`implement: expected an object of handlers, got ${String(handlers)}`);
  }
  const gathered: Gathered = { found: new Map(), lazies: new Map(), servers: [], methodServers: [] };
  gather(handlers, "", gathered);
  const { found, lazies, servers } = gathered;
  for (const name of found.keys()) {
    if (!Object.hasOwn(c.methods, name)) throw new TypeError(`implement: "${name}" is not a method of the contract`);
  }
  const names = Object.keys(c.methods);
  for (const where of lazies.keys()) {
    if (!names.some((name) => nameUnder(where, name) !== undefined)) {
      throw new TypeError(`implement: "${where}" is not a branch of the contract`);
    }
  }
  // A branch or method server's handlers were written for its own context: one the enclosing server
  // does not hand on (or hands on where it takes none) would receive the wrong arguments.
  const sameContext = (what: string, takes: boolean): void => {
    if (takes !== contextual) {
      throw new TypeError(
        `implement: ${what} is a server ${takes ? "with" : "without"} a context, in one ${contextual ? "with" : "without"}`,
      );
    }
  };
  for (const [where, given] of servers) {
    sameContext(
      `the branch "${where}"`,
      Object.values(given.methods).some((method) => made.get(method as Method)?.contextual === true),
    );
  }
  for (const [name, given] of gathered.methodServers) sameContext(`the method "${name}"`, given.contextual);
  const methods = Object.create(null) as Record<string, Method>;
  for (const [name, entry] of Object.entries(c.methods)) {
    const handler = found.get(name);
    const branch = lazyOf(lazies, name);
    if (branch !== undefined && handler !== undefined) {
      throw new TypeError(`implement: "${name}" is given twice (a handler, and in the lazy branch "${branch[0]}")`);
    }
    let method: Method;
    if (branch !== undefined) {
      const [where, load, member] = branch;
      method = markOutcome(lazyMethod(load, member, where, contextual));
      if (contextual) markContextual(method);
      method = withCodecs(entry, method as never);
    } else {
      if (typeof handler !== "function") throw new TypeError(`implement: no handler for "${name}"`);
      method = methodOf(entry, handler as Method, contextual);
    }
    made.set(method, { entry, contextual });
    methods[name] = method;
  }
  const branchStages = [
    ...servers.flatMap(([where, given]) => given.stages.map((stage) => scoped(where, stage))),
    ...gathered.methodServers.flatMap(([name, given]) => given.stages.map((stage) => scoped(name, stage, true))),
  ];
  return { methods: Object.freeze(methods) as Implemented<M, C>, branchStages };
};

/** The table of `handlers` for contract `c`, for `implement`: it has no stages to run a branch or method server's. */
const methodsOf = <M extends Entries>(c: Contract<M>, handlers: object): Implemented<M, NoContext> => {
  const { methods, branchStages } = tableOf<M, NoContext>(c, handlers, false);
  if (branchStages.length > 0) {
    throw new TypeError(
      "implement: a branch or method is a server with stages, which a methods table cannot run: use server(api).implement(...)",
    );
  }
  return methods;
};

/**
 * Implements a contract without a context: one handler per method, typed by the contract (its
 * decoded params in, an {@link Outcome} of its decoded result out). A missing handler, or one the
 * contract does not name, is a compile error and a `TypeError`. The table is like any other:
 * dispatch, `serve`, the `rpcserver` command and `openRpcDocument` take it. With a context or
 * stages, use {@link server}.
 *
 * For a contract that holds contracts, the handlers are a tree ({@link HandlerTree}): each
 * branch's under its name, or the branch whole: a table `implement` made of the branch's own
 * contract (its methods reused as they are), or {@link lazy} to load it on its first call. The
 * flat form (`{ "users.get": ... }`) is taken too.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, dispatch, Error, implement } from "rpcserver";
 * const api = contract({ half: { params: t.tuple([t.number]), result: t.number } });
 * const methods = implement(api, { half: (n) => (n % 2 === 0 ? E.right(n / 2) : Error(1, "odd")) });
 * dispatch('{"jsonrpc":"2.0","method":"half","params":[4],"id":1}', methods); // '{"jsonrpc":"2.0","result":2,"id":1}'
 * // Nested: a branch's table made apart, and reused whole.
 * const users = contract({ get: { params: t.tuple([t.number]), result: t.string } });
 * const usersTable = implement(users, { get: (id) => E.right(`user ${id}`) });
 * const service = contract({ users, math: api });
 * const all = implement(service, { users: usersTable, math: { half: methods.half } });
 * dispatch('{"jsonrpc":"2.0","method":"users.get","params":[7],"id":2}', all); // '{"jsonrpc":"2.0","result":"user 7","id":2}'
 *
 * @since 5.0.10
 * @category contract
 */
export const implement = <M extends Entries, H extends Handlers<M, NoContext> | HandlerTree<M, NoContext>>(
  c: Contract<M>,
  handlers: H & NoExtra<H, M>,
): Implemented<M, NoContext> => methodsOf(c, handlers);

/** The context argument of a server's `dispatch` and `options`: none without a context. */
type ContextArg<In> = [In] extends [NoContext] ? [] : [context: In];

/**
 * A contract implemented under a context and stages: its methods table, its stages, and the
 * dispatch options to pass with them (the context checked against the declared type).
 *
 * @since 5.0.10
 * @category contract
 */
export interface Server<M extends Entries, In, Cur> {
  readonly contract: Contract<M>;
  /** The methods table, for dispatch, `serve`, the command and `openRpcDocument`. */
  readonly methods: Implemented<M, Cur>;
  /**
   * The stages, in order, typed by the context they take (`In`) and give the handlers (`Cur`): a
   * dispatch given them checks its `context` against `In`.
   */
  readonly stages: TypedStages<In, Cur>;
  /** Dispatch options: the stages and, when the server has one, the context. */
  readonly options: (...context: ContextArg<In>) => {
    readonly context?: In;
    readonly stages: TypedStages<In, Cur>;
  };
  /** `asyncDispatch` of a request body with this server's methods, stages and the context given. */
  readonly dispatch: (request: string | Uint8Array, ...context: ContextArg<In>) => Promise<string>;
}

/** What a stage function answers for a call whose context becomes `Next`. */
type StageOut<Next> =
  | E.Either<ErrorResult, Call<Next>>
  | TaskEither<ErrorResult, Call<Next>>
  | PromiseLike<E.Either<ErrorResult, Call<Next>>>;

/** An untyped `Around` stage `S`, taken where the context is `Cur` unless it refuses it. */
type UntypedAround<S, Cur> = S & (After<S, Cur> extends Refused<unknown> ? never : unknown);

/** The context after untyped `Around` stage `S`: as it was, with `timeout`'s signal if `S` adds it. */
type AfterAround<S, Cur> = S extends AddsSignal ? After<S, Cur> : Cur;

/**
 * A server under construction: the context it is dispatched with (`In`), and the one its next
 * stage and, at the end, its handlers receive (`Cur`).
 *
 * @since 5.0.10
 * @category contract
 */
export interface ServerBuilder<M extends Entries, In, Cur> {
  /** Declares the context dispatch hands the server (before any stage). */
  readonly context: <C>() => ServerBuilder<M, C, C>;
  /**
   * Adds a stage: later stages and the handlers receive the context it passes on. `observe` and
   * `timeout` are typed by where they stand; a stage of yours by its parameter and answer.
   */
  // The typed Around first: a lambda inside `observe((o) => ...)` is typed by the first overload
  // tried, and keeps that type.
  /** An `observe` or `timeout` stage (or any typed `Around`): typed by where it stands. */
  use<Next>(stage: TypedAround<Cur, Next>): ServerBuilder<M, In, Next>;
  /** A stage function of yours: its answer's call types the context after it. */
  use<Next>(stage: (call: Call<Cur>) => StageOut<Next>): ServerBuilder<M, In, Next>;
  /** An untyped `Around` stage: the context passes through it unchanged. */
  use<S extends Around>(stage: UntypedAround<S, Cur>): ServerBuilder<M, In, AfterAround<S, Cur>>;
  /** Implements the contract: one handler per method, each receiving the context (if any) first. */
  readonly implement: <H extends Handlers<M, Cur> | HandlerTree<M, Cur>>(
    handlers: H & NoExtra<H, M>,
  ) => Server<M, In, Cur>;
}

/**
 * A server of one method under construction (`server(api.methods.ban)`), to be given as that
 * method in the handlers of a server of the contract: the context it takes (`In`), and the one its
 * next stage and, at the end, its handler receive (`Cur`). Its `use` is {@link ServerBuilder}'s.
 *
 * @since 5.0.10
 * @category contract
 */
export interface MethodServerBuilder<En, In, Cur> {
  /** Declares the context the enclosing server hands the method (before any of its own stages). */
  readonly context: <C>() => MethodServerBuilder<En, C, C>;
  /** An `observe` or `timeout` stage (or any typed `Around`): typed by where it stands. */
  use<Next>(stage: TypedAround<Cur, Next>): MethodServerBuilder<En, In, Next>;
  /** A stage function of yours: its answer's call types the context after it. */
  use<Next>(stage: (call: Call<Cur>) => StageOut<Next>): MethodServerBuilder<En, In, Next>;
  /** An untyped `Around` stage: the context passes through it unchanged. */
  use<S extends Around>(stage: UntypedAround<S, Cur>): MethodServerBuilder<En, In, AfterAround<S, Cur>>;
  /** Implements the method: its handler, receiving the context (if any) first. */
  readonly implement: (handler: HandlerFor<En, Cur>) => MethodServer<En, In>;
}

/**
 * A builder's `context` and `use`, the one way for a contract and for one method: `finish` makes
 * its `implement` from the stages written and whether a context was declared.
 */
const building = <I>(
  stages: ReadonlyArray<AnyStage>,
  contextual: boolean,
  finish: (stages: ReadonlyArray<AnyStage>, contextual: boolean) => I,
): { readonly context: () => unknown; readonly use: (stage: AnyStage) => unknown; readonly implement: I } => ({
  context: () => building(stages, true, finish),
  use: (stage) => building([...stages, stage], contextual, finish),
  implement: finish(stages, contextual),
});

/** `implement` of a server of contract `c`. */
const implementContract =
  <M extends Entries>(c: Contract<M>) =>
  (stages: ReadonlyArray<AnyStage>, contextual: boolean) =>
  (handlers: object): Server<M, unknown, unknown> => {
    const { methods, branchStages } = tableOf<M, unknown>(c, handlers, contextual);
    // The stages' type says what they do to the context; at run time they are the list as it is,
    // then the branch and method servers' stages, each for its branch or method.
    const typed = (branchStages.length === 0 ? stages : [...stages, ...branchStages]) as TypedStages<unknown, unknown>;
    const options = (...context: unknown[]) =>
      context.length === 0 ? { stages: typed } : { context: context[0], stages: typed };
    const dispatch = (request: string | Uint8Array, ...context: unknown[]): Promise<string> =>
      asyncDispatch(request, methods as Methods, options(...context) as JsonOptions);
    return Object.freeze({ contract: c, methods, stages: typed, options, dispatch });
  };

/** `implement` of a server of one method, contract entry `entry`: the handler is checked where it is given. */
const implementMethod =
  <En>(entry: En) =>
  (stages: ReadonlyArray<AnyStage>, contextual: boolean) =>
  (handler: unknown): MethodServer<En, unknown> => {
    if (typeof handler !== "function")
      throw new TypeError(`server(entry).implement: expected a function, got ${typeof handler}`);
    const made = Object.freeze({ entry, stages: stages as TypedStages<unknown, unknown> });
    methodServers.set(made, { handler: handler as Method, stages, contextual });
    return made;
  };

/**
 * Starts a server for a contract, to declare its context and stages before its handlers:
 * `server(api).context<Ctx>().use(stage).implement(handlers)`. Each stage's answer types the
 * context the next one and the handlers receive (an auth stage turning `{ token }` into `{ user }`
 * gives the handlers `{ user }`); `observe` sees the context typed where it stands, `timeout` adds
 * its `signal`. A mismatch anywhere is a compile error.
 *
 * Given one of the contract's entries (`server(api.methods.ban)`), it starts a server of that one
 * method, written the same way, with `implement(handler)`: given as that method's handler to a
 * server of the contract, its stages run for that method alone, after the enclosing server's (and
 * branches'), and what they add is typed in its handler alone (see {@link MethodServer}).
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, Error, server, type Call } from "rpcserver";
 * const api = contract({ whoami: { result: t.string } });
 * const auth = (call: Call<{ token: string }>) =>
 *   call.context.token === "t1" ? E.right({ ...call, context: { user: "ann" } }) : Error(401, "Unauthorized");
 * const app = server(api).context<{ token: string }>().use(auth).implement({ whoami: (ctx) => E.right(ctx.user) });
 * await app.dispatch('{"jsonrpc":"2.0","method":"whoami","id":1}', { token: "t1" }); // '{"jsonrpc":"2.0","result":"ann","id":1}'
 * await app.dispatch('{"jsonrpc":"2.0","method":"whoami","id":2}', { token: "t2" });
 * // '{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized"},"id":2}'
 *
 * @since 5.0.10
 * @category contract
 */
export const server: {
  <M extends Entries>(c: Contract<M>): ServerBuilder<M, NoContext, NoContext>;
  <En extends Entry>(entry: En): MethodServerBuilder<En, NoContext, NoContext>;
} = (target: object) => {
  if (isContract(target)) return building([], false, implementContract(target)) as never;
  if (typeof target !== "object" || target === null) {
    throw new TypeError(`server: expected a contract or one of its entries, got ${String(target)}`);
  }
  return building([], false, implementMethod(target)) as never;
};
