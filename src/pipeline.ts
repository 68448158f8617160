/**
 * The request pipeline: parse -> validate -> resolve (method and params) -> invoke, each stage
 * written once and shared by sync and async dispatch. Only the effect differs: in async dispatch
 * (`env.concurrent`) a method's Promise is awaited; in sync dispatch it is refused with -32603.
 * Serialization, the last stage, lives in `serializer.ts`; the front ends in `main.ts` and
 * `async_main.ts` only choose the effect and the output form.
 *
 * Each stage is `(env, input) => Either<ErrorResponse, output>`. A Left from any stage is already
 * the answer: `Left<ErrorResponse>` is a `Response`. The rules the stages enforce:
 * - a request that cannot be parsed or validated is answered, with id `null`;
 * - a notification (a valid request without `id`) is never answered, even when it fails;
 * - an empty batch, or one over `maxBatchSize`, is answered by one -32600 and runs nothing;
 * - a batch is validated member by member and answered in its order;
 * - nothing a request carries, and nothing a method does, makes dispatch throw.
 *
 * @module
 * @internal
 */
import * as E from "fp-ts/Either";
import {
  ERROR_INTERNAL_ERROR,
  ERROR_INVALID_PARAMS,
  ERROR_INVALID_REQUEST,
  ERROR_METHOD_NOT_FOUND,
  ERROR_PARSE_ERROR,
  ERROR_SERVER_ERROR,
} from "./codes";
import { messageOf } from "./describe";
import { isJsonRpcError } from "./exceptions";
import { log } from "./logger";
import { lookup, paramsCodecOf, type Method } from "./methods";
import type { Env } from "./options";
import { arityProblem, paramsToDecode, report } from "./params";
import { requestProblem, type Id, type Request } from "./request";
import { ErrorResponse, failure, success, type Response } from "./response";
import type { Result } from "./result";
import { NOCONTEXT, NODATA } from "./sentinels";

/** One stage: reads the environment, fails with the error response to send. */
type Stage<A, B> = (env: Env, input: A) => E.Either<ErrorResponse, B>;

/** What one request comes to: its Response, nothing to send, or (async dispatch) a promise of either. */
export type Outcome = Response | undefined | Promise<Response | undefined>;

/** A method found for a request, with the params it will receive. */
interface Invocation {
  readonly request: Request;
  readonly method: Method;
  readonly params: unknown;
}

const hasOwn = Object.prototype.hasOwnProperty;

const idOf = (request: Request): Id => (request.id === undefined ? null : request.id);

const error = (code: number, message: string, data: unknown, id: Id | null): E.Either<ErrorResponse, never> =>
  E.left(ErrorResponse(code, message, data, id));

const invalidRequest = (why: string): E.Either<ErrorResponse, never> =>
  error(ERROR_INVALID_REQUEST, "Invalid Request", why, null);

/** Logging must never cost a client its answer, so a logger that throws is ignored. */
const logError = (message: string, thrown?: unknown): void => {
  try {
    if (thrown === undefined) log().error(message);
    else log().error(message, thrown);
  } catch {
    // Nothing to do: the response is still sent.
  }
};

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * UTF-8 bytes: a Uint8Array (a Buffer is one) of any realm. `instanceof Uint8Array` would refuse
 * bytes made in another realm (a `node:vm` context, an iframe); the internal tag cannot be faked.
 */
const isBytes = (value: unknown): value is Uint8Array =>
  ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === "[object Uint8Array]";

/**
 * `JSON.parse` without the stack trace of its SyntaxError: the trace is never shown (only the
 * message goes in `data`) and recording it is most of a parse error's cost. JSON.parse of a string
 * runs no user code, so the limit is restored before anything else can observe it.
 */
const parseJson = (text: string): unknown => {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return JSON.parse(text);
  } finally {
    Error.stackTraceLimit = limit;
  }
};

/** Stage 1: request text (or UTF-8 bytes) to a value. Anything thrown is -32700, its message in `data`. */
export const parse: Stage<unknown, unknown> = (env, request) => {
  try {
    const text: unknown = typeof request === "string" || !isBytes(request) ? request : utf8.decode(request);
    if (env.deserializer !== undefined) return E.right(env.deserializer(text as string));
    if (typeof text !== "string")
      throw new TypeError(`the request must be a string or UTF-8 bytes, got ${typeof text}`);
    return E.right(parseJson(text));
  } catch (thrown) {
    return error(ERROR_PARSE_ERROR, "Parse error", messageOf(thrown), null);
  }
};

/**
 * Stage 2: one request object checked. The default validator is the request codec's own check,
 * run without throwing; a custom validator throws to refuse, and the request must still name a
 * method to be dispatched.
 */
