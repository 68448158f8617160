// 2026 era subscriptions/listen streams whose resourceSubscriptions fill the 1 MiB body: what each
// one costs the server to hold (heap) and what every McpServer.updated() then costs (CPU).
//   node --expose-gc repro/mcp-hostile2/huge-filter.mjs [streams]
import { makeMcp, serve, modernPost, rawSocket, heapMb } from "./common.mjs";

const STREAMS = Number(process.argv[2] ?? 100);
const mcp = makeMcp();
const { server, port } = await serve(mcp);
// just under 1 MiB of distinct URIs (the handler's body limit)
const uris = Array.from({ length: 90000 }, (_, i) => `u:${i}`);
const base = heapMb();
const timeUpdates = (n) => {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i += 1) mcp.updated("not-subscribed");
  const c = process.cpuUsage(t0);
  return (c.user + c.system) / 1000 / n;
};
const baseUpdateMs = timeUpdates(100);
const clients = [];
for (let i = 0; i < STREAMS; i += 1) {
  const c = rawSocket(port, modernPost("subscriptions/listen", { notifications: { resourceSubscriptions: uris } }, i));
  await c.until("acknowledged");
  clients.push(c);
  c.socket.pause();
}
const held = heapMb();
const perUpdateMs = timeUpdates(20);
console.log(
  JSON.stringify({
    streams: STREAMS,
    bodyBytes: Buffer.byteLength(JSON.stringify(uris)),
    heapGrowthMb: +(held - base).toFixed(1),
    perStreamMb: +((held - base) / STREAMS).toFixed(2),
    updatedCpuMsBefore: +baseUpdateMs.toFixed(3),
    updatedCpuMsWithStreams: +perUpdateMs.toFixed(1),
    projectedAt1024Streams: {
      heapMb: Math.round(((held - base) / STREAMS) * 1024),
      updatedMs: Math.round((perUpdateMs / STREAMS) * 1024),
    },
  }),
);
for (const c of clients) c.socket.destroy();
mcp.close();
server.close();
