/**
 * The Hono app (app.mjs) on Deno. `-A` grants network and environment access (`--allow-net
 * --allow-env --allow-read` is enough); Deno resolves `hono` and `rpcserver` from node_modules.
 *
 *     npm run build && deno run -A examples/integrations/hono/deno.mjs
 */
/* global Deno */
import { listenOn } from "../methods.mjs";
import { app } from "./app.mjs";

const { host, port } = listenOn(Deno.env.toObject());
Deno.serve(
  { hostname: host, port, onListen: (address) => console.log(`listening on http://${host}:${address.port}/rpc`) },
  app.fetch,
);
