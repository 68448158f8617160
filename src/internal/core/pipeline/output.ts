/**
 * The output stages: the last stage of each dispatch function, turning the answers (Responses) into
 * what it returns: JSON text ({@link toJson}) or the Responses as `postProcess` makes them
 * ({@link toResponses}); response objects are `() => toSerializable` (from the response module).
 *
 * @module
 */
import type { Env } from "../options";
import { toSerializable, type Serializable } from "../response";
import { writeAll } from "../serializer";
import type { Answer } from "./compose";
import { serverError } from "./failures";

/**
 * Stage 6 of the JSON functions: the answers as JSON text (`""` when nothing is to be sent), each
 * response written on its own by `serializer`, so one that cannot be becomes -32603 alone.
 *
 * @example
 * import { environment, toJson } from "rpcserver/pipeline";
 * toJson(environment({}, undefined, false))(undefined); // ""
 *
 * @since 5.0.10
 * @category output
 */
export const toJson =
  (env: Env) =>
  (answer: Answer): string =>
    writeAll(env.serializer, env.debug, answer);

/**
 * The output stage {@link toJson} under its former name, which the root's `serialize` (one value
 * as JSON text) also bears.
 *
 * @deprecated Use {@link toJson}: the same function; `serialize` is removed from `rpcserver/pipeline` in 6.0.
 * @example
 * import { environment, serialize } from "rpcserver/pipeline";
 * serialize(environment({}, undefined, false))(undefined); // ""
 *
 * @since 5.0.10
 * @category output
 */
export const serialize = toJson;

/**
 * The answers as response objects, what the `*ToSerializable` functions return: the same as
 * `toSerializable` (from `rpcserver/response`) of the answers, whatever the environment.
 *
 * @deprecated Use `() => toSerializable` as the output stage (`dispatcher(Sync, () => toSerializable)`):
 * the same answers; `toObjects` is removed in 6.0.
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
