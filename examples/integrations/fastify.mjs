/**
 * Fastify 5: JSON-RPC on POST /rpc, with `nodeHandler` (rpcserver/server) on the raw request and
 * reply.
 *
 *     npm run build && node examples/integrations/fastify.mjs
 *
 * Fastify's parsers leave the body to the handler, which reads it itself, at most 1 MiB (more is
 * 413), and hands it to dispatch (a bad body is -32700). The caller, from `Authorization: Bearer
 * <token>`, reaches the methods as the context. A notification is answered 204 with no body. A
 * client whose `Accept` names `text/event-stream` gets the values a method streams as server-sent
 * events before its answer (202 for notifications alone), at its pace; its going away stops the
 * method.
 */
import Fastify from "fastify";
import { nodeHandler } from "rpcserver/server";
import { handlerOptions, listenOn, methods } from "./methods.mjs";

export const app = Fastify();
// Every body is left unread for the handler: it reads it within its own limit.
app.removeAllContentTypeParsers();
app.addContentTypeParser("*", (_request, _payload, done) => done(null));

const handler = nodeHandler(methods, handlerOptions);
app.post("/rpc", (request, reply) => {
  reply.hijack(); // the handler writes the answer itself
  return handler(request.raw, reply.raw);
});

const { host, port } = listenOn(process.env);
await app.listen({ host, port });
console.log(`listening on http://${host}:${app.server.address().port}/rpc`);
