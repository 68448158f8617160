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
import { schemaIn, type JsonSchema } from "./jsonschema";
import {
  globalMethods,
  infoOf,
  isContextual,
  isMethodMap,
  lookup,
  markDescribes,
  methodEntries,
  reservedNameOf,
  reserveName,
  type Method,
  type MethodExample,
  type MethodInfo,
  type Methods,
  type MethodTag,
} from "./methods";
import { Success, type Result } from "./result";

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

/** The document's title when the development server or the CLI is not given one. @internal */
export const DEFAULT_TITLE = "rpcserver";

/**
 * What the caller says about the service: OpenRPC's info object (`title` and `version` required),
 * plus the `servers` where it can be reached, which go to the document's top level.
 *
 * @example
 * const info: OpenRpcInfo = { title: "Bank", version: "1.0.0", servers: [{ url: "http://localhost:5000/" }] };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface OpenRpcInfo {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
  readonly termsOfService?: string;
  readonly contact?: { readonly name?: string; readonly url?: string; readonly email?: string };
  readonly license?: { readonly name: string; readonly url?: string };
  /** Where the service can be reached: the document's `servers` (OpenRPC server objects). */
  readonly servers?: ReadonlyArray<{
    readonly url: string;
    readonly name?: string;
    readonly summary?: string;
    readonly description?: string;
  }>;
}

/**
 * An OpenRPC content descriptor: a named param or result and its JSON Schema.
 *
 * @example
 * const a: ContentDescriptor = { name: "a", schema: { type: "number" }, required: true };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface ContentDescriptor {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly required?: boolean;
  readonly description?: string;
}

/**
 * An OpenRPC example pairing: params by name, and the result.
 *
 * @example
 * const pairing: ExamplePairing = {
 *   name: "one plus two",
 *   params: [{ name: "a", value: 1 }, { name: "b", value: 2 }],
 *   result: { name: "result", value: 3 },
 * };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface ExamplePairing {
  readonly name: string;
  readonly summary?: string;
  readonly description?: string;
  readonly params: ReadonlyArray<{ readonly name: string; readonly value: unknown }>;
  readonly result: { readonly name: string; readonly value: unknown };
}

/**
 * One method in an OpenRPC document.
 *
 * @example
 * const ping: OpenRpcMethod = { name: "ping", params: [], result: { name: "result", schema: { type: "string" } } };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface OpenRpcMethod {
  readonly name: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: ReadonlyArray<{ readonly name: string; readonly description?: string }>;
  readonly paramStructure?: "by-name" | "by-position";
  readonly params: readonly ContentDescriptor[];
  readonly result: ContentDescriptor;
  readonly errors?: ReadonlyArray<{ readonly code: number; readonly message: string; readonly data?: JsonSchema }>;
  readonly examples?: readonly ExamplePairing[];
  readonly deprecated?: boolean;
}

/**
 * An OpenRPC 1.3.2 document, as {@link openRpcDocument} builds it: plain JSON.
 *
 * @example
 * import { openRpcDocument, type OpenRpcDocument } from "rpcserver";
 * const document: OpenRpcDocument = openRpcDocument({}, { title: "Empty", version: "0.0.0" });
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface OpenRpcDocument {
  readonly openrpc: string;
  readonly info: Omit<OpenRpcInfo, "servers">;
  readonly servers?: OpenRpcInfo["servers"];
  readonly methods: readonly OpenRpcMethod[];
  readonly components?: { readonly schemas: { readonly [name: string]: JsonSchema } };
}

/**
 * How the methods described are dispatched, beyond what they carry: `context: true` when dispatch
 * hands them a context (`dispatch(body, methods, { context })`, `serve`'s `context` option), so
 * that a method without a params codec does not list its first parameter, the context, as a param.
 * Default: no context.
 *
 * @example
 * import { openRpcDocument, Success, type OpenRpcOptions } from "rpcserver";
 * const options: OpenRpcOptions = { context: true };
 * const methods = { whoami: (caller: { user: string }) => Success(caller.user) };
 * openRpcDocument(methods, { title: "Who", version: "1.0.0" }, options).methods[0]?.params; // []
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface OpenRpcOptions {
  /** Whether dispatch hands the methods a context first. Default `false`. */
  readonly context?: boolean;
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null;

