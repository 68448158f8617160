// Many 2025 era clients on real TCP connections to one McpServer (connect + byteChannel on each
// socket): initialize, subscribe to 1024 URIs, set a level, then the socket resets. Does the
// server keep anything per closed connection (its Client, its Changes listener)?
//   node --expose-gc repro/mcp-hostile2/connection-cycles.mjs [cycles]
import net from "node:net";
import { byteChannel, connect, newlineDelimited } from "../../dist/esm/connection.js";
import { makeMcp, heapMb, sleep } from "./common.mjs";

const CYCLES = Number(process.argv[2] ?? 1000);
const mcp = makeMcp();
let closed = 0;
const server = net.createServer((socket) => {
  socket.on("error", () => {});
  const peer = connect(byteChannel(socket, socket, newlineDelimited()), {
    methods: mcp.methods,
    stages: mcp.stages,
    context: {},
    cancellation: "mcp",
  });
  peer.closed.then(() => (closed += 1));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const { port } = server.address();
const cycle = async (uris, how) => {
  const s = net.connect(port, "127.0.0.1");
  s.on("error", () => {});
  let got = "";
  s.on("data", (d) => (got += d));
  const lines = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    },
    { jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "debug" } },
    ...Array.from({ length: uris }, (_, i) => ({
      jsonrpc: "2.0",
      id: 10 + i,
      method: "resources/subscribe",
      params: { uri: `u:${i}` },
    })),
    { jsonrpc: "2.0", id: "last", method: "ping" },
  ];
  s.write(lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  while (!got.includes('"id":"last"')) await sleep(2);
  if (how === "reset") s.resetAndDestroy();
  else s.end();
  return got;
};
// The 1025th subscription is refused?
const full = await cycle(1025, "end");
const refused = full.match(/\{[^{}]*"error":\{[^}]*\}[^{}]*\}/)?.[0];
for (let i = 0; i < 50; i += 1) await cycle(100, "reset");
await sleep(300);
const base = heapMb();
for (let i = 0; i < CYCLES; i += 1) await cycle(100, i % 2 ? "reset" : "end");
await sleep(500);
const t0 = process.cpuUsage();
for (let i = 0; i < 1000; i += 1) mcp.updated("u:1");
const c = process.cpuUsage(t0);
console.log(
  JSON.stringify({
    refused1025th: refused,
    cycles: CYCLES,
    closedConnections: closed,
    heapGrowthMb: +(heapMb() - base).toFixed(1),
    updatedCpuUsEach: Math.round((c.user + c.system) / 1000),
  }),
);
server.close();
