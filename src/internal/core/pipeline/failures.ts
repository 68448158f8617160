/**
 * The errors the pipeline answers with when a request cannot go on: a request it cannot read, an
 * exception from the code a request runs, a Promise that sync dispatch cannot wait for, and a
 * failure of the library itself. Each is the `ErrorResponse` for one request, never a throw.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { ERROR_INTERNAL_ERROR, ERROR_INVALID_REQUEST, ERROR_REQUEST_CANCELLED, ERROR_SERVER_ERROR } from "../codes";
import { messageOf, methodNameOf } from "../describe";
import { isJsonRpcError } from "../exceptions";
import { lookup } from "../methods";
import { logSafely } from "../logger";
import type { Env } from "../options";
import type { Id, Request } from "../request";
import { ErrorResponse, type Response } from "../response";
import { isSchemaRefused } from "../schema";
import { NODATA } from "../sentinels";
import { isAbortOf, requestAbortOf, signalIn } from "../signal";
import { idOf, type Call } from "../stages";

export const failWith = (
  code: number,
  message: string,
  data: unknown,
  request: Request | null,
): E.Either<ErrorResponse, never> =>
  E.left(ErrorResponse(code, message, data, request === null ? null : idOf(request)));

export const invalidRequest = (data: unknown): E.Either<ErrorResponse, never> =>
  failWith(ERROR_INVALID_REQUEST, "Invalid Request", data, null);

/** What stands for a method the table does not have, in a log's site: a client chooses those names. */
const NOT_IN_TABLE = "(a method not in the table)";

/**
 * A call's method as a log's site names it (see `logSafely`): its name when the table has it, so a
 * client can make no more kinds of error than the table has methods; one label for every other
 * name. A call that was resolved (it carries its method) names one the table has; another is looked
 * up, when `env` is given, and reading it must not throw (a stage may have left a request whose
 * reads throw, the table may be a Proxy).
 */
export const methodSite = (call: Call, env: Env | undefined): string => {
  try {
    const name: unknown = call.request.method;
    if (typeof name !== "string") return NOT_IN_TABLE;
    const resolved = typeof (call as { method?: unknown }).method === "function";
    if (resolved || (env !== undefined && lookup(env.methods, env.methodsAreMap, name) !== undefined)) {
      return `"${name}"`;
    }
  } catch {
    // Unreadable: as a method not in the table.
  }
  return NOT_IN_TABLE;
};

/**
 * An exception from the code a request runs (a method, its params codec, a stage) as the error to
 * send: a JsonRpcError as given, anything else -32603 (logged; its message in `data` only under
 * `debug`).
 */
export const thrownError = (env: Env, call: Call, what: string, thrown: unknown): ErrorResponse => {
  // The abort of a request cancelled already (a cancel, its client gone, a deadline), handed on by
  // its code (`await sleep(ms, undefined, { signal })`, `fetch`): no fault of the code's. It is
  // answered as cancelled (the answer is seldom sent), and not logged. Any other exception is, even
  // after a cancel: a client must not be able to keep an error out of the log by cancelling.
  if (!isJsonRpcError(thrown) && isItsAbort(call, thrown)) {
    return ErrorResponse(ERROR_REQUEST_CANCELLED, "Request cancelled", NODATA, idOf(call.request));
  }
  return errorFor(
    env,
    idOf(call.request),
    `${what} "${methodNameOf(call.request)}"`,
    thrown,
    `${what} ${methodSite(call, env)}`,
  );
};

/** Is `thrown` the abort of the request of `call`, aborted already: the abort a wire made for it, or a signal the caller put in the context? */
const isItsAbort = (call: Call, thrown: unknown): boolean => {
  try {
    const { context, request } = call;
    const abort = requestAbortOf(context, request);
    return isAbortOf(thrown, abort === undefined ? signalIn(context) : abort.aborted ? abort.signal : undefined);
  } catch {
    // A call whose reads throw (a stage's Proxy): not known to be cancelled.
    return false;
  }
};

/**
 * An exception as the error answering the request `id`; `who` names what raised it in the log, and
 * `site` the same in the server's words only (no name or id a client chose), for sampling.
 */
export const errorFor = (env: Env, id: Id, who: string, thrown: unknown, site: string): ErrorResponse => {
  if (isJsonRpcError(thrown)) return ErrorResponse(thrown.code, thrown.message, thrown.data, id);
  if (isSchemaRefused(thrown)) {
    // A result (or stream) schema refused the method's value: the method's fault, reported as io-ts would be.
    logSafely(
      `rpcserver: the ${thrown.of} schema of ${who} refused its value`,
      thrown.message,
      `rpcserver: the ${thrown.of} schema of ${site} refused its value`,
    );
    return ErrorResponse(ERROR_INTERNAL_ERROR, "Internal error", thrown.lines, id);
  }
  logSafely(`rpcserver: ${who} raised an exception`, thrown, `rpcserver: ${site} raised an exception`);
  return ErrorResponse(ERROR_INTERNAL_ERROR, "Internal error", env.debug ? messageOf(thrown) : NODATA, id);
};

/** What gave sync dispatch a Promise, as its answer names it: a method, its params or result schema; else a stage. */
const PROMISE_FROM: Readonly<Record<string, string>> = {
  method: "The method",
  "params schema of method": "The params schema",
  "result schema of method": "The result schema",
};

/**
 * Sync dispatch cannot wait: the Promise is refused, and its rejection marked handled so it cannot
 * crash the host. `env`, when given, tells whether a call not yet resolved names a method the table
 * has (see `methodSite`).
 */
export const refusePromise = (call: Call, what: string, thenable: PromiseLike<unknown>, env?: Env): ErrorResponse => {
  // The handler runs detached, where nothing would catch what it throws: it reads nothing of the
  // request (a stage may have left one whose reads throw), only the name read here, safely.
  const name = methodNameOf(call.request);
  const site = `${what} ${methodSite(call, env)}`;
  Promise.resolve(thenable).then(undefined, (thrown: unknown) =>
    logSafely(
      `rpcserver: ${what} "${name}" rejected after sync dispatch refused its Promise`,
      thrown,
      `rpcserver: ${site} rejected after sync dispatch refused its Promise`,
    ),
  );
  logSafely(
    `rpcserver: ${what} "${name}" returned a Promise to sync dispatch`,
    undefined,
    `rpcserver: ${site} returned a Promise to sync dispatch`,
  );
  return ErrorResponse(
    ERROR_INTERNAL_ERROR,
    "Internal error",
    `${PROMISE_FROM[what] ?? "A stage"} returned a Promise; use asyncDispatch`,
    idOf(call.request),
  );
};

/** A failure of the library itself, outside any method: -32000, its message only under `debug`. */
export const serverError = (env: Env, thrown: unknown): Response => {
  logSafely("rpcserver: dispatch failed", thrown);
  return failWith(ERROR_SERVER_ERROR, "Server error", env.debug ? messageOf(thrown) : NODATA, null);
};
