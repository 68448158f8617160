// HTTP servers (issue 34, "Speed"): a JSON-RPC `add` (params [1, 2]) POSTed as JSON over real
// sockets to rpcserver's HTTP paths and to the servers users compare them with, each server in a
// child process of its own (bench/http-server.mjs), the load sent by autocannon from this process.
//
//   npm run build && node bench/http-servers.mjs        full run (about 4 minutes on 2 cores)
//   node bench/http-servers.mjs --write                 also write docs/benchmarks-http.md
//   node bench/http-servers.mjs --quick                 smoke run (1 round of 1 s, load held 3 s)
//   --rounds N          throughput rounds (default 3)
//   --seconds S         seconds per server per round (default 5)
//   --load-seconds S    seconds the 1,000 connections are held (default 10; 0 skips that part)
//
// 1. Throughput: 32 connections, every server once per round in an order that rotates from round to
//    round, after one warm-up second each; the median of the rounds' requests per second and of
//    their p99 latencies. The servers: a bare `node:http` handler (JSON.parse, JSON.stringify: the
//    floor), jayson's HTTP server, json-rpc-2.0 in a `node:http` handler, rpcserver's `answerHttp`
//    with its glue, `nodeHandler`, the development server `serve`, `fetchHandler` and a Hono app
//    under @hono/node-server; and `fetchHandler` beside the same Hono app under `Bun.serve` and
//    `Deno.serve`, when runtimes/node_modules has them (a runtime that is absent is said, and its
//    rows skipped).
// 2. Load held: 1,000 connections for 10 s against the development server, `nodeHandler` (each also
//    in two `node:cluster` workers, the primary accepting: examples/integrations/cluster.mjs) and jayson,
//    each in a fresh process that counts what it saw (`--count`): the requests autocannon sent, the
//    answers, the errors and timeouts (autocannon's: no answer within 10 s), the process's peak RSS
//    (VmHWM), the listening socket's accept queue each second (`ss`), the kernel's listen-queue
//    overflows over the run (/proc/net/netstat), and when each connection had its first answer; and,
//    as a control, the development server on Node 18 (runtimes/node_modules/node18), whose libuv
//    accepts every queued connection at once where Node 20's accepts one per turn of the loop.
//
// Every answer is checked (a body without `"result":3` is a mismatch, printed). The targets are the
// issue's: `nodeHandler` and `serve` at least as fast as jayson and json-rpc-2.0 and within 1.1x of
// the bare handler; `fetchHandler` on Node within 1.1x of `answerHttp` with the fetch glue it
// replaces (both under @hono/node-server); under 1,000
// connections, every request answered.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { httpChild, median } from "./children.mjs";
import { formatted } from "./formatted.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..");
const SERVER = join(HERE, "http-server.mjs");
const PAGE = join(ROOT, "docs", "benchmarks-http.md");
const args = process.argv.slice(2);
const QUICK = args.includes("--quick");
const WRITE = args.includes("--write");
/** `--name N` (or `--name=N`) as a number, else `fallback`. */
const numberFlag = (name, fallback) => {
  const at = args.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  if (at === -1) return fallback;
  const value = Number(args[at].includes("=") ? args[at].split("=")[1] : args[at + 1]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`http-servers: --${name} wants a number`);
  return value;
};
const ROUNDS = numberFlag("rounds", QUICK ? 1 : 3);
const SECONDS = numberFlag("seconds", QUICK ? 1 : 5);
const WARM_UP_SECONDS = 1;
const CONNECTIONS = 32;
const LOAD_SECONDS = numberFlag("load-seconds", QUICK ? 3 : 10);
const LOAD_CONNECTIONS = 1_000;
/** autocannon's own default: a request not answered within it is a timeout (and its connection is made again). */
const TIMEOUT_SECONDS = 10;
/** Connections first answered later than this are counted: the ones that waited to be accepted show there. */
const LATE_FIRST_ANSWER_MS = 1_000;
const LOAD_AT_START = loadavg();
const STARTED = new Date();

const BODY = JSON.stringify({ jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 });
const progress = (text) => process.stderr.write(`http bench: ${text}\n`);
const thousands = (n) => Math.round(n).toLocaleString("en-US");

