/**
 * The request pipeline as fp-ts values: parse -> validate -> (your stages) -> resolve -> call ->
 * serialize, written once and run by sync and async dispatch alike.
 *
 * Design. Each stage is a Reader of the dispatch environment ({@link Env}) giving a Kleisli arrow:
 * `parse(env): (body) => Either<ErrorResponse, unknown>`, and so on. A Left is already the answer
 * (`Left<ErrorResponse>` is a `Response`), so a stage that fails simply ends its request. The
 * composition ({@link pipeline}) is written once against an {@link Effect}, an fp-ts `Monad`: the
 * stages that can wait (your stages, the call) run in `EitherT` over it, and the six dispatch
 * functions are that one composition instantiated with `Sync` (fp-ts's `Identity`: the Eithers are
 * the answers) or `Async` (`Later`: synchronous until a method really returns a Promise, a
 * `TaskEither` to its users), followed by one of three output stages (`serialize`, `toObjects`,
 * `toResponses`).
 *
 * Why this design rather than the others weighed (docs/pipeline.md has the measurements):
 * - `TaskEither` for async dispatch would cost every request two Promises and a tick even when its
 *   method is plain; `Later` keeps async dispatch within 5% of the hand-written lower bound.
 * - A flag tested inside the call stage (the previous design) made the effect a branch rather than
 *   a value; here the effect is a parameter, and the stages cannot tell which they run in.
 * - Stages as `(env, input)` pairs would save one closure per stage per environment; the Reader
 *   form lets the composition be built once per environment instead (and kept by each dispatch
 *   function while the methods and options, the context aside, stay the same), so a request
 *   allocates no closure for it.
 *
 * The rules the stages enforce:
 * - a request that cannot be parsed or validated is answered, with id `null`;
 * - a notification (a valid request without `id`) is never answered, even when it fails;
 * - an empty batch, or one over `maxBatchSize`, is answered by one -32600 and runs nothing;
 * - a batch is validated member by member and answered in its order; async dispatch runs its
 *   members at once;
 * - nothing a request carries, and nothing a method or a stage does, makes dispatch throw: an
 *   exception in a method, a params or result codec, the methods table or a stage answers that
 *   request alone (-32603), and only a failure of the library itself (or of `postProcess`) is
 *   -32000; nothing it does ends the process either (an exception that cannot be read, a Promise
 *   that rejects where nobody waits for it);
 * - an answer carries the id its request came with, whatever a stage makes of the request.
 *
 * @example
 * import { pipe } from "fp-ts/function";
 * import { environment, pipeline, serialize, Sync } from "rpcserver/pipeline";
 * import { Success } from "rpcserver";
 * const env = environment({ ping: () => Success("pong") }, undefined, false);
 * pipe('{"jsonrpc":"2.0","method":"ping","id":1}', pipeline(Sync)(env), serialize(env));
 * // '{"jsonrpc":"2.0","result":"pong","id":1}'
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Kind, URIS } from "fp-ts/HKT";
import { identity } from "fp-ts/function";
import type * as t from "io-ts";
import {
  ERROR_INTERNAL_ERROR,
  ERROR_INVALID_PARAMS,
  ERROR_INVALID_REQUEST,
  ERROR_METHOD_NOT_FOUND,
  ERROR_PARSE_ERROR,
  ERROR_SERVER_ERROR,
} from "./codes";
import { messageOf, methodNameOf, render } from "./describe";
import type { Effect } from "./effect";
import { isJsonRpcError } from "./exceptions";
import { isObject, isThenable, isValidation } from "./guards";
import { logSafely } from "./logger";
import {
  describesOf,
  globalMethods,
  isOutcome,
  lookup,
  paramsCodecOf,
  resultCodecOf,
  type Method,
  type Methods,
} from "./methods";
import { environment, type Env, type JsonOptions, type ResponseOptions } from "./options";
import { arityProblem, decodeAbsent, report } from "./params";
import { failureLines, isSchemaRefused, standardOf } from "./schema";
import type { Id, Request } from "./request";
import { ErrorResponse, SuccessResponse, toSerializable, type Response, type Serializable } from "./response";
import type { ErrorResult, Result } from "./result";
import { NOCONTEXT, NODATA } from "./sentinels";
import { writeAll } from "./serializer";
import { idOf, isAround, isNotification, isOwnAround, type AnyStage, type Call, type Handler } from "./stages";

/**
 * What one request body comes to: a Response, a list of them for a batch, or `undefined` when
 * nothing is to be sent.
 *
 * @example
 * import { environment, pipeline, Sync, type Answer } from "rpcserver/pipeline";
 * const answer: Answer = pipeline(Sync)(environment({}, undefined, false))("[]");
 * // Left: -32600 Invalid Request (an empty batch)
 *
 * @since 5.0.10
 * @category pipeline
 */
export type Answer = Response | Response[] | undefined;

/**
 * A method found for a call, with the params it will receive.
 *
 * @example
 * import { environment, resolve } from "rpcserver/pipeline";
 * import { Success } from "rpcserver";
 * const env = environment({ ping: () => Success("pong") }, undefined, false);
 * resolve(env)({ request: { jsonrpc: "2.0", method: "ping", id: 1 }, context: undefined });
 * // Right: { request, context, method: ping, params: undefined }
 *
 * @since 5.0.10
 * @category pipeline
 */
export interface Invocation extends Call {
  readonly method: Method;
  readonly params: unknown;
}

