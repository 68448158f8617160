/**
 * Async dispatch: the same pipeline as sync dispatch, for methods that may return a Promise.
 * Plain methods work too (they run on the event loop). Every request of a batch runs at once; the
 * answers keep the batch's order.
 *
 * @module
 */
import { Async, promised } from "./effect";
import type { NoContext } from "./context-marks";
import type { DispatchContext, MethodsFor, TypedOptions } from "./dispatch-context";
import type { JsonOptions, Options, ResponseOptions } from "./options";
import { dispatcher } from "./pipeline/dispatcher";
import { toJson, toResponses, type Processed } from "./pipeline/output";
import { toSerializable, type Response, type Serializable } from "./response";
import type { AnyStage } from "./stages";

/** The output stage of response objects: `toSerializable` of the answers, whatever the environment. */
const asObjects = (): typeof toSerializable => toSerializable;

const json = promised(dispatcher(Async, toJson));
const objects = promised(dispatcher(Async, asObjects));
const responses = promised(dispatcher(Async, toResponses));

/**
 * Async {@link "main".dispatchToResponse}: resolves to a Response, a list of them, or `undefined`.
 *
 * @example
 * import { asyncDispatchToResponse, Success } from "rpcserver";
 * await asyncDispatchToResponse('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: async () => Success("pong") });
 * // { _tag: "Right", right: { result: "pong", id: 1 } }
 *
 * @since 5.0.10
 * @category dispatch
 */
export const dispatchToResponse = <T = Response, C = NoContext, const S extends ReadonlyArray<AnyStage> = readonly []>(
  request: string | Uint8Array,
  methods?: MethodsFor<DispatchContext<NoInfer<C>, NoInfer<S>>>,
  options?: TypedOptions<ResponseOptions<T>, C, S>,
): Promise<Processed<T>> => {
  return responses(request, methods, options) as Promise<Processed<T>>;
};

/**
 * Async {@link "main".dispatchToSerializable}.
 *
 * @example
 * import { asyncDispatchToSerializable, Success } from "rpcserver";
 * await asyncDispatchToSerializable('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: async () => Success("pong") });
 * // { jsonrpc: "2.0", result: "pong", id: 1 }
 *
 * @since 5.0.10
 * @category dispatch
 */
export const dispatchToSerializable = <C = NoContext, const S extends ReadonlyArray<AnyStage> = readonly []>(
  request: string | Uint8Array,
  methods?: MethodsFor<DispatchContext<NoInfer<C>, NoInfer<S>>>,
  options?: TypedOptions<Options, C, S>,
): Promise<Serializable> => {
  return objects(request, methods, options);
};

/**
 * Async {@link "main".dispatchToJson}: resolves to JSON text, `""` when there is nothing to send.
 * Rejects only for a bad `maxBatchSize` (RangeError) or an option of the wrong type (TypeError).
 *
 * @example
 * import { asyncDispatch, Success } from "rpcserver";
 * await asyncDispatch('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: async () => Success("pong") });
 * // '{"jsonrpc":"2.0","result":"pong","id":1}'
 *
 * @since 5.0.10
 * @category dispatch
 */
export const dispatchToJson = <C = NoContext, const S extends ReadonlyArray<AnyStage> = readonly []>(
  request: string | Uint8Array,
  methods?: MethodsFor<DispatchContext<NoInfer<C>, NoInfer<S>>>,
  options?: TypedOptions<JsonOptions, C, S>,
): Promise<string> => {
  return json(request, methods, options);
};

/** Spec spelling of {@link dispatchToJson} in this module. @since 5.0.10 @category aliases */
export const dispatch_to_json = dispatchToJson;
/** Spec spelling of {@link dispatchToSerializable} in this module. @since 5.0.10 @category aliases */
export const dispatch_to_serializable = dispatchToSerializable;
/** Spec spelling of {@link dispatchToResponse} in this module. @since 5.0.10 @category aliases */
export const dispatch_to_response = dispatchToResponse;

/** {@link dispatchToJson}: the package's `asyncDispatch`. @since 5.0.10 @category dispatch */
export const asyncDispatch = dispatchToJson;
/** {@link dispatchToSerializable}: the package's `asyncDispatchToSerializable`. @since 5.0.10 @category dispatch */
export const asyncDispatchToSerializable = dispatchToSerializable;
/** {@link dispatchToResponse}: the package's `asyncDispatchToResponse`. @since 5.0.10 @category dispatch */
export const asyncDispatchToResponse = dispatchToResponse;
