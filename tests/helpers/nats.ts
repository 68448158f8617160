/**
 * Processes of the NATS tests: the fixtures tests/fixtures/nats-worker.mjs and nats-load.mjs, run
 * with this Node against the BUILT package, each printing JSON lines on stdout. Every wait is
 * bounded, and every process started here is killed by `killFixtures`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { bounded, requireBuild, ROOT } from "./processes";

/** A fixture process: the JSON lines it printed so far, and its end. */
export interface Fixture {
  readonly child: ChildProcess;
  readonly lines: readonly Record<string, unknown>[];
  readonly stderr: () => string;
  /** Resolves to the first line (printed already or to come) that `test` accepts; rejects if the process ends first. */
  readonly line: (
    test: (line: Record<string, unknown>) => boolean,
    what: string,
    ms?: number,
  ) => Promise<Record<string, unknown>>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();

/** Kills (SIGKILL) every fixture process still running. */
export const killFixtures = (): void => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  running.clear();
};

/** Starts `node tests/fixtures/<name> ...args` with `env` added. */
export const spawnFixture = (name: string, args: readonly string[], env: Record<string, string> = {}): Fixture => {
  requireBuild();
  const script = join(ROOT, "tests", "fixtures", name);
  const child = spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  const lines: Record<string, unknown>[] = [];
  const waiting = new Set<() => void>();
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  createInterface({ input: child.stdout! }).on("line", (text) => {
    lines.push(JSON.parse(text) as Record<string, unknown>);
    for (const check of waiting) check();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("close", (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
      for (const check of waiting) check();
    });
  });
  const line: Fixture["line"] = (test, what, ms) =>
    bounded(
      new Promise((resolve, reject) => {
        const check = (): void => {
          const found = lines.find(test);
          if (found !== undefined) resolve(found);
          else if (child.exitCode !== null || child.signalCode !== null) {
            reject(new Error(`${name} ended (${child.exitCode ?? child.signalCode}) before ${what}:\n${stderr}`));
          } else return;
          waiting.delete(check);
        };
        waiting.add(check);
        check();
      }),
      `${name}: ${what}`,
      ms,
    );
  return { child, lines, stderr: () => stderr, line, exited };
};

/** What tests/fixtures/nats-load.mjs prints. */
export interface Load {
  readonly ok: number;
  readonly wrong: number;
  readonly distinct: number;
  readonly failures: Readonly<Record<string, number>>;
  readonly perWorker: Readonly<Record<string, number>>;
}

/** The options of one run of tests/fixtures/nats-load.mjs (its header says what each is). */
export interface LoadOptions {
  readonly url: string;
  readonly subject: string;
  readonly client: "rpcserver" | "plain";
  readonly base: number;
  readonly count: number;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly ms?: number;
}

/** Runs one load client to its end (exit 0, bounded) and returns what it printed. */
export const runLoad = async (options: LoadOptions): Promise<Load> => {
  const load = spawnFixture("nats-load.mjs", [JSON.stringify(options)]);
  const exit = await bounded(load.exited, `the ${options.client} load client to end`, 30_000);
  if (exit.code !== 0 || load.lines.length !== 1) {
    throw new Error(`the ${options.client} load client failed (${JSON.stringify(exit)}):\n${load.stderr()}`);
  }
  return load.lines[0] as unknown as Load;
};

/** The sum of a record's numbers. */
export const total = (counts: Readonly<Record<string, number>>): number =>
  Object.values(counts).reduce((sum, n) => sum + n, 0);