const failWith = (
  code: number,
  message: string,
  data: unknown,
  request: Request | null,
): E.Either<ErrorResponse, never> =>
  E.left(ErrorResponse(code, message, data, request === null ? null : idOf(request)));

const invalidRequest = (data: unknown): E.Either<ErrorResponse, never> =>
  failWith(ERROR_INVALID_REQUEST, "Invalid Request", data, null);

// ---------------------------------------------------------------------------------------------
// parse

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

/**
 * Stage 1: the request body (text, or UTF-8 bytes) to a value, with `deserializer` (default
 * `JSON.parse`). Anything thrown is -32700 with its message in `data`.
 *
 * @example
 * import { environment, parse } from "rpcserver/pipeline";
 * parse(environment({}, undefined, false))("[1"); // Left: -32700 Parse error
 *
 * @since 5.0.10
 * @category stages
 */
export const parse =
  (env: Env) =>
  (body: unknown): E.Either<ErrorResponse, unknown> => {
    try {
      const text: unknown = typeof body === "string" || !isBytes(body) ? body : utf8.decode(body);
      if (env.deserializer !== undefined) return E.right(env.deserializer(text as string));
      if (typeof text !== "string")
        throw new TypeError(`the request must be a string or UTF-8 bytes, got ${typeof text}`);
      return E.right(parseJson(text));
    } catch (thrown) {
      return failWith(ERROR_PARSE_ERROR, "Parse error", messageOf(thrown), null);
    }
  };

// ---------------------------------------------------------------------------------------------
// validate

/** An io-ts report as `data`: an error's own message where it has one (a custom validator's, the request codec's), else the path. */
const reportOf = (errors: t.Errors): unknown => {
  const lines = errors.map((error) => error.message ?? report([error], "request")[0]);
  return lines.length === 1 ? lines[0] : lines;
};

const refuse = E.mapLeft((errors: t.Errors) =>
  ErrorResponse(ERROR_INVALID_REQUEST, "Invalid Request", reportOf(errors), null),
);

/**
 * Stage 2: one request object decoded by the validator (default `requestCodec`): -32600 with the
 * report in `data` when it fails.
 *
 * @example
 * import { environment, validate } from "rpcserver/pipeline";
 * validate(environment({}, undefined, false))({ jsonrpc: "2.0", method: 1 }); // Left: -32600
 *
 * @since 5.0.10
 * @category stages
 */
export const validate = (env: Env): ((value: unknown) => E.Either<ErrorResponse, Request>) => {
  const validated = validating(env);
  return (value) => {
    const request = validated(value);
    return request instanceof Promise ? refusedValidator() : request;
  };
};

/**
 * Stage 2 as the composition runs it: a validator (a Standard Schema) whose `validate` answers a
 * Promise gives a Promise, which never rejects, for async dispatch to wait for. `validate` stays a
 * Kleisli arrow into Either, refusing it as sync dispatch does.
 */
const validating = (env: Env): ((value: unknown) => ValidatedRequest | Promise<ValidatedRequest>) => {
  const decoder = env.validator;
  if (decoder.waits !== true) return (value) => refuse(decoder.decode(value) as E.Either<t.Errors, Request>);
  return (value) => {
    const decoded = decoder.decode(value);
    return decoded instanceof Promise ? decoded.then(refuse) : refuse(decoded);
  };
};

type ValidatedRequest = E.Either<ErrorResponse, Request>;

/** Sync dispatch cannot wait for a validator (a Standard Schema) that answers a Promise: -32603 for that request. */
const refusedValidator = (): E.Either<ErrorResponse, never> => {
  logSafely("rpcserver: the validator returned a Promise to sync dispatch");
  return failWith(ERROR_INTERNAL_ERROR, "Internal error", "The validator returned a Promise; use asyncDispatch", null);
};

// ---------------------------------------------------------------------------------------------
// resolve

/**
 * An exception from the code a request runs (a method, its params codec, a stage) as the error to
 * send: a JsonRpcError as given, anything else -32603 (logged; its message in `data` only under
 * `debug`).
 */
const thrownError = (env: Env, call: Call, what: string, thrown: unknown): ErrorResponse =>
  errorFor(env, idOf(call.request), `${what} "${methodNameOf(call.request)}"`, thrown);

/** An exception as the error answering the request `id`; `who` names what raised it in the log. */
const errorFor = (env: Env, id: Id, who: string, thrown: unknown): ErrorResponse => {
  if (isJsonRpcError(thrown)) return ErrorResponse(thrown.code, thrown.message, thrown.data, id);
  if (isSchemaRefused(thrown)) {
    // A result schema refused the method's value: the method's fault, reported as io-ts would be.
    logSafely(`rpcserver: the result schema of ${who} refused its value`, thrown.message);
    return ErrorResponse(ERROR_INTERNAL_ERROR, "Internal error", thrown.lines, id);
  }
  logSafely(`rpcserver: ${who} raised an exception`, thrown);
  return ErrorResponse(ERROR_INTERNAL_ERROR, "Internal error", env.debug ? messageOf(thrown) : NODATA, id);
};

/**
 * Stage 4 (after your stages): the method the call names, and the params it will receive (decoded,
 * when it has a codec). -32601 when there is no such method, -32602 when the params do not fit.
 * The discovery method (`discover`) resolves to a call of its own that describes the table this
 * dispatch runs with, and whether it has a context.
 *
 * @example
 * import { environment, resolve } from "rpcserver/pipeline";
 * import { NOCONTEXT } from "rpcserver";
 * resolve(environment({}, undefined, false))({ request: { jsonrpc: "2.0", method: "nope", id: 1 }, context: NOCONTEXT });
 * // Left: -32601 Method not found
 *
 * @since 5.0.10
 * @category stages
 */
