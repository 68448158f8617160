/**
 * rpcserver/main: sync dispatch, request text in and the answer out, synchronously. Methods must
 * return a Result; a Promise is refused with -32603 (use `rpcserver/async_main` for async methods).
 *
 * @example
 * import { dispatchToJson } from "rpcserver/main";
 * import { Success } from "rpcserver/result";
 * dispatchToJson('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => Success("pong") });
 * // '{"jsonrpc":"2.0","result":"pong","id":1}'
 *
 * @module
 */
export { dispatch, dispatchToJson, dispatchToResponse, dispatchToSerializable } from "./internal/core/dispatch";
// Python spellings (interface-specification.md): the same function objects.
export { dispatch_to_json, dispatch_to_response, dispatch_to_serializable } from "./internal/core/dispatch";
