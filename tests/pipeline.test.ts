/**
 * The request pipeline as fp-ts values (`rpcserver/pipeline`): each public stage on its own
 * (parse, validate, resolve, call, and the output stages serialize, toObjects, toResponses), the
 * composition against sync and async dispatch, the Later monad's laws, and the `validator` option
 * given an io-ts decoder or a function that throws.
 */
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as TE from "fp-ts/TaskEither";
import * as t from "io-ts";
import fc from "fast-check";
import {
  asyncDispatch,
  asyncDispatchToResponse,
  dispatch,
  dispatchToResponse,
  Error as RpcError,
  JsonRpcError,
  NOCONTEXT,
  NODATA,
  Success,
  withParams,
  type Methods,
  type Request,
  type Response,
  type Result,
} from "../src";
import {
  Async,
  call,
  environment,
  Later,
  parse,
  pipeline,
  resolve,
  serialize,
  Sync,
  toJson,
  toObjects,
  toResponses,
  toTaskEither,
  validate,
  type Answer,
  type Call,
  type Env,
  type Invocation,
} from "../src/pipeline";
import { parsedDispatcher } from "../src/internal/core/pipeline/dispatcher";
import { jsonParseMessage, recordLogs } from "./support";

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

const syncEnv = (methods: Methods = {}, options?: Parameters<typeof environment>[1]): Env =>
  environment(methods, options, false);
const asyncEnv = (methods: Methods = {}, options?: Parameters<typeof environment>[1]): Env =>
  environment(methods, options, true);

/** A Left of the pipeline: the ErrorResponse it holds. */
const leftOf = (value: E.Either<unknown, unknown>): unknown => {
  if (E.isRight(value)) throw new globalThis.Error(`expected a Left, got ${JSON.stringify(value)}`);
  return value.left;
};

const rightOf = <A>(value: E.Either<unknown, A>): A => {
  if (E.isLeft(value)) throw new globalThis.Error(`expected a Right, got ${JSON.stringify(value)}`);
  return value.right;
};

const request = (method: string, params?: unknown, id?: unknown): Request =>
  ({
    jsonrpc: "2.0",
    method,
    ...(params === undefined ? {} : { params }),
    ...(id === undefined ? {} : { id }),
  }) as Request;

const invocation = (method: (...args: never[]) => unknown, params: unknown, id: unknown = 1): Invocation => ({
  request: request("m", params, id),
  context: NOCONTEXT,
  method: method as Invocation["method"],
  params,
});

// -------------------------------------------------------------------------------------------------

describe("parse", () => {
  const read = parse(syncEnv());

  test("a string is JSON-parsed", () => {
    expect(read('{"jsonrpc":"2.0","method":"ping","id":1}')).toStrictEqual(
      E.right({ jsonrpc: "2.0", method: "ping", id: 1 }),
    );
    expect(read("[1,2]")).toStrictEqual(E.right([1, 2]));
    expect(read("null")).toStrictEqual(E.right(null));
  });

  test("UTF-8 bytes (a Buffer, a plain Uint8Array) are decoded then parsed", () => {
    const text = '{"jsonrpc":"2.0","method":"héllo","params":["✓"],"id":1}';
    const expected = E.right({ jsonrpc: "2.0", method: "héllo", params: ["✓"], id: 1 });
    expect(read(Buffer.from(text, "utf8"))).toStrictEqual(expected);
    expect(read(new TextEncoder().encode(text))).toStrictEqual(expected);
  });

  test("bytes that are not UTF-8 are -32700 with the decoder's message in data, id null", () => {
    const response = leftOf(read(Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d])));
    expect(response).toStrictEqual({ code: -32700, message: "Parse error", data: expect.any(String), id: null });
    expect((response as { data: string }).data.length).toBeGreaterThan(0);
  });

  test("text that is not JSON is -32700 with JSON.parse's message in data", () => {
    expect(read("[1")).toStrictEqual(
      E.left({ code: -32700, message: "Parse error", data: jsonParseMessage("[1"), id: null }),
    );
    expect(leftOf(read(""))).toMatchObject({ code: -32700, id: null });
  });

  test.each([
    ["a number", 42, "number"],
    ["an object", { jsonrpc: "2.0" }, "object"],
    ["undefined", undefined, "undefined"],
    ["an ArrayBuffer (not a view)", new ArrayBuffer(2), "object"],
    ["a Uint16Array (not bytes)", new Uint16Array([1]), "object"],
  ])("%s is -32700 saying it must be a string or UTF-8 bytes", (_name, body, type) => {
    expect(read(body)).toStrictEqual(
      E.left({
        code: -32700,
        message: "Parse error",
        data: `the request must be a string or UTF-8 bytes, got ${type}`,
        id: null,
      }),
    );
  });

  test("a custom deserializer gets the text (bytes decoded first); what it throws is -32700 with its message", () => {
    const seen: unknown[] = [];
    const env = syncEnv(
      {},
      {
        deserializer: (text) => {
          seen.push(text);
          if (text === "boom") throw new globalThis.Error("no thanks");
          return { parsed: text };
        },
      },
    );
    expect(parse(env)("abc")).toStrictEqual(E.right({ parsed: "abc" }));
    expect(parse(env)(Buffer.from("xyz"))).toStrictEqual(E.right({ parsed: "xyz" }));
    expect(parse(env)("boom")).toStrictEqual(
      E.left({ code: -32700, message: "Parse error", data: "no thanks", id: null }),
    );
    expect(seen).toStrictEqual(["abc", "xyz", "boom"]);
  });
});