const BIN = join(ROOT, "runtimes", "node_modules");
const RUNTIMES = {
  node: { command: process.execPath, args: [] },
  bun: { command: join(BIN, "@oven/bun-linux-x64/bin/bun"), args: [] },
  // As docs/fetch.md says to run a fetch handler on Deno (and tests/runtime/fetch-served.mjs does).
  deno: { command: join(BIN, "@deno/linux-x64-glibc/deno"), args: ["run", "-A", "--unstable-no-legacy-abort"] },
  // The load's control: Node 18's libuv (1.44) accepts every queued connection in one turn of the
  // event loop; from Node 20 (libuv 1.45, libuv/libuv#3696) it accepts one per turn.
  node18: { command: join(BIN, "node18/bin/node"), args: [] },
};
const versionOf = (runtime) => {
  if (runtime === "node") return process.versions.node;
  try {
    const text = execFileSync(RUNTIMES[runtime].command, ["--version"], { encoding: "utf8" });
    return /\d+\.\d+\.\d+/.exec(text)?.[0] ?? text.trim();
  } catch {
    return undefined;
  }
};
const VERSIONS = Object.fromEntries(Object.keys(RUNTIMES).map((runtime) => [runtime, versionOf(runtime)]));
/** A Node's libuv version. */
const libuvOf = (runtime) =>
  VERSIONS[runtime] === undefined
    ? undefined
    : execFileSync(RUNTIMES[runtime].command, ["-p", "process.versions.uv"], { encoding: "utf8" }).trim();

/** The throughput's servers: bench/http-server.mjs's kind, on a runtime, and the table's label. */
const SERVERS = [
  { kind: "bare", runtime: "node", label: "bare `node:http` handler, JSON.parse/JSON.stringify (the floor)" },
  { kind: "jayson", runtime: "node", label: "jayson, its HTTP server" },
  { kind: "json-rpc-2.0", runtime: "node", label: "json-rpc-2.0 `JSONRPCServer` in a `node:http` handler" },
  { kind: "answerHttp", runtime: "node", label: "rpcserver `answerHttp` in a `node:http` handler, with its glue" },
  { kind: "nodeHandler", runtime: "node", label: "rpcserver `nodeHandler`" },
  { kind: "serve", runtime: "node", label: "rpcserver development server `serve`" },
  { kind: "fetchHandler-node", runtime: "node", label: "rpcserver `fetchHandler` under @hono/node-server" },
  { kind: "hono-node", runtime: "node", label: "Hono app (`c.json`) under @hono/node-server" },
  {
    kind: "answerHttp-fetch-node",
    runtime: "node",
    label: "rpcserver `answerHttp` with a fetch handler's glue under @hono/node-server",
  },
  { kind: "fetchHandler", runtime: "bun", label: "rpcserver `fetchHandler` in `Bun.serve`" },
  { kind: "hono", runtime: "bun", label: "Hono app (`c.json`) in `Bun.serve`" },
  { kind: "fetchHandler", runtime: "deno", label: "rpcserver `fetchHandler` in `Deno.serve`" },
  { kind: "hono", runtime: "deno", label: "Hono app (`c.json`) in `Deno.serve`" },
].map((server) => ({ ...server, id: `${server.runtime} ${server.kind}` }));
/** The load's servers: the development server and nodeHandler, jayson beside them, and the control. */
const LOADED = [
  { kind: "serve", runtime: "node" },
  { kind: "serve-cluster", runtime: "node" },
  { kind: "nodeHandler", runtime: "node" },
  { kind: "nodeHandler-cluster", runtime: "node" },
  { kind: "jayson", runtime: "node" },
  { kind: "serve", runtime: "node18", control: true },
];

const ABSENT = Object.keys(RUNTIMES).filter((runtime) => VERSIONS[runtime] === undefined);
for (const runtime of ABSENT) {
  progress(
    `${runtime}: not found at ${RUNTIMES[runtime].command} (node scripts/test-runtimes.mjs --install): its rows skipped`,
  );
}
const RUN = SERVERS.filter((server) => !ABSENT.includes(server.runtime));
const LOAD_RUN = LOADED.filter((server) => !ABSENT.includes(server.runtime));

/** The servers still running: a bench that fails (a wrong answer throws) leaves none behind. */
const running = new Set();
process.once("exit", () => {
  for (const child of running) child.kill();
});

