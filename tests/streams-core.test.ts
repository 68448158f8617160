/**
 * Issue 24, the handler side: a method written as an `async function*` yields values before it
 * returns its result. The call stage drains it: each value encoded by the method's stream codec,
 * handed to the sink a stage gave its request (`streamTo`) and waited for before the generator
 * runs on (back-pressure), or dropped without one; then the return value is answered as a method's.
 * No timing: the tests step the event loop and count. Contracts, the document and the types are in
 * tests/streams-contract.test.ts.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { DateFromISOString } from "io-ts-types";
import {
  asyncDispatch,
  dispatch,
  JsonRpcError,
  Success,
  timeout,
  withCodecs,
  type Call,
  type ErrorResult,
  type Methods,
  type Request,
  type StandardSchemaV1,
} from "../src";
import { streamTo, type StreamSink } from "../src/pipeline";
import { recordLogs } from "./support";

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => (logs = recordLogs()));
afterEach(() => logs.restore());

/** A few turns of the event loop: whatever can run without outside help has run. */
const settled = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

const request = (method: string, params: unknown, id?: number): string =>
  JSON.stringify({ jsonrpc: "2.0", method, params, ...(id === undefined ? {} : { id }) });

/** A stage that gives each request a sink of its own, made by `make` from the request. */
const sinking =
  (make: (request: Request) => StreamSink) =>
  (call: Call): E.Either<ErrorResult, Call> => {
    streamTo(call.request, make(call.request));
    return E.right(call);
  };

/** `count(to)`: yields 1..to, records what it did, and answers `counted to N`. */
const counting = () => {
  const events: string[] = [];
  const count = withCodecs({ params: t.tuple([t.number]), stream: t.number }, async function* (to) {
    try {
      for (let i = 1; i <= to; i++) {
        events.push(`yield ${i}`);
        yield i;
      }
      return Success(`counted to ${to}`);
    } finally {
      events.push("finally");
    }
  });
  return { events, methods: { count } };
};

describe("a streaming method without a sink", () => {
  test("asyncDispatch answers its result; the values are drained and dropped", async () => {
    const { events, methods } = counting();
    expect(await asyncDispatch(request("count", [3], 1), methods)).toBe(
      '{"jsonrpc":"2.0","result":"counted to 3","id":1}',
    );
    expect(events).toEqual(["yield 1", "yield 2", "yield 3", "finally"]);
  });

  test("a notification's generator is drained (values dropped) and nothing is answered", async () => {
    const { events, methods } = counting();
    expect(await asyncDispatch(request("count", [2]), methods)).toBe("");
    expect(events).toEqual(["yield 1", "yield 2", "finally"]);
  });

  test("sync dispatch refuses it with -32603, as it refuses a Promise, and the generator never runs", async () => {
    const { events, methods } = counting();
    expect(dispatch(request("count", [2], 1), methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"The method returned an async generator; use asyncDispatch"},"id":1}',
    );
    expect(dispatch(request("count", [2]), methods)).toBe("");
    await settled();
    expect(events).toEqual([]);
    expect(logs.entries.map((entry) => entry.args[0])).toEqual([
      'rpcserver: method "count" returned an async generator to sync dispatch',
      'rpcserver: method "count" returned an async generator to sync dispatch',
    ]);
  });

  test("a plain generator method (no codecs) streams unencoded values and answers its Result", async () => {
    const methods: Methods = {
      letters: async function* () {
        yield "a";
        yield "b";
        return Success(2);
      },
    };
    const seen: unknown[] = [];
    const stages = [sinking(() => (value) => void seen.push(value))];
    expect(await asyncDispatch(request("letters", [], 1), methods, { stages })).toBe(
      '{"jsonrpc":"2.0","result":2,"id":1}',
    );
    expect(seen).toEqual(["a", "b"]);
  });
});

