/**
 * Hono 4: the JSON-RPC app, a fetch handler that runs unchanged on Node.js (node.mjs), Bun (bun.mjs)
 * and Deno (deno.mjs), and on serverless platforms that take a fetch handler. It imports nothing
 * but hono and rpcserver (and the shared methods), no `node:` module.
 *
 * `fetchHandler` (rpcserver/fetch) does it all in one line: the body read within 1 MiB (more is
 * 413), dispatch (text that is not JSON or not UTF-8 is -32700), the caller from `Authorization:
 * Bearer <token>` as the methods' context, 204 for a notification, and for a client whose `Accept`
 * names `text/event-stream` the values a method streams as server-sent events before its answer
 * (202 for notifications alone), at the client's pace; the request's signal (the client going
 * away) stops the method. `rpc.discover` answers the methods' OpenRPC document.
 */
import { Hono } from "hono";
import { fetchHandler } from "rpcserver/fetch";
import { handlerOptions, methods } from "../methods.mjs";

export const app = new Hono();
const handler = fetchHandler(methods, handlerOptions);

app.post("/rpc", (c) => handler(c.req.raw));

export default app;
