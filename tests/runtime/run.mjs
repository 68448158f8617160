// Runs the conformance cases against the BUILT ESM package on whatever runtime runs this file
// (node, bun, deno), and ends with the plain "N passed, N failed" line.
import * as rpc from "../../dist/esm/index.js";
import { runConformance } from "./conformance.mjs";

const runtime = globalThis.Deno
  ? `deno ${globalThis.Deno.version.deno}`
  : globalThis.Bun
    ? `bun ${globalThis.Bun.version}`
    : `node ${process.version}`;
const { passed, failed, failures } = await runConformance(rpc);
for (const failure of failures) console.log(`FAIL ${failure}`);
console.log(`conformance on ${runtime}: ${passed} passed, ${failed} failed`);
if (failed > 0) process.exitCode = 1;