// -------------------------------------------------------------------------------------------------

describe("validate", () => {
  test("the default validator (requestCodec) passes a good request as it is", () => {
    const value = { jsonrpc: "2.0", method: "ping", params: [1], id: "a" };
    const validated = validate(syncEnv())(value);
    expect(rightOf(validated)).toBe(value);
    expect(rightOf(validate(syncEnv())({ jsonrpc: "2.0", method: "note" }))).toStrictEqual({
      jsonrpc: "2.0",
      method: "note",
    });
  });

  test.each([
    ["not an object", 1, "a request must be an object"],
    ["an array", [], "a request must be an object"],
    ["a wrong jsonrpc", { jsonrpc: "1.0", method: "m" }, 'jsonrpc: must be exactly "2.0"'],
    ["a method that is not a string", { jsonrpc: "2.0", method: 1 }, "method: must be a string"],
    ["params that are a string", { jsonrpc: "2.0", method: "m", params: "x" }, "params: must be an array or an object"],
    ["an id that is an object", { jsonrpc: "2.0", method: "m", id: {} }, "id: must be a string, a number or null"],
    ["an extra member", { jsonrpc: "2.0", method: "m", extra: 1 }, "extra: is not a member of a JSON-RPC 2.0 request"],
  ])("%s is -32600 with what is wrong in data and id null", (_name, value, data) => {
    expect(validate(syncEnv())(value)).toStrictEqual(
      E.left({ code: -32600, message: "Invalid Request", data, id: null }),
    );
  });

  test("an io-ts decoder as validator: what it decodes to passes; its failure is -32600 with its report", () => {
    const Shaped = t.type({ jsonrpc: t.literal("2.0"), method: t.string, id: t.number });
    const env = syncEnv({}, { validator: Shaped });
    expect(rightOf(validate(env)({ jsonrpc: "2.0", method: "m", id: 1 }))).toStrictEqual({
      jsonrpc: "2.0",
      method: "m",
      id: 1,
    });
    const refused = leftOf(validate(env)({ jsonrpc: "2.0", method: "m", id: "a" })) as { data: unknown };
    expect(refused).toMatchObject({ code: -32600, message: "Invalid Request", id: null });
    expect(JSON.stringify(refused.data)).toContain("number");
    expect(JSON.stringify(refused.data)).toContain('\\"a\\"');
  });
});

// -------------------------------------------------------------------------------------------------

