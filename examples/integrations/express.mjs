/**
 * Express 5: JSON-RPC on POST /rpc.
 *
 *     npm run build && node examples/integrations/express.mjs
 *
 * The body is read as raw bytes (at most 1 MiB; more is 413) and handed to dispatch, which answers
 * text that is not JSON or not UTF-8 with -32700. The caller, from `Authorization: Bearer <token>`,
 * reaches the methods as the context. A notification is answered 204 with no body. A client whose
 * `Accept` names `text/event-stream` gets the values a method streams as server-sent events before
 * its answer (202 for notifications alone), written at its pace; its going away stops the method.
 */
import express from "express";
import { answerHttp } from "rpcserver";
import { BODY_LIMIT, listenOn, MAX_BATCH_SIZE, methods, userFromAuthorization } from "./methods.mjs";
import { closedSignal, pipeEvents } from "./node-answer.mjs";

export const app = express();
app.disable("x-powered-by");

// `type: () => true`: take the body whatever its Content-Type says; dispatch judges it.
app.post("/rpc", express.raw({ type: () => true, limit: BODY_LIMIT }), async (req, res) => {
  const context = { user: userFromAuthorization(req.get("Authorization")) };
  // No body at all leaves req.body undefined: "" is then a parse error, like any body that is not JSON.
  const body = Buffer.isBuffer(req.body) ? req.body : "";
  const answer = await answerHttp(body, methods, {
    context,
    maxBatchSize: MAX_BATCH_SIZE,
    accept: req.get("Accept"),
    signal: closedSignal(res), // the client going away aborts the methods' signal
  });
  res.status(answer.status).set(answer.headers);
  if (typeof answer.body === "string" || answer.body === null) res.send(answer.body);
  else await pipeEvents(res, answer.body); // an event stream, at the client's pace
});

// A body over the limit (413) or a broken one (400): a short plain-text answer, not Express's default
// error page, which shows the stack outside production.
app.use((error, _req, res, next) => {
  if (res.headersSent) return next(error);
  const status = Number.isInteger(error.status) ? error.status : 500;
  res
    .status(status)
    .type("text/plain")
    .send(error.expose ? error.message : "Internal Server Error");
});

const { host, port } = listenOn(process.env);
const server = app.listen(port, host, (error) => {
  if (error) throw error;
  console.log(`listening on http://${host}:${server.address().port}/rpc`);
});
