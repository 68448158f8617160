/**
 * The default logger: errors are written after the current task, as the message and the
 * exception's stack, a burst of them as one write; the queue is written at once when it is full.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { defaultLogger, dispatch, setLogger } from "../src";

let written: unknown[][];
let spy: jest.SpyInstance;

beforeEach(() => {
  written = [];
  spy = jest.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    written.push(args);
  });
  setLogger(defaultLogger);
});

afterEach(() => {
  spy.mockRestore();
});

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const boom = (): never => {
  throw new globalThis.Error("boom");
};

test("a method's exception is written after the answer: the message, then the stack", async () => {
  const answer = dispatch('{"jsonrpc":"2.0","method":"boom","id":1}', { boom });
  expect(answer).toBe('{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}');
  expect(written).toEqual([]);
  await tick();
  expect(written).toHaveLength(1);
  const [text] = written[0] as [string];
  const lines = text.split("\n");
  expect(lines[0]).toBe('rpcserver: method "boom" raised an exception');
  expect(lines[1]).toBe("Error: boom");
  expect(lines[2]).toMatch(/^ {4}at boom \(/);
});

test("errors of one task are one write, in order", async () => {
  const body = JSON.stringify([1, 2, 3].map((id) => ({ jsonrpc: "2.0", method: "boom", id })));
  dispatch(body, { boom });
  dispatch('{"jsonrpc":"2.0","method":"nope","id":9}', { nope: () => 1 as never });
  await tick();
  expect(written).toHaveLength(1);
  const text = (written[0] as [string])[0];
  const headers = text.split("\n").filter((line) => line.startsWith("rpcserver:"));
  expect(headers).toEqual([
    'rpcserver: method "boom" raised an exception',
    'rpcserver: method "boom" raised an exception',
    'rpcserver: method "boom" raised an exception',
    'rpcserver: method "nope" returned something other than a Result',
  ]);
});

test("what is not a message and an Error goes to console.error as given, in its place", async () => {
  defaultLogger.error("first");
  defaultLogger.error("odd", { not: "an error" });
  defaultLogger.error("last", new globalThis.Error("x"));
  await tick();
  expect(written[0]).toEqual(["first"]);
  expect(written[1]).toEqual(["odd", { not: "an error" }]);
  expect((written[2] as [string])[0]).toMatch(/^last\nError: x\n {4}at /);
  expect(written).toHaveLength(3);
});

test("a loop that never yields: the queue is written when 1,024 errors wait", () => {
  for (let i = 0; i < 1024; i++) defaultLogger.error(`e${i}`);
  expect(written).toHaveLength(1);
  const text = (written[0] as [string])[0];
  expect(text.split("\n")).toHaveLength(1024);
  defaultLogger.error("after");
  expect(written).toHaveLength(1);
});

test("an exception without a stack is formatted by console", async () => {
  const error = new globalThis.Error("no stack");
  Object.defineProperty(error, "stack", { value: undefined });
  defaultLogger.error("message", error);
  await tick();
  expect(written).toEqual([["message", error]]);
});

test("a logger of your own gets the message and the exception at once", () => {
  const seen: unknown[][] = [];
  const previous = setLogger({ error: (...args) => seen.push(args), warn: () => undefined, info: () => undefined });
  try {
    dispatch('{"jsonrpc":"2.0","method":"boom","id":1}', { boom });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.[0]).toBe('rpcserver: method "boom" raised an exception');
    expect(seen[0]?.[1]).toBeInstanceOf(globalThis.Error);
  } finally {
    setLogger(previous);
  }
});

test("what is queued is written when the process exits in the same task (built package)", () => {
  const entry = pathToFileURL(join(__dirname, "..", "dist", "esm", "index.js")).href;
  const script = `import { dispatch } from ${JSON.stringify(entry)};
dispatch('{"jsonrpc":"2.0","method":"boom","id":1}', { boom: () => { throw new Error("late"); } });
process.exit(0);`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(child.status).toBe(0);
  expect(child.stderr).toMatch(/^rpcserver: method "boom" raised an exception\nError: late\n {4}at /);
});
