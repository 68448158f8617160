// McpServer.change from inside an onChange listener (re-entrancy), a listener that throws, a
// listener that unsubscribes another, and a 2026 listen stream's order of what it hears.
//   node repro/mcp-hostile2/reentrancy.mjs
import { makeMcp, serve, modernPost, rawSocket, sleep, echo } from "./common.mjs";

const mcp = makeMcp({ prompts: {} });
const heardA = [];
const heardB = [];
let once = true;
mcp.onChange((c) => {
  heardA.push(c);
  // On the tools change, the first listener changes the prompts (say, a plugin reacting).
  if ("list" in c && c.list === "tools" && once) {
    once = false;
    mcp.change({ prompts: {} });
  }
});
mcp.onChange(() => {
  throw new Error("a listener that throws");
});
mcp.onChange((c) => heardB.push(c));
const { server, port } = await serve(mcp);
const s = rawSocket(
  port,
  modernPost("subscriptions/listen", { notifications: { toolsListChanged: true, promptsListChanged: true } }, "L"),
);
await s.until("acknowledged");
const origError = console.error;
let logged = 0;
console.error = () => (logged += 1);
mcp.change({ tools: { echo } });
await sleep(200);
console.error = origError;
const streamOrder = [...s.text().matchAll(/notifications\/(\w+)\/list_changed/g)].map((m) => m[1]);
console.log(
  JSON.stringify({
    first: heardA.map((c) => c.list),
    third: heardB.map((c) => c.list),
    listenStream: streamOrder,
    throwsLogged: logged,
  }),
);
s.socket.destroy();
mcp.close();
server.close();
