/**
 * The recipes of docs/recipes.md, one `describe` each, with the recipe's code (against the sources)
 * and more cases than the page shows. The page's own blocks run against the built package in
 * doc-examples.test.ts; keep the code here the same as there.
 *
 * Types are part of the recipes (typed params, the stage signature): `tsc -p tsconfig.json --noEmit`
 * checks the assignments and `@ts-expect-error` lines below.
 */
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import * as E from "fp-ts/Either";
import { flow, pipe } from "fp-ts/function";
import * as t from "io-ts";
import {
  asyncDispatch,
  codes,
  dispatch,
  dispatchToResponse,
  Error,
  globalMethods,
  JsonRpcError,
  method,
  NODATA,
  Success,
  toDict,
  withParams,
  type ErrorResponse,
  type JsonOptions,
  type Method,
  type Methods,
  type Response,
  type Result,
  type SuccessResponse,
} from "../src";
import { recordLogs } from "./support";

/** `true` exactly when A and B are the same type. */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;
/** Compiles `body` (so its `@ts-expect-error` lines are checked) without running it. */
const typeOnly = (body: () => void): void => void body;

/** A request as JSON text: id 1 unless given; an explicit `undefined` id makes a notification. */
const request = (method: string, params?: unknown, ...id: [] | [unknown]): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    method,
    ...(params === undefined ? {} : { params }),
    ...(id.length === 0 ? { id: 1 } : id[0] === undefined ? {} : { id: id[0] }),
  });

afterEach(() => {
  for (const name of Object.keys(globalMethods)) delete globalMethods[name];
});