export const resolve =
  (env: Env) =>
  (call: Call): E.Either<ErrorResponse, Invocation> => {
    try {
      return resolved(env, call);
    } catch (thrown) {
      // The methods table, a method (its `length`, a Proxy) and its params codec are the user's
      // code: whatever they throw answers this request alone, as the method's own exception would.
      return E.left(thrownError(env, call, "method", thrown));
    }
  };

const resolved = (env: Env, call: Call): E.Either<ErrorResponse, Invocation> => {
  const { request, context } = call;
  const method = lookup(env.methods, env.methodsAreMap, request.method);
  if (method === undefined) return failWith(ERROR_METHOD_NOT_FOUND, "Method not found", request.method, request);
  const codec = paramsCodecOf(method);
  if (codec === undefined) {
    const arity = method.length;
    const why = arityProblem(arity - (context === NOCONTEXT ? 0 : 1), request.params);
    if (why !== undefined) return failWith(ERROR_INVALID_PARAMS, "Invalid params", why, request);
    // The discovery method (`discover`) describes the table it is dispatched with: it is called
    // with that table, and whether there is a context, in its place. It declares no parameter, so
    // only a method that declares none is looked at for its mark.
    const describes = arity === 0 ? describesOf(method) : undefined;
    return describes === undefined
      ? E.right({ request, context, method, params: request.params })
      : E.right({ request, context, method: () => describes(env.methods, context !== NOCONTEXT), params: undefined });
  }
  const decoded: unknown =
    request.params === undefined ? decodeAbsent((params) => codec.decode(params)) : codec.decode(request.params);
  if (!isValidation(decoded)) {
    // A Standard Schema whose `validate` answers a Promise: the call waits for it (async dispatch)
    // or is refused (sync dispatch), as a method's own Promise is.
    if (isThenable(decoded)) {
      const params = new Checking(decoded, (settled) =>
        decodedParams(codec, settled as t.Validation<unknown>, request),
      );
      return E.right({ request, context, method, params });
    }
    logSafely(
      `rpcserver: the params codec of method "${request.method}" returned something other than an io-ts Validation`,
    );
    return failWith(ERROR_INTERNAL_ERROR, "Internal error", "The params codec did not return a Validation", request);
  }
  const params = decodedParams(codec, decoded, request);
  return E.isRight(params) ? E.right({ request, context, method, params: params.right }) : params;
};

/** Decoded params, or -32602 with the codec's (or schema's) report. */
const decodedParams = (
  codec: unknown,
  decoded: t.Validation<unknown>,
  request: Request,
): E.Either<ErrorResponse, unknown> =>
  E.isRight(decoded)
    ? decoded
    : failWith(ERROR_INVALID_PARAMS, "Invalid params", failureLines(codec, decoded.left, "params"), request);

// ---------------------------------------------------------------------------------------------
// call

/** The params spread as arguments, after `first` when there is a context. Short lists get direct calls: a spread call costs twice as much. */
const spread = (f: (...args: unknown[]) => unknown, params: unknown[]): unknown => {
  switch (params.length) {
    case 0:
      return f();
    case 1:
      return f(params[0]);
    case 2:
      return f(params[0], params[1]);
    case 3:
      return f(params[0], params[1], params[2]);
    default:
      return f(...params);
  }
};

/** Calls the method: array params spread, others as one argument, the context first when there is one. */
const apply = ({ method, params, context }: Invocation): unknown => {
  const f = method as (...args: unknown[]) => unknown;
  if (context === NOCONTEXT) {
    return params === undefined ? f() : Array.isArray(params) ? spread(f, params) : f(params);
  }
  return params === undefined
    ? f(context)
    : Array.isArray(params)
      ? f(context, ...(params as unknown[]))
      : f(context, params);
};

/**
 * Does `value` have the shape a Result and a Response share: a Right of an object with `result`, or
 * a Left of one with `code` and `message`? A hand-built `left({})` would otherwise be sent as
 * `"error":{}`. A code or message of the wrong type is still sent as given (`Error` warned).
 */
const isResultShaped = (value: unknown): boolean =>
  isErrorLeft(value) ||
  (isObject(value) &&
    (value as { _tag?: unknown })._tag === "Right" &&
    isObject((value as E.Right<unknown>).right) &&
    "result" in (value as E.Right<object>).right);

/**
 * A Left of an error's shape (an object with `code` and `message`): how a method, a stage and a
 * contract handler alike answer with an error.
 */
const isErrorLeft = (value: unknown): value is E.Left<ErrorResult> => {
  if (!isObject(value) || (value as { _tag?: unknown })._tag !== "Left") return false;
  const left = (value as E.Left<unknown>).left;
  return isObject(left) && "code" in left && "message" in left;
};

/** Is `value` a Result, as a method must return? */
const isResult = isResultShaped as (value: unknown) => value is Result;

/** Is `value` a Response, as an `Around` handler must answer? */
const isResponse = isResultShaped as (value: unknown) => value is Response;

/** A Result as the Response to `request`. */
const answer = (request: Request, result: Result): Response =>
  result._tag === "Right"
    ? E.right(SuccessResponse(result.right.result, idOf(request)))
    : E.left(errorResponse(result.left, request));

const errorResponse = ({ code, message, data }: ErrorResult, request: Request): ErrorResponse =>
  ErrorResponse(code, message, data, idOf(request));

