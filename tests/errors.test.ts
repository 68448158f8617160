/**
 * Errors: uncaught exceptions, non-Result returns, Promises in sync dispatch, JsonRpcError,
 * failures of the library itself (-32000), the logger, and JSON-RPC's standard messages.
 */
import * as E from "fp-ts/Either";
import fc from "fast-check";
import {
  asyncDispatch,
  asyncDispatchToResponse,
  codes,
  dispatch,
  dispatchToResponse,
  dispatchToSerializable,
  Error,
  ErrorResponse,
  JsonRpcError,
  NODATA,
  setLogger,
  Success,
  toDict,
  withParams,
  type Methods,
} from "../src";
import * as t from "io-ts";
import { jsonDispatchers, recordLogs, recordWarnings } from "./support";

const request = '{"jsonrpc":"2.0","method":"m","id":1}';
const INTERNAL = '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}';
const internalWith = (data: string) =>
  `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":${JSON.stringify(data)}},"id":1}`;
const throwing = (thrown: unknown): Methods => ({
  m: () => {
    throw thrown;
  },
});

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

describe.each(jsonDispatchers)("an uncaught exception in a method (%s)", (_name, send) => {
  test("is -32603 without data by default, and logged with the exception", async () => {
    const error = new globalThis.Error("password=hunter2");
    expect(await send(request, throwing(error))).toBe(INTERNAL);
    expect(logs.entries).toStrictEqual([
      { level: "error", args: ['rpcserver: method "m" raised an exception', error] },
    ]);
  });

  test("is -32603 with the exception's message in data under debug, and logged as well", async () => {
    const error = new TypeError("password=hunter2");
    expect(await send(request, throwing(error), { debug: true })).toBe(internalWith("password=hunter2"));
    expect(logs.entries).toStrictEqual([
      { level: "error", args: ['rpcserver: method "m" raised an exception', error] },
    ]);
  });

  test("debug: false is the default", async () => {
    expect(await send(request, throwing(new globalThis.Error("x")), { debug: false })).toBe(INTERNAL);
  });

  test.each([
    ["a string", "just text", "just text"],
    ["a number", 42, "42"],
    ["undefined", undefined, "undefined"],
    ["null", null, "null"],
    ["an object", { code: 1 }, "[object Object]"],
    ["an object with a message", { message: "from an object" }, "from an object"],
  ])("a thrown %s is -32603 too, its text in data under debug", async (_what, thrown, text) => {
    expect(await send(request, throwing(thrown))).toBe(INTERNAL);
    expect(await send(request, throwing(thrown), { debug: true })).toBe(internalWith(text));
    expect(logs.entries).toHaveLength(2);
  });

  test("a thrown value that cannot even be described is -32603", async () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new globalThis.Error("trap");
        },
        has() {
          throw new globalThis.Error("trap");
        },
      },
    );
    expect(await send(request, throwing(hostile))).toBe(INTERNAL);
    expect(await send(request, throwing(hostile), { debug: true })).toBe(
      internalWith("(a value that cannot be described)"),
    );
  });

  test("a JsonRpcError is sent as given, whatever debug is, and not logged as an error", async () => {
    for (const debug of [false, true]) {
      expect(await send(request, throwing(new JsonRpcError(-1, "Not yours", { x: 1 })), { debug })).toBe(
        '{"jsonrpc":"2.0","error":{"code":-1,"message":"Not yours","data":{"x":1}},"id":1}',
      );
    }
    expect(logs.entries).toStrictEqual([]);
  });

  test("Error and JsonRpcError with a bad code or message warn and are sent as given", async () => {
    const warnings = recordWarnings();
    try {
      expect(await send(request, { m: () => Error(1.5, "Half") })).toBe(
        '{"jsonrpc":"2.0","error":{"code":1.5,"message":"Half"},"id":1}',
      );
      expect(await send(request, throwing(new JsonRpcError(7, ["not", "a", "string"] as unknown as string)))).toBe(
        '{"jsonrpc":"2.0","error":{"code":7,"message":["not","a","string"]},"id":1}',
      );
      expect(warnings.warnings()).toStrictEqual([
        { message: "JSON-RPC error code should be an integer, got 1.5", type: "UserWarning" },
        { message: "JSON-RPC error message should be a string, got object", type: "UserWarning" },
      ]);
    } finally {
      warnings.restore();
    }
  });
});

