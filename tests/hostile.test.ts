/**
 * Hostile input: what a client (or a careless method, serializer, logger) can throw at dispatch.
 * Each test names what we answer; after each one, a normal request must still get the right
 * answer from both dispatchers, and `Object.prototype` must be untouched.
 *
 * What we answer, where the choice is ours:
 * - JSON nested 100,000 levels deep parses (V8's JSON.parse does not recurse); as the whole body it
 *   is not a request (-32600); as params, a method that ignores them answers normally, and echoing
 *   them is the right answer where JSON.stringify copes (Node 26) or -32603 where it overflows
 *   (Node 18 to 24: a RangeError, caught; never a crash);
 * - a batch of 1,000,000 requests over `maxBatchSize` is one -32600 and runs nothing; without a
 *   limit every member is answered, in order.
 */
import * as E from "fp-ts/Either";
import { EventEmitter } from "node:events";
import { runInNewContext } from "node:vm";
import * as t from "io-ts";
import {
  asyncDispatch,
  asyncDispatchToResponse,
  dispatch,
  dispatchToResponse,
  dispatchToSerializable,
  ErrorResponse,
  globalMethods,
  NODATA,
  setLogger,
  Success,
  withParams,
  type JsonOptions,
  type Logger,
  type Method,
  type Methods,
  type Result,
} from "../src";
import { jsonDispatchers, recordLogs } from "./support";
import { readText, responsesOf } from "./fixtures/wire";

const PING = '{"jsonrpc":"2.0","method":"ping","id":1}';
const PONG = '{"jsonrpc":"2.0","result":"pong","id":1}';
const ping = (): Result => Success("pong");

const INTERNAL = (id: string | number | null): string =>
  `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":${JSON.stringify(id)}}`;
const INTERNAL_WITH = (data: string, id: string | number | null = 1): string =>
  `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":${JSON.stringify(data)}},"id":${JSON.stringify(id)}}`;
const REFUSED =
  '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"The method returned a Promise; use asyncDispatch"},"id":1}';

const request = (method: string, params?: string, id: string = "1"): string =>
  `{"jsonrpc":"2.0","method":${JSON.stringify(method)}${params === undefined ? "" : `,"params":${params}`},"id":${id}}`;

/** A value that throws on every operation: its handler is itself a Proxy whose every trap throws. */
const everyTrapThrows = <T extends object>(target: T): T => {
  const trap = (): never => {
    throw new globalThis.Error("trap");
  };
  return new Proxy(target, new Proxy({}, { get: () => trap }));
};

/** An object whose `message` getter throws. */
const throwingMessage = (): object =>
  Object.defineProperty({}, "message", {
    get: () => {
      throw new globalThis.Error("message getter");
    },
    enumerable: true,
  });

/** Values thrown (or rejected with) that are not Errors, and what `debug` shows of each. */
const NON_ERRORS: ReadonlyArray<readonly [string, () => unknown, string]> = [
  ["undefined", () => undefined, "undefined"],
  ["null", () => null, "null"],
  ["a string", () => "just a string", "just a string"],
  ["a number", () => 42, "42"],
  ["an object whose message getter throws", throwingMessage, "(a value that cannot be described)"],
  ["a Proxy whose every trap throws", () => everyTrapThrows({}), "(a value that cannot be described)"],
  ["a function Proxy whose every trap throws", () => everyTrapThrows(() => 1), "(a value that cannot be described)"],
];

const PROTO_NAMES_BEFORE = {
  object: Object.getOwnPropertyNames(Object.prototype).sort(),
  function: Object.getOwnPropertyNames(Function.prototype).sort(),
};

/** Waits long enough for Node to have reported any unhandled rejection of what ran before. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 20));
};

/**
 * Node's own `process`. Jest gives each test file a copy of it whose `on` never hears the real
 * `unhandledRejection` events, so this reaches the real one through a function of the outer realm
 * (a core module's export: core modules are not loaded into the test's sandbox).
 */