describe("a streaming method with a sink", () => {
  test("the sink gets each value encoded by the stream codec, in order, then the response comes", async () => {
    const events: string[] = [];
    const methods = {
      days: withCodecs({ stream: DateFromISOString, result: t.number }, async function* () {
        for (const day of [1, 2]) {
          events.push(`yield ${day}`);
          yield new Date(Date.UTC(2024, 0, day));
        }
        return Success(2);
      }),
    };
    const stages = [sinking(() => (value) => void events.push(`sink ${String(value)}`))];
    const answer = await asyncDispatch(request("days", [], 1), methods, { stages });
    events.push(answer);
    expect(events).toEqual([
      "yield 1",
      "sink 2024-01-01T00:00:00.000Z",
      "yield 2",
      "sink 2024-01-02T00:00:00.000Z",
      '{"jsonrpc":"2.0","result":2,"id":1}',
    ]);
  });

  test("back-pressure: a sink that has not taken a value holds the generator at its yield", async () => {
    const { events, methods } = counting();
    const pending: Array<() => void> = [];
    const stages = [sinking(() => () => new Promise<void>((resolve) => pending.push(resolve)))];
    const answer = asyncDispatch(request("count", [3], 1), methods, { stages });
    await settled();
    // The first value was yielded and handed over; the generator waits at that yield.
    expect(events).toEqual(["yield 1"]);
    expect(pending).toHaveLength(1);
    pending[0]?.();
    await settled();
    expect(events).toEqual(["yield 1", "yield 2"]);
    expect(pending).toHaveLength(2);
    pending[1]?.();
    await settled();
    pending[2]?.();
    expect(await answer).toBe('{"jsonrpc":"2.0","result":"counted to 3","id":1}');
    expect(events).toEqual(["yield 1", "yield 2", "yield 3", "finally"]);
  });

  test("a sink that rejects stops the generator (its finally runs) and answers -32603", async () => {
    const { events, methods } = counting();
    const stages = [
      sinking(() => async (value) => {
        if (value === 2) throw new globalThis.Error("the client went away");
      }),
    ];
    expect(await asyncDispatch(request("count", [5], 1), methods, { stages })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}',
    );
    expect(events).toEqual(["yield 1", "yield 2", "finally"]);
  });

  test("a sink that rejects with a JsonRpcError answers with that error (a transport's own code)", async () => {
    const { events, methods } = counting();
    const stages = [sinking(() => () => Promise.reject(new JsonRpcError(-32800, "Request cancelled")))];
    expect(await asyncDispatch(request("count", [5], 1), methods, { stages })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}',
    );
    expect(events).toEqual(["yield 1", "finally"]);
  });

  test("a sink that throws at once is the same as one that rejects", async () => {
    const { events, methods } = counting();
    const stages = [
      sinking(() => () => {
        throw new globalThis.Error("closed");
      }),
    ];
    expect(await asyncDispatch(request("count", [5], 1), methods, { stages, debug: true })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"closed"},"id":1}',
    );
    expect(events).toEqual(["yield 1", "finally"]);
  });

  test("a generator that throws mid-stream: the values before it were sent, the answer is its exception", async () => {
    const methods = {
      boom: withCodecs({ stream: t.number }, async function* () {
        yield 1;
        throw new JsonRpcError(7, "Ran out", { at: 2 });
      }),
      crash: withCodecs({ stream: t.number }, async function* () {
        yield 1;
        throw new globalThis.Error("secret");
      }),
    };
    const seen: unknown[] = [];
    const stages = [sinking(() => (value) => void seen.push(value))];
    expect(await asyncDispatch(request("boom", [], 1), methods, { stages })).toBe(
      '{"jsonrpc":"2.0","error":{"code":7,"message":"Ran out","data":{"at":2}},"id":1}',
    );
    expect(await asyncDispatch(request("crash", [], 2), methods, { stages })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":2}',
    );
    expect(seen).toEqual([1, 1]);
    expect(logs.entries.map((entry) => entry.args[0])).toEqual(['rpcserver: method "crash" raised an exception']);
  });

  test("a value the stream schema refuses stops the generator and answers -32603 with its lines", async () => {
    const events: string[] = [];
    const methods = {
      odd: withCodecs({ stream: positive }, async function* () {
        try {
          yield 1;
          yield -1;
          yield 2;
          return Success("never");
        } finally {
          events.push("finally");
        }
      }),
    };
    const seen: unknown[] = [];
    // Without a sink the value is checked all the same: one answer on every transport.
    for (const stages of [[], [sinking(() => (value) => void seen.push(value))]]) {
      expect(await asyncDispatch(request("odd", [], 1), methods, { stages })).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":["stream: not positive"]},"id":1}',
      );
    }
    expect(seen).toEqual([1]);
    expect(events).toEqual(["finally", "finally"]);
    expect(logs.entries[0]?.args[0]).toBe('rpcserver: the stream schema of method "odd" refused its value');
  });

  test("an io-ts stream codec whose encode throws answers -32603", async () => {
    const explosive = new t.Type<number, number, unknown>(
      "Explosive",
      (u): u is number => typeof u === "number",
      (u, c) => (typeof u === "number" ? t.success(u) : t.failure(u, c)),
      () => {
        throw new globalThis.Error("cannot encode");
      },
    );
    const methods = {
      m: withCodecs({ stream: explosive }, async function* () {
        yield 1;
        return Success(null);
      }),
    };
    expect(await asyncDispatch(request("m", [], 1), methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}',
    );
  });

  test("a batch of two streaming requests: each sink gets its own request's values", async () => {
    const { methods } = counting();
    const seen = new Map<unknown, unknown[]>();
    const stages = [
      sinking((req) => {
        const values: unknown[] = [];
        seen.set(req.id, values);
        return async (value) => void values.push(value);
      }),
    ];
    const body = `[${request("count", [2], 1)},${request("count", [3], 2)}]`;
    expect(await asyncDispatch(body, methods, { stages })).toBe(
      '[{"jsonrpc":"2.0","result":"counted to 2","id":1},{"jsonrpc":"2.0","result":"counted to 3","id":2}]',
    );
    expect(seen).toEqual(
      new Map([
        [1, [1, 2]],
        [2, [1, 2, 3]],
      ]),
    );
  });

  test("a stage that passes a new request object on passes its sink with it", async () => {
    const { methods } = counting();
    const seen: unknown[] = [];
    const rewrite = (call: Call): E.Either<ErrorResult, Call> =>
      E.right({ ...call, request: { ...call.request, params: [2] } });
    const stages = [sinking(() => (value) => void seen.push(value)), rewrite];
    expect(await asyncDispatch(request("count", [9], 1), methods, { stages })).toBe(
      '{"jsonrpc":"2.0","result":"counted to 2","id":1}',
    );
    expect(seen).toEqual([1, 2]);
  });

  test("a notification with a sink streams into it, and is still not answered", async () => {
    const { methods } = counting();
    const seen: unknown[] = [];
    const stages = [sinking(() => (value) => void seen.push(value))];
    expect(await asyncDispatch(request("count", [2]), methods, { stages })).toBe("");
    expect(seen).toEqual([1, 2]);
  });
});

