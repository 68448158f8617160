/**
 * Fastify 5: JSON-RPC on POST /rpc.
 *
 *     npm run build && node examples/integrations/fastify.mjs
 *
 * Fastify's own JSON parser is replaced by one that keeps the raw bytes, whatever the Content-Type:
 * dispatch parses them, so a bad body gets the JSON-RPC parse error (-32700) rather than Fastify's
 * 400. `bodyLimit` refuses more than 1 MiB with 413. The caller, from `Authorization: Bearer
 * <token>`, reaches the methods as the context. A notification is answered 204 with no body.
 */
import Fastify from "fastify";
import { asyncDispatch, toHttp } from "rpcserver";
import { BODY_LIMIT, listenOn, MAX_BATCH_SIZE, methods, userFromAuthorization } from "./methods.mjs";

export const app = Fastify({ bodyLimit: BODY_LIMIT });
app.removeAllContentTypeParsers();
app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

app.post("/rpc", async (request, reply) => {
  const context = { user: userFromAuthorization(request.headers.authorization) };
  const body = Buffer.isBuffer(request.body) ? request.body : "";
  const answer = toHttp(await asyncDispatch(body, methods, { context, maxBatchSize: MAX_BATCH_SIZE }));
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
});

const { host, port } = listenOn(process.env);
await app.listen({ host, port });
console.log(`listening on http://${host}:${app.server.address().port}/rpc`);
