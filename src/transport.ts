/**
 * rpcserver/transport: the old name of `rpcserver/http`, with the same exports.
 *
 * @deprecated Import from `rpcserver/http`; this entry is removed in 6.0. Its name said
 * "transport", which in `rpcserver/client` is the client's `Transport` (how a call is sent), while
 * this entry holds the server's HTTP helpers.
 *
 * @example
 * import { dispatch, Success } from "rpcserver";
 * import { toHttp } from "rpcserver/http";
 * const methods = { ping: () => Success("pong") };
 * toHttp(dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', methods)).status; // 200
 *
 * @module
 */
export { toHttp, type HttpAnswer } from "./internal/http/json-answer";
export type { AnswerHttpOptions, HttpOptions, HttpStreamAnswer } from "./internal/http/answer";
