// `npm run bench`: every benchmark, one after the other, each given this command's arguments, so
// that `npm run bench -- --write` writes every page (npm hands the arguments after `--` to the
// last command of a script only). Run after `npm run build`, which the script does first.
import { spawnSync } from "node:child_process";

const args = process.argv.slice(2);
const benches = [
  ["bench/bench.mjs"],
  ["--expose-gc", "bench/connections.mjs"],
  ["bench/streams.mjs"],
  ["bench/http-servers.mjs"],
  ["bench/nats.mjs"],
  // Prints its figures only: --write leaves its page alone (no docs page of its own yet).
  ["bench/nats-streams.mjs"],
];
for (const bench of benches) {
  const { status } = spawnSync(process.execPath, [...bench, ...args], { stdio: "inherit" });
  if (status !== 0) {
    console.error(`bench: ${bench.at(-1)} failed (exit ${status})`);
    process.exit(1);
  }
}
