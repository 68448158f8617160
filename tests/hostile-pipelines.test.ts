/**
 * The hostile-pipeline property (tests/fixtures/hostile-pipelines.mjs) with fixed seeds, in a child
 * process of the built package with the default logger on: random pipelines of hostile stages,
 * methods, codecs and callbacks, random batches through sync and async dispatch; every request with
 * an id answered exactly once with its arrival id, nothing unhandled, the process alive at the end.
 * `npm run test:hostile` runs it with a random seed and more runs.
 */
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "..");
const SCRIPT = join(ROOT, "tests", "fixtures", "hostile-pipelines.mjs");

interface Summary {
  readonly seed: number;
  readonly runs: number;
  readonly dispatches: number;
  readonly requests: number;
  readonly ok: boolean;
  readonly failure?: string;
}

const property = (...args: string[]): { status: number | null; summary: Summary | undefined; stderr: string } => {
  const child = spawnSync(process.execPath, [SCRIPT, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
    maxBuffer: 512 * 1024 * 1024,
  });
  const last = child.stdout.trim().split("\n").pop();
  const summary = last === undefined || last === "" ? undefined : (JSON.parse(last) as Summary);
  return { status: child.status, summary, stderr: child.stderr.slice(-4000) };
};

test("300 random hostile pipelines (seed 20261123): every request answered once with its arrival id, nothing unhandled", () => {
  const { status, summary, stderr } = property("--seed", "20261123", "--runs", "300");
  expect({ status, failure: summary?.failure, stderr: status === 0 ? "" : stderr }).toEqual({
    status: 0,
    failure: undefined,
    stderr: "",
  });
  expect(summary).toMatchObject({ seed: 20261123, runs: 300, dispatches: 600, ok: true });
  expect(summary?.requests).toBeGreaterThan(600);
});

test("the same with Node's own handling of unhandled rejections and uncaught exceptions: the process lives to the end", () => {
  const { status, summary, stderr } = property("--seed", "7", "--runs", "100", "--bare");
  expect({ status, stderr: status === 0 ? "" : stderr }).toEqual({ status: 0, stderr: "" });
  expect(summary).toMatchObject({ seed: 7, runs: 100, ok: true });
});
