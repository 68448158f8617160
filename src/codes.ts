/**
 * rpcserver/codes: the JSON-RPC 2.0 error codes. The specification reserves -32768 to -32000;
 * application error codes should lie outside that range.
 *
 * @example
 * import { ERROR_METHOD_NOT_FOUND } from "rpcserver/codes";
 * ERROR_METHOD_NOT_FOUND; // -32601
 *
 * @module
 */
export {
  ERROR_INTERNAL_ERROR,
  ERROR_INVALID_PARAMS,
  ERROR_INVALID_REQUEST,
  ERROR_MESSAGE_TOO_LARGE,
  ERROR_METHOD_NOT_FOUND,
  ERROR_PARSE_ERROR,
  ERROR_REQUEST_CANCELLED,
  ERROR_SERVER_ERROR,
  ERROR_TIMEOUT,
  RESERVED_MAX,
  RESERVED_MIN,
} from "./internal/core/codes";
