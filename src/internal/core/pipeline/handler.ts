/**
 * Your stages around the rest of the pipeline: each stage (a guard, or an `Around` stage) wrapped
 * around resolve and the call, as one handler per environment. What a stage of yours throws,
 * returns or rejects with is checked, as a method's is, and answers its request alone.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Kind, URIS } from "fp-ts/HKT";
import { ERROR_INTERNAL_ERROR } from "../codes";
import type { Effect } from "../effect";
import { isObject, isThenable } from "../guards";
import { logSafely } from "../logger";
import type { Env } from "../options";
import type { ErrorResponse, Response } from "../response";
import { isAround, isOwnAround, type AnyStage, type Call, type Handler } from "../stages";
import { passSink } from "../stream";
import { answered, callWith, errorResponse, isErrorLeft, isResponse } from "./call";
import { failWith, methodSite, thrownError } from "./failures";
import { isRefusal, resolvedCall, type Invocation, type Resolution } from "./resolve";
import { settle, type Ending } from "./settle";

const isCall = (value: unknown): value is Call =>
  isObject(value) && "context" in value && isObject((value as Call).request);

/** A stage that passes: `right(call)`. */
const isPass = (value: unknown): value is E.Right<Call> =>
  isObject(value) && (value as { _tag?: unknown })._tag === "Right" && isCall((value as E.Right<unknown>).right);

/**
 * What a stage answered, checked: the next call, or the error for its request. The log names the
 * method; its site names it only when the table has it (a stage runs before the method is looked up).
 */
const fromStage =
  (env: Env) =>
  (call: Call, answered: unknown): E.Either<ErrorResponse, Call> => {
    if (isPass(answered)) return answered;
    if (isErrorLeft(answered)) return E.left(errorResponse(answered.left, call.request));
    logSafely(
      `rpcserver: a stage for method "${call.request.method}" returned something other than an Either`,
      undefined,
      `rpcserver: a stage for method ${methodSite(call, env)} returned something other than an Either`,
    );
    return failWith(ERROR_INTERNAL_ERROR, "Internal error", "A stage did not return an Either", call.request);
  };

/**
 * The call a guard passed on: a new request object in the place of the one it was given takes its
 * stream sink with it (`streamTo` keys the sink by the request object).
 */
const passedOn = (call: Call, passed: Call): Call => {
  if (passed.request !== call.request) passSink(call.request, passed.request);
  return passed;
};

/** What an `Around` handler of yours answered, checked: a Response, or -32603 for its request. */
const fromAround =
  (env: Env) =>
  (call: Call, answered: unknown): Response => {
    if (isResponse(answered)) return answered;
    logSafely(
      `rpcserver: a stage for method "${call.request.method}" returned something other than a Response`,
      undefined,
      `rpcserver: a stage for method ${methodSite(call, env)} returned something other than a Response`,
    );
    return failWith(ERROR_INTERNAL_ERROR, "Internal error", "A stage did not return a Response", call.request);
  };

/**
 * One stage of yours around the rest of the pipeline: a guard's Right goes on to `next`, its Left
 * answers. An `Around` stage of yours is checked as a method is: what its handler throws, returns
 * (not a Response) or rejects with answers its request alone, and sync dispatch refuses its
 * Promise. The library's own (`observe`, `timeout`) are total and skip the check, which costs a
 * Promise reaction per request when the rest of the pipeline is async.
 */
const lift = <F extends URIS>(F: Effect<F>, env: Env): ((next: Handler<F>, stage: AnyStage) => Handler<F>) => {
  // A stage's endings, once per environment: what they log says whether the table has the method.
  const staged: Ending<Call, E.Either<ErrorResponse, Call>> = { read: fromStage(env), failed: E.left };
  const surrounded: Ending<Call, Response> = { read: fromAround(env), failed: E.left };
  return (next, stage) => {
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
        else if (isPass(answered)) passed = passedOn(call, answered.right);
      } catch (thrown) {
        return F.of(E.left(thrownError(env, call, "stage for method", thrown)));
      }
      if (passed !== undefined) return next(passed);
      // EitherT's chain: the stage's Left is the answer (a Left<ErrorResponse> is a Response).
      return F.chain(settle(F, env, call, "stage for method", answered, staged), (waited) =>
        E.isLeft(waited) ? F.of<Response>(waited) : next(passedOn(call, waited.right)),
      );
    };
  };
};

/** Your stages, then resolve and call, as one handler: `stages.reduceRight` of each stage around the rest. */
export const handler = <F extends URIS>(F: Effect<F>, env: Env): Handler<F> => {
  const end = base(F, env, answered);
  const last: Handler<F> = (call) => end(resolvedCall(env, call));
  return env.stages.length === 0 ? last : env.stages.reduceRight(lift(F, env), last);
};

/**
 * The call, after resolve: the end of every handler. It takes what resolve came to, so that the
 * composition without stages resolves the request and its context as they are (no call object,
 * no Right) and goes on through the same call stage.
 */
export const base = <F extends URIS, R>(
  F: Effect<F>,
  env: Env,
  ending: Ending<Invocation, R>,
): ((found: Resolution) => Kind<F, R>) => {
  const invoke = callWith(F, env, ending);
  return (found) => (isRefusal(found) ? F.of(ending.failed(found.left)) : invoke(found));
};
