/**
 * Express 5: JSON-RPC on POST /rpc, in one line: `nodeHandler` (rpcserver/server).
 *
 *     npm run build && node examples/integrations/express.mjs
 *
 * The handler reads the body itself, at most 1 MiB (more is 413, its connection closed), and hands
 * it to dispatch, which answers text that is not JSON or not UTF-8 with -32700. The caller, from
 * `Authorization: Bearer <token>`, reaches the methods as the context. A notification is answered
 * 204 with no body. A client whose `Accept` names `text/event-stream` gets the values a method
 * streams as server-sent events before its answer (202 for notifications alone), written at its
 * pace; its going away stops the method. No body parser is needed (after `express.json()` the
 * handler takes the parsed body as it is).
 */
import express from "express";
import { nodeHandler } from "rpcserver/server";
import { handlerOptions, listenOn, methods } from "./methods.mjs";

export const app = express();
app.disable("x-powered-by");
app.post("/rpc", nodeHandler(methods, handlerOptions));

const { host, port } = listenOn(process.env);
const server = app.listen(port, host, (error) => {
  if (error) throw error;
  console.log(`listening on http://${host}:${server.address().port}/rpc`);
});