describe("resolve", () => {
  const add = (a: number, b: number): Result => Success(a + b);

  // A method's `length` is read once per function (V8 cannot inline the accessor: a fifth of what
  // a notification cost). A method is a function, its arity set when it is made.
  test("a method's length is read once, however many requests call it, sync and async", async () => {
    let reads = 0;
    const m = (a: number): Result => Success(a);
    Object.defineProperty(m, "length", {
      get: () => {
        reads += 1;
        return 1;
      },
    });
    const methods = { m };
    for (let i = 0; i < 3; i++) {
      expect(dispatch(`{"jsonrpc":"2.0","method":"m","params":[${i}],"id":1}`, methods)).toBe(
        `{"jsonrpc":"2.0","result":${i},"id":1}`,
      );
      expect(dispatch(`{"jsonrpc":"2.0","method":"m","params":[${i}]}`, methods)).toBe("");
      expect(await asyncDispatch(`{"jsonrpc":"2.0","method":"m","params":[${i}],"id":1}`, methods)).toBe(
        `{"jsonrpc":"2.0","result":${i},"id":1}`,
      );
    }
    expect(reads).toBe(1);
    // Still checked against every request's params: too few is -32602.
    expect(dispatch('{"jsonrpc":"2.0","method":"m","id":2}', methods)).toContain('"code":-32602');
  });

  test("resolve without stages builds the invocation itself: the same Response as through a stage that passes", () => {
    const pass = (c: unknown) => E.right(c);
    for (const body of [
      '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}',
      '{"jsonrpc":"2.0","method":"add","params":[1],"id":1}',
      '{"jsonrpc":"2.0","method":"nope","id":1}',
    ]) {
      expect(dispatch(body, { add })).toBe(dispatch(body, { add }, { stages: [pass] as never }));
    }
  });

  test("a method that is not there is -32601 with the method's name in data and the request's id", () => {
    expect(resolve(syncEnv({ add }))({ request: request("nope", [], 7), context: NOCONTEXT })).toStrictEqual(
      E.left({ code: -32601, message: "Method not found", data: "nope", id: 7 }),
    );
    // a notification's id is null in the (unsent) answer
    expect(leftOf(resolve(syncEnv())({ request: request("nope"), context: NOCONTEXT }))).toMatchObject({
      code: -32601,
      id: null,
    });
  });

  test("methods in a Map are found too", () => {
    const found = rightOf(
      resolve(syncEnv(new Map([["add", add]])))({ request: request("add", [1, 2], 1), context: NOCONTEXT }),
    );
    expect(found.method).toBe(add);
  });

  test("the method found, with its params as given", () => {
    const call0 = { request: request("add", [1, 2], 1), context: NOCONTEXT };
    const found = rightOf(resolve(syncEnv({ add }))(call0));
    expect(found).toStrictEqual({ request: call0.request, context: NOCONTEXT, method: add, params: [1, 2] });
  });

  test("too few params for the method's arity is -32602; the context counts as one argument", () => {
    expect(resolve(syncEnv({ add }))({ request: request("add", [1], 2), context: NOCONTEXT })).toStrictEqual(
      E.left({ code: -32602, message: "Invalid params", data: "expected at least 2 params, got 1", id: 2 }),
    );
    const withContext = (_ctx: unknown, a: number): Result => Success(a);
    expect(E.isRight(resolve(syncEnv({ withContext }))({ request: request("withContext", [1], 3), context: {} }))).toBe(
      true,
    );
    expect(
      leftOf(resolve(syncEnv({ withContext }))({ request: request("withContext", [], 3), context: {} })),
    ).toStrictEqual({
      code: -32602,
      message: "Invalid params",
      data: "expected at least 1 params, got 0",
      id: 3,
    });
    // extra params are allowed
    expect(E.isRight(resolve(syncEnv({ add }))({ request: request("add", [1, 2, 3], 4), context: NOCONTEXT }))).toBe(
      true,
    );
  });

  test("a params codec decodes the params: the method gets the decoded value", () => {
    const Doubled = new t.Type<number, number, unknown>(
      "Doubled",
      (u): u is number => typeof u === "number",
      (u, c) => (typeof u === "number" ? t.success(u * 2) : t.failure(u, c)),
      (a) => a / 2,
    );
    const twice = withParams(t.tuple([Doubled]), (n: number) => Success(n));
    const found = rightOf(resolve(syncEnv({ twice }))({ request: request("twice", [21], 1), context: NOCONTEXT }));
    expect(found.params).toStrictEqual([42]);
    const refused = leftOf(resolve(syncEnv({ twice }))({ request: request("twice", ["x"], 1), context: NOCONTEXT }));
    expect(refused).toStrictEqual({ code: -32602, message: "Invalid params", data: [expect.any(String)], id: 1 });
    expect((refused as { data: string[] }).data[0]).toContain('"x"');
    // absent params decode as []
    const none = withParams(t.array(t.unknown), (...xs: unknown[]) => Success(xs.length));
    expect(
      rightOf(resolve(syncEnv({ none }))({ request: request("none", undefined, 1), context: NOCONTEXT })).params,
    ).toStrictEqual([]);
  });

  test("a codec that throws is -32603 for that request (logged; the message only under debug)", () => {
    const Boom = new t.Type<unknown, unknown, unknown>(
      "Boom",
      (_u): _u is unknown => true,
      () => {
        throw new globalThis.Error("codec secret");
      },
      (a) => a,
    );
    const m = withParams(Boom, () => Success(1));
    const req = { request: request("m", [1], 5), context: NOCONTEXT };
    expect(resolve(syncEnv({ m }))(req)).toStrictEqual(
      E.left({ code: -32603, message: "Internal error", data: NODATA, id: 5 }),
    );
    expect(logs.entries.map((e) => e.args[0])).toContain('rpcserver: method "m" raised an exception');
    expect(resolve(syncEnv({ m }, { debug: true }))(req)).toStrictEqual(
      E.left({ code: -32603, message: "Internal error", data: "codec secret", id: 5 }),
    );
  });

  test("a codec that throws a JsonRpcError answers with that error", () => {
    const Refusing = new t.Type<unknown, unknown, unknown>(
      "Refusing",
      (_u): _u is unknown => true,
      () => {
        throw new JsonRpcError(12, "nope", { why: "codec" });
      },
      (a) => a,
    );
    const m = withParams(Refusing, () => Success(1));
    expect(resolve(syncEnv({ m }))({ request: request("m", [1], 5), context: NOCONTEXT })).toStrictEqual(
      E.left({ code: 12, message: "nope", data: { why: "codec" }, id: 5 }),
    );
  });
});

// -------------------------------------------------------------------------------------------------