/** A server of bench/http-server.mjs in its own process. */
const start = async ({ kind, runtime }, extra = []) => {
  const { command, args: runtimeArgs } = RUNTIMES[runtime];
  const server = await httpChild(command, [...runtimeArgs, SERVER, kind, ...extra]);
  running.add(server.child);
  server.child.once("exit", () => running.delete(server.child));
  return server;
};

/**
 * Stops `child`, resolving to what it printed on its way out (a `--count` server's JSON line); one
 * still there 15 s after SIGTERM is killed, so that a server that hangs cannot hang the bench.
 */
const stop = (child) =>
  new Promise((resolve) => {
    let said = "";
    const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.stdout.on("data", (chunk) => (said += chunk));
    child.once("exit", () => {
      clearTimeout(kill);
      resolve(said);
    });
    child.kill("SIGTERM");
  });

/** The process's peak resident set (VmHWM), in bytes: what it held at its fullest. */
const peakRss = (pid) => {
  try {
    const kb = /VmHWM:\s*(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined; // no /proc (not Linux)
  }
};

/** The kernel's TcpExt counters of listen queues (this network namespace, every socket). */
const listenCounters = () => {
  try {
    const lines = readFileSync("/proc/net/netstat", "utf8").split("\n");
    const at = lines.findIndex((line) => line.startsWith("TcpExt:"));
    const names = lines[at].split(/\s+/);
    const values = lines[at + 1].split(/\s+/).map(Number);
    const of = (name) => values[names.indexOf(name)];
    return { overflows: of("ListenOverflows"), drops: of("ListenDrops"), cookies: of("SyncookiesSent") };
  } catch {
    return undefined;
  }
};

/** autocannon against `port`; `setupClient` sees each connection's client. */
const shoot = (port, connections, seconds, setupClient) =>
  autocannon({
    url: `http://127.0.0.1:${port}/`,
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: BODY,
    connections,
    duration: seconds,
    timeout: TIMEOUT_SECONDS,
    verifyBody: (body) => body.includes('"result":3'),
    ...(setupClient === undefined ? {} : { setupClient }),
  });

/** A run's answers, checked: a mismatch or an error in a throughput run is a broken server. */
const checked = (id, result) => {
  if (result.mismatches > 0 || result.errors > 0 || result.non2xx > 0) {
    throw new Error(
      `${id}: ${result.mismatches} bad bodies, ${result.errors} errors (${result.timeouts} timeouts), ${result.non2xx} non-2xx`,
    );
  }
  return result;
};

// 1. Throughput.
progress(
  `throughput: ${RUN.length} servers, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each (${Math.round(
    (RUN.length * (ROUNDS * SECONDS + WARM_UP_SECONDS)) / 60,
  )} min)`,
);
const samples = Object.fromEntries(RUN.map(({ id }) => [id, []]));
if (ROUNDS > 0) {
  const started = [];
  for (const server of RUN) started.push({ ...server, ...(await start(server)) });
  for (const server of started) checked(server.id, await shoot(server.port, CONNECTIONS, WARM_UP_SECONDS));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < started.length; i++) {
      const server = started[(round + i) % started.length];
      const result = checked(server.id, await shoot(server.port, CONNECTIONS, SECONDS));
      const rps = result["2xx"] / result.duration;
      samples[server.id].push({ rps, p99: result.latency.p99 });
      progress(`round ${round + 1}/${ROUNDS} ${server.id}: ${thousands(rps)} req/s, p99 ${result.latency.p99} ms`);
    }
  }
  await Promise.all(started.map(({ child }) => stop(child)));
}
const figures = Object.fromEntries(
  RUN.filter(({ id }) => samples[id].length > 0).map(({ id }) => {
    const rps = samples[id].map((s) => s.rps);
    const p99 = median(samples[id].map((s) => s.p99));
    return [id, { rps: median(rps), low: Math.min(...rps), high: Math.max(...rps), p99 }];
  }),
);

// 2. Load held.
/**
 * 1,000 connections for LOAD_SECONDS against a fresh server: autocannon's counts, the server's own,
 * its peak RSS, the listen-queue overflows over the run, and each connection's first answer.
 */
