// Runs the conformance cases against the BUILT ESM package on whatever runtime runs this file
// (node, bun, deno), and ends with the plain "N passed, N failed" line: the dispatch core's cases,
// then the client's (`rpcserver/client`) over `local` and over `http` against the development
// server at RPCSERVER_URL (scripts/test-runtimes.mjs starts one on its own Node and sets it).
// Without RPCSERVER_URL, this process starts one itself with the built `serve`.
import * as rpc from "../../dist/esm/index.js";
import * as rpcClient from "../../dist/esm/client.js";
import * as rpcConnection from "../../dist/esm/connection.js";
import { runClientConformance } from "./client-conformance.mjs";
import { runConformance } from "./conformance.mjs";

const runtime = globalThis.Deno
  ? `deno ${globalThis.Deno.version.deno}`
  : globalThis.Bun
    ? `bun ${globalThis.Bun.version}`
    : `node ${process.version}`;
const given = (globalThis.Deno ? globalThis.Deno.env.get("RPCSERVER_URL") : process.env.RPCSERVER_URL) || undefined;
const own = given ? undefined : await (await import("./devserver.mjs")).startDevServer();
const url = given ?? own.url;
try {
  const core = await runConformance(rpc);
  const client = await runClientConformance(rpc, rpcClient, url, rpcConnection);
  for (const failure of [...core.failures, ...client.failures]) console.log(`FAIL ${failure}`);
  console.log(
    `conformance on ${runtime}: ${core.passed + client.passed} passed, ${core.failed + client.failed} failed ` +
      `(client: ${client.passed} passed over local and http, ${own ? "its own" : "the harness's"} dev server at ${url})`,
  );
  if (core.failed + client.failed > 0) process.exitCode = 1;
} finally {
  await own?.close();
}
