/**
 * rpcserver/async_main: async dispatch, the same pipeline as sync dispatch, for methods that may
 * return a Promise. Plain methods work too (they run on the event loop). Every request of a batch
 * runs at once; the answers keep the batch's order.
 *
 * @example
 * import { dispatchToJson } from "rpcserver/async_main";
 * import { Success } from "rpcserver/result";
 * const methods = { later: async () => Success("done") };
 * await dispatchToJson('{"jsonrpc":"2.0","method":"later","id":1}', methods);
 * // '{"jsonrpc":"2.0","result":"done","id":1}'
 *
 * @module
 */
export { dispatchToJson, dispatchToResponse, dispatchToSerializable } from "./internal/core/async-dispatch";
// Python spellings (interface-specification.md): the same function objects.
export { dispatch_to_json, dispatch_to_response, dispatch_to_serializable } from "./internal/core/async-dispatch";
// The main entry's names for the same functions (docs/spec-mapping.md says why both).
export { asyncDispatch, asyncDispatchToResponse, asyncDispatchToSerializable } from "./internal/core/async-dispatch";
