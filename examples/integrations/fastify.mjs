/**
 * Fastify 5: JSON-RPC on POST /rpc.
 *
 *     npm run build && node examples/integrations/fastify.mjs
 *
 * Fastify's own JSON parser is replaced by one that keeps the raw bytes, whatever the Content-Type:
 * dispatch parses them, so a bad body gets the JSON-RPC parse error (-32700) rather than Fastify's
 * 400. `bodyLimit` refuses more than 1 MiB with 413. The caller, from `Authorization: Bearer
 * <token>`, reaches the methods as the context. A notification is answered 204 with no body. A
 * client whose `Accept` names `text/event-stream` gets the values a method streams as server-sent
 * events before its answer (202 for notifications alone): Fastify sends the web stream at the
 * client's pace; its going away stops the method.
 */
import Fastify from "fastify";
import { answerHttp } from "rpcserver";
import { BODY_LIMIT, listenOn, MAX_BATCH_SIZE, methods, userFromAuthorization } from "./methods.mjs";
import { closedSignal } from "./node-answer.mjs";

export const app = Fastify({ bodyLimit: BODY_LIMIT });
app.removeAllContentTypeParsers();
app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

app.post("/rpc", async (request, reply) => {
  const context = { user: userFromAuthorization(request.headers.authorization) };
  const body = Buffer.isBuffer(request.body) ? request.body : "";
  const answer = await answerHttp(body, methods, {
    context,
    maxBatchSize: MAX_BATCH_SIZE,
    accept: request.headers.accept,
    signal: closedSignal(reply.raw), // the client going away aborts the methods' signal
  });
  // `send(null)` would write "null": no body at all is `send()` (202 for notifications alone).
  return reply
    .code(answer.status)
    .headers(answer.headers)
    .send(answer.body ?? undefined);
});

const { host, port } = listenOn(process.env);
await app.listen({ host, port });
console.log(`listening on http://${host}:${app.server.address().port}/rpc`);