describe("a streaming method answered by something else first (a timeout stage)", () => {
  const TIMED_OUT =
    '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeoutMs":20}},"id":1}';

  /** Unhandled rejections while these tests run: there must be none. */
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  beforeEach(() => process.on("unhandledRejection", onUnhandled));
  afterEach(async () => {
    await settled();
    process.off("unhandledRejection", onUnhandled);
    expect(unhandled.splice(0)).toEqual([]);
  });

  /** Waits until `check` holds (bounded: the test then fails on what it asserts). */
  const until = async (check: () => boolean): Promise<void> => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  /** `step(n)` holds the generator before its n-th value until the test calls `release(n)`; `open` steps pass at once. */
  const gated = (open: number) => {
    const events: string[] = [];
    const gates = new Map<number, () => void>();
    const step = (n: number): Promise<void> =>
      n <= open ? Promise.resolve() : new Promise<void>((resolve) => gates.set(n, resolve));
    const methods = {
      count: withCodecs({ stream: t.number }, async function* () {
        events.push("start");
        try {
          for (let n = 1; ; n++) {
            await step(n);
            events.push(`yield ${n}`);
            yield n;
          }
        } finally {
          events.push("finally");
        }
      }),
    };
    return { events, methods, release: (n: number) => gates.get(n)?.() };
  };

  test("timed out mid-stream: -32001 answered, the generator stopped at its next yield, nothing more sunk", async () => {
    const { events, methods, release } = gated(2);
    const seen: unknown[] = [];
    const stages = [timeout(20), sinking(() => (value) => void seen.push(value))];
    // The generator waits before its third value, inside (not at a yield): the timeout answers meanwhile.
    expect(await asyncDispatch(request("count", [], 1), methods, { stages })).toBe(TIMED_OUT);
    expect(events).toEqual(["start", "yield 1", "yield 2"]);
    release(3);
    await until(() => events.includes("finally"));
    // Its third value was yielded after the answer: dropped, and the generator stopped there.
    expect(events).toEqual(["start", "yield 1", "yield 2", "yield 3", "finally"]);
    expect(seen).toEqual([1, 2]);
    // Its outcome went nowhere: no log for the -32001 it was stopped with.
    expect(logs.entries).toEqual([]);
  });

  test("without a sink the same: stopped at its next yield", async () => {
    const { events, methods, release } = gated(2);
    expect(await asyncDispatch(request("count", [], 1), methods, { stages: [timeout(20)] })).toBe(TIMED_OUT);
    release(3);
    await until(() => events.includes("finally"));
    expect(events).toEqual(["start", "yield 1", "yield 2", "yield 3", "finally"]);
  });

  test("a generator held at its yield by a sink that never takes the value is stopped at once", async () => {
    const { events, methods } = gated(2);
    const offered: unknown[] = [];
    const stages = [
      timeout(20),
      sinking(() => (value) => {
        offered.push(value);
        return new Promise<void>(() => undefined);
      }),
    ];
    expect(await asyncDispatch(request("count", [], 1), methods, { stages })).toBe(TIMED_OUT);
    await until(() => events.includes("finally"));
    expect(events).toEqual(["start", "yield 1", "finally"]);
    expect(offered).toEqual([1]);
  });

  test("a generator that never finishes (it yields forever, a turn apart) is stopped by the timeout", async () => {
    const events: string[] = [];
    // Set by the test when it ends, so that a failing run does not leave the generator running.
    let abandoned = false;
    const methods = {
      forever: async function* () {
        try {
          for (let n = 1; !abandoned; n++) {
            await new Promise((resolve) => setImmediate(resolve));
            yield n;
          }
        } finally {
          events.push("finally");
        }
        return Success("abandoned");
      },
    };
    const seen: unknown[] = [];
    const stages = [timeout(20), sinking(() => (value) => void seen.push(value))];
    try {
      expect(await asyncDispatch(request("forever", [], 1), methods, { stages })).toBe(TIMED_OUT);
      const sunk = seen.length;
      await until(() => events.includes("finally"));
      expect(events).toEqual(["finally"]);
      await settled();
      // Nothing reached the sink after the answer.
      expect(seen).toEqual(Array.from({ length: sunk }, (_, i) => i + 1));
    } finally {
      abandoned = true;
    }
  });

  test("answered before the method is called (a slow stage after the timeout): none of its body runs", async () => {
    const { events, methods } = gated(0);
    let resume: () => void = () => undefined;
    const slow = (call: Call) => () =>
      new Promise<E.Either<ErrorResult, Call>>((resolve) => (resume = () => resolve(E.right(call))));
    expect(await asyncDispatch(request("count", [], 1), methods, { stages: [timeout(20), slow] })).toBe(TIMED_OUT);
    resume();
    await settled();
    expect(events).toEqual([]);
  });

  test("a stage after the timeout that passes a new request object on: the stop goes with its sink", async () => {
    const { events, methods, release } = gated(1);
    const seen: unknown[] = [];
    const rewrite = (call: Call): E.Either<ErrorResult, Call> => E.right({ ...call, request: { ...call.request } });
    const stages = [sinking(() => (value) => void seen.push(value)), timeout(20), rewrite];
    expect(await asyncDispatch(request("count", [], 1), methods, { stages })).toBe(TIMED_OUT);
    release(2);
    await until(() => events.includes("finally"));
    expect(events).toEqual(["start", "yield 1", "yield 2", "finally"]);
    expect(seen).toEqual([1]);
  });

  test("a method that ends in time is not touched: every value sunk, its own answer", async () => {
    const { events, methods } = counting();
    const seen: unknown[] = [];
    const stages = [timeout(60_000), sinking(() => (value) => void seen.push(value))];
    expect(await asyncDispatch(request("count", [3], 1), methods, { stages })).toBe(
      '{"jsonrpc":"2.0","result":"counted to 3","id":1}',
    );
    expect(seen).toEqual([1, 2, 3]);
    expect(events).toEqual(["yield 1", "yield 2", "yield 3", "finally"]);
  });
});

/** A Standard Schema of positive numbers, written out (no library). */
const positive: StandardSchemaV1<number, number> = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate: (value) =>
      typeof value === "number" && value > 0 ? { value } : { issues: [{ message: "not positive" }] },
  },
};
