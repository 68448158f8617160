/**
 * OpenRPC: a document describing a methods table, derived from the codecs its methods carry, and
 * the method `rpc.discover` that answers with it.
 *
 * Rules:
 * - The document is OpenRPC 1.3.2: `openrpc`, the `info` the caller gives, the methods in the
 *   table's order (registration order for `globalMethods`), and `components.schemas` for the
 *   recursive codecs (`t.recursion`) the schemas refer to, and for the definitions and
 *   self-references of Standard Schemas' own JSON Schemas. `rpc.discover` itself is not listed,
 *   nor a method named `""` (dispatch serves it, but OpenRPC names have at least one character).
 * - Params: a method whose params codec describes an object (`t.type`, `t.partial`, `t.strict`,
 *   `t.exact`, their intersections) has one param per property, `paramStructure: "by-name"`; a
 *   tuple codec, one param per element, `param0`, `param1`... (or the method's `paramNames`),
 *   `paramStructure: "by-position"`. Any other codec (an array of any length, a union...) cannot be
 *   split, nor an object with a property named `""` (no param can be): it is one param, named
 *   `params` (or `paramNames[0]`), whose schema is the whole params value. A method
 *   without a codec has as many params as its arity (`f.length`), each with the schema `{}`, by
 *   position.
 * - The context is never a param: dispatched with one, a method receives it first, so a method
 *   without a codec has one param fewer than its arity (never fewer than none) when the document
 *   is built `{ context: true }`, and always when it was made to take a context
 *   (`withContext<Ctx>()`, a contract server with a context). A params codec never holds it.
 * - `rpc.discover` describes the table it is dispatched with (the one given to `discover`, if
 *   any), with the context left out when that dispatch has one.
 * - Result: the schema of the result codec, `{}` without one, named `result`.
 * - Errors, examples, summary, description, tags, deprecated: as the method declares them
 *   ({@link MethodInfo}); an error's `data` is the schema of its codec, an example's params are
 *   listed under the names of the params.
 * - Schemas describe the wire form (see `toJsonSchema`). Building a document never throws on a
 *   codec it cannot describe (that schema becomes `{ description: <name> }`).
 *
 * @module
 */
import {
  globalMethods,
  isMethodMap,
  lookup,
  markDescribes,
  methodEntries,
  reservedNameOf,
  reserveName,
  type Method,
  type Methods,
} from "../core/methods";
import { Success, type Result } from "../core/result";
import { isMembers as isObject } from "../core/guards";
import { describeMethod, isDescribable } from "./describe-method";
import type { JsonSchema } from "./schema-walk";
import type { OpenRpcDocument, OpenRpcInfo, OpenRpcOptions } from "./openrpc-types";

/**
 * The OpenRPC version of the documents {@link openRpcDocument} builds.
 *
 * @example
 * import { OPENRPC_VERSION } from "rpcserver";
 * OPENRPC_VERSION; // "1.3.2"
 *
 * @since 5.0.10
 * @category openrpc
 */
export const OPENRPC_VERSION = "1.3.2";

/**
 * The name of the discovery method, which the JSON-RPC specification reserves (`rpc.` names) and
 * OpenRPC uses.
 *
 * @example
 * import { DISCOVER } from "rpcserver";
 * DISCOVER; // "rpc.discover"
 *
 * @since 5.0.10
 * @category openrpc
 */
export const DISCOVER = "rpc.discover";

/**
 * The document's info when the development server or the CLI is not given one (and the CLI's
 * module has no package.json naming it): a neutral name, never this library's, which is not the
 * service. @internal
 */
export const DEFAULT_INFO: { readonly title: string; readonly version: string } = {
  title: "JSON-RPC service",
  version: "0.0.0",
};

/** The discovery method answers for the table; it is not one of its methods. */
const isDiscovery = (name: string, f: Method): boolean => name === DISCOVER || reservedNameOf(f) === DISCOVER;

/**
 * The OpenRPC 1.3.2 document of a methods table (default `globalMethods`): each method's params
 * and result as JSON Schema, from the codecs it carries (`method`'s or `withCodecs`'s `params` and
 * `result`), and what it declares about itself (summary, description, tags, deprecated, errors,
 * examples). `info` is the caller's (`title` and `version` are required; `servers` goes to the
 * document's top level). Forms: `openRpcDocument(info)` for `globalMethods`, and
 * `openRpcDocument(methods, info, options?)` (`methods` `undefined` for `globalMethods`). The
 * document is plain JSON, built afresh at each call, so it shows the methods registered so far;
 * `rpc.discover` is not among them.
 *
 * `options.context` ({@link OpenRpcOptions}): say `true` when the methods are dispatched with a
 * context. A method without a params codec is described by its arity, and dispatch hands it the
 * context first: with `context: true` that first parameter is not listed. A method made to take
 * a context (`withContext<Ctx>()`, a contract server with a context) never lists it.
 *
 * @example
 * import * as t from "io-ts";
 * import { openRpcDocument, Success, withCodecs } from "rpcserver";
 * const methods = {
 *   add: withCodecs({ params: t.tuple([t.number, t.number]), result: t.number }, (a, b) => Success(a + b)),
 *   scale: (caller: { factor: number }, n: number) => Success(caller.factor * Number(n)),
 * };
 * const document = openRpcDocument(methods, { title: "Calculator", version: "1.0.0" }, { context: true });
 * document.methods[0]?.params;
 * // [{ name: "param0", schema: { type: "number" }, required: true }, { name: "param1", schema: { type: "number" }, required: true }]
 * // `n` only: the context is not a param.
 * document.methods[1]?.params; // [{ name: "param0", schema: {}, required: true }]
 *
 * @since 5.0.10
 * @category openrpc
 */
