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
import { describesOf, lookup, paramsCodecOf, type Method } from "../methods";
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
