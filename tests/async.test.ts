/**
 * Async dispatch: async and plain methods, every request of a batch running at once, the batch's
 * order kept, and the same answers as sync dispatch for plain methods.
 */
import {
  asyncDispatch,
  asyncDispatchToResponse,
  asyncDispatchToSerializable,
  dispatch,
  dispatchToResponse,
  dispatchToSerializable,
  Error,
  InvalidParams,
  JsonRpcError,
  Success,
  withParams,
  type Methods,
  type Result,
} from "../src";
import * as t from "io-ts";
import fc from "fast-check";
import { recordLogs } from "./support";

/** A promise and the function that resolves it. */
const deferred = <T = void>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

describe("methods", () => {
  test("async methods, plain methods and methods returning a thenable all work", async () => {
    const methods: Methods = {
      later: async (n: number) => Success(n * 2),
      now: (n: number) => Success(n + 1),
      thenable: () => ({ then: (resolve: (r: Result) => void) => resolve(Success("then")) }) as PromiseLike<Result>,
    };
    expect(
      await asyncDispatch(
        '[{"jsonrpc":"2.0","method":"later","params":[2],"id":1},{"jsonrpc":"2.0","method":"now","params":[2],"id":2},{"jsonrpc":"2.0","method":"thenable","id":3}]',
        methods,
      ),
    ).toBe(
      '[{"jsonrpc":"2.0","result":4,"id":1},{"jsonrpc":"2.0","result":3,"id":2},{"jsonrpc":"2.0","result":"then","id":3}]',
    );
  });

  test("an async method that rejects is -32603, its message only under debug, and logged", async () => {
    const reason = new globalThis.Error("async secret");
    const methods: Methods = { m: async () => Promise.reject(reason) };
    const text = '{"jsonrpc":"2.0","method":"m","id":1}';
    expect(await asyncDispatch(text, methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}',
    );
    expect(await asyncDispatch(text, methods, { debug: true })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"async secret"},"id":1}',
    );
    expect(logs.entries).toStrictEqual([
      { level: "error", args: ['rpcserver: method "m" raised an exception', reason] },
      { level: "error", args: ['rpcserver: method "m" raised an exception', reason] },
    ]);
  });

  test("an async method that throws a JsonRpcError, or resolves to Error, is sent as given", async () => {
    const methods: Methods = {
      thrown: async () => {
        await Promise.resolve();
        throw new JsonRpcError(5, "Nope", [1]);
      },
      returned: async () => Error(6, "Also nope"),
      invalid: async () => InvalidParams("bad"),
    };
    expect(
      await asyncDispatch(
        '[{"jsonrpc":"2.0","method":"thrown","id":1},{"jsonrpc":"2.0","method":"returned","id":2},{"jsonrpc":"2.0","method":"invalid","id":3}]',
        methods,
      ),
    ).toBe(
      '[{"jsonrpc":"2.0","error":{"code":5,"message":"Nope","data":[1]},"id":1},{"jsonrpc":"2.0","error":{"code":6,"message":"Also nope"},"id":2},{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"bad"},"id":3}]',
    );
  });

  test("an async method resolving to something other than a Result is -32603", async () => {
    expect(await asyncDispatch('{"jsonrpc":"2.0","method":"m","id":1}', { m: async () => 42 as never })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"The method did not return a Result"},"id":1}',
    );
  });

  test("a notification is run to completion before async dispatch resolves, and sends nothing", async () => {
    let finished = false;
    const methods: Methods = {
      m: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        finished = true;
        return Success();
      },
    };
    expect(await asyncDispatch('{"jsonrpc":"2.0","method":"m"}', methods)).toBe("");
    expect(finished).toBe(true);
  });

  test("a rejected notification sends nothing and is not an unhandled rejection", async () => {
    const methods: Methods = { m: async () => Promise.reject(new globalThis.Error("quiet")) };
    expect(await asyncDispatch('[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","method":"m"}]', methods)).toBe("");
    expect(logs.entries).toHaveLength(2);
  });

  test("async methods with a params codec receive the decoded params", async () => {
    const methods: Methods = {
      add: withParams(t.tuple([t.number, t.number]), async (a, b) => Success(a + b)),
    };
    expect(await asyncDispatch('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}', methods)).toBe(
      '{"jsonrpc":"2.0","result":3,"id":1}',
    );
    expect(await asyncDispatch('{"jsonrpc":"2.0","method":"add","params":[1],"id":1}', methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":["params[1]: expected number, got undefined"]},"id":1}',
    );
  });
});

