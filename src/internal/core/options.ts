/**
 * Dispatch options (Python's keyword-only parameters as one options object) and the environment
 * that one dispatch call runs its stages in.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type * as t from "io-ts";
import { messageOf } from "./describe";
import { isObject, isThenable, isValidation } from "./guards";
import { globalMethods, isMethodMap, type Methods } from "./methods";
import { requestCodec, type Request } from "./request";
import { isStandardSchema, issueLines, type StandardSchemaV1 } from "./schema";
import type { Response } from "./response";
import { NOCONTEXT } from "./sentinels";
import { isAround, type AnyStage } from "./stages";

/**
 * What `validator` takes: a function that throws for an invalid request (the specification's
 * form), an io-ts decoder (`t.Type`, `Decoder`) or a Standard Schema (zod, valibot...) whose
 * failure is -32600 with its report in `data` (a schema whose `validate` answers a Promise is
 * waited for by async dispatch, and refused with -32603 by sync dispatch).
 *
 * @example
 * import * as t from "io-ts";
 * import { dispatchToSerializable, type Validator } from "rpcserver";
 * const onlyNumericIds: Validator = t.type({ jsonrpc: t.literal("2.0"), method: t.string, id: t.number });
 * dispatchToSerializable('{"jsonrpc":"2.0","method":"ping","id":"a"}', {}, { validator: onlyNumericIds });
 * // { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request", data: 'request.id: expected number, got "a"' }, id: null }
 *
 * @since 5.0.10
 * @category options
 */
export type Validator =
  ((request: unknown) => unknown) | Pick<t.Decoder<unknown, unknown>, "decode"> | StandardSchemaV1;

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
  /**
   * Checks one request object (called once per batch member): a function that throws for an
   * invalid request (any exception: -32600 with its message in `data`), or an io-ts decoder (its
   * failure: -32600 with its report in `data`; the method then sees what it decoded to). Either way
   * the request must still name a method (a string `method`). Default: `requestCodec`, the JSON-RPC
   * 2.0 request codec. `() => undefined` turns validation off.
   */
  readonly validator?: Validator | undefined;
  /** Sends an uncaught exception's message in `data`. Default `false`: such messages may hold secrets. */
  readonly debug?: boolean | undefined;
  /** The largest batch; a larger one gets one -32600 and none of it runs. Default: no limit (`undefined` or `null`). A value that is not a positive integer is a `RangeError`. */
  readonly maxBatchSize?: number | null | undefined;
  /**
   * Stages of your own, run per request in this order, after validation and before the method is
   * looked up (see `rpcserver/pipeline`). Sync dispatch takes sync stages only. Default: none.
   */
  readonly stages?: ReadonlyArray<AnyStage> | undefined;
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

/**
 * A validator as the pipeline runs it: a decoder to a request (`validator`, whatever its form,
 * becomes one).
 *
 * @example
 * import { environment } from "rpcserver/pipeline";
 * environment({}, undefined, false).validator.decode({ jsonrpc: "2.0", method: "ping" });
 * // { _tag: "Right", right: { jsonrpc: "2.0", method: "ping" } }
 *
 * @since 5.0.10
 * @category pipeline
 */
export interface RequestDecoder {
  /**
   * The request, or why it is not one (as io-ts errors); a Promise of it when the validator is a
   * Standard Schema whose `validate` answers one (async dispatch waits, sync dispatch refuses).
   */
  readonly decode: (value: unknown) => E.Either<t.Errors, Request> | Promise<E.Either<t.Errors, Request>>;
  /** Set when `decode` may answer a Promise (a Standard Schema): only then does the pipeline look. */
  readonly waits?: true;
}

/**
 * What the stages of one dispatch call read: the options, checked and with their defaults. A Reader
 * environment: it holds no request data, so one may serve many calls.
 *
 * @example
 * import { environment, type Env } from "rpcserver/pipeline";
 * const env: Env = environment({}, { debug: true }, false);
 * env.debug; // true
 *
 * @since 5.0.10
 * @category pipeline
 */
