// A 2026 era subscriptions/listen over HTTP whose client stops reading (socket paused), while the
// server announces N resource updates: does the server's memory stay bounded?
//   node --expose-gc repro/mcp-hostile2/slow-listener.mjs [N]
import { makeMcp, serve, modernPost, rawSocket, heapMb, sleep } from "./common.mjs";

const N = Number(process.argv[2] ?? 200000);
const mcp = makeMcp();
const { server, port } = await serve(mcp);
const uri = "note://a" + "x".repeat(200);
const client = rawSocket(
  port,
  modernPost("subscriptions/listen", { notifications: { resourceSubscriptions: [uri] } }, "slow"),
);
await client.until("acknowledged");
client.socket.pause(); // reads nothing more
const before = heapMb();
const t0 = process.cpuUsage();
for (let i = 0; i < N; i += 1) {
  mcp.updated(uri);
  if (i % 1000 === 0) await sleep(0); // let the wire write what it can
}
await sleep(200);
const cpu = process.cpuUsage(t0);
const after = heapMb();
console.log(
  JSON.stringify({
    N,
    heapBeforeMb: before,
    heapAfterMb: after,
    growthMb: +(after - before).toFixed(1),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  }),
);
client.socket.destroy();
await sleep(200);
console.log(JSON.stringify({ afterClientLeftMb: heapMb() }));
mcp.close();
server.close();
