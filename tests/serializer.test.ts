/**
 * Serializing: the default serializer's JSON (refusing NaN, Infinity, BigInt and cycles), each
 * response serialized on its own, custom serializers, and postProcess on the *ToResponse functions.
 */
import * as E from "fp-ts/Either";
import {
  asyncDispatchToResponse,
  dispatchToResponse,
  Error,
  ErrorResponse,
  NODATA,
  serialize,
  Success,
  SuccessResponse,
  toDict,
  type Methods,
  type Response,
} from "../src";
import { jsonDispatchers, recordLogs } from "./support";

const stringifyMessage = (value: unknown): string => {
  try {
    JSON.stringify(value);
  } catch (thrown) {
    return (thrown as Error).message;
  }
  throw new globalThis.Error("expected JSON.stringify to throw");
};

const cycle = (): unknown => {
  const a: { self?: unknown } = {};
  a.self = a;
  return a;
};

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

describe("serialize, the default serializer", () => {
  test.each([
    [{ a: 1 }, '{"a":1}'],
    [[1, "two", null, true], '[1,"two",null,true]'],
    ["null", '"null"'],
    [null, "null"],
    [{ a: undefined, b: [undefined] }, '{"b":[null]}'],
    [{ toJSON: () => "custom" }, '"custom"'],
    [new Date(0), '"1970-01-01T00:00:00.000Z"'],
    [-0, "0"],
    [1e21, "1e+21"],
    ["\u2028 ✓ 😀", '"\u2028 ✓ 😀"'],
  ])("writes %p as %s", (value, text) => {
    expect(serialize(value)).toBe(text);
  });

  test.each([
    ["NaN", NaN, "NaN is not allowed in JSON"],
    ["Infinity", Infinity, "Infinity is not allowed in JSON"],
    ["-Infinity", -Infinity, "-Infinity is not allowed in JSON"],
    ["nested NaN", { a: [1, { b: NaN }] }, "NaN is not allowed in JSON"],
    ["NaN from toJSON", { toJSON: () => NaN }, "NaN is not allowed in JSON"],
    ["a BigInt", 1n, stringifyMessage(1n)],
    ["a nested BigInt", { n: [2n] }, stringifyMessage({ n: [2n] })],
    ["a cycle", cycle(), stringifyMessage(cycle())],
    ["a function", () => 1, "a function has no JSON form"],
    ["undefined", undefined, "a undefined has no JSON form"],
    ["a symbol", Symbol("s"), "a symbol has no JSON form"],
  ])("refuses %s with a TypeError", (_what, value, message) => {
    expect(() => serialize(value)).toThrow(TypeError);
    expect(() => serialize(value)).toThrow(message);
  });
});