/** The discovery method answers for the table; it is not one of its methods. */
const isDiscovery = (name: string, f: Method): boolean => name === DISCOVER || reservedNameOf(f) === DISCOVER;

/**
 * OpenRPC requires every name it holds (a method's, a param's, an example's) to be a string of at
 * least one character (`minLength: 1` in its meta-schema): `""` cannot be described. A Map's key
 * may not even be a string.
 */
const isDescribable = (name: unknown): name is string => typeof name === "string" && name !== "";

/** A `$ref` into `components.schemas` followed once, to see the shape of a recursive params codec. */
const resolved = (schema: JsonSchema, components: Readonly<Record<string, JsonSchema>>): JsonSchema => {
  const ref = schema["$ref"];
  const prefix = "#/components/schemas/";
  if (typeof ref !== "string" || !ref.startsWith(prefix)) return schema;
  const key = ref.slice(prefix.length);
  return Object.prototype.hasOwnProperty.call(components, key) ? (components[key] ?? schema) : schema;
};

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * An object schema whose properties are all there is to it: its properties can be named params,
 * unless one of them cannot be named (`""`), which leaves the whole object one param.
 * `additionalProperties: true` is JSON Schema's default written out (Effect Schema writes it), so
 * it splits as its absence does; only a schema for the other members keeps the object whole.
 */
const isSplittableObject = (schema: JsonSchema): boolean =>
  schema["type"] === "object" &&
  isObject(schema["properties"]) &&
  Object.keys(schema["properties"]).every(isDescribable) &&
  Object.keys(schema).every((key) =>
    ["type", "properties", "required", "additionalProperties", "description"].includes(key),
  ) &&
  typeof (schema["additionalProperties"] ?? true) === "boolean";

/** A tuple schema (`items` as an array), or the empty tuple's. */
const isTuple = (schema: JsonSchema): boolean =>
  schema["type"] === "array" &&
  (Array.isArray(schema["items"]) || (schema["items"] === undefined && schema["maxItems"] === 0));

interface Params {
  readonly structure: "by-name" | "by-position" | undefined;
  readonly params: ContentDescriptor[];
  /** Whether the one param is the whole params value (a codec that cannot be split). */
  readonly whole?: true;
}

const positionalName = (names: readonly string[] | undefined, index: number): string => {
  const name = Array.isArray(names) ? (names as readonly unknown[])[index] : undefined;
  return typeof name === "string" && name !== "" ? name : `param${index}`;
};

/**
 * The params of a method, from its params codec (or its arity), and how they are passed. Without a
 * codec, the context (when there is one, or when the method was made to take one) is the first
 * parameter, and not a param.
 */
const paramsOf = (f: Method, info: MethodInfo, components: Record<string, JsonSchema>, context: boolean): Params => {
  const names = info.paramNames;
  if (info.params === undefined) {
    const length = typeof f.length === "number" && f.length > 0 ? f.length : 0;
    const arity = context || isContextual(f) ? Math.max(0, length - 1) : length;
    const params = Array.from({ length: arity }, (_, i) => ({
      name: positionalName(names, i),
      schema: {},
      required: true,
    }));
    return { structure: arity === 0 ? undefined : "by-position", params };
  }
  const whole = schemaIn(info.params, components);
  const schema = resolved(whole, components);
  if (isTuple(schema)) {
    const items = Array.isArray(schema["items"]) ? (schema["items"] as JsonSchema[]) : [];
    const minItems = typeof schema["minItems"] === "number" ? schema["minItems"] : items.length;
    const params = items.map((item, i) => ({ name: positionalName(names, i), schema: item, required: i < minItems }));
    return { structure: "by-position", params };
  }
  if (isSplittableObject(schema)) {
    const properties = schema["properties"] as Readonly<Record<string, JsonSchema>>;
    const required = Array.isArray(schema["required"]) ? (schema["required"] as unknown[]) : [];
    const params = Object.keys(properties).map((name) => ({
      name,
      schema: properties[name] ?? {},
      required: required.includes(name),
    }));
    return { structure: "by-name", params };
  }
  const name = positionalName(names, 0) === "param0" ? "params" : positionalName(names, 0);
  return {
    structure: undefined,
    whole: true,
    params: [
      {
        name,
        schema: whole,
        required: !same(schema, {}),
        description: "The whole params value, which the method's params codec does not split into params",
      },
    ],
  };
};

