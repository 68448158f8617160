// Runs the conformance cases against the BUILT ESM package on whatever runtime runs this file
// (node, bun, deno), and ends with the plain "N passed, N failed" line: the dispatch core's cases,
// then the client's (`rpcserver/client`) over `local` and over `http` against the development
// server at RPCSERVER_URL (scripts/test-runtimes.mjs starts one on its own Node and sets it).
// Without RPCSERVER_URL, this process starts one itself with the built `serve`.
import * as rpc from "../../dist/esm/index.js";
import * as rpcClient from "../../dist/esm/client.js";
import * as rpcConnection from "../../dist/esm/connection.js";
import * as rpcFetch from "../../dist/esm/fetch.js";
import { runClientConformance } from "./client-conformance.mjs";
import { runConformance } from "./conformance.mjs";
import { fetchService, inProcess, reboundUrl, runFetchCases } from "./fetch-cases.mjs";

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
  // rpcserver/fetch's handler, called with this runtime's own Request (served by its own server: fetch-served.mjs).
  const fetched = await runFetchCases(inProcess(fetchService(rpc, rpcFetch)), "http://localhost/rpc", reboundUrl);
  const all = [core, client, fetched];
  for (const failure of all.flatMap((part) => part.failures)) console.log(`FAIL ${failure}`);
  const passed = all.reduce((n, part) => n + part.passed, 0);
  const failed = all.reduce((n, part) => n + part.failed, 0);
  console.log(
    `conformance on ${runtime}: ${passed} passed, ${failed} failed ` +
      `(client: ${client.passed} passed over local and http, ${own ? "its own" : "the harness's"} dev server at ${url}; ` +
      `fetchHandler: ${fetched.passed} passed with this runtime's Request)`,
  );
  if (failed > 0) process.exitCode = 1;
} finally {
  await own?.close();
}