const realProcess = (): NodeJS.Process =>
  new (EventEmitter as unknown as { constructor: FunctionConstructor }).constructor("return process")();

/**
 * Records `unhandledRejection` events until `stop`. For that time it is the only listener (Jest's
 * own, which fails whichever test is running, is set aside and put back), so the control below can
 * produce one on purpose and each test asserts on what it saw.
 */
const watchRejections = (): { readonly seen: unknown[]; readonly stop: () => void } => {
  const real = realProcess();
  const others = real.listeners("unhandledRejection");
  real.removeAllListeners("unhandledRejection");
  const seen: unknown[] = [];
  const listener = (reason: unknown): void => void seen.push(reason);
  real.on("unhandledRejection", listener);
  return {
    seen,
    stop: () => {
      real.off("unhandledRejection", listener);
      for (const other of others) real.on("unhandledRejection", other as (...args: unknown[]) => void);
    },
  };
};

let logs: ReturnType<typeof recordLogs> | undefined;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(async () => {
  logs?.restore();
  logs = undefined;
  // After anything hostile, a normal request still gets the right answer ...
  expect(dispatch(PING, { ping })).toBe(PONG);
  expect(await asyncDispatch(PING, { ping })).toBe(PONG);
  // ... and nothing leaked onto the prototypes every object shares.
  expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  expect(Object.prototype.constructor).toBe(Object);
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toStrictEqual(PROTO_NAMES_BEFORE.object);
  expect(Object.getOwnPropertyNames(Function.prototype).sort()).toStrictEqual(PROTO_NAMES_BEFORE.function);
});

/** Arrays of arrays, to any depth: decoding recurses once per level. */
type Nested = Nested[];
const NestedCodec: t.Type<Nested> = t.recursion("Nested", (self) => t.array(self));