/** What gave sync dispatch a Promise, as its answer names it: a method, its params or result schema; else a stage. */
const PROMISE_FROM: Readonly<Record<string, string>> = {
  method: "The method",
  "params schema of method": "The params schema",
  "result schema of method": "The result schema",
};

/** Sync dispatch cannot wait: the Promise is refused, and its rejection marked handled so it cannot crash the host. */
const refusePromise = (call: Call, what: string, thenable: PromiseLike<unknown>): ErrorResponse => {
  // The handler runs detached, where nothing would catch what it throws: it reads nothing of the
  // request (a stage may have left one whose reads throw), only the name read here, safely.
  const name = methodNameOf(call.request);
  Promise.resolve(thenable).then(undefined, (thrown: unknown) =>
    logSafely(`rpcserver: ${what} "${name}" rejected after sync dispatch refused its Promise`, thrown),
  );
  logSafely(`rpcserver: ${what} "${name}" returned a Promise to sync dispatch`);
  return ErrorResponse(
    ERROR_INTERNAL_ERROR,
    "Internal error",
    `${PROMISE_FROM[what] ?? "A stage"} returned a Promise; use asyncDispatch`,
    idOf(call.request),
  );
};

/**
 * How the code a request runs ends: `read` turns what it gave back into `R`, `failed` turns the
 * error it came to (an exception, a refused Promise) into `R`. The call stage ends in a Response;
 * a stage in the next call or an error; a notification with no stage to see its answer in nothing.
 */
interface Ending<C, R> {
  readonly read: (call: C, value: unknown) => R | Checking<R>;
  readonly failed: (error: ErrorResponse) => R;
}

/**
 * What the code a request runs (a method, a stage) gave back, read by `read`, and waited for first
 * if it is a Promise. Reading it may throw (a Proxy, a getter): that counts as that code's
 * exception. Shared by the call and your stages, and by both effects.
 */
const settle = <F extends URIS, C extends Call, R>(
  F: Effect<F>,
  env: Env,
  call: C,
  what: string,
  value: unknown,
  ending: Ending<C, R>,
): Kind<F, R> => {
  try {
    // Reading `then` may throw too (a Proxy): inside the try, as that code's own exception.
    if (!isThenable(value)) return checked(F, env, call, ending, ending.read(call, value));
    const fail = (thrown: unknown): R => ending.failed(thrownError(env, call, what, thrown));
    return F.wait(
      value,
      (settled) => {
        try {
          return checked(F, env, call, ending, ending.read(call, settled));
        } catch (thrown) {
          return F.of(fail(thrown));
        }
      },
      fail,
      (thenable) => ending.failed(refusePromise(call, what, thenable)),
    );
  } catch (thrown) {
    return F.of(ending.failed(thrownError(env, call, what, thrown)));
  }
};

/**
 * What `read` made of a method's answer: `R`, or a result that an async result schema is still
 * checking, waited for as the method's own Promise is (refused by sync dispatch).
 */
const checked = <F extends URIS, C extends Call, R>(
  F: Effect<F>,
  env: Env,
  call: C,
  { failed }: Ending<C, R>,
  read: R | Checking<R>,
): Kind<F, R> =>
  read instanceof Checking
    ? F.wait(
        read.pending,
        (value) => F.of(read.done(value)),
        (thrown) => failed(thrownError(env, call, "method", thrown)),
        (thenable) => failed(refusePromise(call, "result schema of method", thenable)),
      )
    : F.of(read);

/** A result an async result schema is still checking: `done` makes the answer of what it gives. */
class Checking<R> {
  constructor(
    readonly pending: PromiseLike<unknown>,
    readonly done: (checked: unknown) => R,
  ) {}
}

/**
 * A success for `request`, its value encoded by the method's result codec (`undefined` sent as
 * `null`, as `Success` does). An encode that throws is the method's exception: `settle` turns it
 * into -32603. A result schema whose `validate` answers a Promise is waited for.
 */
const success = (
  request: Request,
  codec: ReturnType<typeof resultCodecOf>,
  value: unknown,
): Response | Checking<Response> => {
  const sent = codec === undefined ? value : codec.encode(value);
  if (codec !== undefined && isThenable(sent) && standardOf(codec) !== undefined) {
    return new Checking(sent, (checkedValue) => success(request, undefined, checkedValue) as Response);
  }
  return E.right(SuccessResponse(sent === undefined ? null : sent, idOf(request)));
};

/** A method's return value as the Response: a Result is sent (encoded by its result codec), anything else is -32603. */
const fromReturned = (invocation: Invocation, returned: unknown): Response | Checking<Response> => {
  const { request, method } = invocation;
  if (isOutcome(method)) return fromOutcome(invocation, returned);
  if (isResult(returned)) {
    const codec = resultCodecOf(method);
    return codec === undefined || returned._tag === "Left"
      ? answer(request, returned)
      : success(request, codec, returned.right.result);
  }
  logSafely(`rpcserver: method "${request.method}" returned something other than a Result`);
  return failWith(ERROR_INTERNAL_ERROR, "Internal error", "The method did not return a Result", request);
};

/**
 * A contract handler's Either as the Response: its Right is the result itself (encoded by the
 * result codec), its Left the error. Anything else is -32603, as for a method.
 */
