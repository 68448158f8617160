/**
 * Results: `Success`, `Error`, `InvalidParams` and `JsonRpcError`, as values and on the wire.
 */
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import { dispatch, Error, InvalidParams, JsonRpcError, NODATA, Success, type Result } from "../src";
import { recordWarnings } from "./support";

const request = '{"jsonrpc":"2.0","method":"m","id":1}';
const send = (result: Result, debug = false) => dispatch(request, { m: () => result }, { debug });
const sendThrown = (thrown: unknown, debug = false) =>
  dispatch(
    request,
    {
      m: () => {
        throw thrown;
      },
    },
    { debug },
  );

let warnings: ReturnType<typeof recordWarnings>;
beforeEach(() => {
  warnings = recordWarnings();
});
afterEach(() => warnings.restore());

describe("Success", () => {
  test("is an fp-ts Right built with fp-ts's right, holding the result", () => {
    expect(Success(3)).toStrictEqual(E.right({ result: 3 }));
    expect(E.isRight(Success(3))).toBe(true);
    expect(
      pipe(
        Success("pong"),
        E.map(({ result }) => result),
      ),
    ).toStrictEqual(E.right("pong"));
  });

  test("Success() and Success(undefined) hold null, so the response is never without result", () => {
    expect(Success()).toStrictEqual(E.right({ result: null }));
    expect(Success(undefined)).toStrictEqual(E.right({ result: null }));
    expect(send(Success())).toBe('{"jsonrpc":"2.0","result":null,"id":1}');
    expect(send(Success(undefined))).toBe('{"jsonrpc":"2.0","result":null,"id":1}');
  });

  test.each([
    [null, '{"jsonrpc":"2.0","result":null,"id":1}'],
    [0, '{"jsonrpc":"2.0","result":0,"id":1}'],
    [false, '{"jsonrpc":"2.0","result":false,"id":1}'],
    ["", '{"jsonrpc":"2.0","result":"","id":1}'],
    ["null", '{"jsonrpc":"2.0","result":"null","id":1}'],
    [[], '{"jsonrpc":"2.0","result":[],"id":1}'],
    [{ a: [1, { b: null }] }, '{"jsonrpc":"2.0","result":{"a":[1,{"b":null}]},"id":1}'],
  ])("Success(%p) is sent as given", (value, expected) => {
    expect(send(Success(value))).toBe(expected);
  });
});

describe("Error", () => {
  test("is an fp-ts Left whose data is NODATA when none is given", () => {
    expect(Error(1, "Out of stock")).toStrictEqual(E.left({ code: 1, message: "Out of stock", data: NODATA }));
    expect(E.isLeft(Error(1, "Out of stock"))).toBe(true);
  });

  test("without data, the error object has no data member", () => {
    expect(send(Error(1, "Out of stock"))).toBe('{"jsonrpc":"2.0","error":{"code":1,"message":"Out of stock"},"id":1}');
    expect(send(Error(1, "Out of stock", undefined))).toBe(
      '{"jsonrpc":"2.0","error":{"code":1,"message":"Out of stock"},"id":1}',
    );
  });

  test.each([
    [null, "null"],
    [0, "0"],
    [false, "false"],
    ["", '""'],
    [{ sku: "A-1" }, '{"sku":"A-1"}'],
    [[1, 2], "[1,2]"],
  ])("with data %p, data is sent as given", (data, json) => {
    expect(Error(1, "Oops", data)).toStrictEqual(E.left({ code: 1, message: "Oops", data }));
    expect(send(Error(1, "Oops", data))).toBe(
      `{"jsonrpc":"2.0","error":{"code":1,"message":"Oops","data":${json}},"id":1}`,
    );
  });

  test("is sent as given whatever debug is, reserved codes included", () => {
    for (const debug of [false, true]) {
      expect(send(Error(-32001, "Custom", "secret"), debug)).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Custom","data":"secret"},"id":1}',
      );
    }
  });

  test("an integer code and a string message raise no warning", () => {
    Error(1, "fine");
    Error(-32000, "fine", { x: 1 });
    expect(warnings.warnings()).toEqual([]);
  });

  test.each([
    [1.5, "JSON-RPC error code should be an integer, got 1.5", '"code":1.5'],
    ["1", "JSON-RPC error code should be an integer, got 1", '"code":"1"'],
    [NaN, "JSON-RPC error code should be an integer, got NaN", null],
  ])("a code of %p warns (UserWarning) and the error is still sent as given", (code, message, json) => {
    const result = Error(code as number, "Oops");
    expect(result).toStrictEqual(E.left({ code, message: "Oops", data: NODATA }));
    expect(warnings.warnings()).toEqual([{ message, type: "UserWarning" }]);
    if (json !== null) {
      expect(send(result)).toBe(`{"jsonrpc":"2.0","error":{${json},"message":"Oops"},"id":1}`);
    }
  });

  test("a message that is not a string warns (UserWarning) and is still sent as given", () => {
    const result = Error(1, 42 as unknown as string);
    expect(result).toStrictEqual(E.left({ code: 1, message: 42, data: NODATA }));
    expect(warnings.warnings()).toEqual([
      { message: "JSON-RPC error message should be a string, got number", type: "UserWarning" },
    ]);
    expect(send(result)).toBe('{"jsonrpc":"2.0","error":{"code":1,"message":42},"id":1}');
  });

  test("both a bad code and a bad message give two warnings", () => {
    Error("x" as unknown as number, null as unknown as string);
    expect(warnings.warnings()).toEqual([
      { message: "JSON-RPC error code should be an integer, got x", type: "UserWarning" },
      { message: "JSON-RPC error message should be a string, got object", type: "UserWarning" },
    ]);
  });
});

