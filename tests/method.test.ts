/**
 * `method`: every form registers in `globalMethods` and returns the function itself; replacing a
 * name is silent; `rpc.` names warn; a nameless function is a TypeError; `globalMethods` starts
 * empty and is what dispatch uses when given no methods.
 */
import * as t from "io-ts";
import { discover, dispatch, global_methods, globalMethods, method, openRpcDocument, Success } from "../src";
import { recordWarnings } from "./support";

const ping = '{"jsonrpc":"2.0","method":"ping","id":1}';

let warnings: ReturnType<typeof recordWarnings>;

beforeEach(() => {
  warnings = recordWarnings();
});

afterEach(() => {
  warnings.restore();
  for (const name of Object.keys(globalMethods)) delete globalMethods[name];
});

// Runs first: nothing in this file registers at import time.
test("globalMethods starts empty, has no prototype, and global_methods is the same object", () => {
  expect(Object.keys(globalMethods)).toEqual([]);
  expect(Object.getPrototypeOf(globalMethods)).toBeNull();
  expect(global_methods).toBe(globalMethods);
});

describe("the forms of method", () => {
  test("method(f) registers f under its own name and returns f itself", () => {
    function ping() {
      return Success("pong");
    }
    expect(method(ping)).toBe(ping);
    expect(globalMethods["ping"]).toBe(ping);
    expect(Object.keys(globalMethods)).toEqual(["ping"]);
  });

  test("method(f) takes the name a const arrow function was given", () => {
    const greet = (name: string) => Success(`hi ${name}`);
    expect(method(greet)).toBe(greet);
    expect(globalMethods["greet"]).toBe(greet);
  });

  test('method(f, "name") registers under the given name, not the function\'s', () => {
    const f = () => Success("pong");
    expect(method(f, "ping")).toBe(f);
    expect(Object.keys(globalMethods)).toEqual(["ping"]);
    expect(globalMethods["ping"]).toBe(f);
  });

  test('method("name") returns a decorator that registers and returns f', () => {
    const f = () => Success("pong");
    const register = method("ping");
    expect(typeof register).toBe("function");
    expect(Object.keys(globalMethods)).toEqual([]);
    expect(register(f)).toBe(f);
    expect(globalMethods["ping"]).toBe(f);
  });

  test("method({ name }) returns a decorator too", () => {
    const f = () => Success("pong");
    expect(method({ name: "ping" })(f)).toBe(f);
    expect(globalMethods["ping"]).toBe(f);
  });

  test("method({}) falls back to the function's own name", () => {
    function ping() {
      return Success("pong");
    }
    expect(method({})(ping)).toBe(ping);
    expect(globalMethods["ping"]).toBe(ping);
  });

  test("method(f, { name, params }) and method({ name, params })(f) register f with a params codec", () => {
    const add = (a: number, b: number) => Success(a + b);
    const mul = (a: number, b: number) => Success(a * b);
    expect(method(add, { name: "add", params: t.tuple([t.number, t.number]) })).toBe(add);
    expect(method({ name: "mul", params: t.tuple([t.number, t.number]) })(mul)).toBe(mul);
    expect(dispatch('{"jsonrpc":"2.0","method":"add","params":[2,3],"id":1}')).toBe(
      '{"jsonrpc":"2.0","result":5,"id":1}',
    );
    expect(dispatch('{"jsonrpc":"2.0","method":"mul","params":[2,"3"],"id":2}')).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":["params[1]: expected number, got \\"3\\""]},"id":2}',
    );
  });

  test("method({ name, params, result, ...documentation })(f) registers f with its codecs and documentation", () => {
    const half = (n: number) => Success(n / 2);
    expect(
      method({
        name: "half",
        params: t.tuple([t.number]),
        result: t.number,
        summary: "Half of a number",
        examples: [{ params: [3], result: 1.5 }],
      })(half),
    ).toBe(half);
    expect(dispatch('{"jsonrpc":"2.0","method":"half","params":[3],"id":1}')).toBe(
      '{"jsonrpc":"2.0","result":1.5,"id":1}',
    );
    expect(openRpcDocument({ title: "t", version: "1" }).methods).toEqual([
      expect.objectContaining({
        name: "half",
        summary: "Half of a number",
        result: { name: "result", schema: { type: "number" } },
      }),
    ]);
    // The codecs and documentation are not enumerable: the function looks the same.
    expect(Object.keys(half)).toEqual([]);
  });

  test("method(f, { summary }) keeps f's own name; method({ result })(f) takes no params codec", () => {
    function described() {
      return Success("x");
    }
    method(described, { summary: "s" });
    method({ name: "encoded", result: t.string })(() => Success("y"));
    expect(Object.keys(globalMethods)).toEqual(["described", "encoded"]);
    expect(dispatch('{"jsonrpc":"2.0","method":"encoded","params":[1,2],"id":1}')).toBe(
      '{"jsonrpc":"2.0","result":"y","id":1}',
    );
  });

  test("a registered method is called through dispatch with no methods argument", () => {
    method(function ping() {
      return Success("pong");
    });
    expect(dispatch(ping)).toBe('{"jsonrpc":"2.0","result":"pong","id":1}');
    expect(dispatch(ping, undefined)).toBe('{"jsonrpc":"2.0","result":"pong","id":1}');
  });

  test("the returned function still works as an ordinary function", () => {
    const double = method((n: number) => Success(n * 2), "double");
    expect(double(21)).toEqual(Success(42));
  });

  test("method registers no warning for an ordinary name", () => {
    method(() => Success(), "ordinary");
    expect(warnings.warnings()).toEqual([]);
  });
});

