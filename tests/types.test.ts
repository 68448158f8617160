/**
 * Type-level tests. jest (ts-jest, transpile only) does not check types: `tsc -p tsconfig.json --noEmit` does, and fails
 * if an assignment below does not compile or a `// @ts-expect-error` line has no error. The runtime
 * assertions check that the same code also behaves.
 */
import * as t from "io-ts";
import {
  asyncDispatch,
  asyncDispatchToResponse,
  dispatch,
  dispatchToResponse,
  dispatchToSerializable,
  Error,
  globalMethods,
  InvalidParams,
  method,
  NODATA,
  NOCONTEXT,
  Success,
  withParams,
  type Methods,
  type Response,
  type Result,
  type Serializable,
} from "../src";
import type { ResponseType } from "../src/response";

/** `true` exactly when A and B are the same type. */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;
/** Compiles `body` (so its `@ts-expect-error` lines are checked) without running it. */
const typeOnly = (body: () => void): void => void body;

afterEach(() => {
  for (const name of Object.keys(globalMethods)) delete globalMethods[name];
});

test("method returns f with its own type, in every form", () => {
  const add = (a: number, b: number): Result => Success(a + b);
  const a1 = method(add);
  const a2 = method(add, "add2");
  const a3 = method("add3")(add);
  const a4 = method({ name: "add4" })(add);
  same<typeof a1, typeof add>(true);
  same<typeof a2, typeof add>(true);
  same<typeof a3, typeof add>(true);
  same<typeof a4, typeof add>(true);
  typeOnly(() => {
    // @ts-expect-error the returned function keeps its parameter types
    a1("1", 2);
  });
  expect(a1(1, 2)).toStrictEqual(Success(3));
  expect([a1, a2, a3, a4]).toStrictEqual([add, add, add, add]);
  expect(Object.keys(globalMethods).sort()).toStrictEqual(["add", "add2", "add3", "add4"]);
});

test("async methods keep their type too", () => {
  const later = async (n: number): Promise<Result> => Success(n);
  const registered = method(later);
  same<typeof registered, typeof later>(true);
  expect(registered).toBe(later);
  expect(globalMethods["later"]).toBe(later);
});

test("a function that does not return a Result is not a method", () => {
  typeOnly(() => {
    // @ts-expect-error a method returns a Result
    method(function answer() {
      return 42;
    });
    // @ts-expect-error a method returns a Result
    const methods: Methods = { answer: () => 42 };
    void methods;
  });
  expect(globalMethods["answer"]).toBeUndefined();
});

test("params types are inferred from an io-ts codec", () => {
  const add = method({ name: "add", params: t.tuple([t.number, t.number]) })((a, b) => {
    same<typeof a, number>(true);
    same<typeof b, number>(true);
    return Success(a + b);
  });
  method({ name: "greet", params: t.type({ name: t.string, times: t.number }) })((p) => {
    same<typeof p, { name: string; times: number }>(true);
    return Success(p.name.repeat(p.times));
  });
  typeOnly(() => {
    method({ name: "bad", params: t.tuple([t.number]) })(
      // @ts-expect-error the codec says number, not string
      (s: string) => Success(s),
    );
    method({ name: "tooMany", params: t.tuple([t.number]) })(
      // @ts-expect-error the codec gives one argument, the method needs two
      (a: number, b: number) => Success(a + b),
    );
  });
  expect(dispatch('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}')).toBe(
    '{"jsonrpc":"2.0","result":3,"id":1}',
  );
  expect(dispatch('{"jsonrpc":"2.0","method":"greet","params":{"name":"ab","times":2},"id":1}')).toBe(
    '{"jsonrpc":"2.0","result":"abab","id":1}',
  );
  expect(add(2, 3)).toStrictEqual(Success(5));
});

test("the decoded type, not the encoded one, is what the method receives", () => {
  const NumberFromString = new t.Type<number, string, unknown>(
    "NumberFromString",
    (u): u is number => typeof u === "number",
    (u, c) => (typeof u === "string" && u !== "" && !Number.isNaN(Number(u)) ? t.success(Number(u)) : t.failure(u, c)),
    String,
  );
  const double = withParams(t.tuple([NumberFromString]), (n) => {
    same<typeof n, number>(true);
    return Success(n * 2);
  });
  const methods: Methods = { double };
  expect(dispatch('{"jsonrpc":"2.0","method":"double","params":["21"],"id":1}', methods)).toBe(
    '{"jsonrpc":"2.0","result":42,"id":1}',
  );
});