export interface Env {
  readonly methods: Methods;
  /** Whether `methods` is a Map, decided once per environment rather than once per request. */
  readonly methodsAreMap: boolean;
  readonly context: unknown;
  /** The `deserializer` option; `undefined`: `JSON.parse`. */
  readonly deserializer: ((request: string) => unknown) | undefined;
  readonly validator: RequestDecoder;
  readonly debug: boolean;
  readonly maxBatchSize: number;
  readonly stages: ReadonlyArray<AnyStage>;
  /** The `serializer` option; `undefined`: `serialize`. */
  readonly serializer: ((response: unknown) => string) | undefined;
  /** The `postProcess` option; `undefined`: none. */
  readonly postProcess: ((response: Response) => unknown) | undefined;
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

// Always called as hasOwn.call(object, key), never unbound.
// eslint-disable-next-line @typescript-eslint/unbound-method
const hasOwn = Object.prototype.hasOwnProperty;

/** One io-ts error that says nothing about what was wrong (a custom validator's exception has only a message). */
const refusal = (value: unknown, message: string): t.Errors => [{ value, context: [], message }];

/**
 * The pipeline needs a method name whatever the validator let through, and a request it can read:
 * a validator's output is the user's value, and one whose members throw when read (a getter, a
 * Proxy) is refused here, where that is the validator's failure, rather than in every later stage.
 */
const mustNameMethod = (value: unknown): E.Either<t.Errors, Request> => {
  if (!isObject(value) || typeof (value as { method?: unknown }).method !== "string") {
    return E.left(refusal(value, "method: must be a string"));
  }
  const request = value as Request;
  void hasOwn.call(request, "id");
  void request.id;
  void request.params;
  return E.right(request);
};

/**
 * A validator as a request decoder: its exception (the specification's way to refuse), a result
 * that is not a Validation, or a request that cannot be read is -32600 for that member alone.
 */
const guardedDecoder =
  (decode: (value: unknown) => unknown): ((value: unknown) => E.Either<t.Errors, Request>) =>
  (value) => {
    try {
      return named(value, decode(value));
    } catch (thrown) {
      return E.left(refusal(value, messageOf(thrown)));
    }
  };

const named = (value: unknown, decoded: unknown): E.Either<t.Errors, Request> =>
  isValidation(decoded)
    ? E.chain(mustNameMethod)(decoded)
    : E.left(refusal(value, "the validator did not return a Validation"));

/** A Standard Schema's answer as a Validation: its value, or one error per issue line. */
const schemaValidation = (value: unknown, result: StandardSchemaV1.Result<unknown>): t.Validation<unknown> =>
  result.issues === undefined
    ? E.right(result.value)
    : E.left(issueLines(result.issues, "request").flatMap((line) => refusal(value, line)));

/**
 * A Standard Schema as the validator: as any other, and when its `validate` answers a Promise, a
 * Promise of the same checks, which never rejects (its rejection is that request's -32600).
 */
const schemaDecoder = (schema: StandardSchemaV1): RequestDecoder => {
  const validate = schema["~standard"].validate;
  return {
    waits: true,
    decode: (value) => {
      let result: ReturnType<typeof validate>;
      try {
        result = validate(value);
        if (!isThenable(result)) return named(value, schemaValidation(value, result));
      } catch (thrown) {
        return E.left(refusal(value, messageOf(thrown)));
      }
      return Promise.resolve(result).then(
        (answered) => guardedDecoder(() => schemaValidation(value, answered))(value),
        (thrown: unknown) => E.left(refusal(value, messageOf(thrown))),
      );
    },
  };
};

const requestDecoder = (validator: Validator | undefined): RequestDecoder => {
  if (validator === undefined || validator === requestCodec) return requestCodec;
  if (typeof validator === "function") {
    // The specification's validator throws to refuse; what it returns is not looked at.
    return {
      decode: guardedDecoder((value) => {
        validator(value);
        return E.right(value);
      }),
    };
  }
  if (isStandardSchema(validator)) return schemaDecoder(validator);
  if (typeof validator === "object" && validator !== null && typeof validator.decode === "function") {
    const decoder = validator;
    return { decode: guardedDecoder((value) => decoder.decode(value)) };
  }
  throw new TypeError(`validator must be a function or an io-ts decoder, got ${typeof validator}`);
};

/** Async stages and `timeout` need async dispatch: sync dispatch refuses them before anything runs. */
const stagesFor = (stages: ReadonlyArray<AnyStage> | undefined, concurrent: boolean): ReadonlyArray<AnyStage> => {
  if (stages === undefined) return [];
  if (!Array.isArray(stages)) throw new TypeError(`stages must be an array, got ${typeof stages}`);
  stages.forEach((stage: unknown, i) => {
    const around = isAround(stage);
    if (!around && typeof stage !== "function") {
      throw new TypeError(`stages[${i}] must be a function or a stage such as timeout(ms), got ${typeof stage}`);
    }
    if (concurrent) return;
    if (around ? stage.asyncOnly : Object.prototype.toString.call(stage) === "[object AsyncFunction]") {
      throw new TypeError(`stages[${i}] is for async dispatch only (it waits); use asyncDispatch`);
    }
  });
  return stages as ReadonlyArray<AnyStage>;
};

/**
 * The environment of one dispatch call, for running the stages of `rpcserver/pipeline` yourself:
 * the methods (default `globalMethods`), the options checked and defaulted, and whether Promises
 * may be waited for (`concurrent`: `true` for `Async`). Throws `RangeError` for a bad
 * `maxBatchSize` and `TypeError` for an option of the wrong type: the only exceptions dispatch
 * raises.
 *
 * @example
 * import { environment } from "rpcserver/pipeline";
 * import { Success } from "rpcserver";
 * const env = environment({ ping: () => Success("pong") }, { debug: true }, false);
 * env.maxBatchSize; // Infinity
 *
 * @since 5.0.10
 * @category pipeline
 */
export const environment = (
  methods: Methods | undefined,
  options: (JsonOptions & ResponseOptions<unknown>) | undefined,
  concurrent: boolean,
): Env => {
  if (methods !== undefined && (typeof methods !== "object" || methods === null)) {
    throw new TypeError(`methods must be an object or a Map, got ${methods === null ? "null" : typeof methods}`);
  }
  const table = methods ?? globalMethods;
  const o = options ?? {};
  if (o.debug !== undefined && typeof o.debug !== "boolean") {
    throw new TypeError(`debug must be a boolean, got ${typeof o.debug}`);
  }
  return {
    methods: table,
    methodsAreMap: isMethodMap(table),
    context: o.context === undefined ? NOCONTEXT : o.context,
    deserializer: optionalFunction("deserializer", o.deserializer),
    validator: requestDecoder(o.validator),
    debug: o.debug ?? false,
    maxBatchSize: batchLimit(o.maxBatchSize),
    stages: stagesFor(o.stages, concurrent),
    serializer: optionalFunction("serializer", o.serializer),
    postProcess: optionalFunction("postProcess", o.postProcess),
  };
};