describe("call", () => {
  const callSync = call(Sync)(syncEnv());
  const callAsync = call(Async)(asyncEnv());

  test("Sync: a Result is the Response, with the request's id; params spread, object params as one", () => {
    expect(callSync(invocation((a: number, b: number) => Success(a + b), [1, 2], 9))).toStrictEqual(
      E.right({ result: 3, id: 9 }),
    );
    expect(callSync(invocation((p: { x: number }) => Success(p.x), { x: 4 }))).toStrictEqual(
      E.right({ result: 4, id: 1 }),
    );
    const many = (...xs: number[]): Result => Success(xs.reduce((s, x) => s + x, 0));
    expect(callSync(invocation(many, [1, 2, 3, 4, 5]))).toStrictEqual(E.right({ result: 15, id: 1 }));
    expect(callSync(invocation(() => RpcError(3, "bad", { d: 1 }), undefined, "s"))).toStrictEqual(
      E.left({ code: 3, message: "bad", data: { d: 1 }, id: "s" }),
    );
  });

  test("the context comes first when there is one", () => {
    const seen: unknown[] = [];
    const m = (...args: unknown[]): Result => {
      seen.push(args);
      return Success(null);
    };
    const env = syncEnv();
    call(Sync)(env)({ request: request("m", [1, 2], 1), context: "ctx", method: m, params: [1, 2] });
    call(Sync)(env)({ request: request("m", { a: 1 }, 1), context: "ctx", method: m, params: { a: 1 } });
    call(Sync)(env)({ request: request("m", undefined, 1), context: "ctx", method: m, params: undefined });
    expect(seen).toStrictEqual([["ctx", 1, 2], ["ctx", { a: 1 }], ["ctx"]]);
  });

  test.each([
    ["a number", 42],
    ["undefined", undefined],
    ["a plain object", { result: 1 }],
    ["a Left without an ErrorResult", E.left({})],
    ["a Right without a result", E.right({})],
  ])("Sync: returning %s is -32603 'The method did not return a Result'", (_name, value) => {
    expect(callSync(invocation(() => value, undefined, 2))).toStrictEqual(
      E.left({ code: -32603, message: "Internal error", data: "The method did not return a Result", id: 2 }),
    );
  });

  test("Sync: a method that throws is -32603, logged, its message only under debug", () => {
    const boom = (): never => {
      throw new globalThis.Error("secret");
    };
    expect(callSync(invocation(boom, undefined, 3))).toStrictEqual(
      E.left({ code: -32603, message: "Internal error", data: NODATA, id: 3 }),
    );
    expect(logs.entries).toContainEqual({
      level: "error",
      args: ['rpcserver: method "m" raised an exception', expect.any(globalThis.Error)],
    });
    expect(call(Sync)(syncEnv({}, { debug: true }))(invocation(boom, undefined, 3))).toStrictEqual(
      E.left({ code: -32603, message: "Internal error", data: "secret", id: 3 }),
    );
    const refusing = (): never => {
      throw new JsonRpcError(-1, "mine", NODATA);
    };
    expect(callSync(invocation(refusing, undefined, 3))).toStrictEqual(
      E.left({ code: -1, message: "mine", data: NODATA, id: 3 }),
    );
  });

  test("Sync: a Promise is refused: -32603 'use asyncDispatch', and its rejection is handled", async () => {
    const response = callSync(invocation(async () => Success(1), undefined, 4));
    expect(response).toStrictEqual(
      E.left({
        code: -32603,
        message: "Internal error",
        data: "The method returned a Promise; use asyncDispatch",
        id: 4,
      }),
    );
    const unhandled = jest.fn();
    process.on("unhandledRejection", unhandled);
    try {
      callSync(invocation(() => Promise.reject(new globalThis.Error("late")), undefined, 4));
      await new Promise((r) => setImmediate(r));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off("unhandledRejection", unhandled);
    }
  });

  test("Async: a plain Result is answered at once, not as a Promise", () => {
    const response = callAsync(invocation(() => Success("now"), undefined, 1));
    expect(response).not.toBeInstanceOf(Promise);
    expect(response).toStrictEqual(E.right({ result: "now", id: 1 }));
  });

  test("Async: a Promise is waited for; its rejection, or a non-Result it resolves to, is -32603", async () => {
    const later = callAsync(invocation(async (n: number) => Success(n + 1), [1], 1));
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toStrictEqual(E.right({ result: 2, id: 1 }));
    expect(await callAsync(invocation(() => Promise.reject(new globalThis.Error("x")), undefined, 2))).toStrictEqual(
      E.left({ code: -32603, message: "Internal error", data: NODATA, id: 2 }),
    );
    expect(await callAsync(invocation(async () => 7, undefined, 3))).toStrictEqual(
      E.left({ code: -32603, message: "Internal error", data: "The method did not return a Result", id: 3 }),
    );
    expect(
      await callAsync(
        invocation(
          async () => {
            throw new JsonRpcError(5, "async refusal", "d");
          },
          undefined,
          4,
        ),
      ),
    ).toStrictEqual(E.left({ code: 5, message: "async refusal", data: "d", id: 4 }));
  });

  test("Async: a thenable that is not a Promise is waited for too", async () => {
    const thenable = { then: (ok: (r: Result) => void) => ok(Success("then")) };
    expect(await callAsync(invocation(() => thenable, undefined, 1))).toStrictEqual(E.right({ result: "then", id: 1 }));
  });
});

// -------------------------------------------------------------------------------------------------

describe("output stages", () => {
  const ok: Response = E.right({ result: 1, id: 1 });
  const bad: Response = E.left({ code: 2, message: "two", data: NODATA, id: 2 });

  test("serialize: one response, a list, nothing to send", () => {
    const env = syncEnv();
    expect(serialize(env)(ok)).toBe('{"jsonrpc":"2.0","result":1,"id":1}');
    expect(serialize(env)([ok, bad])).toBe(
      '[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","error":{"code":2,"message":"two"},"id":2}]',
    );
    expect(serialize(env)(undefined)).toBe("");
  });

  test("serialize uses the serializer option; one it cannot write becomes -32603 alone", () => {
    expect(serialize(syncEnv({}, { serializer: (dict) => `<${JSON.stringify(dict)}>` }))(ok)).toBe(
      '<{"jsonrpc":"2.0","result":1,"id":1}>',
    );
    const nan: Response = E.right({ result: NaN, id: 3 });
    expect(serialize(syncEnv())([ok, nan])).toBe(
      '[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":3}]',
    );
  });

  test("toObjects: response objects", () => {
    expect(toObjects(syncEnv())(ok)).toStrictEqual({ jsonrpc: "2.0", result: 1, id: 1 });
    expect(toObjects(syncEnv())([bad])).toStrictEqual([{ jsonrpc: "2.0", error: { code: 2, message: "two" }, id: 2 }]);
    expect(toObjects(syncEnv())(undefined)).toBeUndefined();
  });

  test("toResponses: as they are without postProcess; postProcess applied to each", () => {
    expect(toResponses(syncEnv())(ok)).toBe(ok);
    const answers: Answer = [ok, bad];
    expect(toResponses(syncEnv())(answers)).toBe(answers);
    const tagOf = (r: Response): string => r._tag;
    const env = syncEnv({}, { postProcess: tagOf });
    expect(toResponses(env)(ok)).toBe("Right");
    expect(toResponses(env)([ok, bad, ok])).toStrictEqual(["Right", "Left", "Right"]);
    expect(toResponses(env)(undefined)).toBeUndefined();
  });

  test("a postProcess that throws gives the raw -32000 Response (logged; message only under debug)", () => {
    const throwing = (): never => {
      throw new globalThis.Error("post secret");
    };
    expect(toResponses(syncEnv({}, { postProcess: throwing }))(ok)).toStrictEqual(
      E.left({ code: -32000, message: "Server error", data: NODATA, id: null }),
    );
    expect(toResponses(syncEnv({}, { postProcess: throwing, debug: true }))([ok, bad])).toStrictEqual(
      E.left({ code: -32000, message: "Server error", data: "post secret", id: null }),
    );
    expect(logs.entries.some((e) => e.args[0] === "rpcserver: dispatch failed")).toBe(true);
  });
});