test("withParams infers from its codec and returns f itself", () => {
  const f = withParams(t.tuple([t.string, t.boolean]), (s, b) => {
    same<typeof s, string>(true);
    same<typeof b, boolean>(true);
    return Success(b ? s : "");
  });
  same<Parameters<typeof f>, [string, boolean]>(true);
  typeOnly(() => {
    // @ts-expect-error the codec says string, not number
    withParams(t.tuple([t.string]), (n: number) => Success(n));
  });
  expect(f("x", true)).toStrictEqual(Success("x"));
});

test("method(f, { name, params }) checks f against the codec", () => {
  const ok = (a: number) => Success(a);
  same<ReturnType<typeof method<t.TupleC<[t.NumberC]>, typeof ok>>, typeof ok>(true);
  method(ok, { name: "ok", params: t.tuple([t.number]) });
  typeOnly(() => {
    // @ts-expect-error the codec says string, the function takes a number
    method(ok, { name: "notOk", params: t.tuple([t.string]) });
  });
  expect(globalMethods["ok"]).toBe(ok);
});

test("Result constructors are typed", () => {
  const results: Result[] = [Success(), Success(1), Error(1, "x"), Error(1, "x", { any: "data" }), InvalidParams()];
  typeOnly(() => {
    // @ts-expect-error an error code is a number
    Error("1", "x");
    // @ts-expect-error an error message is a string
    Error(1, 2);
  });
  const data: unknown = results.length;
  expect(data).toBe(5);
});

test("dispatch functions have precise return types", async () => {
  const methods: Methods = { ping: () => Success("pong") };
  const text = '{"jsonrpc":"2.0","method":"ping","id":1}';
  const json = dispatch(text, methods);
  same<typeof json, string>(true);
  const pending = asyncDispatch(text, methods);
  same<typeof pending, Promise<string>>(true);
  const serializable = dispatchToSerializable(text, methods);
  same<typeof serializable, Serializable>(true);
  const responses = dispatchToResponse(text, methods);
  same<typeof responses, Response | Response[] | undefined>(true);
  const processed = dispatchToResponse(text, methods, { postProcess: (r: Response) => r._tag });
  same<typeof processed, "Left" | "Right" | ("Left" | "Right")[] | undefined>(true);
  const asyncProcessed = asyncDispatchToResponse(text, methods, { postProcess: () => 1 });
  same<typeof asyncProcessed, Promise<number | number[] | undefined>>(true);
  typeOnly(() => {
    // @ts-expect-error maxBatchSize is a number
    dispatch(text, methods, { maxBatchSize: "3" });
    // @ts-expect-error serializer is only an option of the JSON functions
    dispatchToSerializable(text, methods, { serializer: JSON.stringify });
    // @ts-expect-error postProcess is only an option of the *ToResponse functions
    dispatch(text, methods, { postProcess: (r: Response) => r });
  });
  // An explicit undefined means the default, also under exactOptionalPropertyTypes.
  const unset: number | undefined = undefined;
  expect(dispatch(text, methods, { maxBatchSize: unset, debug: undefined, serializer: undefined })).toBe(json);
  expect(serializable).toStrictEqual({ jsonrpc: "2.0", result: "pong", id: 1 });
  expect(responses).toStrictEqual({ _tag: "Right", right: { result: "pong", id: 1 } });
  expect(processed).toBe("Right");
  expect([json, await pending, await asyncProcessed]).toStrictEqual([
    '{"jsonrpc":"2.0","result":"pong","id":1}',
    '{"jsonrpc":"2.0","result":"pong","id":1}',
    1,
  ]);
});

test("Maps and plain objects are both Methods", () => {
  const asObject: Methods = { ping: () => Success() };
  const asMap: Methods = new Map([["ping", () => Success()]]);
  expect(dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', asMap)).toBe(
    dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', asObject),
  );
});

test("sentinels are unique symbol types; ResponseType is Response", () => {
  same<typeof NODATA, NODATA>(true);
  same<typeof NOCONTEXT, NOCONTEXT>(true);
  same<Equals<NODATA, NOCONTEXT>, false>(true);
  same<ResponseType, Response>(true);
  // @ts-expect-error NODATA is not NOCONTEXT
  const wrong: NOCONTEXT = NODATA;
  expect(wrong).toBe(NODATA);
});
