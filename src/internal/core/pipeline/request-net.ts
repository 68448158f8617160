/**
 * The net each request runs under when you have stages: they may rewrite, mutate or break the
 * request on its way, so its answer is given the id it arrived with, and a failure no stage caught
 * answers that request alone (a notification's is logged, never answered).
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Kind, URIS } from "fp-ts/HKT";
import { render } from "../describe";
import type { Effect } from "../effect";
import { logSafely } from "../logger";
import type { Env } from "../options";
import type { Id } from "../request";
import { ErrorResponse, SuccessResponse, type Response } from "../response";
import { idOf, type Call, type Handler } from "../stages";
import { errorFor } from "./failures";

/**
 * `handle` under a net of the request's own: its answer ended by `onValue` and a failure by
 * `onError` (thrown now or rejected later), each given the id the request arrived with, read
 * before any stage could change it.
 */
export const netted =
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
export const withId = (response: Response, id: Id): Response => {
  if (response._tag === "Right") {
    return response.right.id === id ? response : E.right(SuccessResponse(response.right.result, id));
  }
  const { code, message, data } = response.left;
  return response.left.id === id ? response : E.left(ErrorResponse(code, message, data, id));
};

/** A request's failure that no stage caught (a stage passed on a request that cannot be read), answered as any exception is. */
export const failedRequest =
  (env: Env) =>
  (thrown: unknown, id: Id): Response =>
    E.left(errorFor(env, id, `a stage of the request with id ${render(id)}`, thrown, "a stage of a request"));

/** The same for a notification: logged, never answered. */
export const failedNotification = (thrown: unknown, _id: Id): undefined => {
  logSafely("rpcserver: a notification failed in its stages", thrown);
  return undefined;
};