describe("InvalidParams", () => {
  test("is Error(-32602, 'Invalid params', data)", () => {
    expect(InvalidParams()).toStrictEqual(E.left({ code: -32602, message: "Invalid params", data: NODATA }));
    expect(InvalidParams("division by zero")).toStrictEqual(Error(-32602, "Invalid params", "division by zero"));
  });

  test("is sent with or without data", () => {
    expect(send(InvalidParams())).toBe('{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params"},"id":1}');
    expect(send(InvalidParams({ b: "must not be 0" }))).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":{"b":"must not be 0"}},"id":1}',
    );
  });

  test("raises no warning", () => {
    InvalidParams("x");
    expect(warnings.warnings()).toEqual([]);
  });
});

describe("JsonRpcError", () => {
  test("is an Error subclass carrying code, message and data", () => {
    const error = new JsonRpcError(1, "Insufficient funds", { amount: 200 });
    expect(error).toBeInstanceOf(globalThis.Error);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error.name).toBe("JsonRpcError");
    expect(error.code).toBe(1);
    expect(error.message).toBe("Insufficient funds");
    expect(error.data).toStrictEqual({ amount: 200 });
    expect(new JsonRpcError(1, "x").data).toBe(NODATA);
    expect(typeof error.stack).toBe("string");
  });

  test("thrown in a method, it is sent as given, whatever debug is", () => {
    for (const debug of [false, true]) {
      expect(sendThrown(new JsonRpcError(1, "Insufficient funds", { amount: 200 }), debug)).toBe(
        '{"jsonrpc":"2.0","error":{"code":1,"message":"Insufficient funds","data":{"amount":200}},"id":1}',
      );
      expect(sendThrown(new JsonRpcError(-32602, "Invalid params"), debug)).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params"},"id":1}',
      );
    }
  });

  test("thrown deep inside something the method calls, it is sent as given", () => {
    const deep = (n: number): never => {
      if (n === 0) throw new JsonRpcError(7, "Deep", null);
      return deep(n - 1);
    };
    expect(dispatch(request, { m: () => deep(5) })).toBe(
      '{"jsonrpc":"2.0","error":{"code":7,"message":"Deep","data":null},"id":1}',
    );
  });

  test("a subclass of JsonRpcError is sent as given too", () => {
    class OutOfStock extends JsonRpcError {
      constructor(sku: string) {
        super(100, "Out of stock", { sku });
      }
    }
    expect(sendThrown(new OutOfStock("A-1"))).toBe(
      '{"jsonrpc":"2.0","error":{"code":100,"message":"Out of stock","data":{"sku":"A-1"}},"id":1}',
    );
  });

  test("an integer code and a string message raise no warning", () => {
    void new JsonRpcError(1, "fine");
    expect(warnings.warnings()).toEqual([]);
  });

  test("a non-integer code or a non-string message warns like Error, and is still sent as given", () => {
    const error = new JsonRpcError(2.5, { text: "hi" } as unknown as string);
    expect(warnings.warnings()).toEqual([
      { message: "JSON-RPC error code should be an integer, got 2.5", type: "UserWarning" },
      { message: "JSON-RPC error message should be a string, got object", type: "UserWarning" },
    ]);
    expect(error.message).toStrictEqual({ text: "hi" });
    expect(sendThrown(error)).toBe('{"jsonrpc":"2.0","error":{"code":2.5,"message":{"text":"hi"}},"id":1}');
  });
});