// -------------------------------------------------------------------------------------------------

const methods: Methods = {
  ping: () => Success("pong"),
  add: (a: number, b: number) => Success(a + b),
  fail: () => RpcError(7, "seven", { x: 1 }),
  boom: () => {
    throw new globalThis.Error("boom");
  },
  echo: (p: unknown) => Success(p),
};
const asyncMethods: Methods = {
  ...methods,
  later: async (n: number) => Success(n * 10),
};

const bodies: ReadonlyArray<readonly [string, string]> = [
  ["a single request", '{"jsonrpc":"2.0","method":"ping","id":1}'],
  ["params", '{"jsonrpc":"2.0","method":"add","params":[2,3],"id":"a"}'],
  ["named params", '{"jsonrpc":"2.0","method":"echo","params":{"k":[1]},"id":null}'],
  ["a notification", '{"jsonrpc":"2.0","method":"ping"}'],
  ["a failing notification", '{"jsonrpc":"2.0","method":"nope"}'],
  [
    "a batch with notifications",
    '[{"jsonrpc":"2.0","method":"ping","id":1},{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","method":"add","params":[1,1],"id":2},{"jsonrpc":"2.0","method":"boom"}]',
  ],
  ["a batch of notifications only", '[{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","method":"nope"}]'],
  ["an empty batch", "[]"],
  ["a batch of junk", "[1,2]"],
  ["a parse error", '{"jsonrpc":"2.0",'],
  ["an invalid request", '{"jsonrpc":"2.0","method":1,"id":1}'],
  ["method not found", '{"jsonrpc":"2.0","method":"nope","id":1}'],
  ["invalid params", '{"jsonrpc":"2.0","method":"add","params":[1],"id":1}'],
  ["an error result", '{"jsonrpc":"2.0","method":"fail","id":1}'],
  ["a method that throws", '{"jsonrpc":"2.0","method":"boom","id":1}'],
];

describe("the composition", () => {
  test.each(bodies)("Sync: pipe(body, pipeline(Sync)(env), serialize(env)) is dispatch: %s", (_name, body) => {
    const env = syncEnv(methods);
    expect(pipe(body, pipeline(Sync)(env), serialize(env))).toBe(dispatch(body, methods));
  });

  test.each(bodies)("Sync: pipeline(Sync)(env) then toResponses is dispatchToResponse: %s", (_name, body) => {
    const env = syncEnv(methods);
    expect(pipe(body, pipeline(Sync)(env), toResponses(env))).toStrictEqual(dispatchToResponse(body, methods));
  });

  test.each([
    ...bodies,
    ["an async method", '{"jsonrpc":"2.0","method":"later","params":[4],"id":1}'],
    [
      "a batch mixing async and plain methods",
      '[{"jsonrpc":"2.0","method":"later","params":[1],"id":1},{"jsonrpc":"2.0","method":"ping","id":2},{"jsonrpc":"2.0","method":"later","params":[2]}]',
    ],
  ] as const)("Async: await pipeline(Async)(env), then serialize, is asyncDispatch: %s", async (_name, body) => {
    const env = asyncEnv(asyncMethods);
    expect(serialize(env)(await pipeline(Async)(env)(body))).toBe(await asyncDispatch(body, asyncMethods));
    expect(toResponses(env)(await pipeline(Async)(env)(body))).toStrictEqual(
      await asyncDispatchToResponse(body, asyncMethods),
    );
  });

  test("the pipeline reads the environment's context", () => {
    const whoami = (ctx: unknown) => Success(ctx);
    const env = syncEnv({ whoami }, { context: "ann" });
    expect(pipe('{"jsonrpc":"2.0","method":"whoami","id":1}', pipeline(Sync)(env), serialize(env))).toBe(
      '{"jsonrpc":"2.0","result":"ann","id":1}',
    );
  });

  test("Sync's pipeline answers synchronously, Async's only waits when a method returns a Promise", () => {
    const env = asyncEnv(asyncMethods);
    expect(pipeline(Async)(env)('{"jsonrpc":"2.0","method":"ping","id":1}')).toStrictEqual(
      E.right({ result: "pong", id: 1 }),
    );
    expect(pipeline(Async)(env)('{"jsonrpc":"2.0","method":"later","params":[1],"id":1}')).toBeInstanceOf(Promise);
    const answer = pipeline(Sync)(syncEnv(methods))('[{"jsonrpc":"2.0","method":"ping","id":1}]');
    expect(answer).toStrictEqual([E.right({ result: "pong", id: 1 })]);
  });

  test("a batch over maxBatchSize is one -32600 and runs nothing", () => {
    const ran = jest.fn(() => Success(1));
    const env = syncEnv({ ran }, { maxBatchSize: 1 });
    const body = '[{"jsonrpc":"2.0","method":"ran","id":1},{"jsonrpc":"2.0","method":"ran","id":2}]';
    expect(pipeline(Sync)(env)(body)).toStrictEqual(
      E.left({
        code: -32600,
        message: "Invalid Request",
        data: { size: 2, max: 1 },
        id: null,
      }),
    );
    expect(ran).not.toHaveBeenCalled();
  });

  test("property: Sync and Async give the same answers for plain methods", async () => {
    const members = bodies.map(([, body]) => body).filter((body) => body.startsWith('{"jsonrpc":"2.0","method"'));
    const syncE = syncEnv(methods);
    const asyncE = asyncEnv(methods);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom(...bodies.map(([, body]) => body)),
          fc.array(fc.constantFrom(...members), { maxLength: 8 }).map((list) => `[${list.join(",")}]`),
        ),
        async (body) => {
          const now = pipe(body, pipeline(Sync)(syncE), serialize(syncE));
          const later = serialize(asyncE)(await pipeline(Async)(asyncE)(body));
          expect(later).toBe(now);
          expect(await asyncDispatch(body, methods)).toBe(dispatch(body, methods));
        },
      ),
      { seed: 20240501, numRuns: 200 },
    );
  });
});