export const validate: Stage<unknown, Request> = (env, value) => {
  if (env.validator === undefined) {
    const why = requestProblem(value);
    return why === undefined ? E.right(value as Request) : invalidRequest(why);
  }
  try {
    env.validator(value);
  } catch (thrown) {
    return invalidRequest(messageOf(thrown));
  }
  return typeof value === "object" && value !== null && typeof (value as { method?: unknown }).method === "string"
    ? E.right(value as Request)
    : invalidRequest("method: must be a string");
};

/**
 * An exception from a method's own code (the method, or its params codec) as the error to send: a
 * JsonRpcError as given, anything else -32603 (logged; its message in `data` only under `debug`).
 */
const thrownError = (env: Env, request: Request, thrown: unknown): ErrorResponse => {
  const id = idOf(request);
  if (isJsonRpcError(thrown)) return ErrorResponse(thrown.code, thrown.message, thrown.data, id);
  logError(`rpcserver: method "${request.method}" raised an exception`, thrown);
  return ErrorResponse(ERROR_INTERNAL_ERROR, "Internal error", env.debug ? messageOf(thrown) : NODATA, id);
};

/** Stage 3: the method the request names, and the params it will receive (decoded, when it has a codec). */
export const resolve: Stage<Request, Invocation> = (env, request) => {
  const method = lookup(env.methods, env.methodsAreMap, request.method);
  if (method === undefined) return error(ERROR_METHOD_NOT_FOUND, "Method not found", request.method, idOf(request));
  const codec = paramsCodecOf(method);
  if (codec === undefined) {
    const why = arityProblem(method.length - (env.context === NOCONTEXT ? 0 : 1), request.params);
    return why === undefined
      ? E.right({ request, method, params: request.params })
      : error(ERROR_INVALID_PARAMS, "Invalid params", why, idOf(request));
  }
  let decoded: ReturnType<typeof codec.decode>;
  try {
    decoded = codec.decode(paramsToDecode(request.params));
  } catch (thrown) {
    // A codec is the method's own code: its exception answers this request alone, as the method's
    // would, rather than escaping to -32000 for the whole dispatch (and every other batch member).
    return E.left(thrownError(env, request, thrown));
  }
  return E.isRight(decoded)
    ? E.right({ request, method, params: decoded.right })
    : error(ERROR_INVALID_PARAMS, "Invalid params", report(decoded.left), idOf(request));
};

/** Calls the method: array params spread, others as one argument, the context first when there is one. */
const apply = (env: Env, { method, params }: Invocation): unknown => {
  const f = method as (...args: unknown[]) => unknown;
  if (env.context === NOCONTEXT) {
    return params === undefined ? f() : Array.isArray(params) ? f(...(params as unknown[])) : f(params);
  }
  return params === undefined
    ? f(env.context)
    : Array.isArray(params)
      ? f(env.context, ...(params as unknown[]))
      : f(env.context, params);
};

const isResult = (value: unknown): value is Result => {
  if (typeof value !== "object" || value === null) return false;
  const either = value as { _tag?: unknown; left?: unknown; right?: unknown };
  if (either._tag === "Right")
    return typeof either.right === "object" && either.right !== null && "result" in either.right;
  // A Left must hold an ErrorResult, as a Right must hold a SuccessResult: a hand-built `left({})`
  // would otherwise be sent as `"error":{}` (no code, no message) by `toDict` and a custom
  // serializer. A code or message of the wrong type is still sent as given (`Error` warned).
  return (
    either._tag === "Left" &&
    typeof either.left === "object" &&
    either.left !== null &&
    "code" in either.left &&
    "message" in either.left
  );
};

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  typeof (value as { then?: unknown }).then === "function";

/** A method's return value as the Response: a Result is sent, anything else is -32603. */
const fromReturned = (request: Request, returned: unknown): Response => {
  const id = idOf(request);
  if (isResult(returned)) {
    if (returned._tag === "Right") return success(returned.right.result, id);
    const { code, message, data } = returned.left;
    return failure(code, message, data, id);
  }
  logError(`rpcserver: method "${request.method}" returned something other than a Result`);
  return failure(ERROR_INTERNAL_ERROR, "Internal error", "The method did not return a Result", id);
};

/** A method's exception as the Response: JsonRpcError is sent as given, anything else is -32603. */
const fromThrown = (env: Env, request: Request, thrown: unknown): Response => E.left(thrownError(env, request, thrown));

/** Sync dispatch cannot wait: the Promise is refused, and its rejection marked handled so it cannot crash the host. */
const refuse = (request: Request, thenable: PromiseLike<unknown>): Response => {
  Promise.resolve(thenable).then(undefined, (thrown: unknown) =>
    logError(`rpcserver: method "${request.method}" rejected after sync dispatch refused its Promise`, thrown),
  );
  logError(`rpcserver: method "${request.method}" returned a Promise to sync dispatch`);
  return failure(
    ERROR_INTERNAL_ERROR,
    "Internal error",
    "The method returned a Promise; use asyncDispatch",
    idOf(request),
  );
};

/**
 * What a method gave back, as the Response. Reading it may throw (a Proxy, a getter): that counts as
 * the method's exception. Shared by both effects, so sync and async dispatch answer it alike.
 */
