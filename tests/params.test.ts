/**
 * Params: how a request's params become a method's arguments, io-ts codecs for params, the arity
 * check without a codec, and the context argument.
 */
import * as t from "io-ts";
import { dispatch, InvalidParams, method, globalMethods, Success, withContext, withParams, type Methods } from "../src";
import { recordLogs } from "./support";

/** Records the arguments of each call, and answers with how many there were. */
const recorder = () => {
  const calls: unknown[][] = [];
  const f = (...args: unknown[]) => {
    calls.push(args);
    return Success(args.length);
  };
  return { calls, f };
};

const request = (params?: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: "2.0", method: "m", ...(params === undefined ? {} : { params }), id });

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

describe("params to arguments", () => {
  test("array params are spread as positional arguments", () => {
    const { calls, f } = recorder();
    expect(dispatch(request([1, "two", { three: 3 }, [4], null]), { m: f })).toBe(
      '{"jsonrpc":"2.0","result":5,"id":1}',
    );
    expect(calls).toStrictEqual([[1, "two", { three: 3 }, [4], null]]);
  });

  test("object params are passed as one argument", () => {
    const { calls, f } = recorder();
    expect(dispatch(request({ a: 1, b: [2] }), { m: f })).toBe('{"jsonrpc":"2.0","result":1,"id":1}');
    expect(calls).toStrictEqual([[{ a: 1, b: [2] }]]);
  });

  test("absent params pass no argument; [] passes none; {} passes one", () => {
    const { calls, f } = recorder();
    expect(dispatch(request(), { m: f })).toBe('{"jsonrpc":"2.0","result":0,"id":1}');
    expect(dispatch(request([]), { m: f })).toBe('{"jsonrpc":"2.0","result":0,"id":1}');
    expect(dispatch(request({}), { m: f })).toBe('{"jsonrpc":"2.0","result":1,"id":1}');
    expect(calls).toStrictEqual([[], [], [{}]]);
  });

  test("a method is called with no this", () => {
    let seen: unknown = "unset";
    const methods: Methods = {
      m: function (this: unknown) {
        // eslint-disable-next-line @typescript-eslint/no-this-alias
        seen = this;
        return Success();
      },
    };
    dispatch(request(), methods);
    expect(seen).toBeUndefined();
  });
});

describe("context", () => {
  test.each([
    ["array params", [1, 2], [["ctx", 1, 2]]],
    ["object params", { a: 1 }, [["ctx", { a: 1 }]]],
    ["absent params", undefined, [["ctx"]]],
    ["empty array params", [], [["ctx"]]],
  ])("comes first, with %s", (_name, params, expected) => {
    const { calls, f } = recorder();
    dispatch(request(params), { m: f }, { context: "ctx" });
    expect(calls).toStrictEqual(expected);
  });

  test("any value but undefined and NOCONTEXT is a context, null and false included", () => {
    const { calls, f } = recorder();
    dispatch(request([1]), { m: f }, { context: null });
    dispatch(request([1]), { m: f }, { context: false });
    dispatch(request([1]), { m: f }, { context: 0 });
    expect(calls).toStrictEqual([
      [null, 1],
      [false, 1],
      [0, 1],
    ]);
  });

  test("context undefined, or NOCONTEXT, passes no context", async () => {
    const { NOCONTEXT } = await import("../src");
    const { calls, f } = recorder();
    dispatch(request([1]), { m: f }, { context: undefined });
    dispatch(request([1]), { m: f }, { context: NOCONTEXT });
    dispatch(request([1]), { m: f }, {});
    expect(calls).toStrictEqual([[1], [1], [1]]);
  });

  test("the same context object reaches every method of a batch", () => {
    const context = { user: "alice" };
    const seen: unknown[] = [];
    const m = (ctx: unknown) => {
      seen.push(ctx);
      return Success();
    };
    dispatch(`[${request(undefined, 1)},${request(undefined, 2)}]`, { m }, { context });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(context);
    expect(seen[1]).toBe(context);
  });
});