describe.each(jsonDispatchers)("a method that returns something other than a Result (%s)", (_name, send) => {
  test.each([
    ["a number", 42],
    ["undefined", undefined],
    ["null", null],
    ["a string", "Success"],
    ["a plain result object", { result: 1 }],
    ["an fp-ts right without a SuccessResult", E.right(5)],
    ["a bare tag", { _tag: "Right" }],
    ["an fp-ts left that is not an object", E.left("oops")],
    ["a function", () => Success()],
  ])("%s is -32603 and logged", async (_what, returned) => {
    expect(await send(request, { m: () => returned as never })).toBe(
      internalWith("The method did not return a Result"),
    );
    expect(logs.entries).toStrictEqual([
      {
        level: "error",
        args: [
          'rpcserver: method "m" returned something other than a Result (its value wrapped: Success(value), or Error(code, message))',
        ],
      },
    ]);
  });
});

describe("a Promise returned to sync dispatch", () => {
  test("is -32603 and logged; an async method belongs in asyncDispatch", async () => {
    const methods: Methods = { m: async () => Success("later") };
    expect(dispatch(request, methods)).toBe(internalWith("The method returned a Promise; use asyncDispatch"));
    expect(logs.entries).toStrictEqual([
      { level: "error", args: ['rpcserver: method "m" returned a Promise to sync dispatch'] },
    ]);
    expect(await asyncDispatch(request, methods)).toBe('{"jsonrpc":"2.0","result":"later","id":1}');
  });

  test("a thenable counts as a Promise", () => {
    const thenable = { then: (resolve: (value: unknown) => void) => resolve(Success()) };
    expect(dispatch(request, { m: () => thenable as never })).toBe(
      internalWith("The method returned a Promise; use asyncDispatch"),
    );
  });

  test("a rejected Promise does not become an unhandled rejection; the rejection is logged", async () => {
    // jest fails a test in which a promise rejection goes unhandled; the log shows who handled it.
    const reason = new globalThis.Error("rejected later");
    const methods: Methods = { m: () => Promise.reject(reason) };
    const refused = internalWith("The method returned a Promise; use asyncDispatch");
    expect(dispatch(request, methods)).toBe(refused);
    expect(dispatch(`[${request},${request}]`, methods)).toBe(`[${refused},${refused}]`);
    // Let the rejections settle.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    const message = 'rpcserver: method "m" rejected after sync dispatch refused its Promise';
    expect(logs.entries.filter((entry) => entry.args[0] === message)).toStrictEqual([
      { level: "error", args: [message, reason] },
      { level: "error", args: [message, reason] },
      { level: "error", args: [message, reason] },
    ]);
  });

  test("a notification returning a Promise to sync dispatch sends nothing", () => {
    expect(dispatch('{"jsonrpc":"2.0","method":"m"}', { m: async () => Success() })).toBe("");
  });
});

describe("a failure inside the library itself is -32000", () => {
  const methods: Methods = { ping: () => Success("pong") };
  const ping = '{"jsonrpc":"2.0","method":"ping","id":1}';
  const postProcess = () => {
    throw new globalThis.Error("postProcess secret");
  };

  test("a postProcess that throws gives the raw -32000 Response, without the message", async () => {
    const expected = E.left(ErrorResponse(-32000, "Server error", NODATA, null));
    expect(dispatchToResponse(ping, methods, { postProcess })).toStrictEqual(expected);
    expect(dispatchToResponse(`[${ping},${ping}]`, methods, { postProcess })).toStrictEqual(expected);
    expect(await asyncDispatchToResponse(ping, methods, { postProcess })).toStrictEqual(expected);
    expect(logs.entries).toHaveLength(3);
    expect(logs.entries[0]?.args[0]).toBe("rpcserver: dispatch failed");
    expect((logs.entries[0]?.args[1] as Error).message).toBe("postProcess secret");
  });

  test("under debug the -32000 response carries the message", async () => {
    const expected = E.left(ErrorResponse(-32000, "Server error", "postProcess secret", null));
    expect(dispatchToResponse(ping, methods, { postProcess, debug: true })).toStrictEqual(expected);
    expect(await asyncDispatchToResponse(ping, methods, { postProcess, debug: true })).toStrictEqual(expected);
  });
});