const hold = async ({ kind, runtime, control = false }) => {
  const server = { kind, runtime, id: `${runtime} ${kind}` };
  const { child, port } = await start(server, ["--count"]);
  // The listening socket's accept queue, each second: `ss` shows its length as Recv-Q.
  const queue = [];
  const sampling = setInterval(() => {
    execFile("ss", ["-ltnH", `sport = :${port}`], (error, out) => {
      const recvQ = error === null ? Number(out.trim().split(/\s+/)[1]) : NaN;
      if (Number.isFinite(recvQ)) queue.push(recvQ);
    });
  }, 1_000);
  const clients = [];
  let began = 0;
  const timeouts = [];
  const setupClient = (client) => {
    const seen = { firstAnswer: undefined, answers: 0 };
    clients.push(seen);
    client.on("response", () => {
      if (seen.firstAnswer === undefined) seen.firstAnswer = performance.now() - began;
      seen.answers += 1;
    });
    client.on("timeout", () => timeouts.push({ at: performance.now() - began, answeredBefore: seen.answers }));
  };
  const before = listenCounters();
  began = performance.now();
  const result = await shoot(port, LOAD_CONNECTIONS, LOAD_SECONDS, setupClient);
  clearInterval(sampling);
  const after = listenCounters();
  const own = peakRss(child.pid);
  const counted = JSON.parse((await stop(child)).trim().split("\n").at(-1) ?? "{}");
  // A cluster's primary sums its workers' and its own.
  const rss = counted.peakRss ?? own;
  const answered = result["2xx"] + result.non2xx;
  const firsts = clients.map((c) => c.firstAnswer);
  const row = {
    id: server.id,
    kind,
    runtime,
    control,
    queue,
    sent: result.requests.sent,
    answered,
    ok: result["2xx"],
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    timeouts: result.timeouts,
    otherErrors: result.errors - result.timeouts,
    inFlight: result.requests.sent - answered - result.timeouts,
    rss,
    server: counted,
    overflows: before === undefined || after === undefined ? undefined : after.overflows - before.overflows,
    cookies: before === undefined || after === undefined ? undefined : after.cookies - before.cookies,
    lateFirst: firsts.filter((ms) => ms !== undefined && ms > LATE_FIRST_ANSWER_MS).length,
    neverAnswered: firsts.filter((ms) => ms === undefined).length,
    slowestFirst: Math.max(...firsts.filter((ms) => ms !== undefined)),
    timeoutsOnFirst: timeouts.filter((t) => t.answeredBefore === 0).length,
    timeoutTimes: timeouts.map((t) => t.at / 1000),
  };
  progress(
    `load ${server.id}: ${thousands(row.sent)} sent, ${thousands(answered)} answered, ${row.timeouts} timeouts (${row.timeoutsOnFirst} of them a connection's first request), ${row.otherErrors} other errors, ${row.overflows ?? "?"} listen-queue overflows, server ${JSON.stringify(counted)}, peak RSS ${Math.round((rss ?? 0) / 2 ** 20)} MB`,
  );
  return row;
};
const held = [];
if (LOAD_SECONDS > 0) {
  progress(
    `load held: ${LOAD_CONNECTIONS} connections for ${LOAD_SECONDS} s against ${LOAD_RUN.map((s) => `${s.kind} (${s.runtime})`).join(", ")}`,
  );
  for (const server of LOAD_RUN) held.push(await hold(server));
}

// The page.
const rpsOf = (id) => figures[id]?.rps;
const times = (x) => `${x.toFixed(2)}x`;
const bare = rpsOf("node bare");
const throughputTable = [
  "| server | runtime | req/s (median) | req/s (rounds' range) | p99 latency (ms) | vs the bare handler |",
  "| --- | --- | ---: | ---: | ---: | ---: |",
  ...SERVERS.map(({ id, runtime, label }) => {
    const f = figures[id];
    if (f === undefined)
      return `| ${label} | ${runtime} (${ABSENT.includes(runtime) ? "not found: skipped" : "not run"}) | | | | |`;
    return `| ${label} | ${runtime} ${VERSIONS[runtime]} | ${thousands(f.rps)} | ${thousands(f.low)}-${thousands(f.high)} | ${f.p99} | ${runtime === "node" ? times(bare / f.rps) : ""} |`;
  }),
].join("\n");

