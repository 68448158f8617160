/**
 * JSON-RPC 2.0 error codes. The specification reserves -32768 to -32000; application error codes
 * should lie outside that range.
 *
 * @example
 * import { ERROR_METHOD_NOT_FOUND } from "rpcserver/codes";
 * ERROR_METHOD_NOT_FOUND; // -32601
 *
 * @module
 */

/** The request is not valid JSON, or the deserializer threw. @since 5.0.10 @category codes */
export const ERROR_PARSE_ERROR = -32700;
/** The JSON is not a valid request object, or a batch is empty or too large. @since 5.0.10 @category codes */
export const ERROR_INVALID_REQUEST = -32600;
/** No method is registered under the requested name. @since 5.0.10 @category codes */
export const ERROR_METHOD_NOT_FOUND = -32601;
/** The params do not fit the method. @since 5.0.10 @category codes */
export const ERROR_INVALID_PARAMS = -32602;
/** A method threw, returned something other than a Result, or its result could not be serialized. @since 5.0.10 @category codes */
export const ERROR_INTERNAL_ERROR = -32603;
/** Something failed inside the library itself, outside any method. @since 5.0.10 @category codes */
export const ERROR_SERVER_ERROR = -32000;

/**
 * The request was answered before its method settled, by the `timeout` stage. In the range
 * JSON-RPC 2.0 leaves to implementations (-32000 to -32099).
 * @since 5.0.10 @category codes
 */
export const ERROR_TIMEOUT = -32001;

/**
 * The request was cancelled by the peer that sent it (LSP 3.17's `RequestCancelled`): what a
 * connection with LSP cancellation answers a request cancelled by `$/cancelRequest`.
 * @since 5.0.10 @category codes
 */
export const ERROR_REQUEST_CANCELLED = -32800;

/**
 * A message was larger than the connection takes (`maxMessageBytes`): it was skipped unread.
 * @since 5.0.10 @category codes
 */
export const ERROR_MESSAGE_TOO_LARGE = -32002;

/** The lowest code the JSON-RPC specification reserves. @since 5.0.10 @category codes */
export const RESERVED_MIN = -32768;
/** The highest code the JSON-RPC specification reserves. @since 5.0.10 @category codes */
export const RESERVED_MAX = -32000;
