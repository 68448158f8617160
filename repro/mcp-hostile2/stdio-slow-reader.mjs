// Over stdio: a 2026 listen whose client stops reading the server's stdout, while the server changes
// its tools every millisecond: is the server's heap bounded?
//   node repro/mcp-hostile2/stdio-slow-reader.mjs [seconds]
import { spawn } from "node:child_process";
import { META, sleep } from "./common.mjs";

const SECONDS = Number(process.argv[2] ?? 6);
const child = spawn(process.execPath, ["--expose-gc", new URL("./stdio-server.mjs", import.meta.url).pathname], {
  env: { ...process.env, HOSTILE_CHANGES_EVERY_MS: "1" },
  stdio: ["pipe", "pipe", "pipe"],
});
let acked = false;
child.stdout.once("data", () => {
  acked = true;
  child.stdout.pause(); // reads nothing more
});
const reports = [];
child.stderr.on("data", (d) =>
  reports.push(
    ...String(d)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l)),
  ),
);
child.stdin.write(
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "subscriptions/listen",
    params: { _meta: META, notifications: { toolsListChanged: true, resourceSubscriptions: ["note://a"] } },
  }) + "\n",
);
while (!acked) await sleep(10);
for (let s = 0; s < SECONDS; s += 1) {
  await sleep(1000);
  child.kill("SIGUSR2");
}
await sleep(200);
console.log(JSON.stringify(reports));
child.kill();