describe("arity without a codec", () => {
  const two = (a: number, b: number) => Success(a + b);

  test("enough positional arguments: called", () => {
    expect(dispatch(request([1, 2]), { m: two })).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
  });

  test("extra arguments are allowed, as JavaScript allows them", () => {
    expect(dispatch(request([1, 2, 3]), { m: two })).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
  });

  test.each([
    [[1], "expected at least 2 params, got 1"],
    [[], "expected at least 2 params, got 0"],
    [undefined, "expected at least 2 params, got 0"],
    [{ a: 1, b: 2 }, "expected at least 2 params, got 1"],
  ])("fewer arguments than f.length (params %p) is -32602 and the method is not called", (params, why) => {
    let called = false;
    const f = (a: number, b: number) => {
      called = true;
      return Success(a + b);
    };
    expect(dispatch(request(params), { m: f })).toBe(
      `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"${why}"},"id":1}`,
    );
    expect(called).toBe(false);
  });

  test("parameters with defaults and rest parameters do not count", () => {
    const withDefault = (a: number, b = 10) => Success(a + b);
    const rest = (...xs: number[]) => Success(xs.length);
    expect(dispatch(request([1]), { m: withDefault })).toBe('{"jsonrpc":"2.0","result":11,"id":1}');
    expect(dispatch(request(), { m: rest })).toBe('{"jsonrpc":"2.0","result":0,"id":1}');
  });

  test("with a context, the context counts as the first declared parameter", () => {
    const f = (ctx: string, a: number) => Success(`${ctx}${a}`);
    expect(dispatch(request([1]), { m: f }, { context: "c" })).toBe('{"jsonrpc":"2.0","result":"c1","id":1}');
    expect(dispatch(request([]), { m: f }, { context: "c" })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"expected at least 1 params, got 0"},"id":1}',
    );
    const onlyContext = (ctx: string) => Success(ctx);
    expect(dispatch(request(), { m: onlyContext }, { context: "c" })).toBe('{"jsonrpc":"2.0","result":"c","id":1}');
  });

  test("a notification whose params do not fit sends nothing and runs nothing", () => {
    let called = false;
    const f = (a: number) => {
      called = true;
      return Success(a);
    };
    expect(dispatch('{"jsonrpc":"2.0","method":"m","params":[]}', { m: f })).toBe("");
    expect(called).toBe(false);
  });
});

describe("errors inside methods are not Invalid params", () => {
  test("a TypeError thrown inside a method is -32603, never -32602", () => {
    const f = (s: string) => Success(s.toUpperCase());
    expect(dispatch(request([42]), { m: f })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}',
    );
    expect(dispatch(request([42]), { m: f }, { debug: true })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"s.toUpperCase is not a function"},"id":1}',
    );
  });

  test("a method that calls something with too few arguments is -32603", () => {
    const inner = (a: { x: number }) => a.x;
    const f = () => Success(inner(undefined as unknown as { x: number }));
    expect(dispatch(request(), { m: f })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}',
    );
  });

  test("InvalidParams returned by a method is -32602 with its data", () => {
    const divide = (a: number, b: number) => (b === 0 ? InvalidParams("division by zero") : Success(a / b));
    expect(dispatch(request([1, 0]), { m: divide })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"division by zero"},"id":1}',
    );
  });
});

/** A codec that decodes a numeric string to a number, in the style of io-ts-types' NumberFromString. */
const NumberFromString = new t.Type<number, string, unknown>(
  "NumberFromString",
  (u): u is number => typeof u === "number",
  (u, c) => {
    if (typeof u !== "string" || u.trim() === "") return t.failure(u, c, "a numeric string");
    const n = Number(u);
    return Number.isNaN(n) ? t.failure(u, c, "a numeric string") : t.success(n);
  },
  String,
);

