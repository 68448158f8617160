/**
 * Dispatch options (Python's keyword-only parameters as one options object) and the environment
 * that one dispatch call runs its stages in.
 *
 * @module
 */
import { globalMethods, type Methods } from "./methods";
import type { Response } from "./response";
import { NOCONTEXT } from "./sentinels";

/**
 * Options every dispatch function takes. Each member also accepts an explicit `undefined`, meaning
 * the default, so callers compiled with `exactOptionalPropertyTypes` can pass `{ maxBatchSize: limit }`
 * with a `limit` that may be unset, as the defaults below promise.
 *
 * @since 5.0.10
 * @category options
 */
export interface Options {
  /** Passed as the first argument to every method; clients can neither see nor set it. Default `NOCONTEXT` (none); `undefined` also means none. */
  readonly context?: unknown;
  /** Turns the request text into a value. Default `JSON.parse`. If it throws: -32700 with the message as `data`. */
  readonly deserializer?: ((request: string) => unknown) | undefined;
  /** Throws for an invalid request object (any exception: -32600). Default: the JSON-RPC 2.0 schema (`requestCodec`). Called once per batch member. `() => undefined` turns validation off. */
  readonly validator?: ((request: unknown) => unknown) | undefined;
  /** Sends an uncaught exception's message in `data`. Default `false`: such messages may hold secrets. */
  readonly debug?: boolean | undefined;
  /** The largest batch; a larger one gets one -32600 and none of it runs. Default: no limit (`undefined` or `null`). A value that is not a positive integer is a `RangeError`. */
  readonly maxBatchSize?: number | null | undefined;
}

/**
 * Options of the `*ToResponse` functions.
 *
 * @since 5.0.10
 * @category options
 */
export interface ResponseOptions<T = Response> extends Options {
  /** Applied to each Response before it is returned. Default: identity. */
  readonly postProcess?: ((response: Response) => T) | undefined;
}

/**
 * Options of `dispatch` / `dispatchToJson`.
 *
 * @since 5.0.10
 * @category options
 */
export interface JsonOptions extends Options {
  /** Turns one response object into JSON text. Default: `serialize` (JSON that refuses NaN, Infinity, BigInt and cycles). */
  readonly serializer?: ((response: unknown) => string) | undefined;
}

/** What the stages of one dispatch call read. @internal */
export interface Env {
  readonly methods: Methods;
  /** Whether `methods` is a Map, decided once per environment rather than once per request. */
  readonly methodsAreMap: boolean;
  readonly context: unknown;
  readonly deserializer: ((request: string) => unknown) | undefined;
  readonly validator: ((request: unknown) => unknown) | undefined;
  readonly debug: boolean;
  readonly maxBatchSize: number;
  /** Async dispatch: a method's Promise is awaited rather than refused. */
  readonly concurrent: boolean;
}

const optionalFunction = <F>(name: string, value: F | undefined): F | undefined => {
  if (value !== undefined && typeof value !== "function") {
    throw new TypeError(`${name} must be a function, got ${typeof value}`);
  }
  return value;
};

const batchLimit = (value: number | null | undefined): number => {
  if (value === undefined || value === null) return Infinity;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`maxBatchSize must be a positive integer, null or undefined, got ${String(value)}`);
  }
  return value;
};

/**
 * The environment of one dispatch call. Throws `RangeError` for a bad `maxBatchSize` and
 * `TypeError` for an option of the wrong type: the only exceptions dispatch raises.
 * @internal
 */
export const environment = (methods: Methods | undefined, options: Options | undefined, concurrent: boolean): Env => {
  if (methods !== undefined && (typeof methods !== "object" || methods === null)) {
    throw new TypeError(`methods must be an object or a Map, got ${methods === null ? "null" : typeof methods}`);
  }
  const table = methods ?? globalMethods;
  if (options === undefined) {
    // The common call, `dispatch(request, methods)`, gets the environment it got last time: an Env
    // is immutable and holds no request data, so sharing it is safe, and it saves an allocation
    // and a Map check per request.
    const last = concurrent ? lastAsync : lastSync;
    if (last !== undefined && last.methods === table) return last;
    const env: Env = {
      methods: table,
      methodsAreMap: isMap(table),
      context: NOCONTEXT,
      deserializer: undefined,
      validator: undefined,
      debug: false,
      maxBatchSize: Infinity,
      concurrent,
    };
    if (concurrent) lastAsync = env;
    else lastSync = env;
    return env;
  }
  if (options.debug !== undefined && typeof options.debug !== "boolean") {
    throw new TypeError(`debug must be a boolean, got ${typeof options.debug}`);
  }
  return {
    methods: table,
    methodsAreMap: isMap(table),
    context: options.context === undefined ? NOCONTEXT : options.context,
    deserializer: optionalFunction("deserializer", options.deserializer),
    validator: optionalFunction("validator", options.validator),
    debug: options.debug ?? false,
    maxBatchSize: batchLimit(options.maxBatchSize),
    concurrent,
  };
};

/** A Map of any realm (`instanceof Map` refuses one made in a `node:vm` context or an iframe). */
const isMap = (methods: Methods): boolean => Object.prototype.toString.call(methods) === "[object Map]";

let lastSync: Env | undefined;
let lastAsync: Env | undefined;

/** The `serializer` option, checked. @internal */
export const serializerOf = (options: JsonOptions | undefined): ((response: unknown) => string) | undefined =>
  options === undefined ? undefined : optionalFunction("serializer", options.serializer);

/** The `postProcess` option, checked. @internal */
export const postProcessOf = <T>(options: ResponseOptions<T> | undefined): ((response: Response) => T) | undefined =>
  options === undefined ? undefined : optionalFunction("postProcess", options.postProcess);
