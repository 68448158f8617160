// Connections: requests per second over one long-lived channel, rpcserver's peer against
// vscode-jsonrpc's MessageConnection and json-rpc-2.0's JSONRPCServerAndClient on the same channel,
// with 1 and 64 requests in flight; and the memory an idle connection holds.
//
//   npm run build && node bench/connections.mjs            full run (about a minute)
//   node bench/connections.mjs --quick                     smoke run
//   node bench/connections.mjs --write                     also write docs/benchmarks-connections.md
//
// Channels: "stdio framing" is a pair of in-process byte pipes (node:stream PassThrough) carrying
// LSP's Content-Length framing (rpcserver's contentLength(), vscode-jsonrpc's own reader and writer;
// json-rpc-2.0 has no framing of its own, so it gets newline-delimited JSON over the same pipes);
// "WebSocket" is a ws connection on loopback (vscode-jsonrpc has no WebSocket transport: not run).
// Each side calls `add(1, 2)` on the other; every answer is checked. The figure is the median of
// rounds, the implementations interleaved round by round.
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { JSONRPCClient, JSONRPCServer, JSONRPCServerAndClient } from "json-rpc-2.0";
import { Success } from "rpcserver";
import { client } from "rpcserver/client";
import { connect, contentLength, streams, webSocket } from "rpcserver/connection";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { WebSocket, WebSocketServer } from "ws";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const QUICK = process.argv.includes("--quick");
const WRITE = process.argv.includes("--write");
const ROUNDS = QUICK ? 2 : 7;
const LOAD_AT_START = loadavg();
const REQUESTS = QUICK ? 2_000 : 20_000;

/** Two byte pipes, one each way. */
const pipes = () => {
  const up = new PassThrough();
  const down = new PassThrough();
  return { left: [down, up], right: [up, down] };
};

/** A WebSocket pair on loopback: [server side, client side], and how to stop it. */
const sockets = async () => {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((resolve) => wss.once("listening", resolve));
  const accepted = new Promise((resolve) => wss.once("connection", resolve));
  const near = new WebSocket(`ws://127.0.0.1:${wss.address().port}`);
  await new Promise((resolve) => near.once("open", resolve));
  const far = await accepted;
  return { far, near, stop: () => new Promise((resolve) => (near.close(), wss.close(resolve))) };
};

const methods = { add: (a, b) => Success(a + b) };

/** Each implementation: a setup over a channel kind, giving `call()` (one add) and `stop()`. */
const implementations = {
  rpcserver: {
    stdio: async () => {
      const { left, right } = pipes();
      const server = connect(streams(right[0], right[1], contentLength()), { methods });
      const near = connect(streams(left[0], left[1], contentLength()));
      const api = client(near.transport);
      return {
        call: () =>
          api
            .add(1, 2)()
            .then((e) => e.right),
        stop: () => (near.close(), server.close()),
      };
    },
    ws: async () => {
      const { far, near, stop } = await sockets();
      connect(webSocket(far), { methods });
      const peer = connect(webSocket(near));
      const api = client(peer.transport);
      return {
        call: () =>
          api
            .add(1, 2)()
            .then((e) => e.right),
        stop,
      };
    },
  },
  "vscode-jsonrpc": {
    stdio: async () => {
      const { left, right } = pipes();
      const server = createMessageConnection(new StreamMessageReader(right[0]), new StreamMessageWriter(right[1]));
      server.onRequest("add", (a, b) => a + b);
      server.listen();
      const near = createMessageConnection(new StreamMessageReader(left[0]), new StreamMessageWriter(left[1]));
      near.listen();
      return { call: () => near.sendRequest("add", 1, 2), stop: () => (near.dispose(), server.dispose()) };
    },
  },
  "json-rpc-2.0": {
    stdio: async () => {
      const { left, right } = pipes();
      const side = ([input, output]) => {
        const peer = new JSONRPCServerAndClient(
          new JSONRPCServer(),
          new JSONRPCClient((request) => void output.write(`${JSON.stringify(request)}\n`)),
        );
        peer.addMethod("add", ([a, b]) => a + b);
        let buffered = "";
        input.on("data", (chunk) => {
          buffered += chunk;
          let end;
          while ((end = buffered.indexOf("\n")) !== -1) {
            const line = buffered.slice(0, end);
            buffered = buffered.slice(end + 1);
            peer.receiveAndSend(JSON.parse(line));
          }
        });
        return peer;
      };
      side(right);
      const near = side(left);
      return { call: () => near.request("add", [1, 2]), stop: () => undefined };
    },
    ws: async () => {
      const { far, near, stop } = await sockets();
      const side = (socket) => {
        const peer = new JSONRPCServerAndClient(
          new JSONRPCServer(),
          new JSONRPCClient((request) => socket.send(JSON.stringify(request))),
        );
        peer.addMethod("add", ([a, b]) => a + b);
        socket.on("message", (data) => peer.receiveAndSend(JSON.parse(String(data))));
        return peer;
      };
      side(far);
      const peer = side(near);
      return { call: () => peer.request("add", [1, 2]), stop };
    },
  },
};