describe("JSON nested 100,000 levels deep", () => {
  const DEPTH = 100_000;
  const deepArray = "[".repeat(DEPTH) + "]".repeat(DEPTH);
  const deepObject = '{"a":'.repeat(DEPTH) + "1" + "}".repeat(DEPTH);
  const methods: Methods = {
    ping,
    echo: (value: unknown) => Success(value),
    nested: withParams(t.tuple([NestedCodec]), () => Success("decoded")),
    text: withParams(t.tuple([t.string]), (s) => Success(s)),
  };

  test.each(jsonDispatchers)(
    "as the whole body, arrays: parsed, a batch of one non-request: [-32600 Invalid Request] (%s)",
    async (_name, send) => {
      const answer =
        '[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"a request must be an object"},"id":null}]';
      expect(await send(deepArray, methods)).toBe(answer);
      expect(await send(Buffer.from(deepArray), methods)).toBe(answer);
    },
  );

  test.each(jsonDispatchers)(
    "as the whole body, objects: parsed, not a request: -32600 Invalid Request (%s)",
    async (_n, send) => {
      expect(await send(deepObject, methods)).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"jsonrpc: must be exactly \\"2.0\\""},"id":null}',
      );
    },
  );

  test.each(jsonDispatchers)("as params to a method that ignores them: the right answer (%s)", async (_n, send) => {
    expect(await send(request("ping", deepArray), methods)).toBe(PONG);
    expect(await send(request("ping", `{"deep":${deepObject}}`), methods)).toBe(PONG);
  });

  /** The echo of `value`: the right answer, or -32603 where JSON.stringify overflows on it. */
  const echoed = (value: string, id = 1): string[] => [`{"jsonrpc":"2.0","result":${value},"id":${id}}`, INTERNAL(id)];

  test.each(jsonDispatchers)(
    "as params echoed back: the right answer, or -32603 where JSON.stringify overflows (V8 up to Node 24), caught (%s)",
    async (_n, send) => {
      expect(echoed(deepArray)).toContain(await send(request("echo", `[${deepArray}]`), methods));
      expect(echoed(deepObject)).toContain(await send(request("echo", `[${deepObject}]`), methods));
      // A serializer of the caller's own is caught the same way.
      const own = { serializer: JSON.stringify };
      expect(echoed(deepArray)).toContain(await send(request("echo", `[${deepArray}]`), methods, own));
      // In a batch, the other members are answered as usual.
      const batch = await send(
        `[${request("echo", `[${deepArray}]`, "1")},${request("ping", undefined, "2")}]`,
        methods,
      );
      expect(echoed(deepArray).map((first) => `[${first},{"jsonrpc":"2.0","result":"pong","id":2}]`)).toContain(batch);
      // Under debug, an overflow's message is the data.
      const debug = responsesOf(readText(await send(request("echo", `[${deepArray}]`), methods, { debug: true })));
      expect(debug).toHaveLength(1);
      if ("error" in (debug[0] as object)) {
        expect(debug).toMatchObject([{ error: { code: -32603, data: expect.any(String) }, id: 1 }]);
      }
    },
  );

  test("as params echoed back to dispatchToSerializable: returned as they are, nothing serialized", () => {
    const answer = dispatchToSerializable(request("echo", `[${deepArray}]`), methods) as { result: unknown };
    expect(Array.isArray(answer.result)).toBe(true);
  });

  test.each(jsonDispatchers)(
    "as params to a recursive io-ts codec: -32603 (the codec overflows, caught as the method's own failure) (%s)",
    async (_n, send) => {
      expect(await send(request("nested", `[${deepArray}]`), methods)).toBe(INTERNAL(1));
      expect(await send(request("nested", "[[[[]]]]"), methods)).toBe('{"jsonrpc":"2.0","result":"decoded","id":1}');
    },
  );

  test.each(jsonDispatchers)(
    "as params failing a codec: -32602, the value shortened, or not rendered where it is too deep to (%s)",
    async (_n, send) => {
      const invalid = (got: string): string =>
        `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":["params[0]: expected string, got ${got}"]},"id":1}`;
      expect([invalid("(a value that cannot be described)"), invalid(`${"[".repeat(77)}...`)]).toContain(
        await send(request("text", `[${deepArray}]`), methods),
      );
    },
  );

  test.each(jsonDispatchers)("as the id: -32600 Invalid Request, id null (%s)", async (_n, send) => {
    expect(await send(request("ping", undefined, deepArray), methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"id: must be a string, a number or null"},"id":null}',
    );
  });
});

describe("request bytes", () => {
  const bytes = (text: string): number[] => [...Buffer.from(text, "utf8")];

  test.each(jsonDispatchers)(
    "a Uint8Array made in another realm (node:vm) is read as UTF-8, like a local one (%s)",
    async (_n, send) => {
      const foreign = runInNewContext(`new Uint8Array(${JSON.stringify(bytes(PING))})`) as Uint8Array;
      expect(foreign instanceof Uint8Array).toBe(false);
      expect(await send(foreign, { ping })).toBe(PONG);
      const view = runInNewContext(
        `new Uint8Array(new Uint8Array(${JSON.stringify(bytes(`xx${PING}yy`))}).buffer, 2, ${PING.length})`,
      ) as Uint8Array;
      expect(await send(view, { ping })).toBe(PONG);
    },
  );

  test.each(jsonDispatchers)("other views of the same bytes are not text: -32700 (%s)", async (_n, send) => {
    const raw = Uint8Array.from(bytes(`${PING}  `)).buffer;
    for (const other of [new DataView(raw), new Uint16Array(raw), new Int8Array(raw)]) {
      expect(await send(other as unknown as Uint8Array, { ping })).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":"the request must be a string or UTF-8 bytes, got object"},"id":null}',
      );
    }
  });

  test.each(jsonDispatchers)("bytes that are not UTF-8: -32700 (%s)", async (_n, send) => {
    const answer = readText(await send(Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]), { ping }));
    expect(responsesOf(answer)).toMatchObject([{ error: { code: -32700, message: "Parse error" }, id: null }]);
  });
});