/** The issue's targets, each with the figures it is judged on and whether it is met. */
const targets = [];
for (const [id, name] of ROUNDS === 0
  ? []
  : [
      ["node nodeHandler", "`nodeHandler`"],
      ["node serve", "the development server"],
    ]) {
  for (const [peer, peerName] of [
    ["node jayson", "jayson"],
    ["node json-rpc-2.0", "json-rpc-2.0"],
  ]) {
    targets.push({
      target: `${name} at least as fast as ${peerName}`,
      figures: `${thousands(rpsOf(id))} vs ${thousands(rpsOf(peer))} req/s (${times(rpsOf(id) / rpsOf(peer))})`,
      met: rpsOf(id) >= rpsOf(peer),
    });
  }
  targets.push({
    target: `${name} within 1.1x of the bare handler`,
    figures: `the bare handler's time per request ${times(bare / rpsOf(id))} of its own (${thousands(bare)} vs ${thousands(rpsOf(id))} req/s)`,
    met: bare / rpsOf(id) <= 1.1,
  });
}
if (ROUNDS > 0)
  targets.push({
    target:
      "`fetchHandler` on Node within 1.1x of `answerHttp` with the glue it replaces (both under @hono/node-server)",
    figures: `${times(rpsOf("node answerHttp-fetch-node") / rpsOf("node fetchHandler-node"))} (${thousands(rpsOf("node answerHttp-fetch-node"))} vs ${thousands(rpsOf("node fetchHandler-node"))} req/s)`,
    met: rpsOf("node answerHttp-fetch-node") / rpsOf("node fetchHandler-node") <= 1.1,
  });
/** How the targets name each loaded server of ours. */
const LOAD_NAMES = {
  serve: "the development server",
  "serve-cluster": "the development server in two `node:cluster` workers",
  nodeHandler: "`nodeHandler`",
  "nodeHandler-cluster": "`nodeHandler` in two `node:cluster` workers (examples/integrations/cluster.mjs)",
};
for (const row of held.filter((r) => r.kind !== "jayson" && !r.control)) {
  targets.push({
    target: `under ${thousands(LOAD_CONNECTIONS)} connections, ${LOAD_NAMES[row.kind] ?? row.kind} answers every request`,
    figures: `${row.timeouts} timeouts, ${row.otherErrors} other errors, ${row.non2xx} non-2xx, ${row.mismatches} bad bodies`,
    met: row.timeouts === 0 && row.otherErrors === 0 && row.non2xx === 0 && row.mismatches === 0,
  });
}
const targetTable = [
  "| the issue's target | figures | met |",
  "| --- | --- | --- |",
  ...targets.map((t) => `| ${t.target} | ${t.figures} | ${t.met ? "met" : "**missed**"} |`),
].join("\n");

const mb = (bytes) => (bytes === undefined ? "?" : `${Math.round(bytes / 2 ** 20)} MB`);
const everyAnswered = (r) => r.timeouts === 0 && r.otherErrors === 0 && r.non2xx === 0 && r.mismatches === 0;
const nodeOf = (r) => `${r.control ? "control: " : ""}Node ${VERSIONS[r.runtime]} (libuv ${libuvOf(r.runtime)})`;
const loadTable = [
  "| server | on | sent | answered (2xx) | timeouts | other errors, non-2xx, bad bodies | in flight at the stop | every request answered | peak RSS |",
  "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
  ...held.map(
    (r) =>
      `| ${r.kind} | ${nodeOf(r)} | ${thousands(r.sent)} | ${thousands(r.ok)} | ${r.timeouts} | ${r.otherErrors}, ${r.non2xx}, ${r.mismatches} | ${r.inFlight} | ${everyAnswered(r) ? "yes" : "**no**"} | ${mb(r.rss)} |`,
  ),
].join("\n");
const queueText = (q) => (q.length === 0 ? "?" : `${q[0]}, ${Math.max(...q)}, ${q.at(-1)}`);
const whyTable = [
  "| server | on | connections the server accepted | accept queue at 1 s, its longest, at the end | connections first answered after 1 s | connections never answered | timeouts on a connection's first request | listen-queue overflows |",
  "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...held.map(
    (r) =>
      `| ${r.kind} | ${nodeOf(r)} | ${thousands(r.server.connections ?? 0)} | ${queueText(r.queue)} | ${r.lateFirst} | ${r.neverAnswered} | ${r.timeoutsOnFirst} of ${r.timeouts} | ${r.overflows ?? "?"} |`,
  ),
].join("\n");

