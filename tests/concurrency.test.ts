/**
 * Concurrency: dispatch in several worker threads at once, and many async dispatches interleaved
 * in one thread. No dispatch keeps state between calls, so no response may ever cross to another
 * request: each must carry its own request's id, params and context.
 *
 * The worker threads load the built package (`npm run build` first; `npm test` builds before jest).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { Worker } from "node:worker_threads";
import { asyncDispatch, setLogger, Success, type Logger, type Methods } from "../src";

const ROOT = resolve(__dirname, "..");
const BUILT = join(ROOT, "dist", "cjs", "index.cjs");
const WORKER = join(__dirname, "fixtures", "dispatch-worker.cjs");

interface WorkerReport {
  readonly worker: number;
  readonly matched?: number;
  readonly mismatched?: number;
  readonly samples?: unknown[];
  readonly globalNames?: string[];
  readonly error?: string;
}

/** Runs one worker to completion and resolves to its report. */
const runWorker = (worker: number, count: number): Promise<WorkerReport> =>
  new Promise((resolvePromise, reject) => {
    const thread = new Worker(WORKER, { workerData: { worker, count } });
    let report: WorkerReport | undefined;
    thread.on("message", (message: WorkerReport) => {
      report = message;
    });
    thread.on("error", reject);
    thread.on("exit", (code) => {
      if (report !== undefined) resolvePromise(report);
      else reject(new Error(`worker ${worker} exited with code ${code} and no report`));
    });
  });

describe("worker threads", () => {
  const WORKERS = 4;
  const PER_WORKER = 50_000;

  test("4 threads dispatching 50,000 requests each: all 200,000 responses match their requests", async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` before this test`);
    const reports = await Promise.all(Array.from({ length: WORKERS }, (_, worker) => runWorker(worker, PER_WORKER)));
    for (const report of reports) expect(report.error).toBeUndefined();
    expect(reports.map((r) => r.worker)).toStrictEqual([0, 1, 2, 3]);
    // Each thread's globalMethods holds its own registration only.
    for (const report of reports) expect(report.globalNames).toStrictEqual(["whoami"]);
    expect(reports.map((r) => r.samples)).toStrictEqual([[], [], [], []]);
    expect(reports.reduce((sum, r) => sum + (r.mismatched ?? 0), 0)).toBe(0);
    expect(reports.reduce((sum, r) => sum + (r.matched ?? 0), 0)).toBe(WORKERS * PER_WORKER);
  }, 60_000);
});

describe("interleaved async dispatches", () => {
  const CALLS = 10_000;

  /** mulberry32: a small seeded generator, so the delays and shapes are the same on every run. */
  const seeded = (seed: number): (() => number) => {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let x = a;
      x = Math.imul(x ^ (x >>> 15), x | 1);
      x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
    };
  };

  const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined };

  test("10,000 calls with random delays and a context each: no response crosses to another call", async () => {
    const previous = setLogger(quiet);
    try {
      const random = seeded(0x2026);
      const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
      // Shared by every call; each call's context is its own object.
      const methods: Methods = {
        slow: async (context: unknown, ...params: unknown[]) => {
          await sleep(Math.floor(random() * 5));
          return Success({ context, params });
        },
        yielding: async (context: unknown, ...params: unknown[]) => {
          for (let i = Math.floor(random() * 4); i > 0; i--) await Promise.resolve();
          return Success({ context, params });
        },
        plain: (context: unknown, ...params: unknown[]) => Success({ context, params }),
      };
      const names = Object.keys(methods);

      /** One call: a single request or a batch, its ids unique across all calls. */
      const calls = Array.from({ length: CALLS }, (_, call) => {
        const size = random() < 0.3 ? 1 + Math.floor(random() * 4) : 0;
        const members = Array.from({ length: size === 0 ? 1 : size }, (_, m) => ({
          jsonrpc: "2.0",
          method: names[Math.floor(random() * names.length)] as string,
          params: [call, m, random()],
          id: random() < 0.5 ? `call-${call}-${m}` : call * 10 + m,
        }));
        const context = { call, secret: random() };
        return { body: JSON.stringify(size === 0 ? members[0] : members), members, context, batch: size !== 0 };
      });

      // All started before any finishes; their methods' awaits interleave.
      const outputs = await Promise.all(calls.map((c) => asyncDispatch(c.body, methods, { context: c.context })));

      let matched = 0;
      const mismatches: unknown[] = [];
      outputs.forEach((output, call) => {
        const c = calls[call] as (typeof calls)[number];
        const expected = c.members.map((m) => ({
          jsonrpc: "2.0",
          result: { context: c.context, params: m.params },
          id: m.id,
        }));
        const wanted = JSON.stringify(c.batch ? expected : expected[0]);
        if (output === wanted) matched += c.members.length;
        else if (mismatches.length < 5) mismatches.push({ call, output, wanted });
      });
      expect(mismatches).toStrictEqual([]);
      expect(matched).toBe(calls.reduce((sum, c) => sum + c.members.length, 0));
      expect(matched).toBeGreaterThan(CALLS);
    } finally {
      setLogger(previous);
    }
  }, 30_000);
});
