// Import time of two builds of rpcserver, A and B: each import in a fresh process, the two builds
// alternating, with how many of the build's own modules that import loads.
//
//   git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci && npm run build)
//   npm run build && node bench/import-time.mjs /tmp/before/dist dist
//   node bench/import-time.mjs dist                      one build only
//   --runs N          processes per build and case (default 21)
//   --entries a,b     entries to import (default index,client,connection; "index" is `rpcserver`)
//   --formats esm,cjs (default both)
//
// A case is `node -e "import('<dist>/esm/<entry>.js')"` (ESM) or `node -e "require('<dist>/cjs/<entry>.cjs')"`
// (CommonJS), timed from spawn to exit, so Node's own start is in every figure: `node -e 0` is
// measured alongside as the floor. Runs alternate A, B, B, A, ... so that a burst of load from
// other processes falls on both. The figures are the min and the median of the wall times, the
// median CPU time (user + system, as the process reports it on exit: less moved by other
// processes than the wall time), and "B/A": the median over pairs of the ratio within a pair (< 1
// when B imports faster).
//
// "modules" counts the build's own files that importing the entry loads: for ESM, those its static
// `import`/`export ... from` reach, followed from file to file; for CommonJS, those in `require.cache`
// once it is required. A file reached only by a dynamic `import()` (the development server, loaded
// when `serve` is called) is not counted.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = args[at + 1];
  args.splice(at, 2);
  return value;
};
const RUNS = Number(option("runs", "21"));
const ENTRIES = option("entries", "index,client,connection").split(",");
const FORMATS = option("formats", "esm,cjs").split(",");
const dists = args.map((dir) => resolve(dir));
if (dists.length === 0 || dists.length > 2 || !(RUNS > 0)) {
  console.error("usage: node bench/import-time.mjs [<dist A>] <dist B> [--runs N] [--entries a,b] [--formats esm,cjs]");
  process.exit(2);
}
for (const dist of dists) {
  if (!existsSync(join(dist, "esm", "index.js"))) {
    console.error(`import-time: ${dist}/esm/index.js is missing (build first)`);
    process.exit(2);
  }
}

const file = (dist, format, entry) =>
  format === "esm" ? join(dist, "esm", `${entry}.js`) : join(dist, "cjs", `${entry}.cjs`);
const program = (dist, format, entry) =>
  format === "esm"
    ? `import(${JSON.stringify(pathToFileURL(file(dist, format, entry)).href)})`
    : `require(${JSON.stringify(file(dist, format, entry))})`;

/** The build's own files that importing `entry` loads (see the top of this file). */
const modules = (dist, format, entry) => {
  const path = file(dist, format, entry);
  if (format === "cjs") {
    const code = `require(${JSON.stringify(path)}); console.log(Object.keys(require.cache).filter((f) => f.startsWith(${JSON.stringify(dist + sep)})).length)`;
    return Number(spawnSync(process.execPath, ["-e", code], { encoding: "utf8" }).stdout.trim());
  }
  const seen = new Set();
  const visit = (at) => {
    if (seen.has(at)) return;
    seen.add(at);
    const specifiers = [
      ...readFileSync(at, "utf8").matchAll(/(?:^|[;}\s])(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']/g),
      ...readFileSync(at, "utf8").matchAll(/^\s*import\s*["']([^"']+)["']/gm),
    ].map((match) => match[1]);
    for (const specifier of specifiers) if (specifier.startsWith(".")) visit(join(dirname(at), specifier));
  };
  visit(path);
  return seen.size;
};

/** One fresh process: its wall time from spawn to exit, and the CPU time (user + system) it used. */
const spawnMs = (code) => {
  const report = 'process.on("exit", () => process.stderr.write("\\n" + JSON.stringify(process.cpuUsage())));';
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ["-e", `${report} ${code}`], { encoding: "utf8" });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0) throw new Error(`node -e ${code}: ${child.stderr.trim().split("\n")[0]}`);
  const { user, system } = JSON.parse(child.stderr.trim().split("\n").pop());
  return { wall, cpu: (user + system) / 1000 };
};

const sorted = (values) => [...values].sort((a, b) => a - b);
const median = (values) => {
  const s = sorted(values);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (value) => value.toFixed(1);

const summary = (runs) => {
  const wall = runs.map((run) => run.wall);
  return { min: Math.min(...wall), median: median(wall), cpu: median(runs.map((run) => run.cpu)) };
};
const floor = summary(Array.from({ length: RUNS }, () => spawnMs("0")));
console.log(`import-time: ${RUNS} runs a build and case; node ${process.version}`);
dists.forEach((dist, i) => console.log(`  ${"AB"[i]}: ${dist}`));
console.log(
  `  floor (node -e 0): min ${ms(floor.min)} ms, median ${ms(floor.median)} ms, CPU median ${ms(floor.cpu)} ms\n`,
);

const names = dists.map((_, i) => "AB"[i]);
const header = ["case", ...names.flatMap((n) => [`${n} modules`, `${n} min ms`, `${n} median ms`, `${n} CPU ms`])];
if (dists.length === 2) header.push("B/A wall", "B/A CPU");
const rows = [];
for (const format of FORMATS) {
  for (const entry of ENTRIES) {
    const codes = dists.map((dist) => program(dist, format, entry));
    for (const code of codes) spawnMs(code); // warm the file cache
    const runs = dists.map(() => []);
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 === 0 ? [0, 1] : [1, 0];
      for (const at of order.filter((k) => k < dists.length)) runs[at].push(spawnMs(codes[at]));
    }
    const row = [`${format} ${entry === "index" ? "rpcserver" : `rpcserver/${entry}`}`];
    dists.forEach((dist, at) => {
      const { min, median: mid, cpu } = summary(runs[at]);
      row.push(String(modules(dist, format, entry)), ms(min), ms(mid), ms(cpu));
    });
    if (dists.length === 2) {
      for (const key of ["wall", "cpu"]) {
        row.push(median(runs[1].map((b, i) => b[key] / runs[0][i][key])).toFixed(2));
      }
    }
    rows.push(row);
    console.error(`  ${row.join("  ")}`);
  }
}
console.log(`\n| ${header.join(" | ")} |`);
console.log(`| ${header.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`);
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
