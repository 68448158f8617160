/**
 * Responses: what dispatch answers, one per request. A `Response` is a real fp-ts `Either`:
 * `Right<SuccessResponse>` or `Left<ErrorResponse>`. Read one with `isLeft`, `response.left`,
 * `response.right`, or any fp-ts function (`match`, `map`, `mapLeft`).
 *
 * @module
 */
import { left, right, type Either } from "fp-ts/Either";
import type { Id } from "./request";
import { NODATA } from "./sentinels";
import { deprecate } from "./warnings";

export type { Id } from "./request";

/**
 * A successful response: the method's result and the request's id.
 *
 * @since 5.0.10
 * @category model
 */
export interface SuccessResponse {
  readonly result: unknown;
  readonly id: Id;
}

/**
 * A failed response: the error's code, message and data (`NODATA` when none), and the request's
 * id (`null` when the request could not be read).
 *
 * @since 5.0.10
 * @category model
 */
export interface ErrorResponse {
  readonly code: number;
  readonly message: string;
  readonly data: unknown;
  readonly id: Id | null;
}

/**
 * One request's response: `Right<SuccessResponse>` or `Left<ErrorResponse>`.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { pipe } from "fp-ts/function";
 * import { dispatchToResponse, Success } from "rpcserver";
 * const response = dispatchToResponse('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => Success("pong") });
 * pipe(response as import("rpcserver").Response, E.match((e) => e.message, (s) => String(s.result))); // "pong"
 *
 * @since 5.0.10
 * @category model
 */
export type Response = Either<ErrorResponse, SuccessResponse>;

/**
 * @deprecated Use {@link Response}; `ResponseType` is removed in 6.0.
 * @since 5.0.10
 * @category model
 */
export type ResponseType = Response;

/**
 * Builds a SuccessResponse.
 *
 * @example
 * import { SuccessResponse } from "rpcserver/response";
 * SuccessResponse("pong", 1); // { result: "pong", id: 1 }
 *
 * @since 5.0.10
 * @category constructors
 */
export const SuccessResponse = (result: unknown, id: Id): SuccessResponse => ({ result, id });

/**
 * Builds an ErrorResponse.
 *
 * @example
 * import { ErrorResponse } from "rpcserver/response";
 * import { NODATA } from "rpcserver/sentinels";
 * ErrorResponse(-32601, "Method not found", NODATA, 1);
 *
 * @since 5.0.10
 * @category constructors
 */
export const ErrorResponse = (code: number, message: string, data: unknown, id: Id | null): ErrorResponse => ({
  code,
  message,
  data,
  id,
});

/** A Response holding a success. @internal */
export const success = (result: unknown, id: Id): Response => right(SuccessResponse(result, id));

/** A Response holding an error. @internal */
export const failure = (code: number, message: string, data: unknown, id: Id | null): Response =>
  left(ErrorResponse(code, message, data, id));

/**
 * A success response as a plain object, ready for JSON encoding.
 *
 * @since 5.0.10
 * @category model
 */
export interface SuccessDict {
  readonly jsonrpc: "2.0";
  readonly result: unknown;
  readonly id: Id;
}

/**
 * An error response as a plain object, ready for JSON encoding; `data` is absent when none.
 *
 * @since 5.0.10
 * @category model
 */
export interface ErrorDict {
  readonly jsonrpc: "2.0";
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown };
  readonly id: Id | null;
}

/**
 * A SuccessResponse as a response object.
 *
 * @example
 * import { toSuccessDict, SuccessResponse } from "rpcserver/response";
 * toSuccessDict(SuccessResponse("pong", 1)); // { jsonrpc: "2.0", result: "pong", id: 1 }
 *
 * @since 5.0.10
 * @category conversions
 */
export const toSuccessDict = (response: SuccessResponse): SuccessDict => ({
  jsonrpc: "2.0",
  result: response.result === undefined ? null : response.result,
  id: response.id,
});

/**
 * An ErrorResponse as a response object, leaving out `data` when it is `NODATA`, or `undefined`
 * (an error Result built by hand without `data`): JSON has no `undefined`, and the default writer
 * leaves it out too, so every output form agrees on the member being absent.
 *
 * @example
 * import { toErrorDict, ErrorResponse } from "rpcserver/response";
 * import { NODATA } from "rpcserver/sentinels";
 * toErrorDict(ErrorResponse(-32601, "Method not found", NODATA, 1));
 * // { jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id: 1 }
 *
 * @since 5.0.10
 * @category conversions
 */
