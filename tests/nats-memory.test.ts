/**
 * `natsTransport`'s `maxAnswerBytes` bounds what a slow consumer's held values take in memory, not
 * only their count of wire bytes (issue 32, item 5): held parsed, 15 MB of values under a bound of
 * 16 MiB took 198 MB of heap. A child process with --expose-gc (tests/fixtures/nats-slow-consumer.mjs,
 * against the built package) holds every value of a 15 MB stream while its consumer takes none,
 * measures its memory after gc, then takes them all. No timing is asserted.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { startNatsServer, type NatsServer } from "./fixtures/nats-server.cjs";
import { requireBuild, ROOT } from "./helpers/processes";

const run = promisify(execFile);

let server: NatsServer;

beforeAll(async () => {
  requireBuild();
  server = await startNatsServer();
});

afterAll(() => server.stop());

test("15 MB of values held for a consumer that takes none stay within a few times maxAnswerBytes of memory", async () => {
  const limit = 16 * 1024 * 1024;
  const { stdout } = await run(
    process.execPath,
    ["--expose-gc", "tests/fixtures/nats-slow-consumer.mjs", server.url, String(limit), "15000000"],
    { cwd: ROOT, encoding: "utf8", timeout: 120_000 },
  );
  const seen = JSON.parse(stdout.trim()) as {
    values: number;
    baseline: number;
    held: number;
    taken: number;
    ordered: boolean;
    result: unknown;
  };
  // Every value was held (the call stayed under its bound), then taken, in order.
  expect(seen).toMatchObject({ taken: seen.values, ordered: true, result: { _tag: "Right", right: seen.values } });
  // Held raw, the values take their 15 MB and a little for each message (18 MB over the baseline
  // when measured); held parsed, they took 13 times that.
  expect(seen.held - seen.baseline).toBeLessThan(3 * limit);
});
