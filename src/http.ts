/**
 * rpcserver/http: what to send, given dispatch's JSON text. No I/O here, and no `node:`
 * module: the server (an HTTP framework, a fetch handler) reads the body and writes the answer.
 *
 * Rules (JSON-RPC over HTTP, as the development server answers):
 * - Text to send is 200 with `Content-Type: application/json`, JSON-RPC errors included: the error
 *   is in the body, and a client reads it there.
 * - Nothing to send (`""`: a notification, a batch of notifications) is 204 No Content, with no body
 *   and no `Content-Type`. The body is `null`, not `""`, because the Fetch `Response` constructor
 *   refuses any body, even an empty one, with status 204.
 *
 * Over a transport without statuses (WebSocket, stdio, `postMessage`), "nothing to send" means
 * writing nothing: `if (text !== "") send(text)`.
 *
 * `answerHttp`, from the main entry, dispatches the body itself and answers as `toHttp` does,
 * unless the request's `Accept` names `text/event-stream`: then the values that methods stream go
 * out as server-sent events before the answer (202 for a body of notifications only), as MCP's
 * Streamable HTTP does. It is not here: this entry loads no package, and `answerHttp` needs the
 * dispatch core. Its types (`HttpStreamAnswer`, `AnswerHttpOptions`) are.
 *
 * @example
 * import { dispatch, Success } from "rpcserver";
 * import { toHttp } from "rpcserver/http";
 * const methods = { ping: () => Success("pong") };
 * toHttp(dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', methods)).status; // 200
 * // A notification: nothing to send.
 * toHttp(dispatch('{"jsonrpc":"2.0","method":"ping"}', methods)); // { status: 204, headers: {}, body: null }
 *
 * @module
 */
export { toHttp, type HttpAnswer } from "./internal/http/json-answer";
export type { AnswerHttpOptions, HttpStreamAnswer } from "./internal/http/answer";
