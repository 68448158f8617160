// Summarises V8 .cpuprofile files: self time per function, heaviest first.
//
//   node --cpu-prof --cpu-prof-dir=.tmp/prof bench/bench.mjs --quick --only dispatch-single
//   node bench/profile-summary.mjs .tmp/prof/*.cpuprofile [--top 25] [--filter rpcserver]
//
// `--filter` keeps functions whose script URL contains the text (e.g. `dist/esm` for rpcserver's
// own code); percentages stay relative to all samples. "(program)", "(garbage collector)" and
// "(idle)" are V8's own buckets.
import { readFileSync } from "node:fs";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const value = argv[i + 1];
  argv.splice(i, 2);
  return value;
};
const top = Number(option("--top", "25"));
const filter = option("--filter", undefined);
const files = argv;
if (files.length === 0) {
  process.stderr.write("usage: node bench/profile-summary.mjs FILE.cpuprofile... [--top N] [--filter TEXT]\n");
  process.exit(2);
}

const selfMicros = new Map();
let totalMicros = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  // timeDeltas[i] is the time before samples[i]; attribute it to that sample's node.
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const delta = Math.max(0, profile.timeDeltas[i] ?? 0);
    totalMicros += delta;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.replace(/^file:\/\/.*?\/(node_modules|dist|bench)\//, "$1/")}:${lineNumber + 1}` : "";
    const key = `${functionName || "(anonymous)"}\t${where}`;
    selfMicros.set(key, (selfMicros.get(key) ?? 0) + delta);
  }
}

const rows = [...selfMicros.entries()]
  .filter(([key]) => filter === undefined || key.includes(filter))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top);
process.stdout.write(`total ${(totalMicros / 1000).toFixed(0)} ms sampled\n`);
process.stdout.write("  self%   self ms  function  (script:line)\n");
for (const [key, micros] of rows) {
  const [name, where] = key.split("\t");
  const pct = ((100 * micros) / totalMicros).toFixed(1).padStart(6);
  process.stdout.write(`${pct}% ${(micros / 1000).toFixed(1).padStart(8)}  ${name}  ${where}\n`);
}