describe("recipe: typed params from io-ts codecs", () => {
  const Transfer = t.intersection([
    t.type({ from: t.string, to: t.string, amount: t.number }),
    t.partial({ memo: t.string }),
  ]);
  const DateFromISO = new t.Type<Date, string, unknown>(
    "DateFromISO",
    (u): u is Date => u instanceof Date,
    (u, c) => {
      const date = typeof u === "string" ? new Date(u) : undefined;
      return date === undefined || Number.isNaN(date.getTime()) ? t.failure(u, c, "an ISO date") : t.success(date);
    },
    (date) => date.toISOString(),
  );

  test("named params: the method's parameter has the codec's type", () => {
    const transfer = method({ name: "transfer", params: Transfer })((p) => {
      const typed: { from: string; to: string; amount: number } & { memo?: string } = p;
      same<typeof p, t.TypeOf<typeof Transfer>>(true);
      typeOnly(() => {
        // @ts-expect-error amount is a number
        const amount: string = p.amount;
        void amount;
      });
      return Success(`${typed.amount} from ${typed.from} to ${typed.to}${p.memo === undefined ? "" : ` (${p.memo})`}`);
    });
    expect(dispatch(request("transfer", { from: "A", to: "B", amount: 5 }))).toBe(
      '{"jsonrpc":"2.0","result":"5 from A to B","id":1}',
    );
    expect(dispatch(request("transfer", { from: "A", to: "B", amount: 5, memo: "rent" }))).toBe(
      '{"jsonrpc":"2.0","result":"5 from A to B (rent)","id":1}',
    );
    expect(JSON.parse(dispatch(request("transfer", { from: "A", amount: "5", memo: 1 })))).toStrictEqual({
      jsonrpc: "2.0",
      error: {
        code: -32602,
        message: "Invalid params",
        data: [
          "params.to: expected string, got undefined",
          'params.amount: expected number, got "5"',
          "params.memo: expected string, got 1",
        ],
      },
      id: 1,
    });
    // `method` returns the function itself: callable directly, typed.
    expect(transfer({ from: "A", to: "B", amount: 1 })).toStrictEqual(Success("1 from A to B"));
    typeOnly(() => {
      // @ts-expect-error amount is missing
      transfer({ from: "A", to: "B" });
    });
  });

  test("positional params: each tuple element is one parameter", () => {
    method({ name: "between", params: t.tuple([t.number, t.number, t.number]) })((x, low, high) => {
      same<[typeof x, typeof low, typeof high], [number, number, number]>(true);
      return Success(low <= x && x <= high);
    });
    expect(dispatch(request("between", [5, 1, 10]))).toBe('{"jsonrpc":"2.0","result":true,"id":1}');
    expect(dispatch(request("between", [50, 1, 10]))).toBe('{"jsonrpc":"2.0","result":false,"id":1}');
    expect(JSON.parse(dispatch(request("between", [5, 1])))).toMatchObject({ error: { code: -32602 } });
    expect(JSON.parse(dispatch(request("between")))).toMatchObject({ error: { code: -32602 } });
  });

  test("a transforming codec: the method receives the decoded value", () => {
    const methods = {
      weekday: withParams(t.tuple([DateFromISO]), (d) => {
        same<typeof d, Date>(true);
        return Success(d.toLocaleDateString("en", { weekday: "long", timeZone: "UTC" }));
      }),
    };
    expect(dispatch(request("weekday", ["2024-02-29T12:00:00Z"]), methods)).toBe(
      '{"jsonrpc":"2.0","result":"Thursday","id":1}',
    );
    expect(dispatch(request("weekday", ["someday"]), methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":["params[0]: expected an ISO date, got \\"someday\\""]},"id":1}',
    );
  });

  test("t.type lets unknown members through; t.exact strips them", () => {
    const seen: unknown[] = [];
    const methods = {
      loose: withParams(t.type({ a: t.number }), (p) => (seen.push(p), Success(null))),
      exact: withParams(t.exact(t.type({ a: t.number })), (p) => (seen.push(p), Success(null))),
    };
    dispatch(request("loose", { a: 1, extra: 2 }), methods);
    dispatch(request("exact", { a: 1, extra: 2 }), methods);
    expect(seen).toStrictEqual([{ a: 1, extra: 2 }, { a: 1 }]);
  });
});

describe("recipe: reading and mapping Responses", () => {
  const methods = {
    divide: (a: number, b: number) => (b === 0 ? Error(1, "Division by zero") : Success(a / b)),
  };
  const responsesOf = (text: string): Response[] => {
    const out = dispatchToResponse(text, methods);
    return out === undefined ? [] : Array.isArray(out) ? out : [out];
  };
  const summary = E.match(
    (e: ErrorResponse) => `#${String(e.id)} failed: ${e.message} (${e.code})`,
    (s: SuccessResponse) => `#${String(s.id)} = ${String(s.result)}`,
  );
  const asNumber = (response: Response): E.Either<string, number> =>
    pipe(
      response,
      E.mapLeft((e) => e.message),
      E.flatMap((s) =>
        pipe(
          t.number.decode(s.result),
          E.mapLeft(() => "not a number"),
        ),
      ),
    );

  test("a request, a batch and a notification as lists of Responses", () => {
    expect(responsesOf(request("divide", [1, 4]))).toHaveLength(1);
    expect(responsesOf(`[${request("divide", [1, 4], 1)},${request("divide", [1, 0], 2)}]`)).toHaveLength(2);
    expect(responsesOf(request("divide", [1, 4], undefined))).toStrictEqual([]);
  });

  test("match, map, mapLeft and a codec over results", () => {
    const [quarter, byZero] = responsesOf(`[${request("divide", [1, 4], 1)},${request("divide", [1, 0], 2)}]`);
    if (quarter === undefined || byZero === undefined) throw new globalThis.Error("two responses expected");
    expect(summary(quarter)).toBe("#1 = 0.25");
    expect(summary(byZero)).toBe("#2 failed: Division by zero (1)");
    const asPercent = pipe(
      quarter,
      E.map((s) => ({ ...s, result: `${Number(s.result) * 100}%` })),
    );
    expect(toDict(asPercent)).toStrictEqual({ jsonrpc: "2.0", result: "25%", id: 1 });
    const shouted = pipe(
      byZero,
      E.mapLeft((e) => ({ ...e, message: e.message.toUpperCase() })),
    );
    expect(toDict(shouted)).toStrictEqual({ jsonrpc: "2.0", error: { code: 1, message: "DIVISION BY ZERO" }, id: 2 });
    expect([asNumber(quarter), asNumber(byZero)]).toStrictEqual([E.right(0.25), E.left("Division by zero")]);
    const text = pipe(
      dispatchToResponse(request("divide", ["1", "2"]), { divide: () => Success("half") }) as Response,
      asNumber,
    );
    expect(text).toStrictEqual(E.left("not a number"));
  });

  test("a Result straight from the method, without dispatch", () => {
    const read = E.match(
      (e: { message: string }) => e.message,
      (s: { result: unknown }) => String(s.result),
    );
    expect(read(methods.divide(1, 8))).toBe("0.125");
    expect(read(methods.divide(1, 0))).toBe("Division by zero");
  });
});

describe("recipe: reshaping responses with postProcess", () => {
  const methods = {
    stock: (sku: string) => (sku === "A-1" ? Success(12) : Error(404, "Unknown SKU", { sku })),
  };
  const clock = () => "2024-05-01T12:00:00.000Z";
  type Reply =
    | { readonly ok: true; readonly value: unknown; readonly id: unknown }
    | { readonly ok: false; readonly error: string; readonly detail: string; readonly id: unknown };
  const errorNames = new Map<number, string>([
    [codes.ERROR_METHOD_NOT_FOUND, "NO_SUCH_METHOD"],
    [codes.ERROR_INVALID_PARAMS, "BAD_PARAMS"],
    [404, "NOT_FOUND"],
  ]);
  const reply = E.match<ErrorResponse, SuccessResponse, Reply>(
    (e) => ({ ok: false, error: errorNames.get(e.code) ?? "FAILED", detail: e.message, id: e.id }),
    (s) => ({ ok: true, value: s.result, id: s.id }),
  );

  test("a member added to every response", () => {
    const stamped = (response: Response) => ({ ...toDict(response), servedAt: clock() });
    const out = dispatchToResponse(`[${request("stock", ["A-1"], 1)},${request("stock", ["B"], 2)}]`, methods, {
      postProcess: stamped,
    });
    expect(out).toStrictEqual([
      { jsonrpc: "2.0", result: 12, id: 1, servedAt: clock() },
      { jsonrpc: "2.0", error: { code: 404, message: "Unknown SKU", data: { sku: "B" } }, id: 2, servedAt: clock() },
    ]);
  });

  test("answers in a shape of your own; notifications are never post-processed", () => {
    const post = jest.fn(reply);
    const out = dispatchToResponse(
      `[${request("stock", ["A-1"], 1)},${request("stock", ["Z-9"], 2)},${request("stock", ["A-1"], undefined)},${request("price", undefined, 3)},${request("stock", [], 4)}]`,
      methods,
      { postProcess: post },
    );
    same<typeof out, Reply | Reply[] | undefined>(true);
    expect(out).toStrictEqual([
      { ok: true, value: 12, id: 1 },
      { ok: false, error: "NOT_FOUND", detail: "Unknown SKU", id: 2 },
      { ok: false, error: "NO_SUCH_METHOD", detail: "Method not found", id: 3 },
      { ok: false, error: "BAD_PARAMS", detail: "Invalid params", id: 4 },
    ]);
    expect(post).toHaveBeenCalledTimes(4);
    expect(dispatchToResponse(request("stock", ["A-1"], undefined), methods, { postProcess: post })).toBeUndefined();
    expect(post).toHaveBeenCalledTimes(4);
  });

  test("composed with pipe: error data stays on the server", () => {
    const withoutData = (response: Response) =>
      pipe(
        response,
        E.mapLeft((e) => ({ ...e, data: NODATA })),
        toDict,
      );
    expect(dispatchToResponse(request("stock", ["Z-9"], 4), methods, { postProcess: withoutData })).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: 404, message: "Unknown SKU" },
      id: 4,
    });
  });

  test("a postProcess that throws gives the raw -32000 Response, logged", () => {
    const log = recordLogs();
    try {
      const out = dispatchToResponse(request("stock", ["A-1"]), methods, {
        postProcess: () => {
          throw new globalThis.Error("oops");
        },
      });
      expect(out).toStrictEqual(E.left({ code: -32000, message: "Server error", data: NODATA, id: null }));
      expect(log.entries.some((entry) => entry.level === "error")).toBe(true);
    } finally {
      log.restore();
    }
  });
});

