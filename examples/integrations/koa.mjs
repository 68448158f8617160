/**
 * Koa 3: JSON-RPC on POST /rpc.
 *
 *     npm run build && node examples/integrations/koa.mjs
 *
 * Koa has no body parser of its own: `readBody` reads the bytes, at most 1 MiB (more is 413), and
 * dispatch parses them (a bad body is -32700). The caller, from `Authorization: Bearer <token>`,
 * reaches the methods as the context. A notification is answered 204 with no body. A client whose
 * `Accept` names `text/event-stream` gets the values a method streams as server-sent events before
 * its answer (202 for notifications alone): Koa sends the web stream at the client's pace; its going
 * away stops the method.
 */
import Koa from "koa";
import { answerHttp } from "rpcserver";
import { BODY_LIMIT, listenOn, MAX_BATCH_SIZE, methods, userFromAuthorization } from "./methods.mjs";
import { closedSignal } from "./node-answer.mjs";
import { readBody } from "./read-body.mjs";

export const app = new Koa();

/**
 * What Node says when a client goes away mid-answer (its socket reset, the stream closed before its
 * end). A client leaving is normal, and the methods' signal says so to them; Koa's default handler
 * would print each as an error with its stack. Any other error goes to that handler, as before.
 */
const CLIENT_GONE = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "ERR_STREAM_PREMATURE_CLOSE"]);
app.on("error", (error) => {
  if (!CLIENT_GONE.has(error?.code)) app.onerror(error);
});

app.use(async (ctx) => {
  if (ctx.path !== "/rpc") ctx.throw(404);
  if (ctx.method !== "POST") {
    ctx.set("Allow", "POST");
    ctx.throw(405);
  }
  const body = await readBody(ctx.req, BODY_LIMIT); // rejects with status 413, which Koa sends
  const context = { user: userFromAuthorization(ctx.get("Authorization")) };
  const answer = await answerHttp(body, methods, {
    context,
    maxBatchSize: MAX_BATCH_SIZE,
    accept: ctx.get("Accept"),
    signal: closedSignal(ctx.res), // the client going away aborts the methods' signal
  });
  ctx.set(answer.headers);
  ctx.body = answer.body; // a web ReadableStream (an event stream) included
  // After the body: Koa makes a null body's status 204, and the 202 for notifications must stay 202.
  ctx.status = answer.status;
});

const { host, port } = listenOn(process.env);
const server = app.listen(port, host, () => {
  console.log(`listening on http://${host}:${server.address().port}/rpc`);
});