describe("a methods table is the user's code", () => {
  const ping = '{"jsonrpc":"2.0","method":"ping","id":1}';
  test("a methods object that throws when read answers each request -32603 (logged), not the whole body -32000", async () => {
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new globalThis.Error("trap secret");
        },
      },
    ) as Methods;
    for (const [, send] of jsonDispatchers) {
      expect(await send(ping, hostile)).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}',
      );
      expect(await send(`[${ping},${ping.replace('"id":1', '"id":2')}]`, hostile, { debug: true })).toBe(
        '[{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"trap secret"},"id":1},' +
          '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"trap secret"},"id":2}]',
      );
    }
    expect(dispatchToSerializable(ping, hostile)).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: -32603, message: "Internal error" },
      id: 1,
    });
    expect(logs.entries[0]?.args[0]).toBe('rpcserver: method "ping" raised an exception');
  });
});

describe("a logger that throws never costs the client its answer", () => {
  const brokenLogger = {
    error: () => {
      throw new globalThis.Error("logger down");
    },
    warn: () => {
      throw new globalThis.Error("logger down");
    },
    info: () => {
      throw new globalThis.Error("logger down");
    },
  };
  let previous: ReturnType<typeof setLogger>;
  beforeEach(() => {
    previous = setLogger(brokenLogger);
  });
  afterEach(() => void setLogger(previous));

  test.each(jsonDispatchers)(
    "method exceptions, non-Results and bad results are still answered (%s)",
    async (_n, send) => {
      expect(await send(request, throwing(new globalThis.Error("x")))).toBe(INTERNAL);
      expect(await send(request, { m: () => 42 as never })).toBe(internalWith("The method did not return a Result"));
      expect(await send(request, { m: () => Success(NaN) })).toBe(INTERNAL);
    },
  );

  test("a refused Promise and a throwing postProcess are still answered", async () => {
    expect(dispatch(request, { m: () => Promise.reject(new globalThis.Error("later")) })).toBe(
      internalWith("The method returned a Promise; use asyncDispatch"),
    );
    expect(
      dispatchToResponse(
        request,
        { m: () => Success() },
        {
          postProcess: () => {
            throw new globalThis.Error("pp");
          },
        },
      ),
    ).toStrictEqual(E.left(ErrorResponse(-32000, "Server error", NODATA, null)));
    await new Promise((resolve) => setImmediate(resolve));
  });
});

describe("a returned value that throws when it is read", () => {
  /** Not a thenable, but reading anything else from it throws. */
  const hostile = () =>
    new Proxy(
      {},
      {
        get(_target, key) {
          if (key === "then") return undefined;
          throw new globalThis.Error("getter secret");
        },
      },
    );

  test("is -32603 for that request alone, in sync and async dispatch alike", async () => {
    const batch = '[{"jsonrpc":"2.0","method":"m","id":1},{"jsonrpc":"2.0","method":"ping","id":2}]';
    const expected =
      '[{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1},{"jsonrpc":"2.0","result":"pong","id":2}]';
    const ping = () => Success("pong");
    expect(dispatch(batch, { m: () => hostile() as never, ping })).toBe(expected);
    expect(await asyncDispatch(batch, { m: () => hostile() as never, ping })).toBe(expected);
    expect(await asyncDispatch(batch, { m: async () => hostile() as never, ping })).toBe(expected);
  });
});

