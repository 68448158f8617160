// MCP workers over NATS: what the relay costs. A 2026-07-28 `tools/call` (examples/mcp/everything.mjs'
// test_simple_text, JSON answers), 64 in flight, against A: one everything.mjs process, and B: the
// same declaration behind examples/mcp/nats.mjs, a front and two workers, on a real nats-server
// (tests/fixtures/nats-server.cjs). Rounds interleaved (A B, B A...); the figures are medians over
// rounds of calls per second (wall clock, autocannon's) and of CPU time per call, A's one process
// against the sum of B's front, workers and nats-server (/proc schedstat).
//
//   npm run build && node bench/mcp-relay.mjs [rounds=5] [calls=10000]
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { startNatsServer } from "../tests/fixtures/nats-server.cjs";
import { cpuNanos, median } from "./children.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const ROUNDS = Number(process.argv[2] ?? 5);
const CALLS = Number(process.argv[3] ?? 10_000);

const children = [];
/** examples/mcp/`script` with `args` in a process of its own: once it says it is ready, its URL (if any) and pid. */
const start = (script, args, env) =>
  new Promise((settle, fail) => {
    const child = spawn(process.execPath, [join(ROOT, "examples/mcp", script), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const ready = /listening on (\S+)|serving/.exec(out);
      if (ready !== null) settle({ url: ready[1], pid: child.pid });
    });
    child.once("exit", (code) => fail(new Error(`${script} ${args.join(" ")} exited (${code})`)));
  });

const nats = await startNatsServer();
try {
  const env = { NATS_URL: nats.url, PORT: "0" };
  const single = await start("everything.mjs", [], { PORT: "0" });
  const workers = [await start("nats.mjs", ["worker"], env), await start("nats.mjs", ["worker"], env)];
  const front = await start("nats.mjs", ["front"], env);
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "test_simple_text", arguments: {}, _meta: meta },
  });
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "test_simple_text",
  };
  /** CALLS calls to `url`: calls per second, and the CPU time per call of `pids` together (µs). */
  const run = async (url, pids) => {
    const before = pids.map(cpuNanos);
    const result = await autocannon({ url, method: "POST", connections: 64, amount: CALLS, headers, body });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
    const cpu = pids.reduce((sum, pid, i) => sum + cpuNanos(pid) - before[i], 0);
    return { perSecond: result.requests.average, cpuUs: cpu / 1000 / result.requests.sent };
  };
  const A = { url: single.url, pids: [single.pid], runs: [] };
  const B = { url: front.url, pids: [front.pid, ...workers.map((w) => w.pid), nats.pid], runs: [] };
  await run(A.url, A.pids); // warm-up, not counted
  await run(B.url, B.pids);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const side of round % 2 === 0 ? [A, B] : [B, A]) side.runs.push(await run(side.url, side.pids));
  }
  const said = ({ runs }) =>
    `${median(runs.map((r) => r.perSecond)).toFixed(0)} calls/s, ${median(runs.map((r) => r.cpuUs)).toFixed(0)} µs CPU per call`;
  console.log(`A one process:                        ${said(A)}`);
  console.log(`B front + 2 workers (+ nats-server):  ${said(B)}`);
  const ratio = median(B.runs.map((r) => r.cpuUs)) / median(A.runs.map((r) => r.cpuUs));
  console.log(`B/A CPU per call: ${ratio.toFixed(2)}x (medians of ${ROUNDS} interleaved rounds of ${CALLS} calls)`);
} finally {
  // The workers drain their connections on SIGTERM: nats-server stops once they have.
  await Promise.all(
    children.map((child) =>
      child.exitCode !== null ? undefined : new Promise((done) => child.once("exit", done).kill()),
    ),
  );
  await nats.stop();
}