/** Runs `total` calls keeping `inFlight` outstanding; checks each answer; returns requests per second. */
const drive = async ({ call }, total, inFlight) => {
  let sent = 0;
  const worker = async () => {
    while (sent < total) {
      sent += 1;
      const answer = await call();
      if (answer !== 3) throw new Error(`wrong answer: ${JSON.stringify(answer)}`);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return total / ((performance.now() - started) / 1000);
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const rows = [];
for (const channel of ["stdio", "ws"]) {
  for (const inFlight of [1, 64]) {
    const entries = Object.entries(implementations).filter(([, impl]) => impl[channel] !== undefined);
    const setups = {};
    for (const [name, impl] of entries) {
      setups[name] = await impl[channel]();
      await drive(setups[name], Math.min(2_000, REQUESTS), inFlight); // warm-up
    }
    const samples = Object.fromEntries(entries.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < entries.length; i++) {
        const [name] = entries[(round + i) % entries.length];
        samples[name].push(await drive(setups[name], REQUESTS, inFlight));
      }
    }
    for (const [name] of entries) {
      await setups[name].stop();
      rows.push({ channel, inFlight, name, rps: median(samples[name]) });
      process.stderr.write(`${channel} ${inFlight} in flight ${name}: ${Math.round(median(samples[name]))} req/s\n`);
    }
  }
}

/** Memory per idle connection: heap after opening N idle peers over pipes, minus before, over N. */
const idleMemory = async (n) => {
  const gc = globalThis.gc;
  if (gc === undefined) return undefined;
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = [];
  for (let i = 0; i < n; i++) {
    const { left, right } = pipes();
    kept.push(
      connect(streams(right[0], right[1], contentLength()), { methods }),
      connect(streams(left[0], left[1], contentLength())),
    );
  }
  gc();
  const after = process.memoryUsage().heapUsed;
  for (const peer of kept) peer.close();
  return (after - before) / (2 * n);
};
const idle = await idleMemory(QUICK ? 200 : 2_000);
if (idle !== undefined)
  process.stderr.write(`idle connection: ${Math.round(idle)} bytes of heap (with its two PassThrough streams)\n`);

const best = (channel, inFlight, except) =>
  Math.max(
    ...rows.filter((r) => r.channel === channel && r.inFlight === inFlight && r.name !== except).map((r) => r.rps),
  );
const table = rows
  .map((r) => {
    const peer = best(r.channel, r.inFlight, "rpcserver");
    const note =
      r.name === "rpcserver" && Number.isFinite(peer)
        ? ` (${(r.rps / peer).toFixed(2)}x the fastest peer: ${r.rps >= peer ? "met" : "MISSED"})`
        : "";
    return `| ${r.channel === "stdio" ? "stdio framing" : "WebSocket"} | ${r.inFlight} | ${r.name} | ${Math.round(r.rps).toLocaleString("en-US")}${note} |`;
  })
  .join("\n");
const report = `# Benchmarks: connections

Generated by \`node --expose-gc bench/connections.mjs --write\` (${QUICK ? "quick run" : `${ROUNDS} rounds of ${REQUESTS.toLocaleString("en-US")} requests`}) on Node ${process.versions.node}, load average ${LOAD_AT_START.map((x) => x.toFixed(2)).join(" ")} at the start and ${loadavg()
  .map((x) => x.toFixed(2))
  .join(
    " ",
  )} at the end (2 cores: above 1, other processes competed and the figures are noisy; the implementations are interleaved round by round, so ratios are steadier than figures). Target: rpcserver faster than vscode-jsonrpc and json-rpc-2.0 on the same channel.

Each side of one connection serves \`add\`; one side calls \`add(1, 2)\` with 1 or 64 requests in flight, checking every answer. "stdio framing": in-process byte pipes with LSP's Content-Length framing (json-rpc-2.0, which has no framing, reads and writes newline-delimited JSON on them). "WebSocket": \`ws\` on loopback (vscode-jsonrpc ships no WebSocket transport).

| channel | in flight | implementation | requests/s |
| --- | --- | --- | --- |
${table}

Memory per idle connection: ${idle === undefined ? "not measured (run with --expose-gc)" : `${Math.round(idle).toLocaleString("en-US")} bytes of heap, its two PassThrough streams and framing included`}.
`;
if (WRITE) writeFileSync(join(ROOT, "docs/benchmarks-connections.md"), report);
process.stdout.write(report);