const fromOutcome = ({ request, method }: Invocation, returned: unknown): Response | Checking<Response> => {
  if (isObject(returned) && (returned as { _tag?: unknown })._tag === "Right") {
    return success(request, resultCodecOf(method), (returned as E.Right<unknown>).right);
  }
  if (isErrorLeft(returned)) return E.left(errorResponse(returned.left, request));
  logSafely(`rpcserver: method "${request.method}" returned something other than an Either`);
  return failWith(ERROR_INTERNAL_ERROR, "Internal error", "The method did not return an Either", request);
};

/**
 * Stage 5: calls the method and turns its Result (or exception, or Promise of either) into the
 * Response. In sync dispatch a Promise is refused with -32603; in async dispatch it is waited for.
 *
 * @example
 * import { call, environment, Sync } from "rpcserver/pipeline";
 * import { NOCONTEXT, Success } from "rpcserver";
 * const env = environment({}, undefined, false);
 * call(Sync)(env)({ request: { jsonrpc: "2.0", method: "add", id: 1 }, context: NOCONTEXT, method: (a: number, b: number) => Success(a + b), params: [1, 2] });
 * // Right: { result: 3, id: 1 }
 *
 * @since 5.0.10
 * @category stages
 */
export const call =
  <F extends URIS>(F: Effect<F>) =>
  (env: Env): ((invocation: Invocation) => Kind<F, Response>) =>
    callWith(F, env, answered);

/** The call stage, ending as `ending` says. */
const callWith = <F extends URIS, R>(F: Effect<F>, env: Env, ending: Ending<Invocation, R>) => {
  const invoke = (invocation: Invocation): Kind<F, R> => {
    let returned: unknown;
    try {
      returned = apply(invocation);
      // A contract handler's TaskEither is a thunk of its Promise: run it, as a stage's is.
      if (typeof returned === "function" && isOutcome(invocation.method)) returned = (returned as () => unknown)();
    } catch (thrown) {
      return F.of(ending.failed(thrownError(env, invocation, "method", thrown)));
    }
    return settle(F, env, invocation, "method", returned, ending);
  };
  return (invocation: Invocation): Kind<F, R> => {
    const { params } = invocation;
    if (!(params instanceof Checking)) return invoke(invocation);
    // Params an async schema is still checking: waited for as the method's own Promise would be
    // (refused by sync dispatch), then the method is called with what the schema gave.
    const what = "params schema of method";
    return F.wait(
      params.pending,
      (settled) => {
        const checked = (params as Checking<E.Either<ErrorResponse, unknown>>).done(settled);
        return E.isLeft(checked) ? F.of(ending.failed(checked.left)) : invoke({ ...invocation, params: checked.right });
      },
      (thrown) => ending.failed(thrownError(env, invocation, what, thrown)),
      (thenable) => ending.failed(refusePromise(invocation, what, thenable)),
    );
  };
};

/** A request's ending: its Response. */
const answered: Ending<Invocation, Response> = { read: fromReturned, failed: E.left };

/** A notification's ending when no stage is there to see its answer: nothing, the Result still checked. */
const dropped: Ending<Invocation, undefined> = {
  read: (invocation, returned) => {
    // Read for its log line alone (a notification's answer is not sent), and for a result schema
    // that is still checking, waited for so that its refusal is logged.
    if (isOutcome(invocation.method) || !isResult(returned)) {
      const read = fromReturned(invocation, returned);
      if (read instanceof Checking) return new Checking(read.pending, () => undefined);
    }
    return undefined;
  },
  failed: () => undefined,
};

// ---------------------------------------------------------------------------------------------
// your stages

const isCall = (value: unknown): value is Call =>
  isObject(value) && "context" in value && isObject((value as Call).request);

/** A stage that passes: `right(call)`. */
const isPass = (value: unknown): value is E.Right<Call> =>
  isObject(value) && (value as { _tag?: unknown })._tag === "Right" && isCall((value as E.Right<unknown>).right);

/** What a stage answered, checked: the next call, or the error for its request. */
const fromStage = (call: Call, answered: unknown): E.Either<ErrorResponse, Call> => {
  if (isPass(answered)) return answered;
  if (isErrorLeft(answered)) return E.left(errorResponse(answered.left, call.request));
  logSafely(`rpcserver: a stage for method "${call.request.method}" returned something other than an Either`);
  return failWith(ERROR_INTERNAL_ERROR, "Internal error", "A stage did not return an Either", call.request);
};

/** A stage's ending: the next call, or the error for its request. */
const staged: Ending<Call, E.Either<ErrorResponse, Call>> = { read: fromStage, failed: E.left };

/** What an `Around` handler of yours answered, checked: a Response, or -32603 for its request. */
const fromAround = (call: Call, answered: unknown): Response => {
  if (isResponse(answered)) return answered;
  logSafely(`rpcserver: a stage for method "${call.request.method}" returned something other than a Response`);
  return failWith(ERROR_INTERNAL_ERROR, "Internal error", "A stage did not return a Response", call.request);
};

/** An `Around` handler's ending: its Response (waited for, if it is a Promise), or the error for its request. */
const surrounded: Ending<Call, Response> = { read: fromAround, failed: E.left };

/**
 * One stage of yours around the rest of the pipeline: a guard's Right goes on to `next`, its Left
 * answers. An `Around` stage of yours is checked as a method is: what its handler throws, returns
 * (not a Response) or rejects with answers its request alone, and sync dispatch refuses its
 * Promise. The library's own (`observe`, `timeout`) are total and skip the check, which costs a
 * Promise reaction per request when the rest of the pipeline is async.
 */