describe("concurrency", () => {
  test("every request of a batch has started before any of them finishes", async () => {
    const events: string[] = [];
    const allStarted = deferred();
    let started = 0;
    const step = async (name: string) => {
      events.push(`start ${name}`);
      started += 1;
      if (started === 3) allStarted.resolve();
      await allStarted.promise;
      events.push(`end ${name}`);
      return Success(name);
    };
    const methods: Methods = { a: () => step("a"), b: () => step("b"), c: () => step("c") };
    const answer = await asyncDispatch(
      '[{"jsonrpc":"2.0","method":"a","id":1},{"jsonrpc":"2.0","method":"b","id":2},{"jsonrpc":"2.0","method":"c","id":3}]',
      methods,
    );
    expect(answer).toBe(
      '[{"jsonrpc":"2.0","result":"a","id":1},{"jsonrpc":"2.0","result":"b","id":2},{"jsonrpc":"2.0","result":"c","id":3}]',
    );
    expect(events.slice(0, 3)).toStrictEqual(["start a", "start b", "start c"]);
    expect(events.slice(3).sort()).toStrictEqual(["end a", "end b", "end c"]);
  }, 10_000);

  test("a method that waits for a later member of the batch completes (no sequential deadlock)", async () => {
    // A resolves only after B has started; B resolves only after A has started. Run one after the
    // other, the batch could never finish (the test would time out instead of passing).
    const aStarted = deferred();
    const bStarted = deferred();
    const methods: Methods = {
      a: async () => {
        aStarted.resolve();
        await bStarted.promise;
        return Success("a");
      },
      b: async () => {
        bStarted.resolve();
        await aStarted.promise;
        return Success("b");
      },
    };
    expect(
      await asyncDispatch('[{"jsonrpc":"2.0","method":"a","id":"A"},{"jsonrpc":"2.0","method":"b","id":"B"}]', methods),
    ).toBe('[{"jsonrpc":"2.0","result":"a","id":"A"},{"jsonrpc":"2.0","result":"b","id":"B"}]');
  }, 10_000);

  test("the batch's order is kept when its members finish in reverse order", async () => {
    const finished: number[] = [];
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const methods: Methods = {
      m: async (i: number) => {
        await gates[i]?.promise;
        finished.push(i);
        gates[i - 1]?.resolve();
        return Success(i);
      },
    };
    const pending = asyncDispatch(
      `[${[0, 1, 2, 3].map((i) => `{"jsonrpc":"2.0","method":"m","params":[${i}],"id":${i}}`).join(",")}]`,
      methods,
    );
    gates[3]?.resolve();
    expect(await pending).toBe(
      '[{"jsonrpc":"2.0","result":0,"id":0},{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","result":2,"id":2},{"jsonrpc":"2.0","result":3,"id":3}]',
    );
    expect(finished).toStrictEqual([3, 2, 1, 0]);
  }, 10_000);

  test("interleaved dispatches with different contexts never see each other's", async () => {
    const gate = deferred();
    const methods: Methods = {
      whoami: async (context: unknown) => {
        await gate.promise;
        return Success(context);
      },
    };
    const text = '{"jsonrpc":"2.0","method":"whoami","id":1}';
    const first = asyncDispatch(text, methods, { context: "alice" });
    const second = asyncDispatch(text, methods, { context: "bob" });
    gate.resolve();
    expect(await Promise.all([first, second])).toStrictEqual([
      '{"jsonrpc":"2.0","result":"alice","id":1}',
      '{"jsonrpc":"2.0","result":"bob","id":1}',
    ]);
  }, 10_000);
});

describe("plain methods: async dispatch answers exactly as sync dispatch", () => {
  const methods: Methods = {
    add: (a: number, b: number) => Success(a + b),
    echo: (...args: unknown[]) => Success(args),
    fail: () => Error(3, "Failed", { why: "because" }),
    invalid: () => InvalidParams(),
    boom: () => {
      throw new globalThis.Error("boom");
    },
    raise: () => {
      throw new JsonRpcError(4, "Raised");
    },
    notResult: () => 1 as never,
    nan: () => Success(NaN),
    typed: withParams(t.type({ n: t.number }), ({ n }) => Success(n)),
  };
  const requests = [
    '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}',
    '{"jsonrpc":"2.0","method":"add","params":[1],"id":1}',
    '{"jsonrpc":"2.0","method":"echo","params":{"a":[1,null]},"id":"e"}',
    '{"jsonrpc":"2.0","method":"echo"}',
    '{"jsonrpc":"2.0","method":"fail","id":null}',
    '{"jsonrpc":"2.0","method":"invalid","id":2}',
    '{"jsonrpc":"2.0","method":"boom","id":3}',
    '{"jsonrpc":"2.0","method":"raise","id":4}',
    '{"jsonrpc":"2.0","method":"notResult","id":5}',
    '{"jsonrpc":"2.0","method":"nan","id":6}',
    '{"jsonrpc":"2.0","method":"typed","params":{"n":"x"},"id":7}',
    '{"jsonrpc":"2.0","method":"missing","id":8}',
    '{"jsonrpc":"2.0","method":1,"id":9}',
    "{",
    "[]",
    "[1,2]",
    '[{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"echo"}]',
  ];
  const all = `[${requests.filter((r) => r.startsWith('{"')).join(",")}]`;

  test.each([...requests, all])("%s", async (request) => {
    for (const debug of [false, true]) {
      const options = { debug };
      expect(await asyncDispatch(request, methods, options)).toBe(dispatch(request, methods, options));
      expect(await asyncDispatchToSerializable(request, methods, options)).toStrictEqual(
        dispatchToSerializable(request, methods, options),
      );
      expect(await asyncDispatchToResponse(request, methods, options)).toStrictEqual(
        dispatchToResponse(request, methods, options),
      );
    }
  });

  test("for random batches of these requests", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...requests.filter((r) => r.startsWith('{"'))), { maxLength: 12 }),
        async (members) => {
          const request = `[${members.join(",")}]`;
          expect(await asyncDispatch(request, methods)).toBe(dispatch(request, methods));
        },
      ),
      { numRuns: 100 },
    );
  });
});