describe("recipe: authentication through context", () => {
  interface User {
    readonly name: string;
    readonly admin: boolean;
  }
  interface Caller {
    readonly user: User | undefined;
  }
  const UNAUTHORIZED = 401;
  const FORBIDDEN = 403;
  const users = new Map<string, User>([
    ["token-of-ada", { name: "Ada", admin: true }],
    ["token-of-bob", { name: "Bob", admin: false }],
  ]);
  const authenticate = (authorization: string | undefined): Caller => ({
    user: users.get(authorization?.replace(/^Bearer /, "") ?? ""),
  });
  const signedIn = <A extends unknown[]>(f: (user: User, ...args: A) => Result | Promise<Result>) =>
    Object.defineProperty(
      (caller: Caller, ...args: A): Result | Promise<Result> => {
        if (caller.user === undefined) throw new JsonRpcError(UNAUTHORIZED, "Unauthorized");
        return f(caller.user, ...args);
      },
      "length",
      { value: f.length },
    );
  const calls: string[] = [];
  const methods = {
    ping: (_caller: Caller) => Success("pong"),
    whoami: signedIn((user) => Success(user.name)),
    rename: signedIn((user, name: string) => Success(`${user.name} is now ${name}`)),
    purge: signedIn((user) => (user.admin ? Success("purged") : Error(FORBIDDEN, "Forbidden"))),
    audit: signedIn(async (user, event: string) => {
      calls.push(`${user.name}: ${event}`);
      return Success(null);
    }),
  };
  const handle = (body: string, authorization?: string) =>
    asyncDispatch(body, methods, { context: authenticate(authorization) });

  test("the wrapper keeps the arguments' types and the declared length", () => {
    same<Parameters<typeof methods.rename>, [caller: Caller, name: string]>(true);
    expect([methods.whoami.length, methods.rename.length, methods.audit.length]).toStrictEqual([1, 2, 2]);
  });

  test("public, unauthenticated, authenticated, forbidden", async () => {
    expect(await handle(request("ping", undefined, 1))).toBe('{"jsonrpc":"2.0","result":"pong","id":1}');
    expect(await handle(request("whoami", undefined, 2))).toBe(
      '{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized"},"id":2}',
    );
    expect(await handle(request("whoami", undefined, 3), "Bearer token-of-nobody")).toBe(
      '{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized"},"id":3}',
    );
    expect(await handle(request("whoami", undefined, 4), "Bearer token-of-bob")).toBe(
      '{"jsonrpc":"2.0","result":"Bob","id":4}',
    );
    expect(await handle(request("rename", ["Robert"], 5), "Bearer token-of-bob")).toBe(
      '{"jsonrpc":"2.0","result":"Bob is now Robert","id":5}',
    );
    expect(await handle(request("rename", undefined, 6), "Bearer token-of-bob")).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"expected at least 1 params, got 0"},"id":6}',
    );
    expect(await handle(request("purge", undefined, 7), "Bearer token-of-bob")).toBe(
      '{"jsonrpc":"2.0","error":{"code":403,"message":"Forbidden"},"id":7}',
    );
    expect(await handle(request("purge", undefined, 8), "Bearer token-of-ada")).toBe(
      '{"jsonrpc":"2.0","result":"purged","id":8}',
    );
  });

  test("async methods, notifications and batches share the caller; callers never mix", async () => {
    calls.length = 0;
    const batch = `[${request("audit", ["login"], undefined)},${request("whoami", undefined, 1)}]`;
    const [ada, anonymous, bob] = await Promise.all([
      handle(batch, "Bearer token-of-ada"),
      handle(batch),
      handle(batch, "Bearer token-of-bob"),
    ]);
    expect(ada).toBe('[{"jsonrpc":"2.0","result":"Ada","id":1}]');
    expect(anonymous).toBe('[{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized"},"id":1}]');
    expect(bob).toBe('[{"jsonrpc":"2.0","result":"Bob","id":1}]');
    expect(calls.sort()).toStrictEqual(["Ada: login", "Bob: login"]);
    // An unauthenticated notification is not answered, and its method did not run.
    expect(await handle(request("audit", ["x"], undefined))).toBe("");
    expect(calls).toHaveLength(2);
  });
});

