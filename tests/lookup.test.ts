/**
 * Method lookup sees own entries only, in a plain object, a Map or globalMethods; and nothing a
 * request carries can modify Object.prototype.
 */
import { dispatch, globalMethods, method, Success, type Methods } from "../src";
import { recordLogs } from "./support";

const PROTOTYPE_NAMES = [
  "toString",
  "constructor",
  "__proto__",
  "hasOwnProperty",
  "valueOf",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "__defineGetter__",
  "__lookupGetter__",
];

const ask = (name: string, methods?: Methods) =>
  dispatch(JSON.stringify({ jsonrpc: "2.0", method: name, id: 1 }), methods);

const notFound = (name: string) =>
  `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":${JSON.stringify(name)}},"id":1}`;

const prototypeSnapshot = () => Object.getOwnPropertyNames(Object.prototype).sort();
const before = prototypeSnapshot();

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => {
  logs.restore();
  for (const name of Object.keys(globalMethods)) delete globalMethods[name];
  expect(prototypeSnapshot()).toStrictEqual(before);
  expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
});

describe.each([
  ["a plain object", () => ({ ping: () => Success("pong") }) as Methods],
  ["a Map", () => new Map([["ping", () => Success("pong")]]) as Methods],
  ["globalMethods", () => undefined],
])("names of Object.prototype in %s", (_kind, make) => {
  test.each(PROTOTYPE_NAMES)("%s is -32601 when not registered", (name) => {
    expect(ask(name, make())).toBe(notFound(name));
  });

  test("a registered name is still found", () => {
    if (make() === undefined) method(() => Success("pong"), "ping");
    expect(ask("ping", make())).toBe('{"jsonrpc":"2.0","result":"pong","id":1}');
  });
});

describe("names of Object.prototype that are registered", () => {
  test.each(PROTOTYPE_NAMES)("%s in a plain object (an own entry) is called", (name) => {
    const methods = Object.fromEntries([[name, () => Success(name)]]) as Methods;
    expect(Object.prototype.hasOwnProperty.call(methods, name)).toBe(true);
    expect(ask(name, methods)).toBe(`{"jsonrpc":"2.0","result":${JSON.stringify(name)},"id":1}`);
  });

  test.each(PROTOTYPE_NAMES)("%s in a Map is called", (name) => {
    expect(ask(name, new Map([[name, () => Success(name)]]))).toBe(
      `{"jsonrpc":"2.0","result":${JSON.stringify(name)},"id":1}`,
    );
  });

  test.each(PROTOTYPE_NAMES)("%s registered with method is called", (name) => {
    method(() => Success(name), name);
    expect(Object.keys(globalMethods)).toStrictEqual([name]);
    expect(ask(name)).toBe(`{"jsonrpc":"2.0","result":${JSON.stringify(name)},"id":1}`);
  });
});

describe("only own entries that are functions are methods", () => {
  test("an inherited function is not found", () => {
    const methods = Object.create({ inherited: () => Success("no") }) as Methods;
    expect(ask("inherited", methods)).toBe(notFound("inherited"));
  });

  test("a class instance's prototype methods are not found", () => {
    class Api {
      ping() {
        return Success("pong");
      }
    }
    expect(ask("ping", new Api() as unknown as Methods)).toBe(notFound("ping"));
  });

  test("an own entry that is not a function is not found", () => {
    const methods = { answer: 42, nothing: null } as unknown as Methods;
    expect(ask("answer", methods)).toBe(notFound("answer"));
    expect(ask("nothing", methods)).toBe(notFound("nothing"));
    expect(ask("answer", new Map([["answer", 42]]) as unknown as Methods)).toBe(notFound("answer"));
  });

  test("the lookup is exact: no case folding, no trimming, the empty name is a name", () => {
    const methods = { ping: () => Success("pong"), "": () => Success("empty") };
    expect(ask("Ping", methods)).toBe(notFound("Ping"));
    expect(ask(" ping", methods)).toBe(notFound(" ping"));
    expect(ask("", methods)).toBe('{"jsonrpc":"2.0","result":"empty","id":1}');
  });

  test("a Map subclass is read through get", () => {
    class Methods2 extends Map<string, () => ReturnType<typeof Success>> {}
    expect(ask("ping", new Methods2([["ping", () => Success("pong")]]))).toBe(
      '{"jsonrpc":"2.0","result":"pong","id":1}',
    );
  });
});

describe("nothing a request carries modifies Object.prototype", () => {
  const echo = (...args: unknown[]) => Success(args.map((arg) => Object.keys(arg as object)));

  test.each([
    ['{"jsonrpc":"2.0","method":"echo","params":{"__proto__":{"polluted":true}},"id":1}', '[["__proto__"]]'],
    ['{"jsonrpc":"2.0","method":"echo","params":[{"__proto__":{"polluted":true}}],"id":1}', '[["__proto__"]]'],
    [
      '{"jsonrpc":"2.0","method":"echo","params":{"constructor":{"prototype":{"polluted":true}}},"id":1}',
      '[["constructor"]]',
    ],
  ])("params %s arrive as plain data", (request, result) => {
    expect(dispatch(request, { echo })).toBe(`{"jsonrpc":"2.0","result":${result},"id":1}`);
  });

  test("a __proto__ member in the request itself is an extra member: -32600", () => {
    expect(dispatch('{"jsonrpc":"2.0","method":"echo","__proto__":{"polluted":true},"id":1}', { echo })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"__proto__: is not a member of a JSON-RPC 2.0 request"},"id":null}',
    );
  });

  test("with validation off, a __proto__ member in the request changes nothing", () => {
    const off = { validator: () => undefined };
    expect(dispatch('{"jsonrpc":"2.0","method":"echo","__proto__":{"polluted":true},"id":1}', { echo }, off)).toBe(
      '{"jsonrpc":"2.0","result":[],"id":1}',
    );
    expect(
      dispatch(
        '[{"jsonrpc":"2.0","method":"echo","__proto__":{"method":"polluted","polluted":1},"id":1}]',
        { echo },
        off,
      ),
    ).toBe('[{"jsonrpc":"2.0","result":[],"id":1}]');
  });

  test("__proto__ as an id or a method name, single or in a batch, changes nothing", () => {
    expect(dispatch('{"jsonrpc":"2.0","method":"echo","id":"__proto__"}', { echo })).toBe(
      '{"jsonrpc":"2.0","result":[],"id":"__proto__"}',
    );
    expect(
      dispatch('[{"jsonrpc":"2.0","method":"__proto__","params":{"polluted":1},"id":"__proto__"}]', { echo }),
    ).toBe(
      '[{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"__proto__"},"id":"__proto__"}]',
    );
  });

  test("a registered __proto__ method receiving __proto__ params changes nothing", () => {
    method((p: unknown) => Success(Object.keys(p as object)), "__proto__");
    expect(dispatch('{"jsonrpc":"2.0","method":"__proto__","params":{"__proto__":{"polluted":1}},"id":1}')).toBe(
      '{"jsonrpc":"2.0","result":["__proto__"],"id":1}',
    );
    expect(Object.getPrototypeOf(globalMethods)).toBeNull();
  });
});