// -------------------------------------------------------------------------------------------------

describe("a body already parsed (parsedDispatcher: a connection's messages, local's direct path)", () => {
  const syncParsed = parsedDispatcher(Sync, toJson);
  const asyncParsed = parsedDispatcher(Async, toJson);
  // JSON that is no request object: each answered as its text is (-32600, or a batch of them).
  const values: ReadonlyArray<readonly [string, string]> = [
    ...bodies.filter(([name]) => name !== "a parse error"),
    ["a number", "5"],
    ["a string", '"ping"'],
    ["null", "null"],
    ["true", "true"],
    ["a batch of a scalar and a request", '[null,{"jsonrpc":"2.0","method":"ping","id":1}]'],
    ["a batch holding a batch", '[[{"jsonrpc":"2.0","method":"ping","id":1}]]'],
  ];

  test.each(values)("its value is answered as its text is, sync and async: %s", async (_name, body) => {
    expect(syncParsed(JSON.parse(body), methods, undefined)).toBe(dispatch(body, methods));
    expect(await asyncParsed(JSON.parse(body), asyncMethods, undefined)).toBe(await asyncDispatch(body, asyncMethods));
  });

  test.each(values)("with stages and a batch limit, as its text is: %s", async (_name, body) => {
    const options = { maxBatchSize: 3, stages: [(c: Call) => E.right(c)], debug: true };
    expect(syncParsed(JSON.parse(body), methods, options)).toBe(dispatch(body, methods, options));
    expect(await asyncParsed(JSON.parse(body), asyncMethods, options)).toBe(
      await asyncDispatch(body, asyncMethods, options),
    );
  });

  test("the deserializer is not called: the value is the request", () => {
    const deserializer = jest.fn(() => ({ jsonrpc: "2.0", method: "add", params: [0, 0], id: 9 }));
    const value = { jsonrpc: "2.0", method: "add", params: [2, 3], id: 1 };
    expect(syncParsed(value, methods, { deserializer })).toBe('{"jsonrpc":"2.0","result":5,"id":1}');
    expect(deserializer).not.toHaveBeenCalled();
  });

  test("property: any JSON value is answered as its text is", async () => {
    const member = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record(
        {
          jsonrpc: fc.constantFrom("2.0", "1.0"),
          method: fc.constantFrom("ping", "add", "echo", "nope", "fail", "boom"),
          params: fc.oneof(fc.array(fc.integer(), { maxLength: 3 }), fc.jsonValue({ maxDepth: 2 })),
          id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        },
        { requiredKeys: ["method"] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(member, fc.array(member, { maxLength: 5 })), async (value) => {
        const body = JSON.stringify(value);
        expect(syncParsed(JSON.parse(body), methods, undefined)).toBe(dispatch(body, methods));
        expect(await asyncParsed(JSON.parse(body), asyncMethods, undefined)).toBe(
          await asyncDispatch(body, asyncMethods),
        );
      }),
      { seed: 20261129, numRuns: 300 },
    );
  });
});

// -------------------------------------------------------------------------------------------------

