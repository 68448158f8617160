/**
 * The Hono app (app.mjs) on Node.js, with @hono/node-server (Node.js 20 or newer).
 *
 *     npm run build && node examples/integrations/hono/node.mjs
 */
import { serve } from "@hono/node-server";
import { listenOn } from "../methods.mjs";
import { app } from "./app.mjs";

const { host, port } = listenOn(process.env);
serve({ fetch: app.fetch, hostname: host, port }, (info) => {
  console.log(`listening on http://${host}:${info.port}/rpc`);
});
