// On one connection (TCP, connect + byteChannel): 64 listens open, then a tools/list. Is it answered
// while the listens stay open (the connection's bound on calls under way)?
//   node repro/mcp-hostile2/connection-64.mjs [listens]
import net from "node:net";
import { makeMcp, META, serveConnections, sleep } from "./common.mjs";

const LISTENS = Number(process.argv[2] ?? 64);
const mcp = makeMcp();
const server = await serveConnections(mcp);
const s = net.connect(server.address().port, "127.0.0.1");
let got = "";
s.on("data", (d) => (got += d));
for (let i = 0; i < LISTENS; i += 1)
  s.write(
    JSON.stringify({
      jsonrpc: "2.0",
      id: i,
      method: "subscriptions/listen",
      params: { _meta: META, notifications: { toolsListChanged: true } },
    }) + "\n",
  );
s.write(JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list", params: { _meta: META } }) + "\n");
await sleep(1000);
const answeredWhileOpen = got.includes('"id":"list"');
s.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0 } }) + "\n");
await sleep(300);
console.log(
  JSON.stringify({
    listens: LISTENS,
    acks: (got.match(/acknowledged/g) ?? []).length,
    toolsListAnsweredWhileOpen: answeredWhileOpen,
    afterOneCancel: got.includes('"id":"list"'),
  }),
);
s.destroy();
server.close();