describe("Later", () => {
  const f = (n: number): number => n + 1;
  const g = (n: number): number => n * 2;
  const fP = (n: number): Promise<number> => Promise.resolve(n + 1);
  const gP = (n: number): Promise<number> => Promise.resolve(n * 2);

  test("of is the value itself, map and chain on a value are synchronous", () => {
    expect(Later.of(3)).toBe(3);
    expect(Later.map(3, f)).toBe(4);
    expect(Later.chain(3, g)).toBe(6);
    expect(Later.ap(f, 3)).toBe(4);
  });

  test.each([
    ["values", f, g],
    ["Promises", fP, gP],
    ["a value then a Promise", f, gP],
    ["a Promise then a value", fP, g],
  ] as const)("left identity, right identity, associativity: %s", async (_name, k, h) => {
    for (const a of [0, 1, -5, 21]) {
      // left identity: chain(of(a), k) = k(a)
      expect(await Later.chain(Later.of(a), k)).toBe(await k(a));
      for (const m of [a, Promise.resolve(a)]) {
        // right identity: chain(m, of) = m
        expect(await Later.chain(m, Later.of)).toBe(await m);
        // associativity: chain(chain(m, k), h) = chain(m, x => chain(k(x), h))
        expect(await Later.chain(Later.chain(m, k), h)).toBe(await Later.chain(m, (x) => Later.chain(k(x), h)));
      }
    }
  });

  test("map of a Promise, ap of a Promise of a function", async () => {
    expect(await Later.map(Promise.resolve(1), f)).toBe(2);
    expect(await Later.ap(Promise.resolve(f), Promise.resolve(1))).toBe(2);
    expect(await Later.ap(f, Promise.resolve(4))).toBe(5);
  });

  test("Async.all of values is the values (no Promise); with Promises, one Promise in order", async () => {
    const values = Async.all([1, 2, 3]);
    expect(values).not.toBeInstanceOf(Promise);
    expect(values).toStrictEqual([1, 2, 3]);
    expect(Sync.all([1, 2])).toStrictEqual([1, 2]);

    let resolveFirst!: (n: number) => void;
    let resolveThird!: (n: number) => void;
    const first = new Promise<number>((r) => (resolveFirst = r));
    const third = new Promise<number>((r) => (resolveThird = r));
    const all = Async.all<number>([first, 2, third]);
    expect(all).toBeInstanceOf(Promise);
    // settle in reverse order: the order of the outcomes is kept
    resolveThird(3);
    await Promise.resolve();
    resolveFirst(1);
    expect(await all).toStrictEqual([1, 2, 3]);
  });

  test("async dispatch runs the members of a batch at once and answers in the batch's order", async () => {
    const started: string[] = [];
    const gates = new Map<string, (r: Result) => void>();
    const gated: Methods = {
      wait: (name: string) => {
        started.push(name);
        return new Promise<Result>((r) => gates.set(name, r));
      },
    };
    const body =
      '[{"jsonrpc":"2.0","method":"wait","params":["a"],"id":1},{"jsonrpc":"2.0","method":"wait","params":["b"],"id":2},{"jsonrpc":"2.0","method":"wait","params":["c"],"id":3}]';
    const answer = asyncDispatch(body, gated);
    // all three started before any settled
    expect(started).toStrictEqual(["a", "b", "c"]);
    gates.get("c")?.(Success("C"));
    gates.get("b")?.(Success("B"));
    gates.get("a")?.(Success("A"));
    expect(await answer).toBe(
      '[{"jsonrpc":"2.0","result":"A","id":1},{"jsonrpc":"2.0","result":"B","id":2},{"jsonrpc":"2.0","result":"C","id":3}]',
    );
  });

  test("toTaskEither: a Later of an Either as a TaskEither (a thunk of a Promise)", async () => {
    const now = toTaskEither(E.right(1));
    expect(typeof now).toBe("function");
    const running = now();
    expect(running).toBeInstanceOf(Promise);
    expect(await running).toStrictEqual(E.right(1));
    expect(await toTaskEither(Promise.resolve(E.left("no")))()).toStrictEqual(E.left("no"));
    // it composes as any TaskEither does
    const doubled = pipe(
      toTaskEither<string, number>(Promise.resolve(E.right(21))),
      TE.map((n) => n * 2),
    );
    expect(await doubled()).toStrictEqual(E.right(42));
    const env = asyncEnv(asyncMethods);
    const answer = await toTaskEither(
      Later.map(pipeline(Async)(env)('{"jsonrpc":"2.0","method":"later","params":[2],"id":1}'), (a) =>
        E.right<never, Answer>(a),
      ),
    )();
    expect(answer).toStrictEqual(E.right(E.right({ result: 20, id: 1 })));
  });
});

// -------------------------------------------------------------------------------------------------