/** What the load run's figures say of the cause, in words: each claim only when its figures hold it. */
const firstOnly = held.every((r) => r.timeoutsOnFirst === r.timeouts);
const allFinished = held.every((r) => r.server.requests === r.server.finished);
const control = held.find((r) => r.control);
const evidenceText = [
  held.every((r) => r.timeouts === 0)
    ? `no request timed out (${held.map((r) => `${r.kind}${r.control ? " on Node 18" : ""}: ${r.neverAnswered} connections never answered`).join(", ")});`
    : firstOnly
      ? "every timeout was a connection's first request, a connection the server had not yet accepted;"
      : "some timeouts were not a connection's first request (see the table): something else held requests too;",
  allFinished
    ? "every request a server read, it answered (its count of requests read equals its answers finished);"
    : `a server left requests it had read unanswered (${held
        .filter((r) => r.server.requests !== r.server.finished)
        .map((r) => `${r.kind}: ${r.server.requests} read, ${r.server.finished} finished`)
        .join("; ")});`,
  control === undefined
    ? "the control on Node 18 was not run."
    : `the same development server on Node 18 (libuv ${libuvOf(control.runtime)}) accepted ${thousands(control.server.connections ?? 0)} connections, its accept queue ${control.queue[0] ?? "?"} long at 1 s, and left ${control.timeouts} requests unanswered.`,
].join(" ");
const verdictText =
  firstOnly && allFinished
    ? "So it is not the request handler's doing (it answers every request it reads), nor autocannon's: it is how fast a busy Node process accepts connections (since libuv 1.45, in Node 20, one per event-loop turn, where 1.44 took every one waiting: [libuv/libuv#3696](https://github.com/libuv/libuv/pull/3696)), and the servers that answer fastest accept fastest (in the issue's runs jayson answered every request; whether it does here depends on the machine's load)."
    : "So not every unanswered request here is explained by the accept queue: see the figures above.";

/** What the rows of servers under `node:cluster` say, in words. */
const clusterRows = held.filter((r) => r.kind.endsWith("-cluster"));
const clusterText =
  clusterRows.length === 0
    ? ""
    : ` The rows marked \`-cluster\` measure that last way on Node ${VERSIONS.node}: the same server in two \`node:cluster\` workers, whose primary process does nothing but accept connections and hand them on (Node's round-robin; examples/integrations/cluster.mjs's deployment): ${clusterRows
        .map(
          (r) =>
            `${r.kind} accepted ${thousands(r.server.connections ?? 0)} connections, its accept queue ${queueText(r.queue)} (at 1 s, longest, at the end), ${r.timeouts} timeouts${everyAnswered(r) ? ", every request answered" : ""}`,
        )
        .join("; ")}, at the cost of three processes' memory.`;

/** What the load run's timeouts were, in words, per server that had any. */
const timeoutText = held
  .filter((r) => r.timeouts > 0)
  .map((r) => {
    const at = r.timeoutTimes;
    return `${r.kind} on ${nodeOf(r)}: ${r.timeouts} timeouts, at ${Math.min(...at).toFixed(1)}-${Math.max(...at).toFixed(1)} s into the run, ${r.timeoutsOnFirst} of them on a connection's first request.`;
  })
  .join(" ");

const load = `load average ${LOAD_AT_START.map((x) => x.toFixed(2)).join(", ")} at the start, ${loadavg()
  .map((x) => x.toFixed(2))
  .join(", ")} at the end`;
const commit = (() => {
  try {
    const sha = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "src"], { cwd: ROOT, encoding: "utf8" }).trim();
    return dirty === "" ? sha : `${sha} with src/ changed`;
  } catch {
    return "unknown";
  }
})();
const packageVersion = (name) => {
  try {
    return JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return "?";
  }
};
const somaxconn = existsSync("/proc/sys/net/core/somaxconn")
  ? readFileSync("/proc/sys/net/core/somaxconn", "utf8").trim()
  : "?";
const machine = `${cpus()[0]?.model ?? "?"}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()} (net.core.somaxconn ${somaxconn}); Node ${process.versions.node}, Bun ${VERSIONS.bun ?? "absent"}, Deno ${VERSIONS.deno ?? "absent"}; autocannon ${packageVersion("autocannon")}, jayson ${packageVersion("jayson")}, json-rpc-2.0 ${packageVersion("json-rpc-2.0")}, hono ${packageVersion("hono")}, @hono/node-server ${packageVersion("@hono/node-server")}`;

console.log(throughputTable);
console.log(targetTable);
if (held.length > 0) console.log(`${loadTable}\n${whyTable}`);
if (timeoutText !== "") console.log(timeoutText);
console.log(`${machine}; ${load}`);

