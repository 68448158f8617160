// npm test: every check of the repository, the independent ones side by side. The steps and what each
// waits for:
//
//   lint, typecheck, docs (typedoc), build (npm pack --dry-run, whose prepack is the build: once,
//   for the suite and for check:package's pack of a tree with no dist/), install (the runtimes,
//   Chromium, nats-server)                                                          at once
//   api (api:check), package (check:package) and jest (the suite on the Node that runs npm, jest's
//   own number of files at a time: one per core but one)                       once the build is done
//   runtimes (scripts/test-runtimes.mjs: the suite on Node 18, 22, 24 and 26, the built package on
//   those Nodes, Bun, Deno and Chromium, the browser bundles, the types matrix)   once the build and
//   install are done; its own runs go RPCSERVER_TEST_JOBS at a time (default 3)
//
// jest starts before the install ends: the files that need what it brings run last, and each waits
// for its end (scripts/jest-install-gate.cjs says which files; this script writes the file that
// RPCSERVER_INSTALL_DONE names when the install step ends, "ok" or why it failed, which fails them).
//
// A failed step does not stop the others: every step whose prerequisites passed runs, and the run
// fails at the end, naming each failed step. A step's output is printed whole when it ends (two
// steps' lines never mix; .tmp/npm-test/<step>.log has it as it comes), with its time; a table of the times (wall and CPU) closes the run, then
// the suite's own closing lines ("runtimes: ...", and the main suite's "jest: N passed, N failed,
// N skipped" last).
//
// Last, the tree: the run fails if it changed a file git sees (a tracked file, or a new file that
// .gitignore does not cover), naming it.
//
// The steps run from package.json's scripts (npm run <script>), so each can be run alone too.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JEST_NODE_FLAGS } from "./jest-node-flags.mjs";

// The CPU time of each step (its processes', user and system), where GNU time is there to measure it:
// on a loaded machine, the times beside it say what the step costs.
const TIME = "/usr/bin/time";
const measured = existsSync(TIME);
const work = mkdtempSync(join(tmpdir(), "rpcserver-test-"));
/** Written when the install step ends (jest's files that need it wait for it): "ok", or why not. */
const INSTALL_DONE = join(work, "install.done");
/**
 * The build's `npm pack --dry-run` listing: the build step is that pack (its prepack builds dist/
 * from nothing), and the package step checks its listing rather than building a copy again.
 */
const PACK_LISTING = join(work, "pack.json");

/** The steps: name, command, the steps it waits for, and its environment beyond this process's. */
const STEPS = [
  { name: "lint", command: ["npm", "run", "--silent", "lint"], after: [] },
  { name: "typecheck", command: ["npm", "run", "--silent", "typecheck"], after: [] },
  { name: "docs", command: ["npm", "run", "--silent", "docs"], after: [] },
  { name: "build", command: [process.execPath, "scripts/check-package.mjs", "--pack-build", PACK_LISTING], after: [] },
  { name: "install", command: [process.execPath, "scripts/test-runtimes.mjs", "--install"], after: [] },
  { name: "api", command: ["npm", "run", "--silent", "api:check"], after: ["build"] },
  {
    name: "package",
    command: ["npm", "run", "--silent", "check:package", "--", "--listing", PACK_LISTING],
    after: ["build"],
  },
  {
    name: "jest",
    // Jest's own number of workers (one on two cores): two at a time beside the matrix's runs made the
    // timing of the NATS tests' clients the machine's, and two clean-clone runs failed on it.
    command: [process.execPath, ...JEST_NODE_FLAGS, "node_modules/jest/bin/jest.js"],
    after: ["build"],
    env: { RPCSERVER_INSTALL_DONE: INSTALL_DONE },
  },
  { name: "runtimes", command: [process.execPath, "scripts/test-runtimes.mjs"], after: ["build", "install"] },
];

const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;

/** Where each step's output is written as it comes (ignored by git). */
const LOGS = join(".tmp", "npm-test");
mkdirSync(LOGS, { recursive: true });

/** Runs one step with its output collected; resolves to its status, output and CPU seconds. */
const run = ({ name, command, env }) =>
  new Promise((resolve) => {
    const chunks = [];
    const cpuFile = join(work, `${name}.cpu`);
    const [file, ...args] = measured ? [TIME, "-f", "%U %S", "-o", cpuFile, ...command] : command;
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    // Also written as it comes, to be followed while the step runs (`tail -f .tmp/npm-test/jest.log`).
    const log = createWriteStream(join(LOGS, `${name}.log`));
    const collect = (chunk) => void (chunks.push(chunk), log.write(chunk));
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("close", () => log.end());
    const cpu = () => {
      if (!measured || !existsSync(cpuFile)) return undefined;
      const [user, system] = readFileSync(cpuFile, "utf8").trim().split("\n").at(-1).split(" ").map(Number);
      return user + system;
    };
    child.once("error", (error) => resolve({ ok: false, why: error.message, output: Buffer.concat(chunks) }));
    child.once("close", (code, signal) =>
      resolve({ ok: code === 0, why: signal ?? `exit ${code}`, output: Buffer.concat(chunks), cpu: cpu() }),
    );
  });

