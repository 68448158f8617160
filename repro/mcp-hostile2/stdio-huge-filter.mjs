// Over stdio: one listen with 700k resourceSubscriptions (~9 MB of URI text, under the connection's 16 MiB message bound), then what one
// McpServer.updated() costs the server (its heap, and a ping's round trip while it updates).
//   node repro/mcp-hostile2/stdio-huge-filter.mjs
import { spawn } from "node:child_process";
import { META, sleep } from "./common.mjs";

const child = spawn(process.execPath, ["--expose-gc", new URL("./stdio-server.mjs", import.meta.url).pathname], {
  env: { ...process.env, HOSTILE_CHANGES_EVERY_MS: "50" },
  stdio: ["pipe", "pipe", "pipe"],
});
let out = "";
child.stdout.on("data", (d) => (out += d));
const reports = [];
child.stderr.on("data", (d) => reports.push(String(d).trim()));
// a ping first: SIGUSR2 before the server installed its handler would kill it
child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: "up", method: "tools/list", params: { _meta: META } }) + "\n");
while (!out.includes('"id":"up"')) await sleep(10);
out = "";
child.kill("SIGUSR2");
const uris = Array.from({ length: 700_000 }, (_, i) => `f:${i}`);
const line = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "subscriptions/listen",
  params: { _meta: META, notifications: { resourceSubscriptions: uris } },
});
child.stdin.write(line + "\n");
const t0 = Date.now();
while (!out.includes("acknowledged") && !out.includes('"error"') && Date.now() - t0 < 15000) await sleep(20);
const ackedAfterMs = Date.now() - t0;
const firstAnswer = out.slice(0, 160);
await sleep(500);
child.kill("SIGUSR2");
// a ping's round trip while the server's timer calls updated("note://a") every 50 ms
const times = [];
for (let i = 0; i < 10; i += 1) {
  const mark = out.length;
  const s = Date.now();
  child.stdin.write(
    JSON.stringify({ jsonrpc: "2.0", id: `p${i}`, method: "tools/list", params: { _meta: META } }) + "\n",
  );
  while (!out.slice(mark).includes(`"id":"p${i}"`)) await sleep(1);
  times.push(Date.now() - s);
}
await sleep(200);
console.log(
  JSON.stringify({ bytes: line.length, ackedAfterMs, firstAnswer, heapReports: reports, toolsListRoundTripMs: times }),
);
child.kill();
