// Paired A/B of two builds of rpcserver in one process: which is faster on one scenario, with the
// noise of other processes cancelled as far as it can be (rounds alternate the two, and the figure
// is the median over rounds of the ratio within a round).
//
//   git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci && npm run build)
//   npm run build && node bench/compare.mjs /tmp/before/dist dist notification
//
// Scenarios: single, notification, throws, each sync or, prefixed "async-", async
// (async-single, async-notification, async-throws). Prints "B/A" < 1 when B (the second) is faster.
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [distA, distB, scenario = "single"] = process.argv.slice(2);
if (distA === undefined || distB === undefined) {
  process.stderr.write("usage: node bench/compare.mjs <dist A> <dist B> [scenario]\n");
  process.exit(2);
}
const load = (dist) => import(pathToFileURL(join(resolve(dist), "esm", "index.js")).href);
const A = await load(distA);
const B = await load(distB);
const silent = { error() {}, warn() {}, info() {} };
A.setLogger(silent);
B.setLogger(silent);

const isAsync = scenario.startsWith("async-");
const texts = {
  single: '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}',
  notification: '{"jsonrpc":"2.0","method":"add","params":[1,2]}',
  throws: '{"jsonrpc":"2.0","method":"fail","params":[],"id":1}',
};
const text = texts[scenario.replace("async-", "")];
if (text === undefined) throw new Error(`unknown scenario ${scenario}`);
const boom = () => {
  throw new Error("boom");
};
const make = (lib) => {
  const methods = isAsync
    ? { add: async (a, b) => lib.Success(a + b), fail: async () => boom() }
    : { add: (a, b) => lib.Success(a + b), fail: boom };
  return isAsync ? (t) => lib.asyncDispatch(t, methods) : (t) => lib.dispatch(t, methods);
};
const impls = { A: make(A), B: make(B) };
if ((await impls.A(text)) !== (await impls.B(text))) throw new Error("the two builds answer differently");

const iterations = scenario.endsWith("throws") ? 300 : 3000;
const round = async (f) => {
  const t0 = process.hrtime.bigint();
  if (isAsync) for (let i = 0; i < iterations; i++) await f(text);
  else for (let i = 0; i < iterations; i++) f(text);
  return Number(process.hrtime.bigint() - t0) / iterations;
};
for (const f of Object.values(impls)) for (let i = 0; i < 20; i++) await round(f);
const samples = { A: [], B: [] };
for (let r = 0; r < 50; r++) {
  for (const name of r % 2 === 0 ? ["A", "B"] : ["B", "A"]) samples[name].push(await round(impls[name]));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const ratio = median(samples.B.map((b, i) => b / samples.A[i]));
console.log(
  `${scenario}: A ${Math.round(median(samples.A))} ns, B ${Math.round(median(samples.B))} ns, B/A ${ratio.toFixed(3)}`,
);