describe("a 50 MB string param", () => {
  // 50 MiB of UTF-16 code units: ASCII, escapes, two- and three-byte UTF-8 and a surrogate pair.
  const SIZE = 50 * 1024 * 1024;
  const unit = 'ab\u00e9\u20ac\ud83d\ude00"\\\n';
  const big = unit.repeat(Math.floor(SIZE / unit.length)).padEnd(SIZE, "z");
  const body = request("echo", JSON.stringify([big]));
  const methods: Methods = { echo: (s: string) => Success(s) };

  test.each(jsonDispatchers)("is echoed back whole: the right answer (%s)", async (_n, send) => {
    expect(big.length).toBe(SIZE);
    const answer = readText(await send(body, methods));
    expect(answer.kind).toBe("single");
    const [response] = responsesOf(answer);
    expect(response).toHaveProperty("id", 1);
    expect((response as { result: string }).result === big).toBe(true);
  });
});

describe("params of 500,000 positional elements", () => {
  const body = request("count", JSON.stringify(Array.from({ length: 500_000 }, (_, i) => i)));
  const methods: Methods = { count: (...args: unknown[]) => Success(args.length) };

  test.each(jsonDispatchers)(
    "are more arguments than V8 can spread into a call: -32603 Internal error, not a crash (%s)",
    async (_n, send) => {
      // An engine with a larger limit would call the method: the right answer is accepted too.
      expect([INTERNAL(1), '{"jsonrpc":"2.0","result":500000,"id":1}']).toContain(await send(body, methods));
      expect(await send(request("count", "[1,2,3]"), methods)).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
    },
  );
});

describe("a batch of 1,000,000 requests", () => {
  const SIZE = 1_000_000;
  let body = "";
  let ran = 0;
  const methods: Methods = {
    ping: () => {
      ran++;
      return Success("pong");
    },
  };
  beforeAll(() => {
    const parts = new Array<string>(SIZE);
    for (let i = 0; i < SIZE; i++) parts[i] = `{"jsonrpc":"2.0","method":"ping","id":${i}}`;
    body = `[${parts.join(",")}]`;
  });
  afterAll(() => {
    body = "";
  });
  beforeEach(() => {
    ran = 0;
  });

  test.each(jsonDispatchers)("over maxBatchSize: one -32600, and no method ran (%s)", async (_n, send) => {
    expect(await send(body, methods, { maxBatchSize: 100 })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"size":1000000,"max":100}},"id":null}',
    );
    expect(ran).toBe(0);
  });

  test.each(jsonDispatchers)("without a limit: all 1,000,000 answered, in order (%s)", async (_n, send) => {
    const text = await send(body, methods);
    expect(ran).toBe(SIZE);
    const answer = JSON.parse(text) as Array<{ jsonrpc: string; result: string; id: number }>;
    expect(answer).toHaveLength(SIZE);
    let wrong = 0;
    for (let i = 0; i < SIZE; i++) {
      const response = answer[i];
      if (response?.id !== i || response.result !== "pong" || response.jsonrpc !== "2.0") wrong++;
    }
    expect(wrong).toBe(0);
  });
});