describe("the validator option through dispatch", () => {
  const echoMethods: Methods = {
    whoami: () => Success("me"),
    seen: (p: unknown) => Success(p),
  };
  const RequestShape = t.type({
    jsonrpc: t.literal("2.0"),
    method: t.string,
    id: t.union([t.number, t.string]),
  });

  test("an io-ts decoder that passes: dispatch works", async () => {
    const text = '{"jsonrpc":"2.0","method":"whoami","id":1}';
    expect(dispatch(text, echoMethods, { validator: RequestShape })).toBe('{"jsonrpc":"2.0","result":"me","id":1}');
    expect(await asyncDispatch(text, echoMethods, { validator: RequestShape })).toBe(
      '{"jsonrpc":"2.0","result":"me","id":1}',
    );
  });

  test("an io-ts decoder that fails: -32600 with its report in data, id null", () => {
    const answer = JSON.parse(
      dispatch('{"jsonrpc":"2.0","method":"whoami","id":true}', echoMethods, { validator: RequestShape }),
    ) as {
      error: { code: number; message: string; data: unknown };
      id: unknown;
    };
    expect(answer.error.code).toBe(-32600);
    expect(answer.error.message).toBe("Invalid Request");
    expect(answer.id).toBeNull();
    const data = JSON.stringify(answer.error.data);
    expect(data).toContain("id");
    expect(data).toContain("true");
    // a decoder's own message, where an error has one, is the report
    const Picky = new t.Type<Request, Request, unknown>(
      "Picky",
      (_u): _u is Request => false,
      (u, c) => t.failure(u, c, "picky says no"),
      t.identity,
    );
    expect(dispatch('{"jsonrpc":"2.0","method":"whoami","id":1}', echoMethods, { validator: Picky })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"picky says no"},"id":null}',
    );
  });

  // A decoder's error without a message of its own is reported by path, from the request.
  test("an io-ts validator's report names the request's members, not params", () => {
    const answer = JSON.parse(
      dispatch('{"jsonrpc":"2.0","method":3,"id":1}', echoMethods, { validator: RequestShape }),
    ) as { error: { data: unknown } };
    expect(answer.error.data).toBe("request.method: expected string, got 3");
  });

  test("the method sees what the decoder decoded to", () => {
    const Lowered = new t.Type<Request, Request, unknown>(
      "Lowered",
      (_u): _u is Request => true,
      (u) => {
        const r = u as Request;
        return t.success({ ...r, method: r.method.toLowerCase(), params: { decoded: true } });
      },
      t.identity,
    );
    expect(dispatch('{"jsonrpc":"2.0","method":"SEEN","id":1}', echoMethods, { validator: Lowered })).toBe(
      '{"jsonrpc":"2.0","result":{"decoded":true},"id":1}',
    );
  });

  test("whatever the validator lets through must still name a method", () => {
    const anything = { decode: (u: unknown) => E.right(u) };
    expect(dispatch('{"jsonrpc":"2.0","method":5,"id":1}', echoMethods, { validator: anything })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"method: must be a string"},"id":null}',
    );
    expect(dispatch('{"method":"whoami","id":1}', echoMethods, { validator: () => undefined })).toBe(
      '{"jsonrpc":"2.0","result":"me","id":1}',
    );
  });

  test("a function that throws still works as a validator: its message in data", () => {
    const validator = (value: unknown): void => {
      if ((value as { id?: unknown }).id === 13) throw new globalThis.Error("unlucky id");
    };
    expect(dispatch('{"jsonrpc":"2.0","method":"whoami","id":1}', echoMethods, { validator })).toBe(
      '{"jsonrpc":"2.0","result":"me","id":1}',
    );
    expect(dispatch('{"jsonrpc":"2.0","method":"whoami","id":13}', echoMethods, { validator })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"unlucky id"},"id":null}',
    );
  });

  test("a batch is validated member by member", () => {
    const body = '[{"jsonrpc":"2.0","method":"whoami","id":1},{"jsonrpc":"2.0","method":"whoami"}]';
    expect(JSON.parse(dispatch(body, echoMethods, { validator: RequestShape }))).toStrictEqual([
      { jsonrpc: "2.0", result: "me", id: 1 },
      { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request", data: expect.anything() }, id: null },
    ]);
  });

  test("a validator that is neither a function nor a decoder is a TypeError", () => {
    expect(() => dispatch("{}", echoMethods, { validator: 42 as never })).toThrow(TypeError);
    expect(() => dispatch("{}", echoMethods, { validator: {} as never })).toThrow(TypeError);
  });
});

// -------------------------------------------------------------------------------------------------

describe("which requests are notifications", () => {
  // A request is a notification exactly when it has no `id` member of its own (the check looks for
  // any `id` first, a shortcut for the common notification: these are the cases it must not change).
  const seen: unknown[] = [];
  const methods = { note: (x: unknown) => (seen.push(x), Success(x)) };
  const fromValue = (value: unknown) => ({ deserializer: () => value });

  test("an `id` only on the request's prototype does not make it a request: it runs, and nothing is answered", async () => {
    seen.length = 0;
    const inherited = () =>
      Object.assign(Object.create({ id: 7 }) as object, { jsonrpc: "2.0", method: "note", params: [1] });
    expect(dispatch("-", methods, fromValue(inherited()))).toBe("");
    expect(await asyncDispatch("-", methods, fromValue(inherited()))).toBe("");
    expect(seen).toStrictEqual([1, 1]);
  });

  test("an own `id`, even one a validator lets through as undefined, is answered (with id null)", async () => {
    const own = { jsonrpc: "2.0", method: "note", params: [2], id: undefined };
    const options = { ...fromValue(own), validator: () => undefined };
    const answer = '{"jsonrpc":"2.0","result":2,"id":null}';
    expect(dispatch("-", methods, options)).toBe(answer);
    expect(await asyncDispatch("-", methods, options)).toBe(answer);
  });

  test("a request with an id is answered and one without is not, in one batch, sync and async alike", async () => {
    const body =
      '[{"jsonrpc":"2.0","method":"note","params":[3],"id":1},{"jsonrpc":"2.0","method":"note","params":[4]}]';
    const answer = '[{"jsonrpc":"2.0","result":3,"id":1}]';
    expect(dispatch(body, methods)).toBe(answer);
    expect(await asyncDispatch(body, methods)).toBe(answer);
  });
});
