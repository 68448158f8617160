/**
 * The real-engine harness of the NATS tests (tests/fixtures/nats-server.cjs): two servers at once
 * on ports of their own, a request-reply round trip through one with the NATS client, a clean stop
 * (SIGINT: exit code 0), a clear error when the binary is missing, and the same names imported
 * from an ES module (as the .mjs fixtures and bench scripts do).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { connect } from "./fixtures/nats.cjs";
import { natsServerPath, startNatsServer, type NatsServer } from "./fixtures/nats-server.cjs";
import { bounded, ROOT } from "./helpers/processes";

const started: NatsServer[] = [];

afterAll(async () => {
  await Promise.all(started.map((server) => server.stop()));
});

/** Runs `source` as an ES module in the repository root; its stdout, or the error with its stderr. */
const runModule = (source: string): Promise<string> =>
  bounded(
    new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ["--input-type=module", "-e", source],
        { cwd: ROOT, encoding: "utf8" },
        (error, stdout, stderr) =>
          error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)),
      );
    }),
    "an ES module importing the harness to exit",
  );

test("two nats-servers at once, a request-reply round trip through one, and a clean stop", async () => {
  const [first, second] = await Promise.all([startNatsServer(), startNatsServer()]);
  started.push(first, second);
  expect(first.port).not.toBe(second.port);
  expect(first.url).toBe(`nats://127.0.0.1:${first.port}`);

  const nc = await connect(first.url);
  nc.subscribe("echo", { callback: (_error, message) => void message.respond(`echo: ${message.string()}`) });
  const reply = await nc.request("echo", "hello", { timeout: 5_000 });
  expect(reply.string()).toBe("echo: hello");
  await nc.close();

  expect(await Promise.all([first.stop(), second.stop()])).toEqual([
    { code: 0, signal: null },
    { code: 0, signal: null },
  ]);
  // Gone, not left running: signal 0 to a pid that no longer exists throws ESRCH.
  for (const { pid } of [first, second]) expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
});

test("a missing nats-server is an error that says how to install it", async () => {
  const saved = process.env.NATS_SERVER_PATH;
  process.env.NATS_SERVER_PATH = "/nonexistent/nats-server";
  try {
    expect(() => natsServerPath()).toThrow(
      "nats-server not found: run `node scripts/test-runtimes.mjs --install` as root, or apt-get install nats-server (NATS_SERVER_PATH=/nonexistent/nats-server does not exist)",
    );
    await expect(startNatsServer()).rejects.toThrow(/^nats-server not found/);
  } finally {
    if (saved === undefined) delete process.env.NATS_SERVER_PATH;
    else process.env.NATS_SERVER_PATH = saved;
  }
  await expect(startNatsServer("/nonexistent/nats-server")).rejects.toThrow(
    "nats-server failed (/nonexistent/nats-server: spawn /nonexistent/nats-server ENOENT)",
  );
});

test("an ES module imports the same harness by name, and its server works", async () => {
  const harness = JSON.stringify(join(ROOT, "tests", "fixtures", "nats-server.cjs"));
  const out = await runModule(
    `import { startNatsServer, natsServerPath } from ${harness};
     const server = await startNatsServer();
     console.log(JSON.stringify({ bin: natsServerPath(), url: server.url, exit: await server.stop() }));`,
  );
  const { bin, url, exit } = JSON.parse(out) as { bin: string; url: string; exit: unknown };
  expect(bin).toBe(natsServerPath());
  expect(url).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
  expect(exit).toEqual({ code: 0, signal: null });
});