describe("__proto__ and constructor in params and ids", () => {
  const methods: Methods = {
    echo: (value: unknown) => Success(value),
    ping,
    typed: withParams(t.type({ a: t.number }), ({ a }) => Success(a)),
  };
  const pollutingParams = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}';

  test.each(jsonDispatchers)("in params: echoed back as ordinary members (%s)", async (_n, send) => {
    expect(await send(request("echo", `[${pollutingParams}]`, '"constructor"'), methods)).toBe(
      `{"jsonrpc":"2.0","result":${pollutingParams},"id":"constructor"}`,
    );
    expect(await send(request("echo", pollutingParams, '"__proto__"'), methods)).toBe(
      `{"jsonrpc":"2.0","result":${pollutingParams},"id":"__proto__"}`,
    );
    expect(await send(request("typed", '{"a":1,"__proto__":{"polluted":true}}'), methods)).toBe(
      '{"jsonrpc":"2.0","result":1,"id":1}',
    );
  });

  test("in params: the method receives them as own members, its prototype unchanged", () => {
    let received: unknown;
    dispatch(request("look", pollutingParams), {
      look: (value: unknown) => {
        received = value;
        return Success();
      },
    });
    expect(Object.getPrototypeOf(received)).toBe(Object.prototype);
    expect(Object.keys(received as object)).toStrictEqual(["__proto__", "constructor"]);
    expect((received as { polluted?: unknown }).polluted).toBeUndefined();
  });

  test.each(jsonDispatchers)("as an object id: -32600 Invalid Request, id null (%s)", async (_n, send) => {
    expect(await send(request("ping", undefined, '{"__proto__":{"polluted":true}}'), methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"id: must be a string, a number or null"},"id":null}',
    );
    expect(await send(request("ping", undefined, '{"constructor":{"prototype":{"polluted":true}}}'), methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"id: must be a string, a number or null"},"id":null}',
    );
  });

  test.each(jsonDispatchers)("as a member of the request: -32600 (not a request member) (%s)", async (_n, send) => {
    const body = '{"jsonrpc":"2.0","method":"ping","__proto__":{"id":5,"polluted":true}}';
    expect(await send(body, methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"__proto__: is not a member of a JSON-RPC 2.0 request"},"id":null}',
    );
    // With validation off, a "__proto__" member is not where the id comes from: a notification.
    expect(await send(body, methods, { validator: () => undefined })).toBe("");
  });
});