const respond = (env: Env, request: Request, returned: unknown): Response => {
  try {
    return fromReturned(request, returned);
  } catch (thrown) {
    return fromThrown(env, request, thrown);
  }
};

/** Async dispatch waits for the method; the promise never rejects, so one member cannot fail a batch. */
const settle = (env: Env, request: Request, thenable: PromiseLike<unknown>): Promise<Response> =>
  Promise.resolve(thenable).then(
    (value) => respond(env, request, value),
    (thrown: unknown) => fromThrown(env, request, thrown),
  );

/** Stage 4: the call, and its Result (or exception) turned into the Response. */
export const invoke = (env: Env, invocation: Invocation): Response | Promise<Response> => {
  const { request } = invocation;
  let returned: unknown;
  try {
    returned = apply(env, invocation);
    // Reading `then` may throw too (a Proxy): inside the try, as the method's own exception.
    if (isThenable(returned)) return env.concurrent ? settle(env, request, returned) : refuse(request, returned);
  } catch (thrown) {
    return fromThrown(env, request, thrown);
  }
  return respond(env, request, returned);
};

const silence = (response: Response | Promise<Response>): Outcome =>
  response instanceof Promise ? response.then(() => undefined) : undefined;

/** One request through validate -> resolve -> invoke; a notification's outcome is silenced. */
export const handle = (env: Env, value: unknown): Outcome => {
  const request = validate(env, value);
  if (E.isLeft(request)) return request;
  const invocation = resolve(env, request.right);
  const response = E.isLeft(invocation) ? invocation : invoke(env, invocation.right);
  return hasOwn.call(request.right, "id") ? response : silence(response);
};

/** A batch: answered as a whole when empty or too large, otherwise member by member, in order. */
const batch = (env: Env, members: ReadonlyArray<unknown>): Outcome | Outcome[] => {
  if (members.length === 0) return invalidRequest("the batch is empty");
  if (members.length > env.maxBatchSize) {
    return invalidRequest(`the batch has ${members.length} requests; the limit is ${env.maxBatchSize}`);
  }
  const outcomes = new Array<Outcome>(members.length);
  for (let i = 0; i < members.length; i++) outcomes[i] = handle(env, members[i]);
  return outcomes;
};

/** The whole pipeline for one request body. */
export const run = (env: Env, request: unknown): Outcome | Outcome[] => {
  const parsed = parse(env, request);
  if (E.isLeft(parsed)) return parsed;
  return Array.isArray(parsed.right) ? batch(env, parsed.right) : handle(env, parsed.right);
};

/** A failure of the library itself, outside any method: -32000, its message only under `debug`. */
export const serverError = (env: { readonly debug: boolean }, thrown: unknown): Response => {
  logError("rpcserver: dispatch failed", thrown);
  return failure(ERROR_SERVER_ERROR, "Server error", env.debug ? messageOf(thrown) : NODATA, null);
};

/** The answers to send, with the nothing-to-send cases collapsed to `undefined`. */
export const collect = (
  outcomes: ReadonlyArray<Response | undefined> | Response | undefined,
): Response | Response[] | undefined => {
  if (!Array.isArray(outcomes)) return outcomes as Response | undefined;
  const responses: Response[] = [];
  for (const outcome of outcomes as ReadonlyArray<Response | undefined>)
    if (outcome !== undefined) responses.push(outcome);
  return responses.length === 0 ? undefined : responses;
};

/** Sync dispatch: `env.concurrent` is false, so `invoke` returned no promise and outcomes are final. */
export const runSync = (env: Env, request: unknown): Response | Response[] | undefined => {
  try {
    return collect(run(env, request) as Response | undefined | ReadonlyArray<Response | undefined>);
  } catch (thrown) {
    return serverError(env, thrown);
  }
};

type Answer = Response | Response[] | undefined;

const isPending = (outcome: Outcome): boolean => outcome instanceof Promise;

/**
 * Async dispatch: the same pipeline, with every request of a batch running at once. Only a request
 * whose method returned a Promise is waited for: when none did, the answers are returned as they are
 * (the caller's `await` costs one tick, and a large batch of plain methods builds no Promise per
 * member).
 */
export const runAsync = (env: Env, request: unknown): Answer | Promise<Answer> => {
  try {
    const outcome = run(env, request);
    if (Array.isArray(outcome)) {
      return outcome.some(isPending)
        ? Promise.all(outcome).then(collect, failsLater(env))
        : collect(outcome as ReadonlyArray<Response | undefined>);
    }
    return outcome instanceof Promise ? outcome.then(undefined, failsLater(env)) : outcome;
  } catch (thrown) {
    return serverError(env, thrown);
  }
};

/** The -32000 answer to a failure after the pipeline has started waiting (built only then). */
const failsLater =
  (env: Env) =>
  (thrown: unknown): Response =>
    serverError(env, thrown);
