// Streams: values per second that one request streams to its caller, rpcserver's server against
// vscode-jsonrpc's `sendProgress` and the MCP SDK's progress notifications, each read by the same
// client on the same channel.
//
//   npm run build && node bench/streams.mjs            full run
//   node bench/streams.mjs --quick                     smoke run
//   node bench/streams.mjs --write                     also write docs/benchmarks-streams.md
//
// Channels: each server runs in a child process (bench/stream-servers.mjs) and speaks over its
// stdio pipes: LSP's Content-Length framing, read by vscode-jsonrpc's MessageConnection with
// `onProgress` on a partialResultToken; MCP's newline-delimited JSON, read by the MCP SDK's
// `Client` with `onprogress`, and by a bare line reader (the servers' own speed: the SDK client's
// cost per message is the ceiling of both servers under it). Over HTTP, each server listens on loopback in a child process: MCP's
// Streamable HTTP read by the SDK's `StreamableHTTPClientTransport`, and the development server's
// event stream read by rpcserver's own `http` client (`open`). A round is one request streaming VALUES values; the figure is the
// median of the rounds, the servers of a protocol interleaved round by round. Every value is
// counted, and the answer checked.
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as t from "io-ts";
import { contract } from "rpcserver";
import { client, http, open } from "rpcserver/client";
import * as rpc from "vscode-jsonrpc/node";
import { httpChild, median } from "./children.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..");
const SERVERS = join(HERE, "stream-servers.mjs");
const QUICK = process.argv.includes("--quick");
const WRITE = process.argv.includes("--write");
const ROUNDS = QUICK ? 2 : 7;
const VALUES = QUICK ? 2_000 : 20_000;
const LOAD_AT_START = loadavg();

/** An LSP server in a child process, read by vscode-jsonrpc: `run()` streams VALUES values. */
const lspPeer = async (kind) => {
  const child = spawn(process.execPath, [SERVERS, kind], { stdio: ["pipe", "pipe", "inherit"] });
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );
  connection.listen();
  let round = 0;
  const run = async () => {
    const token = `${kind}-${++round}`;
    let seen = 0;
    let last = 0;
    const listening = connection.onProgress(new rpc.ProgressType(), token, (value) => {
      seen += 1;
      last = value[0];
    });
    const started = performance.now();
    const result = await connection.sendRequest("count", { to: VALUES, partialResultToken: token });
    const ms = performance.now() - started;
    listening.dispose();
    if (seen !== VALUES || last !== VALUES || !Array.isArray(result) || result.length !== 0)
      throw new Error(`${kind}: saw ${seen} values (last ${last}), result ${JSON.stringify(result)}`);
    return ms;
  };
  const stop = () => (connection.dispose(), child.kill());
  return { run, stop };
};

/**
 * An MCP server in a child process, read by the SDK's Client. The SDK (1.32) may report the last
 * notification of a chunk that also holds the response as an unknown token (typescript-sdk#2580),
 * so the count falls short by what the last chunk before the answer held: the count is printed, the rate is VALUES over the time.
 */
const mcpCalls = async (kind, client) => {
  let shortest = VALUES;
  const run = async () => {
    let seen = 0;
    const started = performance.now();
    const result = await client.callTool({ name: "count", arguments: { to: VALUES } }, undefined, {
      onprogress: () => (seen += 1),
      timeout: 600_000,
    });
    const ms = performance.now() - started;
    if (result.content?.[0]?.text !== `counted to ${VALUES}`) throw new Error(`${kind}: ${JSON.stringify(result)}`);
    if (seen < VALUES / 2) throw new Error(`${kind}: saw ${seen} of ${VALUES} values`);
    shortest = Math.min(shortest, seen);
    return ms;
  };
  return { run, seen: () => shortest };
};

const mcpPeer = async (kind) => {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [SERVERS, kind], stderr: "inherit" }),
  );
  return { ...(await mcpCalls(kind, client)), stop: () => client.close() };
};

/**
 * An MCP server in a child process, read by a bare line reader that counts the progress lines and
 * waits for the answer's: the server's own speed, without the SDK client's cost per message.
 */
const mcpRawPeer = async (kind) => {
  const child = spawn(process.execPath, [SERVERS, kind], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  let waiting;
  lines.on("line", (line) => waiting?.(line));
  const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const answer = (id, onProgress) =>
    new Promise((resolve) => {
      waiting = (line) => {
        if (line.includes('"notifications/progress"')) onProgress();
        else if (line.includes(`"id":${id}`)) resolve(JSON.parse(line));
      };
    });
  const init = answer(0, () => undefined);
  send({
    jsonrpc: "2.0",
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } },
    id: 0,
  });
  await init;
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  let id = 0;
  const run = async () => {
    let seen = 0;
    id += 1;
    const started = performance.now();
    const answered = answer(id, () => (seen += 1));
    send({
      jsonrpc: "2.0",
      method: "tools/call",
      params: { name: "count", arguments: { to: VALUES }, _meta: { progressToken: id } },
      id,
    });
    const response = await answered;
    const ms = performance.now() - started;
    if (seen !== VALUES || response.result?.content?.[0]?.text !== `counted to ${VALUES}`)
      throw new Error(`${kind}: saw ${seen}, ${JSON.stringify(response)}`);
    return ms;
  };
  return { run, stop: () => child.kill() };
};