const lift =
  <F extends URIS>(F: Effect<F>, env: Env) =>
  (next: Handler<F>, stage: AnyStage): Handler<F> => {
    if (isAround(stage)) {
      const around: unknown = stage.around(F)(next);
      if (typeof around !== "function") {
        // Composing is not per request: a malformed stage is a bad option, as dispatch treats any.
        if (isThenable(around)) Promise.resolve(around).then(undefined, () => undefined);
        throw new TypeError(`an Around stage's around(F)(next) must return a handler function, got ${typeof around}`);
      }
      if (isOwnAround(stage)) return around as Handler<F>;
      return (call) => {
        let answered: unknown;
        try {
          answered = (around as Handler<F>)(call);
        } catch (thrown) {
          return F.of(E.left(thrownError(env, call, "stage for method", thrown)));
        }
        return settle(F, env, call, "stage for method", answered, surrounded);
      };
    }
    const guard = stage as (call: Call) => unknown;
    return (call) => {
      let answered: unknown;
      let passed: Call | undefined;
      try {
        answered = guard(call);
        // A TaskEither is a thunk of its Promise: run it, so that async dispatch can wait for it.
        if (typeof answered === "function") answered = (answered as () => unknown)();
        // The common answer, a stage that passes at once, goes straight on to the rest.
        else if (isPass(answered)) passed = answered.right;
      } catch (thrown) {
        return F.of(E.left(thrownError(env, call, "stage for method", thrown)));
      }
      if (passed !== undefined) return next(passed);
      // EitherT's chain: the stage's Left is the answer (a Left<ErrorResponse> is a Response).
      return F.chain(settle(F, env, call, "stage for method", answered, staged), (waited) =>
        E.isLeft(waited) ? F.of<Response>(waited) : next(waited.right),
      );
    };
  };

/** Your stages, then resolve and call, as one handler: `stages.reduceRight` of each stage around the rest. */
const handler = <F extends URIS>(F: Effect<F>, env: Env): Handler<F> =>
  env.stages.reduceRight(lift(F, env), base(F, env, answered));

/** Resolve, then call: the end of every handler. */
const base = <F extends URIS, R>(F: Effect<F>, env: Env, ending: Ending<Invocation, R>) => {
  const resolved = resolve(env);
  const invoke = callWith(F, env, ending);
  return (call: Call): Kind<F, R> => {
    const invocation = resolved(call);
    return E.isLeft(invocation) ? F.of(ending.failed(invocation.left)) : invoke(invocation.right);
  };
};

// ---------------------------------------------------------------------------------------------
// the composition

const nothing = (): Response | undefined => undefined;

/**
 * `Kind<F, A>` as `Kind<F, B>` for `A` a subtype of `B`: both effects (Identity, Later) are
 * covariant, which fp-ts's encoding of higher kinds cannot express.
 */
const widen = <F extends URIS, A extends B, B>(fa: Kind<F, A>): Kind<F, B> => fa as unknown as Kind<F, B>;

/**
 * Every option any dispatch function takes: what a {@link dispatcher} accepts.
 *
 * @example
 * import type { DispatchOptions } from "rpcserver/pipeline";
 * const options: DispatchOptions = { debug: true, postProcess: (response) => response };
 *
 * @since 5.0.10
 * @category pipeline
 */
export type DispatchOptions = JsonOptions & ResponseOptions<unknown>;

/**
 * The whole pipeline for one request body, in the effect `F`: parse, then each request (validate,
 * your stages, resolve, call), then the answers collected. The answers are Responses; one of the
 * output stages below turns them into what a dispatch function returns.
 *
 * @example
 * import { Async, environment, pipeline, toTaskEither } from "rpcserver/pipeline";
 * import { Success } from "rpcserver";
 * const env = environment({ ping: async () => Success("pong") }, undefined, true);
 * await pipeline(Async)(env)('{"jsonrpc":"2.0","method":"ping","id":1}'); // Right: { result: "pong", id: 1 }
 *
 * @since 5.0.10
 * @category pipeline
 */
export const pipeline =
  <F extends URIS>(F: Effect<F>) =>
  (env: Env): ((body: unknown) => Kind<F, Answer>) => {
    const run = compose(F, env);
    const failed = (thrown: unknown): Answer => serverError(env, thrown);
    return (body) => F.attempt(run, body, env.context, identity, failed);
  };

/**
 * The composition without the net for failures of the library itself (the callers add it). The
 * context is an argument rather than read from `env`, so that one composition serves every call
 * whose options differ only in their context (the common case: the caller, per request).
 */
