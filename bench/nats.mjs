// NATS: requests per second of a JSON-RPC `add` served over NATS by 1, 2 and 4 worker processes
// (rpcserver's serveNats), beside a bare NATS request-reply echo with as many workers (the limit
// of this engine) and beside the development server over HTTP; and the CPU time each request
// costs, rpcserver's against the echo's (issue 25: "rpcserver's own cost per request over NATS
// within 1.2x of the echo's").
//
//   npm run build && node bench/nats.mjs                full run (about a minute on 2 cores)
//   node bench/nats.mjs --quick                         smoke run
//   node bench/nats.mjs --write                         also write docs/benchmarks-nats.md
//
// A real nats-server on 127.0.0.1 and a free port (tests/fixtures/nats-server.cjs). The workers
// and the two client processes are children (bench/nats-worker.mjs, bench/nats-client.mjs). A
// round is each client sending PER_CLIENT requests, CONCURRENCY at a time, with a plain
// `nc.request` (over HTTP: a keep-alive POST), every answer's text checked; its rate is the
// requests of both clients over the time from the first start to the last end. Three kinds of
// NATS workers of one count run side by side on subjects of their own, their rounds interleaved
// (the order rotating), so that load from other processes falls on all three: the echo,
// `asyncDispatch` in a plain subscription (rpcserver's dispatch without the services framework),
// and `serveNats`. CPU per request: each worker's process.cpuUsage() over the round, summed over
// the workers, divided by the requests they answered; "all processes" adds the clients' own and
// nats-server's (from /proc). The figures are medians over the rounds; a ratio is the median of
// the ratios within the rounds of one rotation.
import { execFileSync, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { natsServerPath, startNatsServer } from "../tests/fixtures/nats-server.cjs";
import { formatted } from "./formatted.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..");
const WORKER = join(HERE, "nats-worker.mjs");
const CLIENT = join(HERE, "nats-client.mjs");
const QUICK = process.argv.includes("--quick");
const WRITE = process.argv.includes("--write");
const ROUNDS = QUICK ? 2 : 7;
const PER_CLIENT = QUICK ? 2_000 : 6_000;
const CLIENTS = 2;
const CONCURRENCY = 100;
const WORKER_COUNTS = [1, 2, 4];
/** The NATS workers: the kind bench/nats-worker.mjs runs, the client's target, the table's label. */
const KINDS = [
  { kind: "echo", target: "echo", label: "NATS, bare echo (the limit)" },
  { kind: "dispatch", target: "dispatch", label: "NATS, `asyncDispatch` in a plain subscription" },
  { kind: "rpcserver", target: "rpc", label: "NATS, rpcserver `serveNats`" },
];
const LOAD_AT_START = loadavg();
const STARTED = Date.now();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const progress = (text) => process.stderr.write(`nats bench: ${text}\n`);

/** A child process that speaks JSON lines: `next()` is its next line, `ask(line)` sends one and awaits the answer. */
const child = (args) => {
  const proc = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
  const lines = [];
  const waiting = [];
  createInterface({ input: proc.stdout }).on("line", (line) => {
    const value = JSON.parse(line);
    if (waiting.length > 0) waiting.shift().resolve(value);
    else lines.push(value);
  });
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  void exited.then((code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`${args.join(" ")} exited (${code})`));
  });
  const next = () =>
    lines.length > 0
      ? Promise.resolve(lines.shift())
      : new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  const ask = (line) => {
    proc.stdin.write(`${line}\n`);
    return next();
  };
  return { proc, next, ask, exited };
};

/** CPU time (user + system, µs) of a process by its pid, from /proc (Linux); undefined elsewhere. */
const cpuOfPid = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) / 100) * 1e6; // utime, stime: ticks of 10 ms
  } catch {
    return undefined;
  }
};

const server = await startNatsServer();
progress(`nats-server at ${server.url}`);
const clients = Array.from({ length: CLIENTS }, () => child([CLIENT, server.url]));
await Promise.all(clients.map((c) => c.next()));

