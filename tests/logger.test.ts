/**
 * The default logger: errors are written after the current task, as the message and the
 * exception's stack, a burst of them as one write; the queue is written at once when it is full.
 * A flood of one kind of error is sampled: the first 3 of a kind in a second whole, then one in 100
 * without its stack, with counts of what was not written.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as E from "fp-ts/Either";
import fc from "fast-check";
import { asyncDispatch, defaultLogger, dispatch, setLogger, Success, type Call } from "../src";
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
    'rpcserver: method "nope" returned something other than a Result (its value wrapped: Success(value), or Error(code, message))',
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

test("one exit listener however many loggers log: a listener each would pass Node's limit of 10 and warn", async () => {
  const before = process.listenerCount("exit");
  for (let i = 0; i < 12; i++) makeDefaultLogger().error(`logger ${i}`);
  await tick();
  expect(written).toHaveLength(12);
  expect(process.listenerCount("exit") - before).toBeLessThanOrEqual(1);
});

test("an exception without a stack is formatted by console", async () => {
  const error = new globalThis.Error("no stack");
  Object.defineProperty(error, "stack", { value: undefined });
  defaultLogger.error("message", error);
  await tick();
  expect(written).toEqual([["message", error]]);
});

test("an exception with an empty stack is formatted by console, not written as a blank line", async () => {
  const error = new globalThis.Error("connection disconnected");
  error.stack = "";
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

  test("each kind gets its first 3: the method and the exception's class tell kinds apart, its message does not", async () => {
    const time = clock();
    setLogger(makeDefaultLogger({ now: time.now }));
    class SignatureError extends globalThis.Error {}
    let round = 0;
    const methods = {
      // Worded differently every time, as an error quoting a client's params is: still one kind.
      a: () => {
        throw new globalThis.Error(`x ${round}`);
      },
      b: () => {
        throw new globalThis.Error("x");
      },
      c: () => {
        throw new TypeError("x");
      },
      // One method, two classes: two kinds (a subclass's `name` is still "Error").
      d: () => {
        throw round % 2 === 0 ? new globalThis.Error(`y ${round}`) : new SignatureError(`y ${round}`);
      },
    };
    for (round = 0; round < 10; round++) {
      for (const name of ["a", "b", "c", "d"]) dispatch(`{"jsonrpc":"2.0","method":"${name}","id":1}`, methods);
    }
    await tick();
    const all = entries();
    expect(all).toHaveLength(15);
    expect(all.every(whole)).toBe(true);
    expect(all.map((entry) => `${entry[0]} / ${entry[1]}`)).toEqual([
      'rpcserver: method "a" raised an exception / Error: x 0',
      'rpcserver: method "b" raised an exception / Error: x',
      'rpcserver: method "c" raised an exception / TypeError: x',
      'rpcserver: method "d" raised an exception / Error: y 0',
      'rpcserver: method "a" raised an exception / Error: x 1',
      'rpcserver: method "b" raised an exception / Error: x',
      'rpcserver: method "c" raised an exception / TypeError: x',
      'rpcserver: method "d" raised an exception / Error: y 1',
      'rpcserver: method "a" raised an exception / Error: x 2',
      'rpcserver: method "b" raised an exception / Error: x',
      'rpcserver: method "c" raised an exception / TypeError: x',
      'rpcserver: method "d" raised an exception / Error: y 2',
      'rpcserver: method "d" raised an exception / Error: y 3',
      'rpcserver: method "d" raised an exception / Error: y 4',
      'rpcserver: method "d" raised an exception / Error: y 5',
    ]);
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

  test("past the kinds counted, the first of each further kind is still written, then they are sampled together", async () => {
    const time = clock();
    const logger = makeDefaultLogger({ now: time.now, kinds: 2, overflow: 2 });
    for (let i = 0; i < 108; i++) logger.error(`rpcserver: error ${i}`);
    time.advance(1000);
    logger.error("rpcserver: error 0");
    await tick();
    expect(lines()).toEqual([
      // Counted: 0 and 1. Past them, the first of 2 and 3 (remembered by a number). Then one kind.
      "rpcserver: error 0",
      "rpcserver: error 1",
      "rpcserver: error 2",
      "rpcserver: error 3",
      "rpcserver: error 4",
      "rpcserver: error 5",
      "rpcserver: error 6",
      "rpcserver: error 106 [sampled: 99 more errors of other kinds not logged before this one]",
      "rpcserver: 1 more errors not logged (of kinds beyond the first 2 in 1000 ms)",
      "rpcserver: error 0",
    ]);
  });

  test("the kinds counted are bounded in bytes too: a kind that would pass the bound is one past those counted", async () => {
    const time = clock();
    // Room for one kind of a short message and its exception's line, not two; nothing past them.
    const logger = makeDefaultLogger({ now: time.now, bytes: 400, overflow: 0 });
    for (let i = 0; i < 6; i++) logger.error(`rpcserver: error ${i}`, new globalThis.Error("x"));
    time.advance(1000);
    logger.error("rpcserver: error 0", new globalThis.Error("x"));
    await tick();
    // error 0 is counted; 1 to 5 are one kind, past it, whose first 3 are written and 2 counted.
    expect(entries().map((entry) => entry[0])).toEqual([
      "rpcserver: error 0",
      "rpcserver: error 1",
      "rpcserver: error 2",
      "rpcserver: error 3",
      "rpcserver: 2 more errors not logged (of kinds beyond the first 1024 in 1000 ms)",
      "rpcserver: error 0",
    ]);
  });

  test("the issue's attack: 1,030 differently worded errors from one method do not hide another method's first", async () => {
    const time = clock();
    setLogger(makeDefaultLogger({ now: time.now }));
    const methods = {
      parse: (input: unknown) => {
        throw new globalThis.Error(`cannot parse ${JSON.stringify(input)}`);
      },
      verify: () => {
        throw new globalThis.Error("signature check failed");
      },
    };
    const body = JSON.stringify([
      ...Array.from({ length: 1030 }, (_, i) => ({ jsonrpc: "2.0", method: "parse", params: [`x${i}`], id: i })),
      { jsonrpc: "2.0", method: "verify", id: "last" },
    ]);
    dispatch(body, methods);
    await tick();
    const all = entries();
    const parse = 'rpcserver: method "parse" raised an exception';
    expect(all.slice(0, 3).map((entry) => entry.slice(0, 2))).toEqual([
      [parse, 'Error: cannot parse "x0"'],
      [parse, 'Error: cannot parse "x1"'],
      [parse, 'Error: cannot parse "x2"'],
    ]);
    expect(all.slice(3, 13).map((entry) => entry[0])).toEqual(
      Array(10).fill(`${parse} [sampled: 99 more like it not logged before this one]`),
    );
    expect(all[13]?.slice(0, 2)).toEqual([
      'rpcserver: method "verify" raised an exception',
      "Error: signature check failed",
    ]);
    expect(whole(all[13] ?? [])).toBe(true);
    expect(all).toHaveLength(14);
  });

  test("unknown methods are one kind: a stage's errors for 2,000 names a client made up do not hide a known method's", async () => {
    const time = clock();
    setLogger(makeDefaultLogger({ now: time.now, kinds: 8, overflow: 8 }));
    const stage = (call: Call): never => {
      throw new globalThis.Error(`refused ${String(call.request.method)}`);
    };
    const methods = { known: () => Success(1) };
    const body = JSON.stringify([
      ...Array.from({ length: 2000 }, (_, i) => ({ jsonrpc: "2.0", method: `made-up-${i}`, id: i })),
      { jsonrpc: "2.0", method: "known", id: "last" },
    ]);
    dispatch(body, methods, { stages: [stage] });
    await tick();
    const all = entries();
    expect(all.slice(0, 3).map((entry) => entry.slice(0, 2))).toEqual(
      [0, 1, 2].map((i) => [
        `rpcserver: stage for method "made-up-${i}" raised an exception`,
        `Error: refused made-up-${i}`,
      ]),
    );
    expect(all.slice(3, 22).map((entry) => entry[0])).toEqual(
      Array.from(
        { length: 19 },
        (_, i) =>
          `rpcserver: stage for method "made-up-${102 + 100 * i}" raised an exception [sampled: 99 more like it not logged before this one]`,
      ),
    );
    expect(all[22]?.slice(0, 2)).toEqual([
      'rpcserver: stage for method "known" raised an exception',
      "Error: refused known",
    ]);
    expect(all).toHaveLength(23);
  });

  test("property: what a client chooses (method names, params, the message they end up in) makes no kind", async () => {
    // The server defines these kinds: each method of the table with each class it throws, the
    // stage's errors for each method of the table, and one for every name the table has not.
    class Refused extends globalThis.Error {}
    const table = {
      a: (text: unknown) => {
        throw new globalThis.Error(`a: ${String(text)}`);
      },
      b: (text: unknown) => {
        throw String(text).length % 2 === 0 ? new TypeError(String(text)) : new Refused(String(text));
      },
      c: () => Success(0),
    };
    const stage = (call: Call): E.Either<never, Call> => {
      const [text] = (call.request.params ?? []) as unknown[];
      if (String(text).startsWith("!")) throw new Refused(`${String(call.request.method)}${String(text)}`);
      return E.right(call);
    };
    // a: Error; b: TypeError, Refused; the stage for a, b, c; the stage for every name not in the table.
    const SERVER_KINDS = 1 + 2 + 3 + 1;
    type Member = { readonly method: string; readonly text: string };
    /** A member's kind, and its error's two first lines (`undefined` when it throws nothing). */
    const expected = ({ method, text }: Member): { kind: string; lines: [string, string] } | undefined => {
      const known = method === "a" || method === "b" || method === "c";
      if (text.startsWith("!")) {
        const lines: [string, string] = [
          `rpcserver: stage for method "${method}" raised an exception`,
          `Error: ${method}${text}`,
        ];
        return { kind: `stage ${known ? method : "not in the table"}`, lines };
      }
      const header = `rpcserver: method "${method}" raised an exception`;
      if (method === "a") return { kind: "a Error", lines: [header, `Error: a: ${text}`] };
      if (method !== "b") return undefined;
      return text.length % 2 === 0
        ? { kind: "b TypeError", lines: [header, `TypeError: ${text}`] }
        : { kind: "b Refused", lines: [header, `Error: ${text}`] };
    };
    /** Any text on one line (the test reads the log line by line). */
    const line = (most: number): fc.Arbitrary<string> =>
      fc.string({ maxLength: most }).map((text) => text.replace(/[\r\n\u2028\u2029]/g, " "));
    const member = fc.record({
      method: fc.oneof(fc.constantFrom("a", "b", "c"), line(20)),
      text: fc.oneof(
        line(30),
        line(30).map((text) => `!${text}`),
      ),
    });
    // A flood of members each worded differently (its index in its text), then one call of a
    // method the flood may not have made fail yet.
    const batches = fc
      .tuple(fc.array(member, { minLength: 20, maxLength: 300 }), fc.constantFrom("probe", "probe!"))
      .map(([flood, probe]): Member[] => [
        ...flood.map(({ method, text }, i) => ({ method, text: `${text} #${i}` })),
        { method: "b", text: probe },
      ]);
    // Room for the kinds the server defines, and no overflow: a kind a client made would show.
    const time = clock();
    setLogger(makeDefaultLogger({ now: time.now, kinds: SERVER_KINDS, overflow: 0 }));
    await fc.assert(
      fc.asyncProperty(batches, async (members) => {
        // Each run in an interval of its own (the count of what the last one did not write comes first).
        time.advance(1000);
        written = [];
        const body = JSON.stringify(
          members.map(({ method, text }, id) => ({ jsonrpc: "2.0", method, params: [text], id })),
        );
        dispatch(body, table, { stages: [stage] });
        await tick();
        const all = entries();
        const wholeOnes = all.filter(whole).map((entry) => `${entry[0]}\n${entry[1]}`);
        // The first error of each server-defined kind is written whole.
        const kinds = members.map(expected);
        const firsts = kinds.filter((k, i) => k !== undefined && kinds.findIndex((o) => o?.kind === k.kind) === i);
        for (const first of firsts) expect(wholeOnes).toContain(first?.lines.join("\n"));
        // Nothing went to the kinds past those counted: no count of them, no sampled line for them.
        const overflowed = lines().some(
          (text) => text.includes("errors of other kinds") || text.includes("kinds beyond"),
        );
        expect(overflowed).toBe(false);
        // At most 3 whole of each kind: the client's words made no more.
        expect(wholeOnes.length).toBeLessThanOrEqual(3 * firsts.length);
      }),
      { seed: 20261129, numRuns: 60 },
    );
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