if (WRITE) {
  const page = `# Benchmarks: JSON-RPC over HTTP (issue 34)

Written by \`node bench/http-servers.mjs --write\` (after \`npm run build\`; \`npm run bench -- --write\`
runs it with the others) on ${STARTED.toISOString().slice(0, 16).replace("T", " ")} UTC, from the build of
commit ${commit}${QUICK ? ", a quick run (--quick): not figures to quote" : ""}.

Machine: ${machine}. ${
    LOAD_AT_START[0] > cpus().length - 1
      ? "**This run shared the machine with other work** (the load average below): the figures are low and noisy, and the rounds' ranges show by how much. "
      : ""
  }${load[0].toUpperCase()}${load.slice(1)}: on ${cpus().length} cores, autocannon and the server share the CPU, and a load
above 1 at the start means other processes competed too; the servers run round after round in an
order that rotates, so ratios are steadier than figures.

Every server answers one JSON-RPC request, \`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}\`
POSTed with \`Content-Type: application/json\`, sent by autocannon from the bench's process over
keep-alive connections to 127.0.0.1; each server runs in a child process of its own
(\`bench/http-server.mjs\` says what each one is); every answer's body is checked.

## Throughput: ${CONNECTIONS} connections

The median of ${ROUNDS} rounds of ${SECONDS} s per server (after a warm-up second each), the rounds' range,
and the median of the rounds' p99 latencies. "vs the bare handler": the bare handler's requests per
second over the server's (its time per request, relative).

${throughputTable}

${ABSENT.length === 0 ? "" : `Not run: ${ABSENT.join(", ")} (not found under runtimes/node_modules; \`node scripts/test-runtimes.mjs --install\` installs them).`}

## The issue's targets

${targetTable}

${
  held.length === 0
    ? "## Load held\n\nNot run (`--load-seconds 0`)."
    : `## Load held: ${thousands(LOAD_CONNECTIONS)} connections for ${LOAD_SECONDS} s

Each server in a fresh process (which counts the connections it accepted, the requests it read and
the answers it finished), ${thousands(LOAD_CONNECTIONS)} connections opened at once by autocannon and held
for ${LOAD_SECONDS} s. A timeout is autocannon's: a request with no answer after ${TIMEOUT_SECONDS} s (autocannon then closes the
connection and opens another). "In flight at the stop": requests sent and neither answered nor timed
out when autocannon stopped (it closes every connection then, with its request in flight; the servers
finished every request they had read). Peak RSS: the server process's VmHWM (under \`node:cluster\`,
its three processes' together).
${ABSENT.includes("node18") ? "The control on Node 18 was not run: runtimes/node_modules has no node18." : "The last row is a control: the same development server on Node 18."}

${loadTable}

### Why requests went unanswered

${timeoutText === "" ? "No request went unanswered in this run." : timeoutText}

From Node 20 on (libuv 1.45 and later, [libuv/libuv#3696](https://github.com/libuv/libuv/pull/3696),
"unix: don't accept() connections in a loop"), a listening socket accepts **one connection per turn
of the event loop**, where Node 18's libuv accepted every queued one. Opened at once, the
connections fill the kernel's accept queue (Node's backlog: 511; more wait as SYNs the kernel
drops, retried by the client); the server accepts the first ones, and from then on each turn of its
loop reads, dispatches and answers a request on every connection it holds, and accepts one more.
The more connections it serves, and the more each request costs, the longer a turn and the slower
the queue drains: a connection still in the queue ${TIMEOUT_SECONDS} s later has its first request counted
as a timeout. In this run: ${evidenceText} The table: the accept queue is the listening socket's
(\`ss\`'s Recv-Q, sampled each second); overflows are the kernel's \`ListenOverflows\` over the
run (/proc/net/netstat: SYNs dropped with the queue full).

${whyTable}

${verdictText} What holds the load on Node 20 and later: a cheaper request (shorter turns),
connections that arrive over time rather than at once (a real client population, or a proxy's
pool), or more than one process accepting (\`node:cluster\`, or \`listen\`'s \`reusePort\` in
recent Node versions, [nodejs/node#55408](https://github.com/nodejs/node/pull/55408)).${clusterText}`
}
`;
  writeFileSync(PAGE, await formatted(PAGE, page));
  progress(`wrote ${PAGE}`);
}
