// The browser bundle's entry: the built package, its client and the conformance cases, exposed to
// the page. `url` is the development server the client's http cases call (the page's own origin).
import * as rpc from "../../dist/esm/index.js";
import * as rpcClient from "../../dist/esm/client.js";
import * as rpcConnection from "../../dist/esm/connection.js";
import { runClientConformance } from "./client-conformance.mjs";
import { runConformance } from "./conformance.mjs";

globalThis.rpcserverConformance = async (url) => {
  const core = await runConformance(rpc);
  const client = await runClientConformance(rpc, rpcClient, url, rpcConnection);
  return {
    hasProcess: typeof process !== "undefined",
    origin: globalThis.location.origin,
    passed: core.passed + client.passed,
    failed: core.failed + client.failed,
    failures: [...core.failures, ...client.failures],
    clientPassed: client.passed,
  };
};