/** A child process serving HTTP on loopback: the port it prints first. */
const serverChild = (kind) => httpChild(process.execPath, [SERVERS, kind]);

/** MCP over Streamable HTTP, read by the SDK's client. */
const mcpHttpPeer = async (kind) => {
  const { child, port } = await serverChild(kind);
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  const peer = await mcpCalls(kind, client);
  return { ...peer, stop: async () => (await client.close(), child.kill()) };
};

const api = contract({ count: { params: t.tuple([t.number]), stream: t.number, result: t.string } });

/** The development server's event stream, read by rpcserver's own `http` client. */
const rpcserverHttpPeer = async (kind) => {
  const { child, port } = await serverChild(kind);
  const { count } = client(api, http(`http://127.0.0.1:${port}`));
  const run = async () => {
    let seen = 0;
    const started = performance.now();
    const streamed = open(count(VALUES));
    for await (const n of streamed) if (n === ++seen) continue;
    const result = await streamed.result;
    const ms = performance.now() - started;
    if (seen !== VALUES || result._tag !== "Right") throw new Error(`${kind}: saw ${seen}, ${JSON.stringify(result)}`);
    return ms;
  };
  return { run, stop: () => child.kill() };
};

const measure = async (label, peers) => {
  const started = Object.fromEntries(
    await Promise.all(Object.entries(peers).map(async ([k, make]) => [k, await make()])),
  );
  const times = Object.fromEntries(Object.keys(started).map((k) => [k, []]));
  await Promise.all(Object.values(started).map((peer) => peer.run())); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, peer] of Object.entries(started)) times[k].push(await peer.run());
  }
  const rows = Object.entries(times).map(([k, ms]) => ({
    protocol: label,
    server: k,
    valuesPerSecond: Math.round((VALUES / median(ms)) * 1000),
    seen: started[k].seen?.() ?? VALUES,
  }));
  await Promise.all(Object.values(started).map((peer) => peer.stop()));
  return rows;
};

const rows = [
  ...(await measure("LSP $/progress (vscode-jsonrpc client, stdio)", {
    rpcserver: () => lspPeer("lsp-rpcserver"),
    "vscode-jsonrpc": () => lspPeer("lsp-vscode"),
  })),
  ...(await measure("MCP notifications/progress (SDK client, stdio)", {
    rpcserver: () => mcpPeer("mcp-rpcserver"),
    "@modelcontextprotocol/sdk": () => mcpPeer("mcp-sdk"),
  })),
  ...(await measure("MCP notifications/progress (a bare line reader, stdio)", {
    rpcserver: () => mcpRawPeer("mcp-rpcserver"),
    "@modelcontextprotocol/sdk": () => mcpRawPeer("mcp-sdk"),
  })),
  ...(await measure("MCP notifications/progress (SDK client, Streamable HTTP)", {
    rpcserver: () => mcpHttpPeer("http-mcp-rpcserver"),
    "@modelcontextprotocol/sdk": () => mcpHttpPeer("http-mcp-sdk"),
  })),
  ...(await measure("HTTP event stream by id (rpcserver client, dev server)", {
    rpcserver: () => rpcserverHttpPeer("http-rpcserver"),
  })),
];

const table = [
  "| wire | server | values/s | values seen (fewest) |",
  "| --- | --- | ---: | ---: |",
  ...rows.map((r) => `| ${r.protocol} | ${r.server} | ${r.valuesPerSecond.toLocaleString("en")} | ${r.seen} |`),
].join("\n");
console.log(table);
const load = `load average ${LOAD_AT_START.map((x) => x.toFixed(2)).join(", ")} at start, ${loadavg()
  .map((x) => x.toFixed(2))
  .join(", ")} at end`;
console.log(load);

if (WRITE) {
  const page = [
    "# Benchmarks: streamed values",
    "",
    "Written by `node bench/streams.mjs --write` (after `npm run build`). Values per second that one",
    `request streams to its caller: ${VALUES.toLocaleString("en")} values per request, the median of ${ROUNDS} rounds,`,
    "each server in a child process over its stdio, every value counted and the answer checked.",
    "",
    table,
    "",
    `Node ${process.version}, ${load}.`,
    "",
  ].join("\n");
  writeFileSync(join(ROOT, "docs", "benchmarks-streams.md"), page);
}