describe("recipe: your own stage around dispatch", () => {
  interface Caller {
    readonly user: string;
  }
  type Handler = (
    request: string,
    methods: Methods,
    options: JsonOptions & { readonly context: Caller },
  ) => Promise<string>;
  type Stage = (next: Handler) => Handler;

  const logged =
    (log: (line: string) => void): Stage =>
    (next) =>
    async (request, methods, options) => {
      const answer = await next(request, methods, options);
      log(`${options.context.user}: ${answer === "" ? "(nothing to send)" : answer}`);
      return answer;
    };
  const refusing = (methods: Methods, refusal: Method): Methods => {
    const names = methods instanceof Map ? [...methods.keys()] : Object.keys(methods);
    return new Map(names.map((name): [string, Method] => [name, refusal]));
  };
  const rateLimited = (limit: number, windowMs: number, now: () => number = Date.now): Stage => {
    const windows = new Map<string, { start: number; count: number }>();
    const tooMany: Method = () => Error(429, "Too many requests", { limit, windowMs });
    return (next) => (request, methods, options) => {
      const user = options.context.user;
      const time = now();
      const window = windows.get(user);
      const current = window === undefined || time - window.start >= windowMs ? { start: time, count: 0 } : window;
      current.count += 1;
      windows.set(user, current);
      return next(request, current.count <= limit ? methods : refusing(methods, tooMany), options);
    };
  };

  const methods = { add: (_caller: Caller, a: number, b: number) => Success(a + b) };
  const tooMany = { code: 429, message: "Too many requests", data: { limit: 2, windowMs: 60_000 } };

  test("asyncDispatch is a Handler; stages compose with flow and apply with pipe", () => {
    const handler: Handler = asyncDispatch;
    const stage: Stage = flow(
      rateLimited(1, 1),
      logged(() => undefined),
    );
    same<ReturnType<typeof stage>, Handler>(true);
    expect(typeof pipe(handler, stage)).toBe("function");
  });

  test("per user, per window; over the limit every request keeps its id, notifications stay silent", async () => {
    let time = 0;
    const lines: string[] = [];
    const handle = pipe(
      asyncDispatch,
      flow(
        rateLimited(2, 60_000, () => time),
        logged((line) => lines.push(line)),
      ),
    );
    const call = (user: string, body: string) => handle(body, methods, { context: { user }, maxBatchSize: 100 });
    expect(await call("ada", request("add", [1, 2], 1))).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
    expect(await call("ada", request("add", [3, 4], 2))).toBe('{"jsonrpc":"2.0","result":7,"id":2}');
    const batch = `[${request("add", [5, 6], 3)},${request("add", [7, 8], undefined)},${request("nope", [], "x")},{"jsonrpc":"2.0"}]`;
    expect(JSON.parse(await call("ada", batch))).toStrictEqual([
      { jsonrpc: "2.0", error: tooMany, id: 3 },
      { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "nope" }, id: "x" },
      {
        jsonrpc: "2.0",
        error: { code: -32600, message: "Invalid Request", data: "method: must be a string" },
        id: null,
      },
    ]);
    expect(await call("ada", request("add", [9, 10], undefined))).toBe("");
    expect(await call("bob", request("add", [1, 1], 1))).toBe('{"jsonrpc":"2.0","result":2,"id":1}');
    time = 59_999;
    expect(JSON.parse(await call("ada", request("add", [1, 1], 4)))).toStrictEqual({
      jsonrpc: "2.0",
      error: tooMany,
      id: 4,
    });
    time = 60_000; // a new window
    expect(await call("ada", request("add", [1, 1], 5))).toBe('{"jsonrpc":"2.0","result":2,"id":5}');
    expect(lines).toStrictEqual([
      'ada: {"jsonrpc":"2.0","result":3,"id":1}',
      'ada: {"jsonrpc":"2.0","result":7,"id":2}',
      expect.stringMatching(/^ada: \[\{"jsonrpc":"2.0","error":\{"code":429,/),
      "ada: (nothing to send)",
      'bob: {"jsonrpc":"2.0","result":2,"id":1}',
      expect.stringMatching(/^ada: \{"jsonrpc":"2.0","error":\{"code":429,/),
      'ada: {"jsonrpc":"2.0","result":2,"id":5}',
    ]);
  });

  test("refusing keeps the names of a Map or an object, and nothing else", () => {
    const refusal: Method = () => Error(1, "no");
    const fromObject = refusing(methods, refusal) as ReadonlyMap<string, Method>;
    const fromMap = refusing(
      new Map<string, Method>([
        ["a", methods.add],
        ["b", methods.add],
      ]),
      refusal,
    ) as ReadonlyMap<string, Method>;
    expect([...fromObject.keys()]).toStrictEqual(["add"]);
    expect([...fromMap.keys()]).toStrictEqual(["a", "b"]);
    expect([...fromMap.values()].every((f) => f === refusal)).toBe(true);
  });
});

describe("recipe: big integers", () => {
  const MAX_DIGITS = 100;
  const TOKEN =
    /("(?:[^"\\]|\\.)*")(\s*:)?|(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)(\s*:)?|[\s[\]{},:]+|true|false|null/y;
  const parseBig = (text: string): unknown => {
    if (!/\d{16}/.test(text)) return JSON.parse(text); // no integer of 16 digits or more: nothing to do
    let out = "";
    TOKEN.lastIndex = 0;
    while (TOKEN.lastIndex < text.length) {
      const at = TOKEN.lastIndex;
      const match = TOKEN.exec(text);
      if (match === null) throw new SyntaxError(`Unexpected character at position ${at}`);
      const [token, string, isKey, number, numberIsKey] = match;
      if (numberIsKey !== undefined) throw new SyntaxError(`Unexpected number at position ${at}`);
      if (number !== undefined && /^-?\d+$/.test(number) && !Number.isSafeInteger(Number(number))) {
        if (number.replace("-", "").length > MAX_DIGITS) throw new RangeError(`integer over ${MAX_DIGITS} digits`);
        out += `"\\u0000${number}"`;
      } else if (string !== undefined && isKey === undefined && /^"\\u0000/.test(string)) {
        out += `"\\u0000${string.slice(1)}`;
      } else out += token;
    }
    return JSON.parse(out, (_key, value: unknown) =>
      typeof value !== "string" || value.charCodeAt(0) !== 0
        ? value
        : value.charCodeAt(1) === 0
          ? value.slice(1)
          : BigInt(value.slice(1)),
    );
  };
  const writeBig = (value: unknown): string => {
    const write = (v: unknown): string | undefined => {
      if (typeof v === "bigint") return v.toString();
      if (typeof v === "number" && !Number.isFinite(v)) throw new TypeError(`${v} is not allowed in JSON`);
      if (typeof v !== "object" || v === null) return JSON.stringify(v);
      const toJSON = (v as { toJSON?: () => unknown }).toJSON;
      if (typeof toJSON === "function") return write(toJSON.call(v));
      if (Array.isArray(v)) return `[${v.map((item) => write(item) ?? "null").join(",")}]`;
      const members = Object.entries(v).flatMap(([key, item]) => {
        const text = write(item);
        return text === undefined ? [] : [`${JSON.stringify(key)}:${text}`];
      });
      return `{${members.join(",")}}`;
    };
    const text = write(value);
    if (text === undefined) throw new TypeError(`a ${typeof value} has no JSON form`);
    return text;
  };
  const methods = {
    double: (n: bigint | number) => Success(typeof n === "bigint" ? n * 2n : n * 2),
    echo: (...params: unknown[]) => Success(params),
  };
  const options = { deserializer: parseBig, serializer: writeBig };
  /** bigint as number, everywhere in a value: what JSON.parse would have read. */
  const asNumbers = (value: unknown): unknown =>
    typeof value === "bigint"
      ? Number(value)
      : Array.isArray(value)
        ? value.map(asNumbers)
        : typeof value === "object" && value !== null
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asNumbers(v)]))
          : value;

  test("a request whose id and params are over 2^53 round-trips exactly, sync and async", async () => {
    const text = '{"jsonrpc":"2.0","method":"double","params":[12345678901234567890],"id":98765432109876543210}';
    const expected = '{"jsonrpc":"2.0","result":24691357802469135780,"id":98765432109876543210}';
    expect(dispatch(text, methods, options)).toBe(expected);
    expect(await asyncDispatch(text, methods, options)).toBe(expected);
    const negative = '{"jsonrpc":"2.0","method":"echo","params":[-9007199254740993,[{"n":9007199254740992}]],"id":-1}';
    expect(dispatch(negative, methods, options)).toBe(
      '{"jsonrpc":"2.0","result":[-9007199254740993,[{"n":9007199254740992}]],"id":-1}',
    );
  });

  test("safe integers stay numbers, fractions and exponents stay doubles", () => {
    expect(
      parseBig("[9007199254740991,-9007199254740991,9007199254740992,1.5e300,12345678901234567.5,1e21]"),
    ).toStrictEqual([
      9007199254740991,
      -9007199254740991,
      9007199254740992n,
      1.5e300,
      Number("12345678901234567.5"), // a double, rounded as JSON.parse rounds it
      1e21,
    ]);
    expect(parseBig("[1,2]")).toStrictEqual([1, 2]);
  });

  test("strings are never taken for big integers, whatever they hold", () => {
    const text = JSON.stringify({ "\u0000k": "\u0000x", a: "\u00001234567890123456789", b: "12345678901234567890" });
    expect(parseBig(text)).toStrictEqual(JSON.parse(text));
    expect(parseBig('{"a":"\\u00001","n":12345678901234567890}')).toStrictEqual({
      a: "\u00001",
      n: 12345678901234567890n,
    });
    expect(parseBig('["\\u0000x", "\\u0000\\u0000", 12345678901234567890]')).toStrictEqual([
      "\u0000x",
      "\u0000\u0000",
      12345678901234567890n,
    ]);
  });

  test("more than 100 digits is a parse error; 100 is not", () => {
    expect(parseBig(`[${"9".repeat(100)}]`)).toStrictEqual([BigInt("9".repeat(100))]);
    expect(
      dispatch(`{"jsonrpc":"2.0","method":"double","params":[1${"0".repeat(100)}],"id":2}`, methods, options),
    ).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":"integer over 100 digits"},"id":null}',
    );
  });

  test.each([
    ['{"a":12345678901234567890', "unterminated object"],
    ["{12345678901234567890:1}", "a number as a member name"],
    ['["abc 12345678901234567890]', "an unterminated string"],
    ["[12345678901234567890,]", "a trailing comma"],
    ["[012345678901234567890]", "a leading zero"],
    ["[12345678901234567890 x]", "a stray word"],
    ["\ufeff[12345678901234567890]", "a byte-order mark"],
    ['["\\U0000x", 12345678901234567890]', "an escape JSON does not have"],
    ["[-012345678901234567890]", "a negative leading zero"],
    ["[12345678901234567890.]", "a fraction without digits"],
  ])("invalid JSON stays invalid: %s (%s)", (text) => {
    expect(() => parseBig(text)).toThrow();
    expect(() => JSON.parse(text)).toThrow();
  });

  test("property: parseBig reads any JSON text as JSON.parse does, but for big integers", () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "binary" }), fc.boolean(), (value, spaced) => {
        const text = JSON.stringify(value, null, spaced ? 1 : undefined);
        expect(asNumbers(parseBig(text))).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  test("property: on JSON-like noise, parseBig throws exactly when JSON.parse does, and otherwise agrees", () => {
    const piece = fc.constantFrom(
      ...['"', "[", "]", "{", "}", ":", ",", "\\", "u", "0", "1", "-", ".", "e", " ", "x", "true", "null"],
      "12345678901234567890",
      "9007199254740993",
      '"\\u0000',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join("");
        let expected: unknown;
        try {
          expected = JSON.parse(text);
        } catch {
          expect(() => parseBig(text)).toThrow();
          return;
        }
        expect(asNumbers(parseBig(text))).toStrictEqual(expected);
      }),
      { numRuns: 5000 },
    );
  });

  test("property: any bigint, anywhere, round-trips through writeBig and parseBig", () => {
    const big = fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n });
    const value = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        big,
        fc.string({ unit: "binary" }),
        fc.integer(),
        fc.array(tie("value")),
        fc.dictionary(fc.string({ unit: "binary" }), tie("value")),
      ),
    })).value;
    const normal = (v: unknown): unknown =>
      typeof v === "bigint" && Number.isSafeInteger(Number(v))
        ? Number(v)
        : Array.isArray(v)
          ? v.map(normal)
          : typeof v === "object" && v !== null
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normal(x)]))
            : v;
    fc.assert(
      fc.property(value, (v) => {
        expect(parseBig(writeBig(v))).toStrictEqual(normal(v));
      }),
      { numRuns: 500 },
    );
  });

  test("writeBig writes what JSON.stringify writes, for values without bigint", () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "binary" }), (value) => {
        expect(writeBig(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
    const withExtras = { at: new Date(0), skip: undefined, f: () => 1, list: [undefined, () => 1] };
    expect(writeBig(withExtras)).toBe(JSON.stringify(withExtras));
  });

  test("a result the serializer refuses is -32603 for that response alone", () => {
    const log = recordLogs();
    try {
      const out = dispatch(
        `[${request("nan", [], 1)},${request("big", [], 2)}]`,
        { nan: () => Success(NaN), big: () => Success(2n ** 64n) },
        options,
      );
      expect(out).toBe(
        '[{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1},{"jsonrpc":"2.0","result":18446744073709551616,"id":2}]',
      );
      expect(log.entries.filter((entry) => entry.level === "error")).toHaveLength(1);
    } finally {
      log.restore();
    }
  });
});