export function openRpcDocument(info: OpenRpcInfo): OpenRpcDocument;
export function openRpcDocument(
  methods: Methods | undefined,
  info: OpenRpcInfo,
  options?: OpenRpcOptions,
): OpenRpcDocument;
export function openRpcDocument(
  first: Methods | OpenRpcInfo | undefined,
  second?: OpenRpcInfo,
  options?: OpenRpcOptions,
): OpenRpcDocument {
  const [methods, given] =
    second === undefined
      ? [globalMethods, first as OpenRpcInfo]
      : [(first as Methods | undefined) ?? globalMethods, second];
  if (!isObject(given) || typeof given.title !== "string" || typeof given.version !== "string") {
    throw new TypeError("openRpcDocument: info must be an object with a title and a version (strings)");
  }
  if (!isObject(methods)) throw new TypeError("openRpcDocument: methods must be an object or a Map");
  if (options !== undefined && (!isObject(options) || !["boolean", "undefined"].includes(typeof options.context))) {
    throw new TypeError("openRpcDocument: options must be an object whose context, if given, is a boolean");
  }
  const context = options?.context === true;
  const { servers, ...info } = given;
  const components: Record<string, JsonSchema> = {};
  // A method whose name cannot be described (`""`) is left out: the document stays valid OpenRPC.
  const described = methodEntries(methods)
    .filter(([name, f]) => isDescribable(name) && !isDiscovery(name, f))
    .map(([name, f]) => describeMethod(name, f, components, context));
  return {
    openrpc: OPENRPC_VERSION,
    info,
    ...(servers === undefined ? {} : { servers }),
    methods: described,
    ...(Object.keys(components).length > 0 ? { components: { schemas: components } } : {}),
  };
}

/**
 * The method `rpc.discover`: it answers with the OpenRPC document of the table it is dispatched
 * with, or of `methods` when given, built at each call, so methods registered later are in it. Opt
 * in with `method(discover(info))` (registered under `rpc.discover` without the warning that other
 * `rpc.` names get; dispatch given no table dispatches with `globalMethods`, which it then
 * describes) or, for your own table, `{ ...methods, "rpc.discover": discover(info) }`. It takes no
 * params (any are ignored). When dispatch has a context, the document leaves it out
 * (`openRpcDocument`'s `{ context: true }`): a method without a params codec does not list its
 * first parameter. The development server and the `rpcserver` command answer `rpc.discover`
 * without being asked.
 *
 * Called directly rather than by dispatch, it describes `methods` (default `globalMethods`), and
 * takes an argument, if any, for the context (`rpc.discover` has no params).
 *
 * @example
 * import { discover, dispatch, Success } from "rpcserver";
 * const methods = { whoami: (caller: { user: string }) => Success(caller.user) };
 * const table = { ...methods, "rpc.discover": discover({ title: "Who", version: "1.0.0" }) };
 * dispatch('{"jsonrpc":"2.0","method":"rpc.discover","id":1}', table, { context: { user: "ann" } });
 * // '{"jsonrpc":"2.0","result":{"openrpc":"1.3.2","info":{"title":"Who","version":"1.0.0"},"methods":[{"name":"whoami","params":[],"result":{"name":"result","schema":{}}}]},"id":1}'
 *
 * @since 5.0.10
 * @category openrpc
 */
export const discover = (info: OpenRpcInfo, methods?: Methods): Method => {
  // Checked now, so that a bad info is the caller's TypeError rather than every call's -32603.
  openRpcDocument({}, info);
  return discovery(() => info, methods);
};

/**
 * `rpc.discover` for `methods` (when given; else the table it is dispatched with), with the info
 * `info()` gives at each call. Dispatch calls its mark, `describes`, with the table and whether it
 * has a context; a direct call has only its arguments to go by.
 */
const discovery = (info: () => OpenRpcInfo, methods: Methods | undefined): Method => {
  const describes = (dispatched: Methods, context: boolean): Result<OpenRpcDocument> =>
    Success(openRpcDocument(methods ?? dispatched, info(), { context }));
  // rpc.discover takes no params: an argument can only be a context.
  const f = (...args: readonly unknown[]): Result<OpenRpcDocument> => describes(globalMethods, args.length > 0);
  Object.defineProperty(f, "name", { value: DISCOVER, configurable: true });
  return markDescribes(reserveName(f, DISCOVER), describes);
};

/**
 * A methods table that answers `rpc.discover` for `methods` unless it has a method of that name:
 * what the development server dispatches to. Lookups go to `methods` each time, so methods
 * registered later are served and described; `info` is read at each `rpc.discover`, and the
 * context is left out of the document when the server dispatches with one. @internal
 */
export const withDiscovery = (methods: Methods, info: () => OpenRpcInfo): Methods => {
  const answer = discovery(info, methods);
  const isMap = isMethodMap(methods);
  const own = (name: string): Method | undefined => lookup(methods, isMap, name);
  /** A Map to dispatch (which calls only `get`), whose entries are those of `methods` and `rpc.discover`. */
  class Discoverable extends Map<string, Method> {
    override get(name: string): Method | undefined {
      return own(name) ?? (name === DISCOVER ? answer : undefined);
    }
    override has(name: string): boolean {
      return this.get(name) !== undefined;
    }
  }
  return new Discoverable();
};
