// The HTTP servers' CPU time per request (issue 34, "Speed"): what bench/http-servers.mjs measures in
// requests per second, measured where a shared machine does not blur it. Each server of
// bench/http-server.mjs runs in its own process; autocannon (in this process) sends it a fixed number
// of `add` requests over 32 keep-alive connections, and the server process's CPU time (user and
// system, all its threads: /proc/<pid>/task/*/schedstat) over them, divided by their number, is its cost per
// request. Every server is warmed up at length once, then runs once per round, in an order that
// rotates from round to round, after a short warm-up; the median of the rounds is printed, with the
// rounds' req/s (noisy when other work runs) and each server's paired ratio to jayson (else bare).
//
//   npm run build && node bench/http-cpu.mjs                    bare, answerHttp, nodeHandler, serve
//   node bench/http-cpu.mjs --rounds 5 --requests 20000 bare nodeHandler
//   node bench/http-cpu.mjs --against ../before nodeHandler serve
//
// `--against DIR`: a checkout of another commit, built (`git archive <commit> | tar -x -C DIR`, its
// node_modules linked, `npm run build`): each server also runs from DIR's bench/http-server.mjs and
// build, named `DIR:kind`, in the same rounds (an A/B of a change).
//
// Linux only (/proc). A thread that ends during a measure takes its time with it (Node's threads live
// as long as the process).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { cpuNanos, httpChild, median } from "./children.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = join(HERE, "http-server.mjs");
const args = process.argv.slice(2);
/** `--name N` as a number, else `fallback`; the flag and its value are taken off `args`. */
const numberFlag = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(args[at + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`http-cpu: --${name} wants a number`);
  args.splice(at, 2);
  return value;
};
const ROUNDS = numberFlag("rounds", 5);
const REQUESTS = numberFlag("requests", 20_000);
// Each server is first warmed up at length (`--warm-up`, once: V8 tiers a server's code up over its
// first tens of thousands of requests; with 5,000, every server's first round measured 1.3-1.9x its
// last), then with 5,000 requests before each measure (its caches, after the other servers ran).
const WARM_UP = numberFlag("warm-up", 50_000);
const ROUND_WARM_UP = 5_000;
const CONNECTIONS = 32;
const againstAt = args.indexOf("--against");
const AGAINST = againstAt === -1 ? undefined : args.splice(againstAt, 2)[1];
const NAMED = args.length > 0 ? args : ["bare", "answerHttp", "nodeHandler", "serve"];
/** Each server: its name, and the bench/http-server.mjs that runs it. */
const SERVERS = NAMED.flatMap((kind) => [
  { name: kind, kind, script: SERVER },
  ...(AGAINST === undefined
    ? []
    : [{ name: `${AGAINST}:${kind}`, kind, script: join(AGAINST, "bench", "http-server.mjs") }]),
]);
const BODY = JSON.stringify({ jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 });

/**
 * `amount` requests to `port`; resolves to the seconds from the start to the last answer
 * (autocannon's own duration, with `amount`, is counted in whole seconds).
 */
const shoot = (port, amount) =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let last = started;
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}/`,
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: BODY,
        connections: CONNECTIONS,
        amount,
        verifyBody: (body) => body.includes('"result":3'),
      },
      (error, result) => {
        if (error) return reject(error);
        if (result.errors > 0 || result.mismatches > 0 || result.non2xx > 0) {
          return reject(
            new Error(`${result.errors} errors, ${result.mismatches} mismatches, ${result.non2xx} non-2xx`),
          );
        }
        resolve(Number(last - started) / 1e9);
      },
    );
    instance.on("response", () => (last = process.hrtime.bigint()));
  });

const servers = [];
for (const { name, kind, script } of SERVERS)
  servers.push({ name, ...(await httpChild(process.execPath, [script, kind])) });
process.once("exit", () => servers.forEach(({ child }) => child.kill()));
for (const { port } of servers) await shoot(port, WARM_UP);
const figures = new Map(SERVERS.map(({ name }) => [name, { cpu: [], rps: [] }]));
for (let round = 0; round < ROUNDS; round++) {
  const order = servers.map((_, i) => servers[(i + round) % servers.length]);
  for (const { name, child, port } of order) {
    await shoot(port, ROUND_WARM_UP);
    const before = cpuNanos(child.pid) / 1e3;
    const seconds = await shoot(port, REQUESTS);
    const cpu = (cpuNanos(child.pid) / 1e3 - before) / REQUESTS;
    figures.get(name).cpu.push(cpu);
    figures.get(name).rps.push(REQUESTS / seconds);
    process.stderr.write(
      `round ${round + 1} ${name}: ${cpu.toFixed(1)} µs/req, ${Math.round(REQUESTS / seconds)} req/s\n`,
    );
  }
}
// Ratios are paired: the median over rounds of the two servers' ratio within a round, so that load
// from other processes that slows a whole round cancels out (rounds' own figures vary by 20% here).
const reference = ["jayson", "bare"].find((name) => figures.has(name));
const paired = (cpu) => median(cpu.map((each, round) => each / figures.get(reference).cpu[round]));
console.log(`${ROUNDS} rounds of ${REQUESTS} requests (32 connections), medians:`);
for (const [name, { cpu, rps }] of figures) {
  const ratio = reference === undefined ? "" : `  ${paired(cpu).toFixed(2)}x ${reference} (paired)`;
  console.log(
    `${name.padEnd(36)} ${median(cpu).toFixed(1).padStart(6)} µs/req  (${cpu.map((x) => x.toFixed(0)).join(", ")})` +
      `  ${String(Math.round(median(rps))).padStart(6)} req/s${ratio}`,
  );
}
process.exit(0);