describe.each(jsonDispatchers)("a response that cannot be serialized (%s)", (_name, send) => {
  const methods: Methods = {
    nan: () => Success(NaN),
    infinity: () => Success({ deep: [Infinity] }),
    big: () => Success(10n),
    cycle: () => Success(cycle()),
    fn: () => Success(() => 1),
    badData: () => Error(1, "Oops", NaN),
    ok: (n: number) => Success(n),
  };

  test.each([
    ["nan", "NaN is not allowed in JSON"],
    ["infinity", "Infinity is not allowed in JSON"],
    ["big", stringifyMessage(1n)],
    ["cycle", stringifyMessage(cycle())],
    ["fn", "a function has no JSON form"],
    ["badData", "NaN is not allowed in JSON"],
  ])("%s is -32603, its reason in data only under debug, and logged", async (method, reason) => {
    const text = `{"jsonrpc":"2.0","method":"${method}","id":7}`;
    expect(await send(text, methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":7}',
    );
    expect(JSON.parse(await send(text, methods, { debug: true }))).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: -32603, message: "Internal error", data: reason },
      id: 7,
    });
    expect(logs.entries).toStrictEqual([
      { level: "error", args: [`rpcserver: the response to request 7 could not be serialized: ${reason}`] },
      { level: "error", args: [`rpcserver: the response to request 7 could not be serialized: ${reason}`] },
    ]);
  });

  test("only that response of a batch becomes -32603; the rest is intact and in order", async () => {
    const batch = [
      '{"jsonrpc":"2.0","method":"ok","params":[1],"id":1}',
      '{"jsonrpc":"2.0","method":"nan","id":2}',
      '{"jsonrpc":"2.0","method":"ok","params":[3],"id":3}',
      '{"jsonrpc":"2.0","method":"big","id":"4"}',
      '{"jsonrpc":"2.0","method":"cycle","id":null}',
      '{"jsonrpc":"2.0","method":"ok","params":[6],"id":6}',
    ];
    expect(await send(`[${batch.join(",")}]`, methods)).toBe(
      "[" +
        [
          '{"jsonrpc":"2.0","result":1,"id":1}',
          '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":2}',
          '{"jsonrpc":"2.0","result":3,"id":3}',
          '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":"4"}',
          '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":null}',
          '{"jsonrpc":"2.0","result":6,"id":6}',
        ].join(",") +
        "]",
    );
  });

  test("a notification whose result cannot be serialized sends nothing", async () => {
    expect(await send('{"jsonrpc":"2.0","method":"nan"}', methods)).toBe("");
    expect(logs.entries).toStrictEqual([]);
  });
});

describe.each(jsonDispatchers)("a custom serializer (%s)", (_name, send) => {
  const methods: Methods = {
    ping: () => Success("pong"),
    fail: () => Error(1, "Oops"),
    date: () => Success(new Date(0)),
  };

  test("receives each response object and writes it; a batch is joined into a JSON array", async () => {
    const seen: unknown[] = [];
    const serializer = (value: unknown) => {
      seen.push(value);
      return JSON.stringify(value, null, 1);
    };
    const text = await send(
      '[{"jsonrpc":"2.0","method":"ping","id":1},{"jsonrpc":"2.0","method":"fail","id":2}]',
      methods,
      { serializer },
    );
    expect(seen).toStrictEqual([
      { jsonrpc: "2.0", result: "pong", id: 1 },
      { jsonrpc: "2.0", error: { code: 1, message: "Oops" }, id: 2 },
    ]);
    expect(text).toBe(`[${JSON.stringify(seen[0], null, 1)},${JSON.stringify(seen[1], null, 1)}]`);
    expect(JSON.parse(text)).toStrictEqual(seen);
  });

  test("is not called when there is nothing to send", async () => {
    const serializer = jest.fn(JSON.stringify);
    expect(await send('{"jsonrpc":"2.0","method":"ping"}', methods, { serializer })).toBe("");
    expect(serializer).not.toHaveBeenCalled();
  });

  test("a serializer that refuses one response: that response is -32603, written by the same serializer", async () => {
    const serializer = (value: unknown) =>
      JSON.stringify(value, function (this: Record<string, unknown>, key, v: unknown) {
        if (this[key] instanceof Date) throw new TypeError("dates are not allowed");
        return v;
      });
    const batch = '[{"jsonrpc":"2.0","method":"date","id":1},{"jsonrpc":"2.0","method":"ping","id":2}]';
    expect(await send(batch, methods, { serializer })).toBe(
      '[{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1},{"jsonrpc":"2.0","result":"pong","id":2}]',
    );
    expect(await send(batch, methods, { serializer, debug: true })).toBe(
      '[{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"dates are not allowed"},"id":1},{"jsonrpc":"2.0","result":"pong","id":2}]',
    );
  });

  test.each([
    ["a string", "nope"],
    ["undefined", undefined],
    ["null", null],
    ["an object", { not: "an Error" }],
  ])("a serializer that always throws %s still gives a -32603 response", async (_what, thrown) => {
    const serializer = () => {
      throw thrown;
    };
    for (const debug of [false, true]) {
      expect(await send('{"jsonrpc":"2.0","method":"ping","id":"x"}', methods, { serializer, debug })).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":"x"}',
      );
    }
  });

  test.each([
    ["a number", 42],
    ["undefined", undefined],
    ["a Buffer", Buffer.from("{}")],
  ])("a serializer returning %s (not text) gives -32603", async (_what, output) => {
    const serializer = () => output as unknown as string;
    expect(await send('{"jsonrpc":"2.0","method":"ping","id":1}', methods, { serializer })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}',
    );
  });

  test("pairs with a deserializer that keeps big integer ids as bigint: the id comes back exactly", async () => {
    const deserializer = (text: string) => {
      const value = JSON.parse(text.replace(/"id":(\d{16,})/, '"id":"$1"')) as { id?: unknown };
      if (typeof value.id === "string") value.id = BigInt(value.id);
      return value;
    };
    const serializer = (value: unknown) =>
      JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `#big#${v}` : v)).replace(
        /"#big#(\d+)"/g,
        "$1",
      );
    expect(
      await send('{"jsonrpc":"2.0","method":"ping","id":12345678901234567890}', methods, { deserializer, serializer }),
    ).toBe('{"jsonrpc":"2.0","result":"pong","id":12345678901234567890}');
  });

  test("the default serializer cannot write a bigint id: -32603, the id written as digits", async () => {
    const deserializer = (text: string) => ({ ...(JSON.parse(text) as object), id: 12345678901234567890n });
    expect(await send('{"jsonrpc":"2.0","method":"ping","id":1}', methods, { deserializer })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":12345678901234567890}',
    );
  });
});