const startWorkers = async (kind, count) => {
  const args = kind === "http" ? [WORKER, kind] : [WORKER, kind, server.url];
  const workers = Array.from({ length: count }, () => child(args));
  const ready = await Promise.all(workers.map((w) => w.next()));
  return { workers, port: ready[0].port };
};

const stopWorkers = (workers) => Promise.all(workers.map(async (w) => (await w.ask("stop"), await w.exited)));

let base = 0;
const failures = [];

/** One round against `workers`: its rate, the CPU per request of the workers and of all processes, each worker's share. */
const round = async (target, { workers, port }) => {
  const before = await Promise.all(workers.map((w) => w.ask("snap")));
  const serverBefore = target === "http" ? 0 : cpuOfPid(server.pid);
  const results = await Promise.all(
    clients.map((c) => {
      base += PER_CLIENT;
      return c.ask(JSON.stringify({ target, n: PER_CLIENT, concurrency: CONCURRENCY, base: base - PER_CLIENT, port }));
    }),
  );
  const serverAfter = target === "http" ? 0 : cpuOfPid(server.pid);
  const after = await Promise.all(workers.map((w) => w.ask("snap")));
  for (const r of results) if (r.ok !== PER_CLIENT) failures.push({ target, workers: workers.length, ...r });
  const answered = after.map((a, i) => a.answered - before[i].answered);
  const total = sum(answered);
  const workersCpu = sum(after.map((a, i) => a.cpuUs - before[i].cpuUs));
  const ms = Math.max(...results.map((r) => r.end)) - Math.min(...results.map((r) => r.start));
  return {
    rps: (CLIENTS * PER_CLIENT * 1000) / ms,
    cpuUs: workersCpu / total,
    allCpuUs:
      serverBefore === undefined
        ? undefined
        : (workersCpu + sum(results.map((r) => r.cpuUs)) + serverAfter - serverBefore) / total,
    leastShare: Math.min(...answered) / total,
  };
};

const summary = (label, workers, rounds) => ({
  label,
  workers,
  rps: median(rounds.map((r) => r.rps)),
  cpuUs: median(rounds.map((r) => r.cpuUs)),
  allCpuUs: rounds[0].allCpuUs === undefined ? undefined : median(rounds.map((r) => r.allCpuUs)),
  leastShare: Math.min(...rounds.map((r) => r.leastShare)),
});

/** The ratios of `a`'s rounds to `b`'s, each pair from one rotation. */
const pairs = (a, b, key) => a.map((r, i) => r[key] / b[i][key]);

const rows = [];
const ratios = [];
for (const count of WORKER_COUNTS) {
  progress(`${count} worker(s) of each kind: ${KINDS.map((k) => k.kind).join(", ")}`);
  const running = await Promise.all(KINDS.map((k) => startWorkers(k.kind, count)));
  for (const [i, k] of KINDS.entries()) await round(k.target, running[i]); // warm-up
  const rounds = KINDS.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < KINDS.length; j++) {
      const i = (j + r) % KINDS.length;
      rounds[i].push(await round(KINDS[i].target, running[i]));
    }
  }
  await Promise.all(running.map((w) => stopWorkers(w.workers)));
  rows.push(...KINDS.map((k, i) => summary(k.label, count, rounds[i])));
  const [echo, dispatch, rpc] = rounds;
  ratios.push({
    workers: count,
    cpus: pairs(rpc, echo, "cpuUs"),
    dispatchCpu: median(pairs(dispatch, echo, "cpuUs")),
    allCpu: rpc[0].allCpuUs === undefined ? undefined : median(pairs(rpc, echo, "allCpuUs")),
    rps: median(pairs(rpc, echo, "rps")),
  });
}

progress("the development server over HTTP");
const http = await startWorkers("http", 1);
await round("http", http); // warm-up
const httpRounds = [];
for (let r = 0; r < ROUNDS; r++) httpRounds.push(await round("http", http));
await stopWorkers(http.workers);
rows.push(summary("HTTP, development server `serve`", 1, httpRounds));

for (const c of clients) c.proc.stdin.end();
await Promise.all(clients.map((c) => c.exited));
await server.stop();

