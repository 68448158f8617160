// The browser bundle's entry: the built package and the conformance cases, exposed to the page.
import * as rpc from "../../dist/esm/index.js";
import { runConformance } from "./conformance.mjs";

globalThis.rpcserverConformance = async () => ({
  hasProcess: typeof process !== "undefined",
  ...(await runConformance(rpc)),
});