describe("docs/recipes.md shows the code tested here", () => {
  /** Text with the differences prettier makes between indentation levels taken out. */
  const squash = (text: string): string =>
    text
      .replace(/\s+/g, " ")
      .replace(/,\s*([)\]}])/g, "$1")
      .replace(/([([{]) /g, "$1")
      .replace(/ ([)\]}])/g, "$1");
  const page = squash(readFileSync(join(__dirname, "..", "docs", "recipes.md"), "utf8"));
  const definitions = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableStatement(node)) {
      for (const declaration of node.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) definitions.set(declaration.name.text, node.getText());
      }
    } else if (ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node)) {
      definitions.set(node.name.text, node.getText());
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(__filename, readFileSync(__filename, "utf8"), ts.ScriptTarget.Latest, true));

  test.each([
    ["typed params", ["Transfer", "DateFromISO"]],
    ["mapping Responses", ["responsesOf", "summary", "asNumber"]],
    ["postProcess", ["Reply", "errorNames", "reply"]],
    ["context", ["User", "UNAUTHORIZED", "FORBIDDEN", "users", "authenticate", "signedIn"]],
    ["stages", ["Handler", "Stage", "logged", "refusing", "rateLimited"]],
    ["big integers", ["MAX_DIGITS", "TOKEN", "parseBig", "writeBig"]],
  ])("%s", (_recipe, names) => {
    for (const name of names) {
      const definition = definitions.get(name);
      expect({ name, defined: definition !== undefined }).toStrictEqual({ name, defined: true });
      expect({ name, shown: page.includes(squash(definition ?? "")) }).toStrictEqual({ name, shown: true });
    }
  });
});