/** A result codec that only encodes `undefined` is sent as `null`. */
const resultOf = (info: MethodInfo, components: Record<string, JsonSchema>): ContentDescriptor => {
  if (info.result === undefined) return { name: "result", schema: {} };
  const schema = schemaIn(info.result, components, "output");
  return { name: "result", schema: same(schema, { not: {} }) ? { type: "null" } : schema };
};

const tagsOf = (tags: readonly MethodTag[]): Array<{ name: string; description?: string }> =>
  tags.flatMap((tag) => {
    if (typeof tag === "string") return tag === "" ? [] : [{ name: tag }];
    if (!isObject(tag) || typeof tag.name !== "string" || tag.name === "") return [];
    return [{ name: tag.name, ...(typeof tag.description === "string" ? { description: tag.description } : {}) }];
  });

/**
 * An example's params under the names of the method's params. A member named `""` that is not one
 * of them (the method's params are by name, so none is `""`) cannot be named: it is left out.
 */
const exampleParams = (params: unknown, described: Params): Array<{ name: string; value: unknown }> => {
  if (params === undefined) return [];
  if (Array.isArray(params) && described.whole !== true) {
    return params.map((value: unknown, i) => ({ name: described.params[i]?.name ?? `param${i}`, value }));
  }
  if (isObject(params) && !Array.isArray(params) && described.structure === "by-name") {
    const known = described.params.map((param) => param.name).filter((name) => name in params);
    const extra = Object.keys(params).filter((name) => isDescribable(name) && !known.includes(name));
    return [...known, ...extra].map((name) => ({ name, value: params[name] }));
  }
  return [{ name: described.params[0]?.name ?? "params", value: params }];
};

const examplesOf = (examples: readonly MethodExample[], described: Params): ExamplePairing[] =>
  examples.filter(isObject).map((example, i) => ({
    name: typeof example.name === "string" && example.name !== "" ? example.name : `example${i + 1}`,
    ...(typeof example.summary === "string" ? { summary: example.summary } : {}),
    ...(typeof example.description === "string" ? { description: example.description } : {}),
    params: exampleParams(example.params, described),
    result: { name: "result", value: example.result === undefined ? null : example.result },
  }));

const errorsOf = (
  errors: NonNullable<MethodInfo["errors"]>,
  components: Record<string, JsonSchema>,
): NonNullable<OpenRpcMethod["errors"]> =>
  errors.filter(isObject).map(({ code, message, data }) => ({
    code,
    message,
    // A Standard Schema is described from its own JSON Schema, as a params or result schema is.
    ...(data === undefined ? {} : { data: schemaIn(data as Parameters<typeof schemaIn>[0], components) }),
  }));

/** One method's entry in the document. */
const describeMethod = (
  name: string,
  f: Method,
  components: Record<string, JsonSchema>,
  context: boolean,
): OpenRpcMethod => {
  const info = infoOf(f);
  const described = paramsOf(f, info, components, context);
  const text = (value: unknown): value is string => typeof value === "string" && value !== "";
  return {
    name,
    ...(text(info.summary) ? { summary: info.summary } : {}),
    ...(text(info.description) ? { description: info.description } : {}),
    ...(Array.isArray(info.tags) && info.tags.length > 0 ? { tags: tagsOf(info.tags) } : {}),
    ...(described.structure === undefined ? {} : { paramStructure: described.structure }),
    params: described.params,
    result: resultOf(info, components),
    ...(Array.isArray(info.errors) && info.errors.length > 0 ? { errors: errorsOf(info.errors, components) } : {}),
    ...(Array.isArray(info.examples) && info.examples.length > 0
      ? { examples: examplesOf(info.examples, described) }
      : {}),
    ...(typeof info.deprecated === "boolean" ? { deprecated: info.deprecated } : {}),
  };
};

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
 * document.methods[0]?.params; // [{ name: "param0", schema: { type: "number" }, required: true }, { name: "param1", ... }]
 * document.methods[1]?.params; // [{ name: "param0", schema: {}, required: true }]: n; the context is not a param
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
 * // '{"jsonrpc":"2.0","result":{"openrpc":"1.3.2",...,"methods":[{"name":"whoami","params":[],...}]},"id":1}'
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
