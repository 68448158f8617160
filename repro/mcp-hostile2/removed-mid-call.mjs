// A tool removed (and replaced) while its call runs; mcp.close() while listens are being told a
// change; change() from inside a listen's delivery. Over HTTP on a real socket.
//   node repro/mcp-hostile2/removed-mid-call.mjs
import * as E from "fp-ts/lib/Either.js";
import { tool } from "../../dist/esm/mcp.js";
import { makeMcp, serve, modernPost, rawSocket, sleep, echo } from "./common.mjs";

let release;
const slow = tool({ description: "slow", run: () => new Promise((r) => (release = () => r(E.right("slow done")))) });
const mcp = makeMcp({ tools: { slow } });
const { server, port } = await serve(mcp);
const callBytes = modernPost("tools/call", { name: "slow", arguments: {} }, 1, { "Mcp-Name": "slow" });
const c = rawSocket(port, callBytes);
await sleep(100);
mcp.change({ tools: { slow: undefined } });
const again = rawSocket(port, modernPost("tools/call", { name: "slow", arguments: {} }, 2, { "Mcp-Name": "slow" }));
await again.until("\r\n\r\n");
await sleep(100);
release();
await c.until("slow done");
// close() while many listens are open, from inside an onChange listener (during a change's delivery)
const listens = [];
for (let i = 0; i < 50; i += 1) {
  const l = rawSocket(port, modernPost("subscriptions/listen", { notifications: { toolsListChanged: true } }, i));
  await l.until("acknowledged");
  listens.push(l);
}
mcp.onChange(() => mcp.close());
mcp.change({ tools: { echo } });
await sleep(300);
const ended = listens.filter((l) => l.text().includes('"resultType":"complete"')).length;
const heardChange = listens.filter((l) => l.text().includes("list_changed")).length;
console.log(
  JSON.stringify({
    removedWhileRunning: c.text().includes("slow done")
      ? "the running call finished with its result"
      : c.text().slice(-200),
    callAfterRemoval:
      again.text().match(/"error":\{[^}]*\}/)?.[0] ?? again.text().split("\r\n\r\n")[0].split("\r\n")[0],
    listensEndedByCloseDuringDelivery: ended,
    listensThatHeardTheChange: heardChange,
  }),
);
for (const l of listens) l.socket.destroy();
c.socket.destroy();
again.socket.destroy();
server.close();
