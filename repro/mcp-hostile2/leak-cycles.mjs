// Listen/leave cycles over real sockets (the client resets before the request is whole, right after
// sending it, after the acknowledgement, or half-closes): does any slot (of the 1024) or memory leak?
//   node --expose-gc repro/mcp-hostile2/leak-cycles.mjs [cycles]
import { makeMcp, serve, modernPost, rawSocket, heapMb, sleep } from "./common.mjs";

const CYCLES = Number(process.argv[2] ?? 2000);
const mcp = makeMcp();
const { server, port } = await serve(mcp);
const listen = (id) => modernPost("subscriptions/listen", { notifications: { toolsListChanged: true } }, id);
const ways = {
  resetMidBody: async (id) => {
    const c = rawSocket(port, listen(id).slice(0, -5));
    await sleep(1);
    c.socket.resetAndDestroy();
  },
  resetBeforeAck: async (id) => {
    const c = rawSocket(port, listen(id));
    c.socket.resetAndDestroy();
  },
  resetAfterAck: async (id) => {
    const c = rawSocket(port, listen(id));
    await c.until("acknowledged");
    c.socket.resetAndDestroy();
  },
  halfClose: async (id) => {
    const c = rawSocket(port, listen(id));
    c.socket.end(); // FIN: the client sends no more but could still read
    await c.until("acknowledged");
    c.socket.destroy();
  },
};
// warm up
for (let i = 0; i < 200; i += 1) await ways.resetAfterAck(i);
await sleep(300);
const base = heapMb();
const result = {};
for (const [name, way] of Object.entries(ways)) {
  for (let i = 0; i < CYCLES; i += 1) await way(`${name}-${i}`);
  await sleep(500);
  mcp.change({ tools: {} }); // any listener still registered is told (and would write to a dead socket)
  await sleep(200);
  result[name] = +(heapMb() - base).toFixed(1);
}
// Every slot free? Open 1024 at once and one more.
const open = [];
for (let i = 0; i < 1024; i += 1) open.push(rawSocket(port, listen(`full-${i}`)));
await Promise.all(open.map((c) => c.until("acknowledged")));
const past = rawSocket(port, listen("past"));
await past.until("\r\n\r\n");
await sleep(200);
console.log(
  JSON.stringify({
    cycles: CYCLES,
    heapGrowthMbAfter: result,
    opened1024: true,
    the1025th: past.text().match(/"error":\{[^}]*\}/)?.[0] ?? past.text().slice(0, 120),
  }),
);
for (const c of [...open, past]) c.socket.destroy();
mcp.close();
server.close();
process.exit(0);
