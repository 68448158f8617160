// rpcserver/fetch's handler served by the runtime's own server, as docs/fetch.md writes it:
// `Bun.serve({ fetch })` or `Deno.serve(handler)`, on 127.0.0.1 and a free port, which it prints
// ("listening <port>") for tests/runtime/fetch-served.mjs to send the cases to. Runs until killed.
import * as rpc from "../../dist/esm/index.js";
import * as rpcFetch from "../../dist/esm/fetch.js";
import { fetchService } from "./fetch-cases.mjs";

const handler = fetchService(rpc, rpcFetch);
if (globalThis.Bun) {
  const server = globalThis.Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
  console.log(`listening ${server.port}`);
} else if (globalThis.Deno) {
  globalThis.Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(`listening ${port}`) },
    handler,
  );
} else {
  throw new Error("fetch-server.mjs runs on Bun or Deno");
}
