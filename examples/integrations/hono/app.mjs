/**
 * Hono 4: the JSON-RPC app, a fetch handler that runs unchanged on Node.js (node.mjs), Bun (bun.mjs)
 * and Deno (deno.mjs), and on serverless platforms that take a fetch handler. It imports nothing
 * but hono and rpcserver (and the shared methods), no `node:` module.
 *
 * `bodyLimit` refuses a body over 1 MiB with 413; the bytes are handed to dispatch, which answers
 * text that is not JSON or not UTF-8 with -32700. The caller, from `Authorization: Bearer <token>`,
 * reaches the methods as the context. A notification is answered 204 with no body. A client whose
 * `Accept` names `text/event-stream` gets the values a method streams as server-sent events before
 * its answer (202 for notifications alone): the web stream is the response's body, which every
 * runtime sends at the client's pace; the request's signal (the client going away) stops the method.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { answerHttp } from "rpcserver";
import { BODY_LIMIT, MAX_BATCH_SIZE, methods, userFromAuthorization } from "../methods.mjs";

export const app = new Hono();

app.post("/rpc", bodyLimit({ maxSize: BODY_LIMIT, onError: (c) => c.text("Payload Too Large", 413) }), async (c) => {
  const context = { user: userFromAuthorization(c.req.header("Authorization")) };
  const body = new Uint8Array(await c.req.arrayBuffer());
  const answer = await answerHttp(body, methods, {
    context,
    maxBatchSize: MAX_BATCH_SIZE,
    accept: c.req.header("Accept"),
    signal: c.req.raw.signal,
  });
  return c.newResponse(answer.body, answer.status, answer.headers);
});

export default app;
