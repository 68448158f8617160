/**
 * Sync dispatch: request text in, the answer out, synchronously. Methods must return a Result; a
 * Promise is refused with -32603 (use `rpcserver/async_main` for async methods).
 *
 * @module
 */
import { Sync } from "./effect";
import type { NoContext } from "./context-marks";
import type { DispatchContext, MethodsFor, TypedOptions } from "./dispatch-context";
import type { JsonOptions, Options, ResponseOptions } from "./options";
import { dispatcher } from "./pipeline/dispatcher";
import { toJson, toResponses, type Processed } from "./pipeline/output";
import { toSerializable, type Response, type Serializable } from "./response";
import type { AnyStage } from "./stages";

/** The output stage of response objects: `toSerializable` of the answers, whatever the environment. */
const asObjects = (): typeof toSerializable => toSerializable;

const json = dispatcher(Sync, toJson);
const objects = dispatcher(Sync, asObjects);
const responses = dispatcher(Sync, toResponses);

/**
 * Dispatches to Responses (fp-ts Eithers): one for a single request, a list for a batch,
 * `undefined` when there is nothing to send. With `postProcess`, whatever it makes of each.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { dispatchToResponse, Success, type Response } from "rpcserver";
 * const response = dispatchToResponse('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => Success("pong") });
 * E.isRight(response as Response); // true
 *
 * @since 5.0.10
 * @category dispatch
 */
export const dispatchToResponse = <T = Response, C = NoContext, const S extends ReadonlyArray<AnyStage> = readonly []>(
  request: string | Uint8Array,
  methods?: MethodsFor<DispatchContext<NoInfer<C>, NoInfer<S>>>,
  options?: TypedOptions<ResponseOptions<T>, C, S>,
): Processed<T> => {
  return responses(request, methods, options) as Processed<T>;
};

/**
 * Dispatches to response objects: an object for a single request, a list for a batch,
 * `undefined` when there is nothing to send.
 *
 * @example
 * import { dispatchToSerializable, Success } from "rpcserver";
 * dispatchToSerializable('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => Success("pong") });
 * // { jsonrpc: "2.0", result: "pong", id: 1 }
 *
 * @since 5.0.10
 * @category dispatch
 */
export const dispatchToSerializable = <C = NoContext, const S extends ReadonlyArray<AnyStage> = readonly []>(
  request: string | Uint8Array,
  methods?: MethodsFor<DispatchContext<NoInfer<C>, NoInfer<S>>>,
  options?: TypedOptions<Options, C, S>,
): Serializable => {
  return objects(request, methods, options);
};

/**
 * Dispatches to JSON text; `""` when there is nothing to send. Never throws for any request; only
 * a bad `maxBatchSize` (RangeError) or an option of the wrong type (TypeError) does.
 *
 * @example
 * import { dispatch, Success } from "rpcserver";
 * dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => Success("pong") });
 * // '{"jsonrpc":"2.0","result":"pong","id":1}'
 *
 * @since 5.0.10
 * @category dispatch
 */
export const dispatchToJson = <C = NoContext, const S extends ReadonlyArray<AnyStage> = readonly []>(
  request: string | Uint8Array,
  methods?: MethodsFor<DispatchContext<NoInfer<C>, NoInfer<S>>>,
  options?: TypedOptions<JsonOptions, C, S>,
): string => {
  return json(request, methods, options);
};

/** {@link dispatchToJson}, the package's main entry point. @since 5.0.10 @category dispatch */
export const dispatch = dispatchToJson;

/** Spec spelling of {@link dispatchToJson}. @since 5.0.10 @category aliases */
export const dispatch_to_json = dispatchToJson;
/** Spec spelling of {@link dispatchToSerializable}. @since 5.0.10 @category aliases */
export const dispatch_to_serializable = dispatchToSerializable;
/** Spec spelling of {@link dispatchToResponse}. @since 5.0.10 @category aliases */
export const dispatch_to_response = dispatchToResponse;