export const toErrorDict = (response: ErrorResponse): ErrorDict => ({
  jsonrpc: "2.0",
  error:
    response.data === NODATA || response.data === undefined
      ? { code: response.code, message: response.message }
      : { code: response.code, message: response.message, data: response.data },
  id: response.id,
});

/**
 * A Response as a response object.
 *
 * @example
 * import { toDict } from "rpcserver/response";
 * import { dispatchToResponse, Success, type Response } from "rpcserver";
 * toDict(dispatchToResponse('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => Success("pong") }) as Response);
 * // { jsonrpc: "2.0", result: "pong", id: 1 }
 *
 * @since 5.0.10
 * @category conversions
 */
export const toDict = (response: Response): SuccessDict | ErrorDict =>
  response._tag === "Left" ? toErrorDict(response.left) : toSuccessDict(response.right);

/**
 * What the `*ToSerializable` functions return for a Response, a list of them, or nothing.
 *
 * @since 5.0.10
 * @category model
 */
export type Serializable = SuccessDict | ErrorDict | ReadonlyArray<SuccessDict | ErrorDict> | undefined;

/**
 * A Response, a list of them, or `undefined` (nothing to send) as response objects.
 *
 * @example
 * import { toSerializable } from "rpcserver/response";
 * toSerializable(undefined); // undefined
 *
 * @since 5.0.10
 * @category conversions
 */
export function toSerializable(response: Response): SuccessDict | ErrorDict;
export function toSerializable(response: ReadonlyArray<Response>): Array<SuccessDict | ErrorDict>;
export function toSerializable(response: undefined): undefined;
export function toSerializable(response: Response | ReadonlyArray<Response> | undefined): Serializable;
export function toSerializable(response: Response | ReadonlyArray<Response> | undefined): Serializable {
  if (response === undefined) return undefined;
  return isResponseList(response) ? response.map(toDict) : toDict(response);
}

const isResponseList = (value: Response | ReadonlyArray<Response>): value is ReadonlyArray<Response> =>
  Array.isArray(value);

/**
 * @deprecated Use {@link toErrorDict}; removed in 6.0. Warns (DeprecationWarning) once per process.
 * @example
 * import { serializeError, ErrorResponse } from "rpcserver/response";
 * import { NODATA } from "rpcserver/sentinels";
 * serializeError(ErrorResponse(1, "Oops", NODATA, 1)); // { jsonrpc: "2.0", error: { code: 1, message: "Oops" }, id: 1 }
 * @since 5.0.10
 * @category conversions
 */
export const serializeError = (response: ErrorResponse): ErrorDict => {
  deprecate("serializeError", "toErrorDict");
  return toErrorDict(response);
};

/**
 * @deprecated Use {@link toSuccessDict}; removed in 6.0. Warns (DeprecationWarning) once per process.
 * @example
 * import { serializeSuccess, SuccessResponse } from "rpcserver/response";
 * serializeSuccess(SuccessResponse("pong", 1)); // { jsonrpc: "2.0", result: "pong", id: 1 }
 * @since 5.0.10
 * @category conversions
 */
export const serializeSuccess = (response: SuccessResponse): SuccessDict => {
  deprecate("serializeSuccess", "toSuccessDict");
  return toSuccessDict(response);
};

/** Spec spelling of {@link toDict}. @since 5.0.10 @category aliases */
export const to_dict = toDict;
/** Spec spelling of {@link toSuccessDict}. @since 5.0.10 @category aliases */
export const to_success_dict = toSuccessDict;
/** Spec spelling of {@link toErrorDict}. @since 5.0.10 @category aliases */
export const to_error_dict = toErrorDict;
/** Spec spelling of {@link toSerializable}. @since 5.0.10 @category aliases */
export const to_serializable = toSerializable;
/** Spec spelling of {@link serializeError}. @deprecated Use `to_error_dict`. @since 5.0.10 @category aliases */
export const serialize_error = serializeError;
/** Spec spelling of {@link serializeSuccess}. @deprecated Use `to_success_dict`. @since 5.0.10 @category aliases */
export const serialize_success = serializeSuccess;
