// Over stdio: listens (ids 1, "dup" twice, null, and one inside a batch), then notifications/cancelled
// for some, while the server changes its tools every 20 ms: what is still sent, for which ids?
//   node repro/mcp-hostile2/stdio-cancel.mjs
import { spawn } from "node:child_process";
import { META, sleep } from "./common.mjs";

const child = spawn(process.execPath, ["--expose-gc", new URL("./stdio-server.mjs", import.meta.url).pathname], {
  env: { ...process.env, HOSTILE_CHANGES_EVERY_MS: "20" },
  stdio: ["pipe", "pipe", "inherit"],
});
const lines = [];
let buf = "";
child.stdout.on("data", (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const parsed = JSON.parse(buf.slice(0, i));
    for (const m of [parsed].flat()) lines.push(m);
    buf = buf.slice(i + 1);
  }
});
const send = (m) => child.stdin.write(JSON.stringify(m) + "\n");
const listen = (id, notifications = { toolsListChanged: true }) => ({
  jsonrpc: "2.0",
  id,
  method: "subscriptions/listen",
  params: { _meta: META, notifications },
});
const sub = (m) => m.params?._meta?.["io.modelcontextprotocol/subscriptionId"];
send(listen(1));
send(listen("dup"));
send(listen("dup"));
send(listen(null));
send([listen("inbatch"), { jsonrpc: "2.0", id: "p", method: "tools/list", params: { _meta: META } }]);
// all five acknowledged, and a change or more heard
while (lines.filter((m) => m.method === "notifications/subscriptions/acknowledged").length < 5) await sleep(10);
await sleep(300);
const countBy = (from) => {
  const c = {};
  for (const m of lines.slice(from)) {
    const k = m.method
      ? `${m.method}@${JSON.stringify(sub(m))}`
      : `answer@${JSON.stringify(m.id)}:${JSON.stringify(m.error ?? m.result).slice(0, 80)}`;
    c[k] = (c[k] ?? 0) + 1;
  }
  return c;
};
console.log("before cancel", countBy(0));
send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "dup" } });
send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "inbatch" } });
await sleep(100);
const mark2 = lines.length;
await sleep(300);
console.log("after cancel (from 100 ms after)", countBy(mark2));
send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "dup" } });
send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: null } });
await sleep(100);
const mark3 = lines.length;
await sleep(300);
console.log("after cancelling dup again and null", countBy(mark3));
console.log(
  "answers ever sent",
  lines.filter((m) => m.method === undefined),
);
child.kill("SIGUSR2");
await sleep(100);
child.stdin.end();
await new Promise((r) => child.on("exit", r));
