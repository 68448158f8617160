// The development server the client's conformance cases call over http: the BUILT package's
// `serve` on 127.0.0.1 and a free port, serving the client contract's implementation. Started by
// scripts/test-runtimes.mjs (on the Node that runs it) for every runtime's run, and by
// tests/runtime/browser.mjs and run.mjs when they are run alone.
import * as rpc from "../../dist/esm/index.js";
import { clientMethods } from "./client-conformance.mjs";

/** Starts the server; resolves to its URL and a function that stops it. */
export const startDevServer = async () => {
  // Errors are still written; the "listening" line and the per-request lines are not.
  rpc.setLogger({ ...rpc.defaultLogger, warn: () => undefined, info: () => undefined });
  const server = await rpc.serve("127.0.0.1", 0, { methods: clientMethods(rpc), openrpc: false });
  const url = `http://127.0.0.1:${server.address().port}/`;
  const close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url, close };
};
