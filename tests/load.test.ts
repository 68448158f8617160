/**
 * The development server under load and fault, in CI: runs tests/load/load.mjs (the built CLI in a
 * child process, autocannon and raw sockets from another) with a 3-second load instead of the
 * 10 seconds of `node tests/load/load.mjs`. Only the checks count: throughput is printed, never
 * asserted.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { bounded, requireBuild, ROOT } from "./helpers/processes";

/** The script bounds itself (45 s plus twice the duration); this is the outer bound. */
const RUN_MS = 80_000;

test(
  "node tests/load/load.mjs --duration 3: every check passes",
  async () => {
    requireBuild();
    const child = spawn(process.execPath, [join("tests", "load", "load.mjs"), "--duration", "3"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (output += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (output += text));
    const code = await bounded(
      new Promise<number | null>((resolve) => child.on("close", (status) => resolve(status))),
      "the load test to finish",
      RUN_MS,
    ).catch((error: unknown) => {
      child.kill("SIGKILL");
      throw error;
    });
    const summary = /^load: (\d+) passed, (\d+) failed$/m.exec(output);
    // The whole report on failure: which check failed, and the figures.
    if (code !== 0 || summary === null || summary[2] !== "0") throw new Error(`exit ${String(code)}\n${output}`);
    expect(Number(summary[1])).toBeGreaterThanOrEqual(30);
    expect(output).not.toMatch(/^FAIL /m);
  },
  RUN_MS + 10_000,
);