const results = new Map();
const done = new Map();
/** A step's promise: it starts once every step it waits for has ended, and runs if they all passed. */
const stepOf = (step) => {
  if (!done.has(step.name)) {
    done.set(
      step.name,
      (async () => {
        await Promise.all(step.after.map((name) => stepOf(STEPS.find((each) => each.name === name))));
        const unmet = step.after.filter((name) => !results.get(name).ok);
        if (unmet.length > 0) {
          const why = `not run: ${unmet.join(" and ")} failed`;
          results.set(step.name, { ok: false, why, output: Buffer.from(""), at: Date.now() - started, took: 0 });
          console.log(`=== ${step.name}: FAILED (${why})\n`);
          return;
        }
        const at = Date.now();
        console.log(`=== ${step.name}: started at ${seconds(at - started)}`);
        const result = await run(step);
        const took = Date.now() - at;
        if (step.name === "install") {
          // Whole or not at all: written beside, then renamed into place.
          writeFileSync(`${INSTALL_DONE}.part`, result.ok ? "ok" : `install: ${result.why}`);
          renameSync(`${INSTALL_DONE}.part`, INSTALL_DONE);
        }
        results.set(step.name, { ...result, at: at - started, took });
        process.stdout.write(`\n=== ${step.name} (${step.command.join(" ")})\n`);
        process.stdout.write(result.output);
        console.log(`=== ${step.name}: ${result.ok ? "ok" : `FAILED (${result.why})`} in ${seconds(took)}\n`);
      })(),
    );
  }
  return done.get(step.name);
};

/**
 * What git sees changed in the tree (tracked files changed, new files not ignored), each with a hash
 * of its content; undefined where git or the repository is not there. npm test must change none of
 * it: compared before and after the steps.
 */
const treeState = () => {
  const git = spawnSync("git", ["status", "--porcelain=v1", "-z", "--untracked-files=all"], { encoding: "utf8" });
  if (git.status !== 0) return undefined;
  const paths = git.stdout
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3));
  return new Map(paths.map((path) => [path, fingerprint(path)]));
};
/** A file's content hash; a link's target; "gone". */
const fingerprint = (path) => {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return `link to ${readlinkSync(path)}`;
    return stat.isFile() ? createHash("sha1").update(readFileSync(path)).digest("hex") : "not a file";
  } catch {
    return "gone";
  }
};
const before = treeState();

await Promise.all(STEPS.map(stepOf));

const after = treeState();
if (before !== undefined && after !== undefined) {
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
    (path) => before.get(path) !== after.get(path),
  );
  results.set("tree", {
    ok: changed.length === 0,
    at: Date.now() - started,
    took: 0,
    output: Buffer.from(""),
  });
  STEPS.push({ name: "tree", command: ["git", "status"], after: [] });
  if (changed.length > 0) console.log(`=== tree: FAILED: npm test changed files git sees: ${changed.join(", ")}\n`);
}

rmSync(work, { recursive: true, force: true });
console.log("\nnpm test, step by step (seconds: start, wall time, CPU time of its processes):");
console.log(`  ${"step".padEnd(10)} ${"start".padStart(6)} ${"wall".padStart(6)} ${"cpu".padStart(6)}`);
let cpuTotal = 0;
for (const step of STEPS) {
  const { ok, at, took, cpu } = results.get(step.name);
  cpuTotal += cpu ?? 0;
  const cells = [at / 1000, took / 1000, cpu].map((n) => (n === undefined ? "-" : n.toFixed(0)).padStart(6));
  console.log(`  ${step.name.padEnd(10)} ${cells.join(" ")}  ${ok ? "ok" : "FAILED"}`);
}
if (measured) console.log(`  CPU time of all steps: ${cpuTotal.toFixed(0)} s`);
const failed = STEPS.filter((step) => !results.get(step.name).ok).map((step) => step.name);
console.log(`  all ${seconds(Date.now() - started)}${failed.length > 0 ? `; failed: ${failed.join(", ")}` : ""}`);
// The closing lines CI reads: the runtime matrix's, then the main suite's count.
const closing = (name, pattern) =>
  results
    .get(name)
    .output.toString("utf8")
    .split("\n")
    .filter((line) => pattern.test(line))
    .at(-1);
for (const line of [closing("runtimes", /^runtimes: /), closing("jest", /^jest: /)]) if (line) console.log(line);
if (failed.length > 0) process.exitCode = 1;