describe("a params codec that throws", () => {
  const hostileCodec = new t.Type<number, number, unknown>(
    "Hostile",
    (u): u is number => typeof u === "number",
    () => {
      throw new globalThis.Error("codec secret");
    },
    t.identity,
  );

  test.each(jsonDispatchers)(
    "is -32603 for that request alone; the rest of the batch is answered (%s)",
    async (_n, send) => {
      const methods: Methods = { bad: withParams(hostileCodec, () => Success()), ping: () => Success("pong") };
      const batch = '[{"jsonrpc":"2.0","method":"bad","params":[1],"id":1},{"jsonrpc":"2.0","method":"ping","id":2}]';
      expect(await send(batch, methods)).toBe(
        '[{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1},{"jsonrpc":"2.0","result":"pong","id":2}]',
      );
      expect(await send(batch, methods, { debug: true })).toBe(
        '[{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"codec secret"},"id":1},{"jsonrpc":"2.0","result":"pong","id":2}]',
      );
      expect(logs.entries.map((entry) => entry.args[0])).toStrictEqual([
        'rpcserver: method "bad" raised an exception',
        'rpcserver: method "bad" raised an exception',
      ]);
    },
  );
});

describe("JSON-RPC's standard codes and messages", () => {
  test("the codes", () => {
    expect(codes.ERROR_PARSE_ERROR).toBe(-32700);
    expect(codes.ERROR_INVALID_REQUEST).toBe(-32600);
    expect(codes.ERROR_METHOD_NOT_FOUND).toBe(-32601);
    expect(codes.ERROR_INVALID_PARAMS).toBe(-32602);
    expect(codes.ERROR_INTERNAL_ERROR).toBe(-32603);
    expect(codes.ERROR_SERVER_ERROR).toBe(-32000);
  });

  test("each code is sent with its standard message", () => {
    const methods: Methods = {
      one: (a: number) => Success(a),
      boom: () => {
        throw new globalThis.Error("x");
      },
    };
    const error = (text: string, options = {}) =>
      (toDict(dispatchToResponse(text, methods, options) as never) as { error: { code: number; message: string } })
        .error;
    const pick = ({ code, message }: { code: number; message: string }) => [code, message];
    expect(pick(error("{"))).toStrictEqual([-32700, "Parse error"]);
    expect(pick(error("{}"))).toStrictEqual([-32600, "Invalid Request"]);
    expect(pick(error('{"jsonrpc":"2.0","method":"none","id":1}'))).toStrictEqual([-32601, "Method not found"]);
    expect(pick(error('{"jsonrpc":"2.0","method":"one","id":1}'))).toStrictEqual([-32602, "Invalid params"]);
    expect(pick(error('{"jsonrpc":"2.0","method":"boom","id":1}'))).toStrictEqual([-32603, "Internal error"]);
    expect(
      pick(
        error('{"jsonrpc":"2.0","method":"one","params":[1],"id":1}', {
          postProcess: () => {
            throw new globalThis.Error("x");
          },
        }),
      ),
    ).toStrictEqual([-32000, "Server error"]);
  });
});

describe("no request makes dispatch throw", () => {
  const methods: Methods = {
    ping: () => Success("pong"),
    echo: (...args: unknown[]) => Success(args),
    boom: () => {
      throw new globalThis.Error("boom");
    },
  };
  const member = fc.record(
    {
      jsonrpc: fc.constantFrom("2.0", "1.0", 2),
      method: fc.oneof(fc.constantFrom("ping", "echo", "boom", "missing", "__proto__", "toString"), fc.jsonValue()),
      params: fc.jsonValue(),
      id: fc.jsonValue(),
      extra: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    fc.string(),
    fc.json(),
    member.map((m) => JSON.stringify(m)),
    fc.array(member).map((ms) => JSON.stringify(ms)),
  );

  test("every answer is JSON (or nothing), and sync and async dispatch agree", async () => {
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const sync = dispatch(text, methods);
        const async_ = await asyncDispatch(text, methods);
        expect(async_).toBe(sync);
        if (sync !== "") JSON.parse(sync);
      }),
      { numRuns: 300 },
    );
  });
});
