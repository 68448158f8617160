/**
 * Koa 3: JSON-RPC on /rpc, with `nodeHandler` (rpcserver/server) on Koa's `ctx.req` and `ctx.res`.
 *
 *     npm run build && node examples/integrations/koa.mjs
 *
 * The handler reads the body itself, at most 1 MiB (more is 413), and dispatch parses it (a bad
 * body is -32700); a GET is 405 (a browser's, the inspector page). The caller, from
 * `Authorization: Bearer <token>`, reaches the methods as the context. A notification is answered
 * 204 with no body. A client whose `Accept` names `text/event-stream` gets the values a method
 * streams as server-sent events before its answer (202 for notifications alone), at its pace; its
 * going away stops the method.
 */
import Koa from "koa";
import { nodeHandler } from "rpcserver/server";
import { handlerOptions, listenOn, methods } from "./methods.mjs";

export const app = new Koa();
const handler = nodeHandler(methods, handlerOptions);

/**
 * What Node says when a client goes away mid-answer (its socket reset). Koa watches every response's
 * socket itself and reports that to its `error` event, whose default handler prints a stack; a client
 * leaving is normal, and the methods' signal already says so to them. Any other error goes to Koa's
 * handler, as before.
 */
const CLIENT_GONE = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "ERR_STREAM_PREMATURE_CLOSE"]);
app.on("error", (error) => {
  if (!CLIENT_GONE.has(error?.code)) app.onerror(error);
});

app.use(async (ctx, next) => {
  if (ctx.path !== "/rpc") return next();
  ctx.respond = false; // the handler writes the answer itself
  await handler(ctx.req, ctx.res);
});

const { host, port } = listenOn(process.env);
const server = app.listen(port, host, () => {
  console.log(`listening on http://${host}:${server.address().port}/rpc`);
});
