/**
 * rpcserver/response: what dispatch answers, one per request. A `Response` is a real fp-ts
 * `Either`: `Right<SuccessResponse>` or `Left<ErrorResponse>`. Read one with `isLeft`,
 * `response.left`, `response.right`, or any fp-ts function (`match`, `map`, `mapLeft`).
 *
 * @example
 * import { dispatchToResponse, Success } from "rpcserver";
 * import { toSerializable } from "rpcserver/response";
 * const response = dispatchToResponse('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => Success("pong") });
 * response; // { _tag: "Right", right: { result: "pong", id: 1 } }
 * toSerializable(response); // { jsonrpc: "2.0", result: "pong", id: 1 }
 *
 * @module
 */
export {
  ErrorResponse,
  SuccessResponse,
  toDict,
  toErrorDict,
  toSerializable,
  toSuccessDict,
  type ErrorDict,
  type Id,
  type Response,
  type Serializable,
  type SuccessDict,
} from "./internal/core/response";
// Python spellings (interface-specification.md): the same function objects.
export { to_dict, to_error_dict, to_serializable, to_success_dict } from "./internal/core/response";
// Deprecated (the specification's too): removed in 6.0.
export {
  serializeError,
  serializeSuccess,
  serialize_error,
  serialize_success,
  type ResponseType,
} from "./internal/core/response";
