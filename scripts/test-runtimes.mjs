// The runtime matrix: the jest suite on Node.js 18, 22, 24 and 26, each in two parts (the suite's own
// run covers the Node that runs npm; the compile-only files, ONCE below, run there only), and the built package's conformance cases
// (tests/runtime: the dispatch core, and the client over `local` and over `http`) on those Nodes, Bun, Deno and
// headless Chromium; rpcserver/fetch's handler, called with the runtime's own Request, on those Nodes, Bun and
// Deno, and served by Bun.serve, Deno.serve and Cloudflare's workerd (tests/runtime/fetch-served.mjs).
// The client's http cases call one development server (the built `serve`) that this process starts
// on 127.0.0.1 and hands to every run in RPCSERVER_URL. The runtimes come from npm packages that
// carry their binaries (runtimes/package.json, installed here with npm ci); Chromium and nats-server
// (the NATS tests' real engine) are Debian's, installed with apt-get when missing and root. Beside
// the runtimes, on the Node that runs this: the type matrix (tests/runtime/types-matrix.mjs:
// TypeScript 5, 6 and 7 against @types/node 20 to the newest) and the browser bundles
// (tests/runtime/bundlers.mjs: esbuild, Vite and webpack, run in Chromium), whose compilers and
// bundlers runtimes/package.json installs too.
// The runs go RPCSERVER_TEST_JOBS at a time (default 3; four at once, beside the main suite, loaded two
// cores past what the NATS tests' client time-outs allow; each run's output is printed whole when it
// ends), the longest first. Ends with "runtimes: N passed, N failed"; exits non-zero when any runtime failed.
import { execFileSync, spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nats from "../tests/fixtures/nats-server.cjs";
import { JEST_NODE_FLAGS } from "./jest-node-flags.mjs";

const bin = "runtimes/node_modules";
// Installed when any package runtimes/package.json names is missing (a clone, or a list grown since).
const install = () => {
  const wanted = Object.keys(JSON.parse(readFileSync("runtimes/package.json", "utf8")).devDependencies);
  if (existsSync(`${bin}/.package-lock.json`) && wanted.every((name) => existsSync(`${bin}/${name}`))) return;
  console.log(
    "runtimes: installing Node.js 18/22/24/26, Bun, Deno, workerd, TypeScript 5/6/7, @types/node, esbuild, Vite and webpack " +
      "(npm ci --prefix runtimes)",
  );
  execFileSync("npm", ["ci", "--prefix", "runtimes", "--no-audit", "--no-fund"], { stdio: "inherit" });
};

const { natsServerPath } = nats;
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Is nats-server there? Found as the NATS tests find it (NATS_SERVER_PATH, PATH, /usr/sbin). */
const hasNatsServer = () => {
  try {
    natsServerPath();
    return true;
  } catch {
    return false;
  }
};

/**
 * Debian's packages the suite runs for real (Chromium for the browser tests, nats-server for the
 * NATS tests), installed with one apt-get when missing and root; without root, the tests that need
 * them say what is missing.
 */
const installDebianPackages = () => {
  const missing = [...(existsSync(chromium) ? [] : ["chromium"]), ...(hasNatsServer() ? [] : ["nats-server"])];
  if (missing.length === 0 || process.getuid?.() !== 0) return;
  console.log(`runtimes: installing Debian's ${missing.join(" and ")} (apt-get)`);
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
  execFileSync("apt-get", ["install", "-y", "-qq", ...missing], {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
};

// `--install`: only install the runtimes, Chromium and nats-server (the jest suite's Hono tests on
// Bun and Deno need the runtimes too, and its NATS tests a real server, so `npm test` installs before
// jest and runs the matrix after it).
if (process.argv.includes("--install")) {
  install();
  installDebianPackages();
  process.exit(0);
}

// Files that check our text and our types rather than the library on a Node: the import rules, what
// tsc reports of the sources (exports-types: what the entries export; type-error-messages: the
// compiler's own words for two mistakes), of the packed package (package-types; nats-types, the built NATS
// declarations against the real NATS package's) and of the TypeScript examples (which they then
// run), the TSDoc examples and every page's code blocks. They run once, in the suite's own run on
// the npm Node (npm test's jest step), and not again on each Node of the matrix: they are half of a
// suite's CPU time, and everything else (the library's servers, clients, sockets, processes,
// browsers) still runs on every Node. A name here that names no file fails the matrix, so that the
// list cannot rot into a silent no-op.
const ONCE = [
  "architecture",
  "doc-examples",
  "examples-ts",
  "exports-types",
  "mcp-inspector-cli",
  "nats-types",
  "package-types",
  "tsdoc-examples",
  "type-error-messages",
].map((name) => `tests/${name}.test.ts`);
const gone = ONCE.filter((file) => !existsSync(file));
if (gone.length > 0) throw new Error(`scripts/test-runtimes.mjs: ONCE names no file: ${gone.join(", ")}`);
const jest = [
  ...JEST_NODE_FLAGS,
  "node_modules/jest/bin/jest.js",
  "--ci",
  ...ONCE.map((file) => `--testPathIgnorePatterns=/${file.replace(/\./g, "\\.")}$`),
];
const conformance = ["tests/runtime/run.mjs"];
const only = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
/** How many runs go side by side (RPCSERVER_TEST_JOBS; 1: one after the other, output as it comes). */
const jobs = Math.max(1, Number(process.env.RPCSERVER_TEST_JOBS ?? "") || 3);
const TIME = "/usr/bin/time";
const measured = existsSync(TIME);
const work = mkdtempSync(join(tmpdir(), "rpcserver-runtimes-"));
const nodes = [18, 22, 24, 26];
/**
 * Each Node's suite in this many runs (jest's `--shard`): four suites of 270 to 450 s on three lanes
 * put two whole suites one after the other on one lane, which then ran on alone for a minute and
 * more after the others had ended (12:13 to 14:25 from a clean clone); halves fill the lanes evenly.
 */
const SHARDS = 2;
// The longest first (the jest suites, the types matrix, the browser bundles): the last to start are
// the shortest, so that the lanes end close together.
const runs = [
  ...nodes.flatMap((v) =>
    Array.from({ length: SHARDS }, (_, i) => [
      `node ${v}: jest suite, less the ONCE files, part ${i + 1} of ${SHARDS}`,
      `${bin}/node${v}/bin/node`,
      [...jest, `--shard=${i + 1}/${SHARDS}`],
    ]),
  ),
  [
    "typescript: types matrix (5/6/7 x @types/node 20/22/24/newest)",
    process.execPath,
    ["tests/runtime/types-matrix.mjs"],
  ],
  ["chromium: browser bundles (esbuild, vite, webpack)", process.execPath, ["tests/runtime/bundlers.mjs"]],
  [
    "bun, deno, workerd: fetchHandler served by their own servers",
    process.execPath,
    ["tests/runtime/fetch-served.mjs"],
  ],
  ["chromium: built package conformance", process.execPath, ["tests/runtime/browser.mjs"]],
  ...nodes.map((v) => [`node ${v}: built package conformance`, `${bin}/node${v}/bin/node`, conformance]),
  ["bun: built package conformance", `${bin}/@oven/bun-linux-x64/bin/bun`, conformance],
  ["deno: built package conformance", `${bin}/@deno/linux-x64-glibc/deno`, ["run", "-A", ...conformance]],
].filter(([name]) => only.length === 0 || only.some((word) => name.startsWith(word)));

install();
installDebianPackages();
if (!existsSync("dist/esm/index.js")) execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });

// Imported after the build: it loads dist/. Runs are spawned asynchronously so that it answers.
const { startDevServer } = await import("../tests/runtime/devserver.mjs");
const server = await startDevServer();
// npm_node_execpath: the Node that runs tools for the suite (tests/openrpc.test.ts validates with a
// package Node 18 cannot load); npm sets it, and this Node stands in for it when run without npm.
const env = {
  ...process.env,
  RPCSERVER_URL: server.url,
  npm_node_execpath: process.env.npm_node_execpath ?? process.execPath,
};
console.log(`runtimes: the client's http cases call the development server at ${server.url}`);

/**
 * Runs one command; resolves to its exit status (or the error that kept it from running) and its
 * output, collected so that runs side by side do not mix their lines (inherited when one at a time).
 */
const LOGS = join(".tmp", "runtimes");
mkdirSync(LOGS, { recursive: true });
const slug = (name) => name.replace(/\W+/g, "-").replace(/^-|-$/g, "");

const run = (command, args, name, index) =>
  new Promise((resolve) => {
    const chunks = [];
    // Its CPU time too (user and system, GNU time's), where GNU time is there.
    const cpuFile = join(work, `${index}.cpu`);
    const [file, ...rest] = measured ? [TIME, "-f", "%U %S", "-o", cpuFile, command, ...args] : [command, ...args];
    const child = spawn(file, rest, { stdio: jobs > 1 ? ["ignore", "pipe", "pipe"] : "inherit", env });
    // Also written as it comes, to be followed while it runs (.tmp/runtimes/node-18-jest-suite.log, ...).
    const log = jobs > 1 ? createWriteStream(join(LOGS, `${slug(name)}.log`)) : undefined;
    const collect = (chunk) => void (chunks.push(chunk), log?.write(chunk));
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    child.once("close", () => log?.end());
    const cpu = () => {
      if (!existsSync(cpuFile)) return "";
      const [user, system] = readFileSync(cpuFile, "utf8").trim().split("\n").at(-1).split(" ").map(Number);
      return `, ${(user + system).toFixed(0)} s of CPU`;
    };
    child.once("error", (error) => resolve({ error, output: Buffer.concat(chunks), cpu: "" }));
    child.once("close", (status) => resolve({ status, output: Buffer.concat(chunks), cpu: cpu() }));
  });

const failed = [];
try {
  // The runs share nothing but the development server (each suite keeps its files under its own
  // pid), so they go `jobs` at a time, the longest (the jest suites) first.
  let next = 0;
  const lane = async () => {
    while (next < runs.length) {
      const index = next++;
      const [name, command, args] = runs[index];
      if (jobs === 1) console.log(`\n=== ${name}`);
      const started = Date.now();
      const { status, error, output, cpu } = await run(command, args, name, index);
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      const ok = status === 0 && error === undefined;
      if (jobs > 1) process.stdout.write(`\n=== ${name}\n${output}`);
      console.log(
        `=== ${name}: ${ok ? "ok" : `FAILED (${error ? error.message : `exit ${status}`})`} in ${seconds} s${cpu}`,
      );
      if (!ok) failed.push(name);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, runs.length) }, lane));
} finally {
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
console.log(
  `\nruntimes: ${runs.length - failed.length} passed, ${failed.length} failed${failed.length ? ` (${failed.join("; ")})` : ""}`,
);
if (failed.length > 0) process.exitCode = 1;
