/**
 * The JSON answer over HTTP: what to send, given dispatch's JSON text. No I/O here, and no `node:`
 * module: the transport (an HTTP framework, a fetch handler) reads the body and writes the answer.
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
 * What `answerHttp` (./answer) answers is one of these, or, to a client that accepts
 * server-sent events, 202 or an event stream: `HttpStreamAnswer` (./answer).
 *
 * @module
 */

import { ERROR_SERVER_ERROR } from "../core/codes";

/**
 * What to send over HTTP for a piece of dispatch output: a status, headers and a body. It fits the
 * Fetch API as is: `new Response(answer.body, answer)` (the extra `body` member of the init is ignored).
 *
 * @since 5.0.10
 * @category transport
 */
export type HttpAnswer =
  | {
      readonly status: 200;
      readonly headers: { readonly "Content-Type": "application/json" };
      readonly body: string;
    }
  | {
      readonly status: 204;
      readonly headers: { readonly [name: string]: never };
      readonly body: null;
    };

/** Shared by every 204 answer: it holds nothing, and nobody can add to it. */
const NO_CONTENT: HttpAnswer = Object.freeze({ status: 204, headers: Object.freeze({}), body: null });

/**
 * The HTTP answer to dispatch's text: 200 with `Content-Type: application/json` and the text, or,
 * for `""` (nothing to send), 204 with no headers and a `null` body.
 *
 * When to use it: in any HTTP handler, after `asyncDispatch` (or `dispatch`), instead of writing
 * the 200/204 choice again.
 *
 * Details: the text is sent as it is, not checked; a JSON-RPC error is 200 like any answer. The
 * 204 answer is one frozen object, shared.
 *
 * Gotchas: set the body-size limit and `maxBatchSize` before dispatch; this only shapes the answer.
 *
 * @example
 * import { asyncDispatch, Success, toHttp } from "rpcserver";
 * const methods = { ping: () => Success("pong") };
 * // In a fetch handler (Hono, Bun, Deno, Cloudflare Workers):
 * const handle = async (request: Request): Promise<Response> => {
 *   const answer = toHttp(await asyncDispatch(new Uint8Array(await request.arrayBuffer()), methods));
 *   return new Response(answer.body, answer);
 * };
 * toHttp('{"jsonrpc":"2.0","result":"pong","id":1}'); // { status: 200, headers: { "Content-Type": "application/json" }, body: '{"jsonrpc":"2.0","result":"pong","id":1}' }
 * toHttp(""); // { status: 204, headers: {}, body: null }
 *
 * @since 5.0.10
 * @category transport
 */
export const toHttp = (text: string): HttpAnswer =>
  text === "" ? NO_CONTENT : { status: 200, headers: { "Content-Type": "application/json" }, body: text };

/** -32000 Server error for the request of `id`, as JSON text: what a failure of the server's own answers. @internal */
export const serverErrorOf = (id: string | number | null): string =>
  JSON.stringify({ jsonrpc: "2.0", error: { code: ERROR_SERVER_ERROR, message: "Server error" }, id });
