/**
 * The example contract at both ends, as the README tells a new user to run it: `npm start`'s
 * server (examples/start.mjs, serving the handlers of examples/api.mjs) in one process, the README's
 * curl request, and `node examples/client.mjs` in another process, whose output is checked line by
 * line. Against the BUILT package (`npm run build` first), as the examples import it by name.
 */
import { execFile } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { bounded, killAll, requireBuild, ROOT, startExamples } from "./helpers/processes";

let url = "";
let serverStderr = (): string => "";

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node examples/client.mjs` with `env` added, to its end (bounded). */
const runClient = (env: Record<string, string>): Promise<Run> =>
  bounded(
    new Promise<Run>((resolve) => {
      execFile(
        process.execPath,
        [join("examples", "client.mjs")],
        { cwd: ROOT, env: { ...process.env, ...env }, encoding: "utf8" },
        (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : (error.code as number | null), stdout, stderr }),
      );
    }),
    "node examples/client.mjs to exit",
  );

beforeAll(async () => {
  requireBuild();
  ({ url, stderr: serverStderr } = await startExamples());
});

afterAll(() => {
  killAll();
});

test("npm start's server answers the README's curl request", async () => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}',
  });
  expect(await response.text()).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
});

test("node examples/client.mjs calls it through the shared contract and prints each answer", async () => {
  const run = await runClient({ RPC_URL: url });
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  expect(run.stdout.split("\n")).toEqual([
    `Calling ${url} with the contract of examples/api.mjs`,
    "add(1, 2) = 3",
    'greet({ name: "Ada" }) = "Hello, Ada!"',
    "addDays({ date: 2024-02-28, days: 2 }) = 2024-03-01T00:00:00.000Z (a Date)",
    'getUser(1) = {"id":1,"name":"Ada Lovelace"}',
    'getUser(9): error 404 No such user {"id":9}',
    'divide(1, 0): error -32602 Invalid params "division by zero"',
    "sleep(1000) with a 100 ms time-out: no answer (timeout)",
    'log("hi") as a notification = sent',
    'batch: 5, "Hello, Alan!", "pong"',
    "",
  ]);
  // The notification reached the server, which prints it on its stderr.
  await bounded(
    new Promise<void>((resolve) => {
      const check = (): void => {
        if (serverStderr().includes("client says: hi from examples/client.mjs")) resolve();
        else setTimeout(check, 20);
      };
      check();
    }),
    "the server to log the notification",
  );
});

test("without a server, the client says where it looked and exits with status 1", async () => {
  // A port that was free a moment ago: nothing listens there now.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const nowhere = `http://127.0.0.1:${port}/`;
  const run = await runClient({ RPC_URL: nowhere });
  expect(run.code).toBe(1);
  expect(run.stdout).toBe(
    `Calling ${nowhere} with the contract of examples/api.mjs\n` +
      `add(1, 2): no answer (network: is the server running at ${nowhere}?)\n`,
  );
});