describe("io-ts codecs for params", () => {
  const add = withParams(t.tuple([t.number, t.number]), (a, b) => Success(a + b));
  const person = withParams(t.type({ name: t.string, age: t.number }), (p) => Success(`${p.name} is ${p.age}`));

  test("valid tuple params are spread into the method", () => {
    expect(dispatch(request([2, 3]), { m: add })).toBe('{"jsonrpc":"2.0","result":5,"id":1}');
  });

  test("valid object params arrive as one argument", () => {
    expect(dispatch(request({ name: "Ada", age: 36 }), { m: person })).toBe(
      '{"jsonrpc":"2.0","result":"Ada is 36","id":1}',
    );
  });

  test.each([
    [[1, "x"], ['params[1]: expected number, got "x"']],
    [[1], ["params[1]: expected number, got undefined"]],
    [undefined, ["params[0]: expected number, got undefined", "params[1]: expected number, got undefined"]],
    [{ a: 1 }, ['params: expected [number, number], got {"a":1}']],
  ])("failing tuple params %p are -32602 with the failing paths in data", (params, data) => {
    expect(JSON.parse(dispatch(request(params), { m: add }))).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: -32602, message: "Invalid params", data },
      id: 1,
    });
  });

  test("failing object params name each failing member", () => {
    expect(JSON.parse(dispatch(request({ name: 1 }), { m: person }))).toStrictEqual({
      jsonrpc: "2.0",
      error: {
        code: -32602,
        message: "Invalid params",
        data: ["params.name: expected string, got 1", "params.age: expected number, got undefined"],
      },
      id: 1,
    });
  });

  test("nested failing paths are written out in full", () => {
    const tagged = withParams(t.type({ user: t.type({ tags: t.array(t.string) }) }), () => Success());
    expect(JSON.parse(dispatch(request({ user: { tags: ["a", 2] } }), { m: tagged }))).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: -32602, message: "Invalid params", data: ["params.user.tags[1]: expected string, got 2"] },
      id: 1,
    });
  });

  test("a long failing value is cut short in the report", () => {
    const long = "x".repeat(200);
    const report = JSON.parse(dispatch(request([long, 1]), { m: add })) as { error: { data: string[] } };
    expect(report.error.data).toStrictEqual([`params[0]: expected number, got "${"x".repeat(76)}...`]);
  });

  test("the method receives the decoded value, not the raw params", () => {
    const received: unknown[][] = [];
    const sum = withParams(t.tuple([NumberFromString, NumberFromString]), (a, b) => {
      received.push([a, b]);
      return Success(a + b);
    });
    expect(dispatch(request(["2", "40"]), { m: sum })).toBe('{"jsonrpc":"2.0","result":42,"id":1}');
    expect(received).toStrictEqual([[2, 40]]);
    expect(JSON.parse(dispatch(request(["2", "forty"]), { m: sum }))).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: -32602, message: "Invalid params", data: ['params[1]: expected a numeric string, got "forty"'] },
      id: 1,
    });
  });

  test("an exact codec strips unknown members before the method sees them", () => {
    const received: unknown[] = [];
    const f = withParams(t.exact(t.type({ a: NumberFromString })), (p) => {
      received.push(p);
      return Success(p.a);
    });
    expect(dispatch(request({ a: "7", extra: true }), { m: f })).toBe('{"jsonrpc":"2.0","result":7,"id":1}');
    expect(received).toStrictEqual([{ a: 7 }]);
  });

  test("with a codec the codec decides, not f.length", () => {
    const f = withParams(t.array(t.number), (...xs: number[]) => Success(xs.length));
    expect(dispatch(request([]), { m: f })).toBe('{"jsonrpc":"2.0","result":0,"id":1}');
    const g = withParams(t.type({ a: t.number }), (p) => Success(p.a));
    expect(dispatch(request({ a: 5 }), { m: g })).toBe('{"jsonrpc":"2.0","result":5,"id":1}');
  });

  test("with a context, the context comes first, then the decoded params", () => {
    const calls: unknown[][] = [];
    const f = withContext<string>().withParams(t.tuple([NumberFromString]), (ctx, n) => {
      calls.push([ctx, n]);
      return Success(n);
    });
    expect(dispatch(request(["5"]), { m: f }, { context: "ctx" })).toBe('{"jsonrpc":"2.0","result":5,"id":1}');
    expect(calls).toStrictEqual([["ctx", 5]]);
  });

  test("method({ name, params }) gives a registered method its codec", () => {
    try {
      method({ name: "add", params: t.tuple([NumberFromString, t.number]) })((a, b) => Success(a + b));
      expect(dispatch('{"jsonrpc":"2.0","method":"add","params":["1",2],"id":1}')).toBe(
        '{"jsonrpc":"2.0","result":3,"id":1}',
      );
      expect(dispatch('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}')).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":["params[0]: expected a numeric string, got 1"]},"id":1}',
      );
    } finally {
      delete globalMethods["add"];
    }
  });

  test("withParams returns the function itself", () => {
    const f = (a: number) => Success(a);
    expect(withParams(t.tuple([t.number]), f)).toBe(f);
  });

  test("a notification whose params fail the codec sends nothing and runs nothing", () => {
    let called = false;
    const f = withParams(t.tuple([t.number]), (n) => {
      called = true;
      return Success(n);
    });
    expect(dispatch('{"jsonrpc":"2.0","method":"m","params":["x"]}', { m: f })).toBe("");
    expect(called).toBe(false);
  });
});
