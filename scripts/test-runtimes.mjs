// The runtime matrix: the jest suite on Node.js 18, 22, 24 and 26 (the suite's own run covers the
// Node that runs npm), and the built package's conformance cases on Bun, Deno and headless
// Chromium. The runtimes come from npm packages that carry their binaries (runtimes/package.json,
// installed here with npm ci); Chromium is Debian's, installed with apt-get when missing and root.
// Ends with "runtimes: N passed, N failed"; exits non-zero when any runtime failed.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const bin = "runtimes/node_modules";
const install = () => {
  if (existsSync(`${bin}/.package-lock.json`)) return;
  console.log("runtimes: installing Node.js 18/22/24/26, Bun and Deno (npm ci --prefix runtimes)");
  execFileSync("npm", ["ci", "--prefix", "runtimes", "--no-audit", "--no-fund"], { stdio: "inherit" });
};

const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const installChromium = () => {
  if (existsSync(chromium)) return;
  if (process.getuid?.() !== 0) return;
  console.log("runtimes: installing Debian's chromium (apt-get)");
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
  execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
};

// `--install`: only install the runtimes and Chromium (the jest suite's Hono tests on Bun and Deno
// need them too, so `npm test` installs before jest and runs the matrix after it).
if (process.argv.includes("--install")) {
  install();
  installChromium();
  process.exit(0);
}

const jest = ["node_modules/jest/bin/jest.js", "--ci"];
const conformance = ["tests/runtime/run.mjs"];
const only = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const runs = [
  ...[18, 22, 24, 26].map((v) => [`node ${v}: jest suite`, `${bin}/node${v}/bin/node`, jest]),
  ["bun: built package conformance", `${bin}/@oven/bun-linux-x64/bin/bun`, conformance],
  ["deno: built package conformance", `${bin}/@deno/linux-x64-glibc/deno`, ["run", "-A", ...conformance]],
  ["chromium: built package conformance", process.execPath, ["tests/runtime/browser.mjs"]],
].filter(([name]) => only.length === 0 || only.some((word) => name.startsWith(word)));

install();
installChromium();
if (!existsSync("dist/esm/index.js")) execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });

const failed = [];
for (const [name, command, args] of runs) {
  console.log(`\n=== ${name}`);
  const started = Date.now();
  const { status, error } = spawnSync(command, args, { stdio: "inherit" });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const ok = status === 0 && error === undefined;
  console.log(`=== ${name}: ${ok ? "ok" : `FAILED (${error ? error.message : `exit ${status}`})`} in ${seconds} s`);
  if (!ok) failed.push(name);
}
console.log(
  `\nruntimes: ${runs.length - failed.length} passed, ${failed.length} failed${failed.length ? ` (${failed.join("; ")})` : ""}`,
);
if (failed.length > 0) process.exitCode = 1;
