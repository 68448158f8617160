/**
 * Stage 5: the call. The method is called with its params (and the context first when there is
 * one), and what it returns (a Result, a contract handler's Either, an exception, a Promise of any
 * of them, an async generator that streams values before it returns one: `streaming.ts`) becomes
 * the Response for its request; a notification's is read for its log line alone.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Kind, URIS } from "fp-ts/HKT";
import { ERROR_INTERNAL_ERROR } from "../codes";
import type { Effect } from "../effect";
import { isObject, isThenable } from "../guards";
import { logSafely } from "../logger";
import { isOutcome, resultCodecOf } from "../methods";
import type { Env } from "../options";
import type { Request } from "../request";
import { ErrorResponse, SuccessResponse, type Response } from "../response";
import type { ErrorResult, Result } from "../result";
import { standardOf } from "../schema";
import { NOCONTEXT } from "../sentinels";
import { idOf } from "../stages";
import { isStreamed } from "../stream";
import { failWith, refusePromise, thrownError } from "./failures";
import type { Invocation } from "./resolve";
import { Checking, settle, type Ending, type Unsettled } from "./settle";
import { Streaming } from "./streaming";

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
export const isErrorLeft = (value: unknown): value is E.Left<ErrorResult> => {
  if (!isObject(value) || (value as { _tag?: unknown })._tag !== "Left") return false;
  const left = (value as E.Left<unknown>).left;
  return isObject(left) && "code" in left && "message" in left;
};

/** Is `value` a Result, as a method must return? */
const isResult = isResultShaped as (value: unknown) => value is Result;

/** Is `value` a Response, as an `Around` handler must answer? */
export const isResponse = isResultShaped as (value: unknown) => value is Response;

/** A Result as the Response to `request`. */
const answer = (request: Request, result: Result): Response =>
  result._tag === "Right"
    ? E.right(SuccessResponse(result.right.result, idOf(request)))
    : E.left(errorResponse(result.left, request));

export const errorResponse = ({ code, message, data }: ErrorResult, request: Request): ErrorResponse =>
  ErrorResponse(code, message, data, idOf(request));

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

/**
 * A method's return value as the Response: a Result is sent (encoded by its result codec), an
 * async generator drained first (tested only here, after the Result: a method that does not stream
 * pays nothing for it), anything else is -32603.
 */
const fromReturned = (invocation: Invocation, returned: unknown): Response | Unsettled<Response> => {
  const { request, method } = invocation;
  if (isOutcome(method)) return fromOutcome(invocation, returned);
  if (isResult(returned)) {
    const codec = resultCodecOf(method);
    return codec === undefined || returned._tag === "Left"
      ? answer(request, returned)
      : success(request, codec, returned.right.result);
  }
  if (isStreamed(returned)) return new Streaming(returned, invocation);
  logSafely(
    `rpcserver: method "${request.method}" returned something other than a Result (its value wrapped: Success(value), or Error(code, message))`,
  );
  return failWith(ERROR_INTERNAL_ERROR, "Internal error", "The method did not return a Result", request);
};

/**
 * A contract handler's Either as the Response: its Right is the result itself (encoded by the
 * result codec), its Left the error; an async generator is drained first. Anything else is
 * -32603, as for a method.
 */
const fromOutcome = (invocation: Invocation, returned: unknown): Response | Unsettled<Response> => {
  const { request, method } = invocation;
  if (isObject(returned) && (returned as { _tag?: unknown })._tag === "Right") {
    return success(request, resultCodecOf(method), (returned as E.Right<unknown>).right);
  }
  if (isErrorLeft(returned)) return E.left(errorResponse(returned.left, request));
  if (isStreamed(returned)) return new Streaming(returned, invocation);
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
 * // { _tag: "Right", right: { result: 3, id: 1 } }
 *
 * @since 5.0.10
 * @category stages
 */
export const call =
  <F extends URIS>(F: Effect<F>) =>
  (env: Env): ((invocation: Invocation) => Kind<F, Response>) =>
    callWith(F, env, answered);

/**
 * The call stage, ending as `ending` says: the one function every call runs, with no closure
 * around it to choose the path of params still being checked (one call less per request).
 */
export const callWith = <F extends URIS, R>(
  F: Effect<F>,
  env: Env,
  ending: Ending<Invocation, R>,
): ((invocation: Invocation) => Kind<F, R>) => {
  const invoke = (invocation: Invocation): Kind<F, R> => {
    const { params } = invocation;
    if (params instanceof Checking)
      return invokeChecked(invocation, params as Checking<E.Either<ErrorResponse, unknown>>);
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
  // Params an async schema is still checking: waited for as the method's own Promise would be
  // (refused by sync dispatch), then the method is called with what the schema gave. A function of
  // its own, so that the common path stays small enough for V8 to inline.
  const invokeChecked = (invocation: Invocation, params: Checking<E.Either<ErrorResponse, unknown>>): Kind<F, R> => {
    const what = "params schema of method";
    return F.wait(
      params.pending,
      (settled) => {
        const checked = params.done(settled);
        return E.isLeft(checked) ? F.of(ending.failed(checked.left)) : invoke({ ...invocation, params: checked.right });
      },
      (thrown) => ending.failed(thrownError(env, invocation, what, thrown)),
      (thenable) => ending.failed(refusePromise(invocation, what, thenable, env)),
    );
  };
  return invoke;
};

/** A request's ending: its Response. */
export const answered: Ending<Invocation, Response> = { read: fromReturned, failed: E.left };

/** A notification's ending when no stage is there to see its answer: nothing, the Result still checked. */
export const dropped: Ending<Invocation, undefined> = {
  read: (invocation, returned) => {
    // Read for its log line alone (a notification's answer is not sent), and for a result schema
    // that is still checking, waited for so that its refusal is logged.
    if (isOutcome(invocation.method) || !isResult(returned)) {
      const read = fromReturned(invocation, returned);
      // A stream is drained all the same (its values to a sink, if a stage gave one), then read.
      if (read instanceof Streaming) return read.endedAs<undefined>();
      if (read instanceof Checking) return new Checking(read.pending, () => undefined);
    }
    return undefined;
  },
  failed: () => undefined,
};