describe("method names found on Object.prototype and Function.prototype", () => {
  const names = [
    ...new Set([...Object.getOwnPropertyNames(Object.prototype), ...Object.getOwnPropertyNames(Function.prototype)]),
  ];
  const body = `[${names.map((name, i) => request(name, undefined, String(i))).join(",")}]`;
  const answer = `[${names
    .map(
      (name, i) =>
        `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":${JSON.stringify(name)}},"id":${i}}`,
    )
    .join(",")}]`;

  test("the list is the real one", () => {
    expect(names).toEqual(
      expect.arrayContaining(["__proto__", "constructor", "toString", "hasOwnProperty", "apply", "bind", "call"]),
    );
  });

  test.each(jsonDispatchers)("are each -32601 against a plain methods object (%s)", async (_n, send) => {
    expect(await send(body, { ping })).toBe(answer);
  });

  test.each(jsonDispatchers)("are each -32601 against a Map (%s)", async (_n, send) => {
    expect(await send(body, new Map<string, Method>([["ping", ping]]))).toBe(answer);
  });

  test.each(jsonDispatchers)("are each -32601 against globalMethods (%s)", async (_n, send) => {
    globalMethods["ping"] = ping;
    try {
      expect(await send(body)).toBe(answer);
      expect(await send(PING)).toBe(PONG);
    } finally {
      delete globalMethods["ping"];
    }
  });
});

describe("methods that throw values other than Errors", () => {
  describe.each(jsonDispatchers)("%s", (_n, send) => {
    test.each(NON_ERRORS)("throwing %s: -32603, debug shows what can be shown", async (_what, make, shown) => {
      const methods: Methods = {
        m: () => {
          throw make();
        },
      };
      expect(await send(request("m"), methods)).toBe(INTERNAL(1));
      expect(await send(request("m"), methods, { debug: true })).toBe(INTERNAL_WITH(shown));
      // A notification that throws is logged and not answered.
      expect(await send('{"jsonrpc":"2.0","method":"m"}', methods)).toBe("");
    });
  });

  test.each(NON_ERRORS)("an async method throwing %s: -32603 from asyncDispatch", async (_what, make, shown) => {
    const methods: Methods = {
      m: async () => {
        throw make();
      },
    };
    expect(await asyncDispatch(request("m"), methods)).toBe(INTERNAL(1));
    expect(await asyncDispatch(request("m"), methods, { debug: true })).toBe(INTERNAL_WITH(shown));
  });
});

describe("methods returning rejected promises", () => {
  test("control: the unhandledRejection watcher does see an unhandled rejection", async () => {
    const watcher = watchRejections();
    try {
      void Promise.reject(new globalThis.Error("control"));
      await settle();
      expect(watcher.seen).toHaveLength(1);
    } finally {
      watcher.stop();
    }
  });

  test.each(NON_ERRORS)("rejecting with %s: -32603 from asyncDispatch", async (_what, make, shown) => {
    const methods: Methods = { m: () => Promise.reject(make()) };
    expect(await asyncDispatch(request("m"), methods)).toBe(INTERNAL(1));
    expect(await asyncDispatch(request("m"), methods, { debug: true })).toBe(INTERNAL_WITH(shown));
    expect(await asyncDispatch('{"jsonrpc":"2.0","method":"m"}', methods)).toBe("");
  });

  test.each(NON_ERRORS)(
    "rejecting with %s: -32603 from sync dispatch, and no unhandled rejection",
    async (_what, make) => {
      const watcher = watchRejections();
      try {
        const methods: Methods = { m: () => Promise.reject(make()) };
        expect(dispatch(request("m"), methods)).toBe(REFUSED);
        expect(dispatch('{"jsonrpc":"2.0","method":"m"}', methods)).toBe("");
        expect(dispatch(`[${request("m")},${request("m", undefined, "2")}]`, methods)).toBe(
          `[${REFUSED},${REFUSED.replace('"id":1', '"id":2')}]`,
        );
        await settle();
        expect(watcher.seen).toStrictEqual([]);
      } finally {
        watcher.stop();
      }
    },
  );
});

describe("a Result whose result has a throwing toJSON", () => {
  const THROWN: ReadonlyArray<readonly [string, () => unknown]> = [
    ["an Error", () => new globalThis.Error("toJSON failed")],
    ["undefined", () => undefined],
    ["null", () => null],
    ["a Proxy whose every trap throws", () => everyTrapThrows({})],
  ];

  describe.each(jsonDispatchers)("%s", (_n, send) => {
    test.each(THROWN)("throwing %s: -32603 for that response, the rest of the batch intact", async (_what, make) => {
      const methods: Methods = {
        bad: () =>
          Success({
            toJSON: () => {
              throw make();
            },
          }),
        ping,
      };
      const body = `[${request("ping", undefined, "0")},${request("bad")},${request("ping", undefined, "2")}]`;
      const expected = `[{"jsonrpc":"2.0","result":"pong","id":0},${INTERNAL(1)},{"jsonrpc":"2.0","result":"pong","id":2}]`;
      expect(await send(body, methods)).toBe(expected);
      expect(await send(body, methods, { serializer: JSON.stringify })).toBe(expected);
    });
  });
});

describe("methods returning thenables", () => {
  const thenables: { [name: string]: () => unknown } = {
    resolves: () => ({ then: (resolve: (r: Result) => void) => resolve(Success(7)) }),
    thenThrows: () => ({
      then: () => {
        throw everyTrapThrows({});
      },
    }),
    thenGetterThrows: () =>
      Object.defineProperty({}, "then", {
        get: () => {
          throw null;
        },
      }),
    resolvesThenRejects: () => ({
      then: (resolve: (r: Result) => void, reject: (e: unknown) => void) => {
        resolve(Success("first"));
        reject(new globalThis.Error("second"));
      },
    }),
    rejectsThenResolves: () => ({
      then: (resolve: (r: Result) => void, reject: (e: unknown) => void) => {
        reject(undefined);
        resolve(Success("second"));
      },
    }),
    resolvesNonResult: () => ({ then: (resolve: (r: unknown) => void) => resolve({ not: "a Result" }) }),
    resolvesHostile: () => ({ then: (resolve: (r: unknown) => void) => resolve(everyTrapThrows({})) }),
  };
  const methods = thenables as unknown as Methods;

  test("async: awaited; a then that throws, or is a throwing getter, is -32603; the first callback wins", async () => {
    const body = `[${Object.keys(thenables)
      .map((name, i) => request(name, undefined, String(i)))
      .join(",")}]`;
    expect(JSON.parse(await asyncDispatch(body, methods))).toStrictEqual([
      { jsonrpc: "2.0", result: 7, id: 0 },
      { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: 1 },
      { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: 2 },
      { jsonrpc: "2.0", result: "first", id: 3 },
      { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: 4 },
      {
        jsonrpc: "2.0",
        error: { code: -32603, message: "Internal error", data: "The method did not return a Result" },
        id: 5,
      },
      { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: 6 },
    ]);
  });

  test("sync: each is -32603 (a thenable is not a Result), and none becomes an unhandled rejection", async () => {
    const watcher = watchRejections();
    try {
      for (const name of Object.keys(thenables)) {
        const expected = name === "thenGetterThrows" ? INTERNAL(1) : REFUSED;
        expect([name, dispatch(request(name), methods)]).toStrictEqual([name, expected]);
      }
      await settle();
      expect(watcher.seen).toStrictEqual([]);
    } finally {
      watcher.stop();
    }
  });
});

describe("methods returning something that only looks like a Result", () => {
  const fakes: { [name: string]: () => unknown } = {
    emptyLeft: () => ({ _tag: "Left", left: {} }),
    leftWithoutMessage: () => ({ _tag: "Left", left: { code: 1 } }),
    leftOfNull: () => ({ _tag: "Left", left: null }),
    emptyRight: () => ({ _tag: "Right", right: {} }),
    hostile: () => everyTrapThrows({}),
  };
  const methods = fakes as unknown as Methods;
  const NOT_A_RESULT =
    '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"The method did not return a Result"},"id":1}';

  test.each(Object.keys(fakes))("%s: -32603 in every output form, never an error without code", async (name) => {
    const expected = name === "hostile" ? INTERNAL(1) : NOT_A_RESULT;
    const viaDict: JsonOptions = { serializer: JSON.stringify };
    expect(dispatch(request(name), methods)).toBe(expected);
    expect(dispatch(request(name), methods, viaDict)).toBe(expected);
    expect(await asyncDispatch(request(name), methods, viaDict)).toBe(expected);
    expect(JSON.stringify(dispatchToSerializable(request(name), methods))).toBe(expected);
  });
});

describe("custom serializer, deserializer and validator that throw values other than Errors", () => {
  const THROWN: ReadonlyArray<readonly [string, () => unknown, string]> = [
    ["undefined", () => undefined, "undefined"],
    ["null", () => null, "null"],
    ["a Proxy whose every trap throws", () => everyTrapThrows({}), "(a value that cannot be described)"],
  ];
  const batch = `[${request("ping", undefined, "1")},${request("ping", undefined, "2")}]`;

  describe.each(jsonDispatchers)("%s", (_n, send) => {
    test.each(THROWN)("a serializer throwing %s: -32603 for each response it fails", async (_what, make) => {
      const always = (): string => {
        throw make();
      };
      expect(await send(batch, { ping }, { serializer: always })).toBe(`[${INTERNAL(1)},${INTERNAL(2)}]`);
      const firstOnly = (response: unknown): string => {
        if ((response as { id?: unknown }).id === 1) throw make();
        return JSON.stringify(response);
      };
      expect(await send(batch, { ping }, { serializer: firstOnly })).toBe(
        `[${INTERNAL(1)},{"jsonrpc":"2.0","result":"pong","id":2}]`,
      );
    });

    test.each(THROWN)("a serializer returning %s instead of text: -32603", async (_what, make) => {
      expect(await send(PING, { ping }, { serializer: make as () => string })).toBe(INTERNAL(1));
    });

    test.each(THROWN)("a deserializer throwing %s: -32700, what can be shown in data", async (_what, make, shown) => {
      const deserializer = (): unknown => {
        throw make();
      };
      expect(await send(batch, { ping }, { deserializer })).toBe(
        `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":${JSON.stringify(shown)}},"id":null}`,
      );
    });

    test.each(THROWN)("a validator throwing %s: -32600 for each member", async (_what, make, shown) => {
      const validator = (): unknown => {
        throw make();
      };
      const invalid = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":${JSON.stringify(shown)}},"id":null}`;
      expect(await send(batch, { ping }, { validator })).toBe(`[${invalid},${invalid}]`);
    });
  });
});