const LOAD_AT_END = loadavg();
const fmt = (x, digits = 0) =>
  x === undefined ? "-" : x.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const times = (x) => (x === undefined ? "-" : `${x.toFixed(2)}x`);
const table = [
  "| wire, server | worker processes | requests/s | worker CPU per request (µs) | all processes' CPU per request (µs) | least share of a worker |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (r) =>
      `| ${r.label} | ${r.workers} | ${fmt(r.rps)} | ${fmt(r.cpuUs, 1)} | ${fmt(r.allCpuUs, 1)} | ${r.workers === 1 ? "-" : `${(r.leastShare * 100).toFixed(0)}%`} |`,
  ),
].join("\n");
const ratioTable = [
  "| worker processes | worker CPU per request, `serveNats` / echo (each rotation) | median | `asyncDispatch` / echo | all processes, `serveNats` / echo | requests/s, `serveNats` / echo |",
  "| ---: | --- | ---: | ---: | ---: | ---: |",
  ...ratios.map(
    (r) =>
      `| ${r.workers} | ${r.cpus.map((x) => x.toFixed(2)).join(", ")} | ${times(median(r.cpus))} | ${times(r.dispatchCpu)} | ${times(r.allCpu)} | ${times(r.rps)} |`,
  ),
].join("\n");
const overall = median(ratios.flatMap((r) => r.cpus));
const load = `load average ${LOAD_AT_START.map((x) => x.toFixed(2)).join(", ")} at start, ${LOAD_AT_END.map((x) => x.toFixed(2)).join(", ")} at end`;
const seconds = ((Date.now() - STARTED) / 1000).toFixed(0);
console.log(table);
console.log();
console.log(ratioTable);
console.log();
console.log(
  `serveNats / echo, worker CPU per request, every rotation: ${overall.toFixed(2)}x (the issue's target: 1.2x)`,
);
console.log(`${load}; ${seconds} s`);
if (failures.length > 0) {
  console.error(`nats bench: answers missing or wrong: ${JSON.stringify(failures)}`);
  process.exitCode = 1;
}

/** The nats-server's version: "v2.9.10". */
function natsServerVersion() {
  try {
    return execFileSync(natsServerPath(), ["--version"], { encoding: "utf8" })
      .trim()
      .replace(/^nats-server: /, "");
  } catch {
    return "?";
  }
}

/** One reading of the cost ratio, `serveNats` / echo, at 1, 2 and 4 workers: "1.09x, 1.10x and 1.12x". */
function costs(ratios, of) {
  const each = ratios.map((r) => `${of(r).toFixed(2)}x`);
  return `${each.slice(0, -1).join(", ")} and ${each.at(-1)} at ${ratios.map((r) => r.workers).join(", ")} workers`;
}

/** Whether every count of workers is within 1.2x on a reading. */
function verdict(ratios, of) {
  return ratios.every((r) => of(r) <= 1.2) ? "within 1.2x at every count" : "over 1.2x at some count";
}

/** Markdown prose wrapped at 100 columns, as the hand-written pages are (prettier keeps line breaks). */
const wrap = (text, width = 100) => {
  const lines = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line].join("\n");
};

/**
 * What 1.2x of the echo leaves a JSON-RPC server, against what JSON alone costs: the `limit-async`
 * cell of the Async table that bench/bench.mjs wrote on the same page (JSON.parse, a Map lookup,
 * JSON.stringify, no library), when it is there.
 */