const compose = <F extends URIS>(F: Effect<F>, env: Env): ((body: unknown, context: unknown) => Kind<F, Answer>) => {
  const handle = handler(F, env);
  const staged = env.stages.length > 0;
  // Your stages may rewrite, mutate or break the request on its way (a new id, a getter that
  // throws): with stages each request runs under a net of its own, which answers it with the id it
  // arrived with, and a failure no stage caught with -32603 for that request alone. Without
  // stages the request is the validated one throughout, and every step guards its own user code.
  const answer: (call: Call) => Kind<F, Response> = staged ? netted(F, handle, withId, failedRequest(env)) : handle;
  // A notification's answer is dropped: without stages none is built; with stages (which may
  // answer it, or observe its answer) it is built and dropped.
  const notify: (call: Call) => Kind<F, Response | undefined> = staged
    ? netted(F, handle, nothing, failedNotification)
    : base<F, Response | undefined>(F, env, dropped);
  const decode = validating(env);

  /** One validated request: a notification's answer is dropped (it still runs to the end). */
  const run = (request: ValidatedRequest, context: unknown): Kind<F, Response | undefined> => {
    if (E.isLeft(request)) return F.of<Response | undefined>(request);
    const call = { request: request.right, context };
    if (isNotification(call.request)) return notify(call);
    return widen<F, Response, Response | undefined>(answer(call));
  };

  // A validator's Promise never rejects (its failure is -32600): what it does is the library's own.
  const libraryFailed = (thrown: unknown): Response => serverError(env, thrown);

  /**
   * One request. Only a Standard Schema validator may answer a Promise, so only with one is the
   * answer looked at: the common path stays as it was.
   */
  const one: (value: unknown, context: unknown) => Kind<F, Response | undefined> =
    env.validator.waits === true
      ? (value, context) => {
          const request = decode(value);
          return request instanceof Promise
            ? F.wait(
                request,
                (validated) => run(validated as ValidatedRequest, context),
                libraryFailed,
                refusedValidator,
              )
            : run(request, context);
        }
      : (value, context) => run(decode(value) as ValidatedRequest, context);

  const batch = (members: ReadonlyArray<unknown>, context: unknown): Kind<F, Answer> => {
    if (members.length === 0) return F.of<Answer>(invalidRequest("the batch is empty"));
    if (members.length > env.maxBatchSize) {
      return F.of<Answer>(invalidRequest(`the batch has ${members.length} requests; the limit is ${env.maxBatchSize}`));
    }
    const outcomes = new Array<Kind<F, Response | undefined>>(members.length);
    for (let i = 0; i < members.length; i++) outcomes[i] = one(members[i], context);
    return F.map(F.all(outcomes), collect);
  };

  const read = parse(env);
  return (body, context) => {
    const parsed = read(body);
    if (E.isLeft(parsed)) return F.of<Answer>(parsed);
    const value = parsed.right;
    return Array.isArray(value) ? batch(value, context) : widen<F, Response | undefined, Answer>(one(value, context));
  };
};

/**
 * `handle` under a net of the request's own: its answer ended by `onValue` and a failure by
 * `onError` (thrown now or rejected later), each given the id the request arrived with, read
 * before any stage could change it.
 */
const netted =
  <F extends URIS, R>(
    F: Effect<F>,
    handle: Handler<F>,
    onValue: (response: Response, id: Id) => R,
    onError: (thrown: unknown, id: Id) => R,
  ) =>
  (call: Call): Kind<F, R> => {
    const id = idOf(call.request);
    try {
      return F.recover(handle(call), id, onValue, onError);
    } catch (thrown) {
      return F.of(onError(thrown, id));
    }
  };

/** The response with the id its request arrived with, rebuilt only when a stage changed it. */
const withId = (response: Response, id: Id): Response => {
  if (response._tag === "Right") {
    return response.right.id === id ? response : E.right(SuccessResponse(response.right.result, id));
  }
  const { code, message, data } = response.left;
  return response.left.id === id ? response : E.left(ErrorResponse(code, message, data, id));
};

/** A request's failure that no stage caught (a stage passed on a request that cannot be read), answered as any exception is. */
const failedRequest =
  (env: Env) =>
  (thrown: unknown, id: Id): Response =>
    E.left(errorFor(env, id, `a stage of the request with id ${render(id)}`, thrown));

/** The same for a notification: logged, never answered. */
const failedNotification = (thrown: unknown, _id: Id): undefined => {
  logSafely("rpcserver: a notification failed in its stages", thrown);
  return undefined;
};

/** The answers to send: a batch without any (all notifications) is nothing to send. */
const collect = (outcomes: ReadonlyArray<Response | undefined>): Answer => {
  const responses: Response[] = [];
  for (const outcome of outcomes) if (outcome !== undefined) responses.push(outcome);
  return responses.length === 0 ? undefined : responses;
};

/** A failure of the library itself, outside any method: -32000, its message only under `debug`. */
const serverError = (env: Env, thrown: unknown): Response => {
  logSafely("rpcserver: dispatch failed", thrown);
  return failWith(ERROR_SERVER_ERROR, "Server error", env.debug ? messageOf(thrown) : NODATA, null);
};

// ---------------------------------------------------------------------------------------------
// output stages: the last stage of each dispatch function

/**
 * Stage 6 of the JSON functions: the answers as JSON text (`""` when nothing is to be sent), each
 * response written on its own by `serializer`, so one that cannot be becomes -32603 alone.
 *
 * @example
 * import { environment, serialize } from "rpcserver/pipeline";
 * serialize(environment({}, undefined, false))(undefined); // ""
 *
 * @since 5.0.10
 * @category output
 */
export const serialize =
  (env: Env) =>
  (answer: Answer): string =>
    writeAll(env.serializer, env.debug, answer);

/**
 * The last stage of the `*ToSerializable` functions: the answers as response objects.
 *
 * @example
 * import { environment, toObjects } from "rpcserver/pipeline";
 * import { SuccessResponse } from "rpcserver";
 * import * as E from "fp-ts/Either";
 * toObjects(environment({}, undefined, false))(E.right(SuccessResponse("pong", 1)));
 * // { jsonrpc: "2.0", result: "pong", id: 1 }
 *
 * @since 5.0.10
 * @category output
 */
export const toObjects =
  (_env: Env) =>
  (answer: Answer): Serializable =>
    toSerializable(answer);

/**
 * What the `*ToResponse` functions return: a Response (or what `postProcess` makes of it) per request.
 *
 * @example
 * import { dispatchToResponse, Success, type Processed } from "rpcserver";
 * const out: Processed<string> = dispatchToResponse('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => Success("pong") }, {
 *   postProcess: (response) => response._tag,
 * });
 * // "Right"
 *
 * @since 5.0.10
 * @category output
 */
