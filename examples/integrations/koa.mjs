/**
 * Koa 3: JSON-RPC on POST /rpc.
 *
 *     npm run build && node examples/integrations/koa.mjs
 *
 * Koa has no body parser of its own: `readBody` reads the bytes, at most 1 MiB (more is 413), and
 * dispatch parses them (a bad body is -32700). The caller, from `Authorization: Bearer <token>`,
 * reaches the methods as the context. A notification is answered 204 with no body.
 */
import Koa from "koa";
import { asyncDispatch, toHttp } from "rpcserver";
import { BODY_LIMIT, listenOn, MAX_BATCH_SIZE, methods, userFromAuthorization } from "./methods.mjs";
import { readBody } from "./read-body.mjs";

export const app = new Koa();

app.use(async (ctx) => {
  if (ctx.path !== "/rpc") ctx.throw(404);
  if (ctx.method !== "POST") {
    ctx.set("Allow", "POST");
    ctx.throw(405);
  }
  const body = await readBody(ctx.req, BODY_LIMIT); // rejects with status 413, which Koa sends
  const context = { user: userFromAuthorization(ctx.get("Authorization")) };
  const answer = toHttp(await asyncDispatch(body, methods, { context, maxBatchSize: MAX_BATCH_SIZE }));
  ctx.status = answer.status;
  ctx.set(answer.headers);
  ctx.body = answer.body;
});

const { host, port } = listenOn(process.env);
const server = app.listen(port, host, () => {
  console.log(`listening on http://${host}:${server.address().port}/rpc`);
});