describe("replacing and reserved names", () => {
  test("a name registered twice is replaced, without a warning", () => {
    method(() => Success("first"), "ping");
    const second = () => Success("second");
    method(second, "ping");
    expect(globalMethods["ping"]).toBe(second);
    expect(dispatch(ping)).toBe('{"jsonrpc":"2.0","result":"second","id":1}');
    expect(warnings.warnings()).toEqual([]);
  });

  test("a name starting with rpc. warns (UserWarning) once, and is still registered", () => {
    const f = () => Success("reserved");
    expect(method(f, "rpc.discover")).toBe(f);
    expect(warnings.warnings()).toEqual([
      {
        message: 'method name "rpc.discover" starts with "rpc.", which JSON-RPC 2.0 reserves for its own extensions',
        type: "UserWarning",
      },
    ]);
    expect(globalMethods["rpc.discover"]).toBe(f);
    expect(dispatch('{"jsonrpc":"2.0","method":"rpc.discover","id":1}')).toBe(
      '{"jsonrpc":"2.0","result":"reserved","id":1}',
    );
  });

  test("the rpc. warning applies to the decorator forms too", () => {
    method("rpc.a")(() => Success());
    method({ name: "rpc.b" })(() => Success());
    expect(warnings.warnings().map((w) => w.type)).toEqual(["UserWarning", "UserWarning"]);
  });

  test("rpc.discover registered as method(discover(info)) does not warn, in every form", () => {
    const info = { title: "t", version: "1" };
    method(discover(info));
    method(discover(info), "rpc.discover");
    method({ name: "rpc.discover" })(discover(info));
    expect(warnings.warnings()).toEqual([]);
    expect(globalMethods["rpc.discover"]?.name).toBe("rpc.discover");
  });

  test.each(["rpc", "rpcx", "RPC.upper", "my.rpc.name"])("%s does not start with rpc. and does not warn", (name) => {
    method(() => Success(), name);
    expect(warnings.warnings()).toEqual([]);
  });
});

describe("bad registrations", () => {
  test("an anonymous arrow function is a TypeError and nothing is registered", () => {
    expect(() => method(() => Success())).toThrow(TypeError);
    expect(() => method(() => Success())).toThrow(
      "method: the function has no name; pass one, as in method(f, 'name')",
    );
    expect(Object.keys(globalMethods)).toEqual([]);
  });

  test("an anonymous function expression through the decorator forms is a TypeError", () => {
    expect(() =>
      method({})(function () {
        return Success();
      }),
    ).toThrow(TypeError);
    expect(() => method({ params: t.array(t.number) })(() => Success())).toThrow(TypeError);
    expect(Object.keys(globalMethods)).toEqual([]);
  });

  test("an empty name is a TypeError", () => {
    expect(() => method(() => Success(), "")).toThrow(TypeError);
    expect(() => method("")(() => Success())).toThrow(TypeError);
    expect(Object.keys(globalMethods)).toEqual([]);
  });

  test("something other than a function is a TypeError", () => {
    expect(() => method(42 as never)).toThrow(TypeError);
    expect(() => method("name")("not a function" as never)).toThrow(TypeError);
    expect(() => method(null as never)).toThrow(TypeError);
    expect(Object.keys(globalMethods)).toEqual([]);
  });
});