export type Processed<T> = T | T[] | undefined;

/**
 * The last stage of the `*ToResponse` functions: the Responses with `postProcess` applied to each;
 * if it throws, the raw -32000 Response instead (postProcess is the caller's code: its failure is
 * reported as a Response it did not shape).
 *
 * @example
 * import { environment, toResponses } from "rpcserver/pipeline";
 * import { SuccessResponse } from "rpcserver";
 * import * as E from "fp-ts/Either";
 * const env = environment({}, { postProcess: (response) => response._tag }, false);
 * toResponses(env)(E.right(SuccessResponse("pong", 1))); // "Right"
 *
 * @since 5.0.10
 * @category output
 */
export const toResponses =
  (env: Env) =>
  (answer: Answer): Processed<unknown> => {
    const postProcess = env.postProcess;
    if (postProcess === undefined || answer === undefined) return answer;
    try {
      return Array.isArray(answer) ? answer.map((response) => postProcess(response)) : postProcess(answer);
    } catch (thrown) {
      return serverError(env, thrown);
    }
  };

// ---------------------------------------------------------------------------------------------
// front ends

/** The options a compiled pipeline was built from: all but the context, which each call passes. */
interface Built {
  readonly methods: Methods;
  readonly deserializer: unknown;
  readonly validator: unknown;
  readonly debug: unknown;
  readonly maxBatchSize: unknown;
  readonly stages: ReadonlyArray<unknown> | undefined;
  readonly serializer: unknown;
  readonly postProcess: unknown;
}

const NO_OPTIONS: DispatchOptions = {};

const builtFrom = (methods: Methods, o: DispatchOptions): Built => ({
  methods,
  deserializer: o.deserializer,
  validator: o.validator,
  debug: o.debug,
  maxBatchSize: o.maxBatchSize,
  // A copy: the caller may change its array between calls.
  stages: Array.isArray(o.stages) ? [...(o.stages as ReadonlyArray<unknown>)] : o.stages,
  serializer: o.serializer,
  postProcess: o.postProcess,
});

const sameStages = (built: ReadonlyArray<unknown> | undefined, given: unknown): boolean => {
  if (built === given) return true;
  if (built === undefined || !Array.isArray(given) || given.length !== built.length) return false;
  for (let i = 0; i < built.length; i++) if (given[i] !== built[i]) return false;
  return true;
};

/** Whether `o` asks for the pipeline `built` was compiled from: each option compared by value, the context aside. */
const sameBuild = (built: Built, methods: Methods, o: DispatchOptions): boolean =>
  built.methods === methods &&
  o.deserializer === built.deserializer &&
  o.validator === built.validator &&
  o.debug === built.debug &&
  o.maxBatchSize === built.maxBatchSize &&
  o.serializer === built.serializer &&
  o.postProcess === built.postProcess &&
  sameStages(built.stages, o.stages);

/**
 * A dispatch function made of the pipeline in effect `F` and an output stage: the six dispatch
 * functions are `dispatcher(Sync | Async, serialize | toObjects | toResponses)`, and a front end of
 * your own (bytes out, another envelope) is one more output stage. The result takes `(request,
 * methods?, options?)` like `dispatch`, and returns `Kind<F, O>`: `O` itself for `Sync`, a
 * `Later<O>` for `Async` (`Promise.resolve` it for a Promise).
 *
 * Composing the pipeline (checking the options, building each stage's closures) costs more than a
 * small request, so the last composition is kept and reused while a call's methods and options
 * (the context aside, each compared by value) are the same: `dispatch(body, methods, { context:
 * caller, stages })` composes once, not once per request. Options are still read at every call; a
 * changed one composes anew.
 *
 * @example
 * import { dispatcher, Sync, type Answer } from "rpcserver/pipeline";
 * import { Success } from "rpcserver";
 * const toBytes = dispatcher(Sync, () => (answer: Answer) => new TextEncoder().encode(JSON.stringify(answer ?? null)));
 * toBytes('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => Success("pong") }, undefined); // Uint8Array
 *
 * @since 5.0.10
 * @category pipeline
 */
export const dispatcher = <F extends URIS, O>(F: Effect<F>, output: (env: Env) => (answer: Answer) => O) => {
  let built: Built | undefined;
  let run: ((body: unknown, context: unknown) => Kind<F, O>) | undefined;
  return (request: unknown, methods: Methods | undefined, options: DispatchOptions | undefined): Kind<F, O> => {
    const table = methods ?? globalMethods;
    const o = options ?? NO_OPTIONS;
    const context = options === undefined || o.context === undefined ? NOCONTEXT : o.context;
    if (run === undefined || built === undefined || !sameBuild(built, table, o)) {
      const env = environment(methods, options, F.concurrent);
      const composed = compose(F, env);
      const out = output(env);
      const failed = (thrown: unknown): O => out(serverError(env, thrown));
      run = (body, ctx) => F.attempt(composed, body, ctx, out, failed);
      built = builtFrom(table, o);
    }
    return run(request, context);
  };
};

export { environment, type Env, type RequestDecoder } from "./options";
export { Async, Later, LaterURI, Sync, toTaskEither, type Effect } from "./effect";
export {
  observe,
  timeout,
  type AnyStage,
  type Around,
  type AsyncStage,
  type Call,
  type Handler,
  type Observation,
  type Stage,
  type TimeoutOptions,
} from "./stages";
