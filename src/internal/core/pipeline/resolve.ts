/**
 * Stage 4 (after your stages): the method a call names, found in the table, and the params it will
 * receive, decoded by its params codec or schema when it has one.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type * as t from "io-ts";
import { ERROR_INTERNAL_ERROR, ERROR_INVALID_PARAMS, ERROR_METHOD_NOT_FOUND } from "../codes";
import { isThenable, isValidation } from "../guards";
import { logSafely } from "../logger";
import { arityOf, describesOf, lookup, paramsCodecOf, type Method } from "../methods";
import type { Env } from "../options";
import { arityProblem, decodeAbsent } from "../params";
import type { Request } from "../request";
import type { ErrorResponse } from "../response";
import { NOCONTEXT } from "../sentinels";
import { failureLines } from "../schema";
import type { Call } from "../stages";
import { failWith, thrownError } from "./failures";
import { Checking } from "./settle";

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
 * // { _tag: "Left", left: { code: -32601, message: "Method not found", data: "nope", id: 1 } }
 *
 * @since 5.0.10
 * @category stages
 */
export const resolve =
  (env: Env) =>
  (call: Call): E.Either<ErrorResponse, Invocation> => {
    const found = resolvedCall(env, call);
    return isRefusal(found) ? found : E.right(found);
  };

/**
 * What resolve comes to, without the Right around an invocation: the composition without stages
 * hands the request and its context over as they are, and builds no call object and no Right for
 * a request it resolves.
 */
export type Resolution = Invocation | E.Left<ErrorResponse>;

/** Is it the error for the request (an invocation has no `_tag`)? */
export const isRefusal = (found: Resolution): found is E.Left<ErrorResponse> =>
  (found as { _tag?: unknown })._tag === "Left";

/**
 * {@link resolve} of a call a stage passed on: its fields are read under a net too (a stage may
 * pass a call whose reads throw), then it goes on as {@link resolution}.
 */
export const resolvedCall = (env: Env, call: Call): Resolution => {
  let request: Request;
  let context: unknown;
  try {
    ({ request, context } = call);
  } catch (thrown) {
    return failed(env, call, thrown);
  }
  return resolution(env, request, context);
};

/** {@link resolve} of `request` with its `context`, as the composition without stages runs it. */
export const resolution = (env: Env, request: Request, context: unknown): Resolution => {
  try {
    return resolved(env, request, context);
  } catch (thrown) {
    return failed(env, { request, context }, thrown);
  }
};

// The methods table, a method (its `length`, a Proxy) and its params codec are the user's code:
// whatever they throw answers this request alone, as the method's own exception would.
const failed = (env: Env, call: Call, thrown: unknown): E.Left<ErrorResponse> =>
  E.left(thrownError(env, call, "method", thrown)) as E.Left<ErrorResponse>;

/** The error for `request`: a Left, as a Resolution carries it. */
const refuse = (code: number, message: string, data: unknown, request: Request): E.Left<ErrorResponse> =>
  failWith(code, message, data, request) as E.Left<ErrorResponse>;

const resolved = (env: Env, request: Request, context: unknown): Resolution => {
  const method = lookup(env.methods, env.methodsAreMap, request.method);
  if (method === undefined) return refuse(ERROR_METHOD_NOT_FOUND, "Method not found", request.method, request);
  const codec = paramsCodecOf(method);
  if (codec === undefined) {
    // The common path, kept small enough for V8 to inline into the composition: a method with a
    // codec is decoded in a function of its own.
    const arity = arityOf(method);
    const why = arityProblem(arity - (context === NOCONTEXT ? 0 : 1), request.params);
    if (why !== undefined) return refuse(ERROR_INVALID_PARAMS, "Invalid params", why, request);
    // The discovery method (`discover`) describes the table it is dispatched with: it is called
    // with that table, and whether there is a context, in its place. It declares no parameter, so
    // only a method that declares none is looked at for its mark.
    const describes = arity === 0 ? describesOf(method) : undefined;
    return describes === undefined
      ? { request, context, method, params: request.params }
      : { request, context, method: () => describes(env.methods, context !== NOCONTEXT), params: undefined };
  }
  return decodedCall(request, context, method, codec);
};

/** A method with a params codec (or schema): its params decoded, or the error for `request`. */
const decodedCall = (request: Request, context: unknown, method: Method, codec: t.Any): Resolution => {
  const decoded: unknown =
    request.params === undefined ? decodeAbsent((params) => codec.decode(params)) : codec.decode(request.params);
  if (!isValidation(decoded)) {
    // A Standard Schema whose `validate` answers a Promise: the call waits for it (async dispatch)
    // or is refused (sync dispatch), as a method's own Promise is.
    if (isThenable(decoded)) {
      const params = new Checking(decoded, (settled) =>
        decodedParams(codec, settled as t.Validation<unknown>, request),
      );
      return { request, context, method, params };
    }
    logSafely(
      `rpcserver: the params codec of method "${request.method}" returned something other than an io-ts Validation`,
    );
    return refuse(ERROR_INTERNAL_ERROR, "Internal error", "The params codec did not return a Validation", request);
  }
  const params = decodedParams(codec, decoded, request);
  return E.isRight(params) ? { request, context, method, params: params.right } : params;
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
