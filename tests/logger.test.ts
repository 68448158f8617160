/**
 * The default logger: errors are written after the current task, as the message and the
 * exception's stack, a burst of them as one write; the queue is written at once when it is full.
 * A flood of one kind of error is sampled: the first 3 of a kind in a second whole, then one in 100
 * without its stack, with counts of what was not written.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { asyncDispatch, defaultLogger, dispatch, setLogger } from "../src";
import { makeDefaultLogger } from "../src/internal/core/logger";

let written: unknown[][];
let spy: jest.SpyInstance;

beforeEach(() => {
  written = [];
  spy = jest.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    written.push(args);
  });
  // A default logger of the test's own: the default logger counts what it has seen (sampling), and
  // each test starts from nothing seen.
  setLogger(makeDefaultLogger());
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
  // A logger of its own: 1,024 kinds, each new to it (the default logger counts at most 1,024 kinds).
  const logger = makeDefaultLogger();
  for (let i = 0; i < 1024; i++) logger.error(`e${i}`);
  expect(written).toHaveLength(1);
  const text = (written[0] as [string])[0];
  expect(text.split("\n")).toHaveLength(1024);
  logger.error("after");
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

describe("a flood of errors is sampled", () => {
  const flood = (): never => {
    throw new globalThis.Error("flood");
  };
  const FLOOD = '{"jsonrpc":"2.0","method":"flood","id":1}';
  const HEADER = 'rpcserver: method "flood" raised an exception';

  /** A clock the test moves (milliseconds). */
  const clock = (): { now: () => number; advance: (ms: number) => void } => {
    let time = 0;
    return { now: () => time, advance: (ms) => void (time += ms) };
  };

  /** Every line written so far (each write is one text, lines joined by newlines). */
  const lines = (): string[] =>
    written.flatMap((args) => (args.length === 1 && typeof args[0] === "string" ? args[0].split("\n") : []));

  /** The entries written: each starts with a line that starts with "rpcserver:". */
  const entries = (): string[][] =>
    lines().reduce<string[][]>((all, line) => {
      if (line.startsWith("rpcserver:")) all.push([line]);
      else all.at(-1)?.push(line);
      return all;
    }, []);

  const whole = (entry: string[]): boolean => entry.length > 2 && /^ {4}at /.test(entry[2] ?? "");

  /** What the counts in the written lines add up to. */
  const counted = (all: string[][]): number =>
    all.reduce((sum, [header]) => sum + Number(/\[(?:sampled: )?(\d+) more/.exec(header ?? "")?.[1] ?? 0), 0);

  test("the default logger: 10,000 identical exceptions write the first 3 whole and far fewer stacks", async () => {
    setLogger(defaultLogger);
    for (let i = 0; i < 10_000; i++) dispatch(FLOOD, { flood });
    await tick();
    const all = entries();
    expect(all.slice(0, 3).every(whole)).toBe(true);
    expect(all.slice(0, 3).map((entry) => entry.slice(0, 2))).toEqual(Array(3).fill([HEADER, "Error: flood"]));
    // Three whole a second at most: however slow the machine, far fewer than one a request.
    expect(all.filter(whole).length).toBeLessThan(100);
    expect(all.length).toBeLessThan(1_000);
    const sampled = all.filter((entry) => entry[0]?.includes("[sampled: "));
    expect(sampled.length).toBeGreaterThan(0);
    for (const entry of sampled)
      expect(entry).toEqual([
        expect.stringMatching(
          /^rpcserver: method "flood" raised an exception \[sampled: \d+ more like it not logged before this one\]$/,
        ),
        "Error: flood",
      ]);
  });

  test("10,000 identical exceptions in one interval: 3 whole, then one in 100 short, the rest counted", async () => {
    const time = clock();
    setLogger(makeDefaultLogger({ now: time.now }));
    for (let i = 0; i < 10_000; i++) dispatch(FLOOD, { flood });
    await tick();
    const all = entries();
    expect(all.slice(0, 3).every(whole)).toBe(true);
    expect(all.slice(0, 3).map((entry) => entry[0])).toEqual([HEADER, HEADER, HEADER]);
    // The 103rd, 203rd, ... 9,903rd: 99 lines without a stack, each counting the 99 before it.
    expect(all.slice(3)).toEqual(
      Array(99).fill([`${HEADER} [sampled: 99 more like it not logged before this one]`, "Error: flood"]),
    );
    // The 97 after the last sampled one are counted once the second is over, at the next error.
    written = [];
    time.advance(1000);
    dispatch(FLOOD, { flood });
    await tick();
    const after = entries();
    expect(after[0]).toEqual([`${HEADER} [97 more like it not logged]`, "Error: flood"]);
    expect(after).toHaveLength(2);
    expect(whole(after[1] ?? [])).toBe(true);
    expect(after[1]?.[0]).toBe(HEADER);
    // Every exception is written or counted.
    expect(all.length + counted(all) + counted(after)).toBe(10_000);
  });

  test("async dispatch: the same sampling", async () => {
    const time = clock();
    setLogger(makeDefaultLogger({ now: time.now }));
    const methods = { flood: async (): Promise<never> => flood() };
    for (let i = 0; i < 250; i++) await asyncDispatch(FLOOD, methods);
    await tick();
    const all = entries();
    expect(all.filter(whole)).toHaveLength(3);
    expect(all.slice(3)).toEqual(
      Array(2).fill([`${HEADER} [sampled: 99 more like it not logged before this one]`, "Error: flood"]),
    );
  });

  test("each kind gets its first 3: the method, the exception's name and its message tell kinds apart", async () => {
    const time = clock();
    setLogger(makeDefaultLogger({ now: time.now }));
    const methods = {
      a: () => {
        throw new globalThis.Error("x");
      },
      b: () => {
        throw new globalThis.Error("x");
      },
      c: () => {
        throw new TypeError("x");
      },
      d: () => {
        throw new globalThis.Error("y");
      },
    };
    for (let i = 0; i < 5; i++) {
      for (const name of ["a", "b", "c", "d"]) dispatch(`{"jsonrpc":"2.0","method":"${name}","id":1}`, methods);
    }
    await tick();
    const all = entries();
    expect(all).toHaveLength(12);
    expect(all.every(whole)).toBe(true);
    const kinds = all.map((entry) => `${entry[0]} / ${entry[1]}`);
    expect(new Set(kinds).size).toBe(4);
    for (const kind of new Set(kinds)) expect(kinds.filter((k) => k === kind)).toHaveLength(3);
    expect(kinds).toContain('rpcserver: method "c" raised an exception / TypeError: x');
    expect(kinds).toContain('rpcserver: method "d" raised an exception / Error: y');
  });

  test("after the interval, the first 3 are written whole again, after the count of what was not", async () => {
    const time = clock();
    setLogger(makeDefaultLogger({ now: time.now }));
    for (let i = 0; i < 10; i++) dispatch(FLOOD, { flood });
    time.advance(999);
    dispatch(FLOOD, { flood });
    await tick();
    expect(entries().filter(whole)).toHaveLength(3);
    expect(entries()).toHaveLength(3);
    written = [];
    time.advance(1);
    for (let i = 0; i < 4; i++) dispatch(FLOOD, { flood });
    await tick();
    const after = entries();
    expect(after[0]).toEqual([`${HEADER} [8 more like it not logged]`, "Error: flood"]);
    expect(after.slice(1).every(whole)).toBe(true);
    expect(after).toHaveLength(4);
  });

  test("errors without an exception are sampled by their message", async () => {
    const time = clock();
    const logger = makeDefaultLogger({ now: time.now });
    for (let i = 0; i < 201; i++) logger.error("rpcserver: something went wrong");
    await tick();
    expect(lines()).toEqual([
      ...Array(3).fill("rpcserver: something went wrong"),
      "rpcserver: something went wrong [sampled: 99 more like it not logged before this one]",
    ]);
  });

  test("hostile exceptions are sampled too, and reading them never throws", async () => {
    const time = clock();
    setLogger(makeDefaultLogger({ now: time.now }));
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new globalThis.Error("trap");
        },
        getPrototypeOf: () => {
          throw new globalThis.Error("trap");
        },
      },
    );
    const methods = {
      hostile: () => {
        throw hostile;
      },
    };
    for (let i = 0; i < 103; i++) {
      expect(dispatch('{"jsonrpc":"2.0","method":"hostile","id":1}', methods)).toContain("-32603");
    }
    await tick();
    const all = entries();
    expect(all).toHaveLength(4);
    expect(all[0]).toEqual(['rpcserver: method "hostile" raised an exception', "(a value that cannot be described)"]);
    expect(all[3]).toEqual([
      'rpcserver: method "hostile" raised an exception [sampled: 99 more like it not logged before this one]',
      "(a value that cannot be described)",
    ]);
  });

  test("errors of more kinds than are counted are sampled together", async () => {
    const time = clock();
    const logger = makeDefaultLogger({ now: time.now, kinds: 2 });
    for (let i = 0; i < 106; i++) logger.error(`rpcserver: error ${i}`);
    time.advance(1000);
    logger.error("rpcserver: error 0");
    await tick();
    expect(lines()).toEqual([
      "rpcserver: error 0",
      "rpcserver: error 1",
      "rpcserver: error 2",
      "rpcserver: error 3",
      "rpcserver: error 4",
      "rpcserver: error 104 [sampled: 99 more errors of other kinds not logged before this one]",
      "rpcserver: 1 more errors not logged (of kinds beyond the first 2 in 1000 ms)",
      "rpcserver: error 0",
    ]);
  });

  test("a logger of your own gets every one of a flood", () => {
    let seen = 0;
    const previous = setLogger({ error: () => void seen++, warn: () => undefined, info: () => undefined });
    try {
      for (let i = 0; i < 10_000; i++) dispatch(FLOOD, { flood });
      expect(seen).toBe(10_000);
    } finally {
      setLogger(previous);
    }
  });

  test("what was not written is counted when the process exits (built package)", () => {
    const dist = join(__dirname, "..", "dist", "esm");
    // The built default logger, its clock stopped as makeDefaultLogger({ now: () => 0 }) stops it.
    const script = `import { defaultLogger, dispatch, setLogger } from ${JSON.stringify(pathToFileURL(join(dist, "index.js")).href)};
Date.now = () => 0;
setLogger(defaultLogger);
const methods = { flood: () => { throw new Error("flood"); } };
for (let i = 0; i < 150; i++) dispatch('{"jsonrpc":"2.0","method":"flood","id":1}', methods);
process.exit(0);`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(child.status).toBe(0);
    const headers = child.stderr.split("\n").filter((line) => line.startsWith("rpcserver:"));
    expect(headers).toEqual([
      HEADER,
      HEADER,
      HEADER,
      `${HEADER} [sampled: 99 more like it not logged before this one]`,
      `${HEADER} [47 more like it not logged]`,
    ]);
  });
});