describe("postProcess on the *ToResponse functions", () => {
  const methods: Methods = { ping: () => Success("pong"), fail: () => Error(1, "Oops") };
  const batch =
    '[{"jsonrpc":"2.0","method":"ping","id":1},{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","method":"fail","id":2}]';

  test("the default is the identity", async () => {
    const expected = [E.right(SuccessResponse("pong", 1)), E.left(ErrorResponse(1, "Oops", NODATA, 2))];
    expect(dispatchToResponse(batch, methods)).toStrictEqual(expected);
    expect(await asyncDispatchToResponse(batch, methods)).toStrictEqual(expected);
  });

  test("is applied to each Response, once, and its results are returned in order", async () => {
    for (const run of [dispatchToResponse, asyncDispatchToResponse]) {
      const postProcess = jest.fn((response: Response) => toDict(response));
      expect(await run(batch, methods, { postProcess })).toStrictEqual([
        { jsonrpc: "2.0", result: "pong", id: 1 },
        { jsonrpc: "2.0", error: { code: 1, message: "Oops" }, id: 2 },
      ]);
      expect(postProcess).toHaveBeenCalledTimes(2);
    }
  });

  test("is applied to a single Response, and to the error responses the library makes", async () => {
    const postProcess = (response: Response) => (E.isLeft(response) ? `error ${response.left.code}` : "ok");
    expect(dispatchToResponse('{"jsonrpc":"2.0","method":"ping","id":1}', methods, { postProcess })).toBe("ok");
    expect(dispatchToResponse("{", methods, { postProcess })).toBe("error -32700");
    expect(dispatchToResponse("[]", methods, { postProcess })).toBe("error -32600");
    expect(await asyncDispatchToResponse('{"jsonrpc":"2.0","method":"nope","id":1}', methods, { postProcess })).toBe(
      "error -32601",
    );
  });

  test("is not called when there is nothing to send", async () => {
    const postProcess = jest.fn();
    expect(dispatchToResponse('{"jsonrpc":"2.0","method":"ping"}', methods, { postProcess })).toBeUndefined();
    expect(
      await asyncDispatchToResponse('[{"jsonrpc":"2.0","method":"ping"}]', methods, { postProcess }),
    ).toBeUndefined();
    expect(postProcess).not.toHaveBeenCalled();
  });
});
