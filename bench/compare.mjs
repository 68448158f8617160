// Paired A/B of two builds of rpcserver on one scenario: which is faster, with the noise of other
// processes cancelled as far as it can be.
//
//   git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci && npm run build)
//   npm run build && node bench/compare.mjs /tmp/before/dist dist notification
//
// Scenarios: single, notification, throws, codec (io-ts params and result codecs), each sync or, prefixed "async-", async
// (async-single, async-notification, async-throws), and each optionally suffixed "-staged" (four
// stages that pass every call), "-timeout" (a `timeout(1000)` stage, async only, a plain-object
// context to hand the signal in, a method that ignores it), "-signal" (the same, the method adding
// an abort listener to its signal) or "-logged" (the default logger on, writing to /dev/null: an async
// loop awaits each call, so its writes are timed; a sync loop's are timed once the queue is full).
// Client scenarios (issue 14): "client-local" runs `client(contract, local(methods)).add(1, 2)`
// and "client-local-batch" a `batch` of 100 such calls (per call), both against a contract's sync
// handler; "client-local-floor" is `asyncDispatch` of the same request alone, the reference the
// target compares with (<= 1.5x).
// Prints "B/A" < 1 when B (the second) is faster.
//
// Each measurement runs in a fresh process, the two builds alternating, and the figure is the
// median over pairs of the ratio within a pair. Both builds in one process do not compare fairly:
// they share fp-ts and io-ts, and an identical copy loaded second measured 2-13% slower.
import { spawnSync } from "node:child_process";
import { Console } from "node:console";
import { openSync, writeSync } from "node:fs";
import { Writable } from "node:stream";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const SELF = fileURLToPath(import.meta.url);
const PAIRS = 15;

const measureClient = async (dist, scenario) => {
  const lib = await import(pathToFileURL(join(resolve(dist), "esm", "index.js")).href);
  const rpcClient = await import(pathToFileURL(join(resolve(dist), "esm", "client.js")).href);
  const t = await import("io-ts");
  const api = lib.contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
  const methods = lib.implement(api, { add: (a, b) => ({ _tag: "Right", right: a + b }) });
  const c = rpcClient.client(api, rpcClient.local(methods));
  const xs = Array.from({ length: 100 }, (_, i) => i + 1);
  const text = '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}';
  const f = {
    "client-local": () => c.add(1, 2)(),
    "client-local-batch": () => rpcClient.batch(xs.map((i) => c.add(i, i)))(),
    "client-local-floor": () => lib.asyncDispatch(text, methods),
  }[scenario];
  const per = scenario === "client-local-batch" ? 100 : 1;
  const n = 3000 / per;
  const round = async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await f();
    return Number(process.hrtime.bigint() - t0) / n / per;
  };
  for (let i = 0; i < 40; i++) await round();
  const samples = [];
  for (let i = 0; i < 30; i++) samples.push(await round());
  return { ns: median(samples), answer: JSON.stringify(await f()) };
};

const measure = async (dist, scenario) => {
  if (scenario.startsWith("client-")) return measureClient(dist, scenario);
  const lib = await import(pathToFileURL(join(resolve(dist), "esm", "index.js")).href);
  const logged = scenario.endsWith("-logged");
  const staged = scenario.endsWith("-staged");
  if (logged) {
    const devNull = openSync("/dev/null", "w");
    const sink = new Writable({ write: (chunk, _encoding, done) => done(void writeSync(devNull, chunk)) });
    console.error = new Console({ stdout: sink, stderr: sink }).error;
  } else lib.setLogger({ error() {}, warn() {}, info() {} });
  const signalled = scenario.endsWith("-signal");
  const timed = scenario.endsWith("-timeout") || signalled;
  const options = staged
    ? { stages: Array.from({ length: 4 }, () => (call) => ({ _tag: "Right", right: call })) }
    : timed
      ? { context: {}, stages: [lib.timeout(1000)] }
      : undefined;
  const isAsync = scenario.startsWith("async-");
  const texts = {
    single: '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}',
    notification: '{"jsonrpc":"2.0","method":"add","params":[1,2]}',
    throws: '{"jsonrpc":"2.0","method":"fail","params":[],"id":1}',
    codec: '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}',
  };
  const text = texts[scenario.replace("async-", "").replace(/-(staged|logged|timeout|signal)$/, "")];
  if (text === undefined) throw new Error(`unknown scenario ${scenario}`);
  const boom = () => {
    throw new Error("boom");
  };
  const methods = signalled
    ? { add: async (ctx, a, b) => (ctx.signal.addEventListener("abort", () => undefined), lib.Success(a + b)) }
    : timed
      ? { add: async (_ctx, a, b) => lib.Success(a + b) }
      : isAsync
        ? { add: async (a, b) => lib.Success(a + b), fail: async () => boom() }
        : { add: (a, b) => lib.Success(a + b), fail: boom };
  if (scenario.includes("codec")) {
    const t = await import("io-ts");
    const codecs = { params: t.tuple([t.number, t.number]), result: t.number };
    methods.add = lib.withCodecs(codecs, isAsync ? async (a, b) => lib.Success(a + b) : (a, b) => lib.Success(a + b));
  }
  const f = isAsync ? (t) => lib.asyncDispatch(t, methods, options) : (t) => lib.dispatch(t, methods, options);
  const n = scenario.includes("throws") ? 300 : 3000;
  const round = async () => {
    const t0 = process.hrtime.bigint();
    if (isAsync) for (let i = 0; i < n; i++) await f(text);
    else for (let i = 0; i < n; i++) f(text);
    return Number(process.hrtime.bigint() - t0) / n;
  };
  for (let i = 0; i < 40; i++) await round();
  const samples = [];
  for (let i = 0; i < 30; i++) samples.push(await round());
  return { ns: median(samples), answer: await f(text) };
};

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const [first, second, third, fourth] = process.argv.slice(2);
if (first === "--child") {
  process.stdout.write(JSON.stringify(await measure(second, third)));
} else {
  const [distA, distB, scenario] = [first, second, third ?? "single"];
  if (distA === undefined || distB === undefined || fourth !== undefined) {
    process.stderr.write("usage: node bench/compare.mjs <dist A> <dist B> [scenario]\n");
    process.exit(2);
  }
  const child = (dist) => {
    const run = spawnSync(process.execPath, [SELF, "--child", dist, scenario], { encoding: "utf8" });
    if (run.status !== 0) throw new Error(run.stderr);
    return JSON.parse(run.stdout);
  };
  const a = [];
  const b = [];
  for (let i = 0; i < PAIRS; i++) {
    // The order within a pair alternates too.
    const [x, y] = i % 2 === 0 ? [child(distA), child(distB)] : [child(distB), child(distA)].reverse();
    if (x.answer !== y.answer) throw new Error("the two builds answer differently");
    a.push(x.ns);
    b.push(y.ns);
  }
  const ratio = median(b.map((ns, i) => ns / a[i]));
  console.log(`${scenario}: A ${Math.round(median(a))} ns, B ${Math.round(median(b))} ns, B/A ${ratio.toFixed(3)}`);
}
