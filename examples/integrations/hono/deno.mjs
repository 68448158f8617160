/**
 * The Hono app (app.mjs) on Deno. `-A` grants network and environment access (`--allow-net
 * --allow-env --allow-read` is enough); Deno resolves `hono` and `rpcserver` from node_modules.
 * `--unstable-no-legacy-abort`: without it, Deno (2.x so far) aborts `request.signal` after every
 * response that succeeded as well, and prints a warning that this will change once a handler has
 * read it (the app hands it to `answerHttp`); with it, the signal aborts only when the client goes
 * away, as on Node.js and Bun. Nothing breaks without it (`answerHttp` lets the signal go once it
 * has answered), but the warning is printed.
 *
 *     npm run build && deno run -A --unstable-no-legacy-abort examples/integrations/hono/deno.mjs
 */
/* global Deno */
import { listenOn } from "../methods.mjs";
import { app } from "./app.mjs";

const { host, port } = listenOn(Deno.env.toObject());
Deno.serve(
  { hostname: host, port, onListen: (address) => console.log(`listening on http://${host}:${address.port}/rpc`) },
  app.fetch,
);
