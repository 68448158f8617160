/**
 * The Hono app (app.mjs) on Bun.
 *
 *     npm run build && bun run examples/integrations/hono/bun.mjs
 */
/* global Bun */
import { listenOn } from "../methods.mjs";
import { app } from "./app.mjs";

const { host, port } = listenOn(Bun.env);
const server = Bun.serve({ fetch: app.fetch, hostname: host, port });
console.log(`listening on http://${host}:${server.port}/rpc`);