const budgetText = (page) => {
  const cpuOf = (kind) =>
    rows.find((r) => r.workers === 1 && r.label === KINDS.find((k) => k.kind === kind).label).cpuUs;
  const [echo, dispatch, served] = [cpuOf("echo"), cpuOf("dispatch"), cpuOf("rpcserver")];
  const limitNs = /## Async[\s\S]*?\| single request, positional params\s*\|\s*([\d,]+) \(1\.00x\)/.exec(page)?.[1];
  const micros = (x) => `${x.toFixed(1)} µs`;
  return [
    `With one worker, the echo costs ${micros(echo)} of worker CPU per request, \`asyncDispatch\` in the same`,
    `subscription ${micros(dispatch)} and \`serveNats\` ${micros(served)}: rpcserver adds ${micros(served - echo)}, of which`,
    `${micros(served - dispatch)} is the services framework's and \`serveNats\`'s own. Within 1.2x would leave a`,
    `JSON-RPC server ${micros(echo * 0.2)} per request to read the request, dispatch it and write the answer${
      limitNs === undefined
        ? "."
        : `, where the Async table's \`limit-async\` above (\`JSON.parse\`, a \`Map\` lookup and
          \`JSON.stringify\`, no library) takes ${micros(Number(limitNs.replace(/,/g, "")) / 1000)} for that alone.`
    }`,
    `Over the whole round trip (all processes' CPU), \`serveNats\` costs ${times(ratios[0].allCpu)} the echo's.`,
  ].join(" ");
};

if (WRITE && failures.length === 0) {
  const path = join(ROOT, "docs", "benchmarks-nats.md");
  // The Async table's `limit-async` row (JSON alone, no library) is read from the main page.
  const page = readFileSync(join(ROOT, "docs", "benchmarks.md"), "utf8");
  const cores = cpus().length;
  const section = [
    "# Benchmarks: JSON-RPC over NATS (issue 25)",
    "",
    wrap(
      `Written by \`node bench/nats.mjs --write\` (after \`npm run build\`; \`npm run bench -- --write\` runs
      it with the others). A JSON-RPC \`add(i, 1)\` over NATS, answered by 1, 2 and 4 worker processes of
      one queue group of each kind:`,
    ),
    "",
    "- a bare NATS echo, `nc.subscribe(subject, { queue, callback: (e, m) => m.respond(m.data) })`: no",
    "  JSON, no services framework, the limit of this engine;",
    "- `asyncDispatch(m.data, { add })` answered with `m.respond` in the same plain subscription:",
    "  rpcserver's dispatch without the services framework;",
    "- `serveNats` (`rpcserver/nats`): the services framework's endpoint, the dispatch, the",
    "  discover endpoint; what a user runs.",
    "",
    wrap(
      `Beside them, the development server over HTTP (\`serve\`, one process). ${CLIENTS} client processes,
      each sending ${PER_CLIENT.toLocaleString("en")} requests per round, ${CONCURRENCY} at a time, with a
      plain \`nc.request\` (over HTTP: a keep-alive POST), every answer's text checked. A real
      \`nats-server\` on 127.0.0.1; the clients, the server and the workers share this machine's
      ${cores} cores. Medians of ${ROUNDS} rounds; the three NATS kinds of one count run side by side,
      their rounds interleaved.`,
    ),
    "",
    table,
    "",
    wrap(
      `Worker CPU per request: the workers' \`process.cpuUsage()\` (user and system) over a round, divided
      by the requests they answered. It holds the NATS client's own work (reading and writing the
      protocol), the same for every kind, and the event loop's turns: with more workers each takes fewer
      messages per turn, and pays more per message. All processes' CPU adds the clients' own and
      nats-server's (from \`/proc\`, in ticks of 10 ms).`,
    ),
    "",
    ratioTable,
    "",
    wrap(
      `The issue's target, rpcserver's own cost per request over NATS within 1.2x of the echo's, read
      three ways. Per request of the round trip, the time (the inverse of requests/s): ${costs(ratios, (r) => 1 / r.rps)},
      and the CPU of every process: ${costs(ratios, (r) => r.allCpu)}, ${verdict(ratios, (r) => Math.max(1 / r.rps, r.allCpu))}.
      The workers' CPU alone, the strictest reading: \`serveNats\` over the echo, in every rotation, has
      the median **${overall.toFixed(2)}x**, ${overall <= 1.2 ? "within it" : "over it"}. ${budgetText(page)}`,
    ),
    "",
    wrap(
      `Node ${process.version}, nats-server ${natsServerVersion()}, ${load}: on ${cores} cores, a load above
      ${cores - 1} means other processes competed for the CPU, and the figures are noisy.`,
    ),
    "",
  ].join("\n");
  writeFileSync(path, await formatted(path, section));
  progress(`wrote ${path}`);
}
