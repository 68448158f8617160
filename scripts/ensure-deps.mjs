// Runs before `npm start` and `npm test`: on a fresh clone (no node_modules yet) it installs exactly
// what package-lock.json pins, so each of the README's two commands works on its own. With the
// dependencies already installed it does nothing.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync("node_modules/.package-lock.json")) {
  console.error("rpcserver: installing the locked dependencies (npm ci) first");
  const npm = process.env.npm_execpath;
  const [command, args] = npm
    ? [process.execPath, [npm, "ci", "--no-audit", "--no-fund"]]
    : ["npm", ["ci", "--no-audit", "--no-fund"]];
  execFileSync(command, args, { stdio: "inherit" });
}