describe("a custom logger that throws", () => {
  const THROWING: ReadonlyArray<readonly [string, () => unknown]> = [
    ["an Error", () => new globalThis.Error("logger down")],
    ["undefined", () => undefined],
    ["a Proxy whose every trap throws", () => everyTrapThrows({})],
  ];
  const methods: Methods = {
    ping,
    boom: () => {
      throw new globalThis.Error("boom");
    },
    nan: () => Success(NaN),
    later: () => Promise.reject(new globalThis.Error("later")),
    nonResult: (() => 1) as unknown as Method,
  };

  test.each(THROWING)("throwing %s: every answer is still sent", async (_what, make) => {
    const fail = (): never => {
      throw make();
    };
    const logger: Logger = { error: fail, warn: fail, info: fail };
    const previous = setLogger(logger);
    const watcher = watchRejections();
    try {
      const body = `[${request("boom", undefined, "1")},${request("nan", undefined, "2")},${request("nonResult", undefined, "3")},${request("ping", undefined, "4")},{"jsonrpc":"2.0","method":"boom"}]`;
      const expected = `[${INTERNAL(1)},${INTERNAL(2)},{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"The method did not return a Result"},"id":3},{"jsonrpc":"2.0","result":"pong","id":4}]`;
      expect(dispatch(body, methods)).toBe(expected);
      expect(await asyncDispatch(body, methods)).toBe(expected);
      expect(dispatch(request("later"), methods)).toBe(REFUSED);
      expect(await asyncDispatch(request("later"), methods)).toBe(INTERNAL(1));
      const postProcess = (): never => {
        throw new globalThis.Error("postProcess");
      };
      expect(dispatchToResponse(PING, methods, { postProcess })).toStrictEqual(
        E.left(ErrorResponse(-32000, "Server error", NODATA, null)),
      );
      await settle();
      expect(watcher.seen).toStrictEqual([]);
    } finally {
      watcher.stop();
      setLogger(previous);
    }
  });
});

describe("postProcess that throws values other than Errors", () => {
  const THROWN: ReadonlyArray<readonly [string, () => unknown, string]> = [
    ["undefined", () => undefined, "undefined"],
    ["null", () => null, "null"],
    ["a Proxy whose every trap throws", () => everyTrapThrows({}), "(a value that cannot be described)"],
  ];
  const batch = `[${request("ping", undefined, "1")},${request("ping", undefined, "2")}]`;

  test.each(THROWN)("throwing %s: the raw -32000 Server error Response, sync and async", async (_what, make, shown) => {
    const postProcess = (): never => {
      throw make();
    };
    const serverError = E.left(ErrorResponse(-32000, "Server error", NODATA, null));
    expect(dispatchToResponse(batch, { ping }, { postProcess })).toStrictEqual(serverError);
    expect(await asyncDispatchToResponse(batch, { ping }, { postProcess })).toStrictEqual(serverError);
    expect(dispatchToResponse(PING, { ping }, { postProcess, debug: true })).toStrictEqual(
      E.left(ErrorResponse(-32000, "Server error", shown, null)),
    );
  });
});
