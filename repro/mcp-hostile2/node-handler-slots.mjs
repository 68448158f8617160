// The documented Node serving, nodeHandler(mcpHandler(...)) from rpcserver/server: do listens whose
// clients reset (before or after the acknowledgement) free their slots, and does a slow reader
// grow the heap as with the example glue?
//   node --expose-gc repro/mcp-hostile2/node-handler-slots.mjs
import { createServer } from "node:http";
import { nodeHandler } from "../../dist/esm/server.js";
import { mcpHandler } from "../../dist/esm/mcp.js";
import { makeMcp, modernPost, rawSocket, heapMb, sleep } from "./common.mjs";

const mcp = makeMcp();
const handler = nodeHandler(mcpHandler(mcp));
const server = createServer((req, res) => void handler(req, res));
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const { port } = server.address();
const listen = (id) => modernPost("subscriptions/listen", { notifications: { toolsListChanged: true } }, id);
for (let i = 0; i < 1100; i += 1) {
  const c = rawSocket(port, listen(`a${i}`));
  if (i % 2) await c.until("acknowledged");
  c.socket.resetAndDestroy();
  if (i % 50 === 0) await sleep(5);
}
await sleep(500);
const probe = rawSocket(port, listen("probe"));
await probe.until("\r\n\r\n");
await sleep(100);
const afterResets = probe.text().includes("acknowledged")
  ? "acknowledged"
  : probe.text().match(/"error":\{[^}]*\}/)?.[0];
probe.socket.destroy();
const slow = rawSocket(
  port,
  modernPost("subscriptions/listen", { notifications: { resourceSubscriptions: ["note://a"] } }, "slow"),
);
await slow.until("acknowledged");
slow.socket.pause();
const before = heapMb();
for (let i = 0; i < 100000; i += 1) {
  mcp.updated("note://a");
  if (i % 1000 === 0) await sleep(0);
}
await sleep(200);
console.log(
  JSON.stringify({ after1100Resets: afterResets, slowReaderGrowthMbPer100kUpdates: +(heapMb() - before).toFixed(1) }),
);
slow.socket.destroy();
mcp.close();
server.close();
process.exit(0);
