/**
 * The recipes of docs/recipes.md, one `describe` each, with the recipe's code (against the sources)
 * and more cases than the page shows. The page's own blocks run against the built package in
 * doc-examples.test.ts; keep the code here the same as there.
 *
 * Types are part of the recipes (typed params, the stages' signatures): `tsc -p tsconfig.json --noEmit`
 * checks the assignments and `@ts-expect-error` lines below.
 */
import { context, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import * as E from "fp-ts/Either";
import { flow, pipe } from "fp-ts/function";
import * as TE from "fp-ts/TaskEither";
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
  observe,
  RpcError,
  Success,
  timeout,
  toDict,
  withParams,
  type AnyStage,
  type Around,
  type AsyncStage,
  type Call,
  type ErrorResponse,
  type ErrorResult,
  type Response,
  type Result,
  type Stage,
  type SuccessResponse,
} from "../src";
import { registerGlobals, telemetry } from "./helpers/otel";
import { jsonDispatchers, recordLogs } from "./support";

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

describe("recipe: authorization by method name", () => {
  interface Member {
    readonly user: string;
    readonly role: "admin" | "member";
  }
  const FORBIDDEN = 403;
  const adminsOnly: Stage<Member> = (call) =>
    call.request.method.startsWith("admin.") && call.context.role !== "admin"
      ? E.left({ code: FORBIDDEN, message: "Forbidden", data: call.request.method })
      : E.right(call);

  const ran: string[] = [];
  const methods = {
    whoami: (member: Member) => Success(member.user),
    "admin.purge": (member: Member) => (ran.push(`purge by ${member.user}`), Success(`purged by ${member.user}`)),
  };
  const ada: Member = { user: "ada", role: "admin" };
  const bob: Member = { user: "bob", role: "member" };
  const forbidden = (method: string, id: unknown) => ({
    jsonrpc: "2.0",
    error: { code: 403, message: "Forbidden", data: method },
    id,
  });

  test("the stage is a Stage<Member>: a Kleisli arrow Call<Member> -> Either<ErrorResult, Call<Member>>", () => {
    same<Parameters<typeof adminsOnly>, [call: Call<Member>]>(true);
    same<ReturnType<typeof adminsOnly>, E.Either<ErrorResult, Call<Member>>>(true);
    const call: Call<Member> = { request: { jsonrpc: "2.0", method: "admin.purge", id: 1 }, context: bob };
    expect(adminsOnly(call)).toStrictEqual(E.left({ code: 403, message: "Forbidden", data: "admin.purge" }));
    expect(adminsOnly({ ...call, context: ada })).toStrictEqual(E.right({ ...call, context: ada }));
  });

  test.each(jsonDispatchers)(
    "%s: an admin calls admin methods; a member is refused them, unknown ones included",
    async (_name, run) => {
      ran.length = 0;
      const options = (member: Member) => ({ context: member, stages: [adminsOnly] });
      expect(await run(request("admin.purge", undefined, 1), methods, options(ada))).toBe(
        '{"jsonrpc":"2.0","result":"purged by ada","id":1}',
      );
      expect(JSON.parse(await run(request("admin.purge", undefined, 2), methods, options(bob)))).toStrictEqual(
        forbidden("admin.purge", 2),
      );
      // Before the lookup: a member cannot tell an admin method that exists from one that does not.
      expect(JSON.parse(await run(request("admin.nothing", undefined, 3), methods, options(bob)))).toStrictEqual(
        forbidden("admin.nothing", 3),
      );
      // An admin gets -32601 for it: the stage passed, the lookup refused.
      expect(JSON.parse(await run(request("admin.nothing", undefined, 4), methods, options(ada)))).toMatchObject({
        error: { code: -32601 },
        id: 4,
      });
      expect(JSON.parse(await run(request("whoami", undefined, 5), methods, options(bob)))).toStrictEqual({
        jsonrpc: "2.0",
        result: "bob",
        id: 5,
      });
      expect(ran).toStrictEqual(["purge by ada"]);
    },
  );

  test("in a batch the refusal answers its request alone; a refused notification is not answered and did not run", () => {
    ran.length = 0;
    const out = dispatch(
      `[${request("admin.purge", undefined, 2)},${request("whoami", undefined, 3)},${request("admin.purge", undefined, undefined)},${request("admin.nothing", undefined, 4)}]`,
      methods,
      { context: bob, stages: [adminsOnly] },
    );
    expect(JSON.parse(out)).toStrictEqual([
      forbidden("admin.purge", 2),
      { jsonrpc: "2.0", result: "bob", id: 3 },
      forbidden("admin.nothing", 4),
    ]);
    expect(ran).toStrictEqual([]);
    expect(
      dispatch(request("admin.purge", undefined, undefined), methods, { context: bob, stages: [adminsOnly] }),
    ).toBe("");
  });

  test("a stage may throw a JsonRpcError: sent as given; any other exception is -32603, logged", () => {
    const log = recordLogs();
    try {
      const refuse: Stage = () => {
        throw new JsonRpcError(FORBIDDEN, "Forbidden", "thrown");
      };
      expect(dispatch(request("whoami"), methods, { context: ada, stages: [refuse] })).toBe(
        '{"jsonrpc":"2.0","error":{"code":403,"message":"Forbidden","data":"thrown"},"id":1}',
      );
      const broken: Stage = () => {
        throw new globalThis.Error("a secret");
      };
      expect(dispatch(request("whoami"), methods, { context: ada, stages: [broken] })).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}',
      );
      expect(log.entries.filter((entry) => entry.level === "error")).toHaveLength(1);
    } finally {
      log.restore();
    }
  });
});

describe("recipe: a rate limit per caller", () => {
  interface Caller {
    readonly user: string;
  }
  const TOO_MANY_REQUESTS = 429;
  const rateLimited = (burst: number, everyMs: number, now: () => number = Date.now): Stage<Caller> => {
    const full = burst * everyMs;
    const buckets = new Map<string, { readonly credit: number; readonly at: number }>();
    return (call) => {
      const time = now();
      const last = buckets.get(call.context.user);
      const credit = last === undefined ? full : Math.min(full, last.credit + (time - last.at));
      const enough = credit >= everyMs;
      buckets.set(call.context.user, { credit: enough ? credit - everyMs : credit, at: time });
      return enough
        ? E.right(call)
        : E.left({ code: TOO_MANY_REQUESTS, message: "Too many requests", data: { retryAfterMs: everyMs - credit } });
    };
  };
  const methods = { add: (_caller: Caller, a: number, b: number) => Success(a + b) };
  const tooMany = (retryAfterMs: number) => ({
    code: 429,
    message: "Too many requests",
    data: { retryAfterMs },
  });
  /** The stage alone: whether `user`'s request at the clock's time passes, else how long to wait. */
  const ask = (stage: Stage<Caller>, user: string): E.Either<unknown, true> =>
    pipe(
      stage({ request: { jsonrpc: "2.0", method: "add", id: 1 }, context: { user } }),
      E.bimap(
        (refusal) => (refusal.data as { retryAfterMs: number }).retryAfterMs,
        () => true as const,
      ),
    );

  test("the page's sequence: a burst of 2, then one a second; per user", () => {
    let time = 0;
    const stages = [rateLimited(2, 1_000, () => time)];
    const call = (user: string, body: string) => dispatch(body, methods, { context: { user }, stages });
    expect(
      JSON.parse(
        call("ada", `[${request("add", [1, 2], 1)},${request("add", [3, 4], 2)},${request("add", [5, 6], 3)}]`),
      ),
    ).toStrictEqual([
      { jsonrpc: "2.0", result: 3, id: 1 },
      { jsonrpc: "2.0", result: 7, id: 2 },
      { jsonrpc: "2.0", error: tooMany(1000), id: 3 },
    ]);
    expect(call("bob", request("add", [1, 1], 1))).toBe('{"jsonrpc":"2.0","result":2,"id":1}');
    time = 400;
    expect(JSON.parse(call("ada", request("add", [1, 1], 4)))).toStrictEqual({
      jsonrpc: "2.0",
      error: tooMany(600),
      id: 4,
    });
    time = 1_000;
    expect(call("ada", request("add", [1, 1], 5))).toBe('{"jsonrpc":"2.0","result":2,"id":5}');
  });

  test("notifications count (and are not answered when refused); a long pause refills no more than the burst", async () => {
    let time = 0;
    const stages = [rateLimited(2, 1_000, () => time)];
    const notify = request("add", [1, 1], undefined);
    expect(await asyncDispatch(`[${notify},${notify}]`, methods, { context: { user: "ada" }, stages })).toBe("");
    expect(
      JSON.parse(await asyncDispatch(request("add", [1, 1], 1), methods, { context: { user: "ada" }, stages })),
    ).toMatchObject({ error: { code: 429 } });
    time = 1_000_000;
    const burst = `[${request("add", [1, 1], 1)},${request("add", [1, 1], 2)},${request("add", [1, 1], 3)}]`;
    expect(JSON.parse(await asyncDispatch(burst, methods, { context: { user: "ada" }, stages }))).toStrictEqual([
      { jsonrpc: "2.0", result: 2, id: 1 },
      { jsonrpc: "2.0", result: 2, id: 2 },
      { jsonrpc: "2.0", error: tooMany(1000), id: 3 },
    ]);
  });

  test("property: over any interval, a caller gets at most burst + elapsed / everyMs requests through; waiting retryAfterMs is enough", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 1_000 }),
        fc.array(fc.tuple(fc.constantFrom("ada", "bob"), fc.integer({ min: 0, max: 700 })), { maxLength: 60 }),
        (burst, everyMs, steps) => {
          let time = 0;
          const stage = rateLimited(burst, everyMs, () => time);
          const passed = new Map<string, number[]>();
          for (const [user, wait] of steps) {
            time += wait;
            const answer = ask(stage, user);
            if (E.isRight(answer)) passed.set(user, [...(passed.get(user) ?? []), time]);
            else {
              const retryAfterMs = answer.left as number;
              expect(retryAfterMs).toBeGreaterThan(0);
              expect(retryAfterMs).toBeLessThanOrEqual(everyMs);
            }
          }
          for (const times of passed.values()) {
            for (let i = 0; i < times.length; i++) {
              for (let j = i; j < times.length; j++) {
                const elapsed = (times[j] ?? 0) - (times[i] ?? 0);
                expect(j - i + 1).toBeLessThanOrEqual(burst + Math.floor(elapsed / everyMs));
              }
            }
          }
          // A refused caller that waits what it was told gets through.
          const refused = ask(stage, "ada");
          if (E.isLeft(refused)) {
            time += refused.left as number;
            expect(ask(stage, "ada")).toStrictEqual(E.right(true));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("recipe: an audit log with observe", () => {
  interface AuditEntry {
    readonly caller: string;
    readonly method: string;
    /** `null` for a notification (which has no id). */
    readonly id: unknown;
    readonly outcome: string;
    readonly durationMs: number;
  }
  const audited = (write: (entry: AuditEntry) => void) =>
    observe<{ readonly caller: string }>(({ method, id, context, durationMs, response }) =>
      write({
        caller: context.caller,
        method,
        id: id === undefined ? null : id,
        outcome: E.isRight(response) ? "ok" : `error ${response.left.code}`,
        durationMs,
      }),
    );
  const closed: Stage<{ readonly caller: string }> = (call) =>
    call.request.method === "shutdown" ? RpcError(403, "Forbidden") : E.right(call);
  const methods = {
    ping: () => Success("pong"),
    shutdown: () => Success("bye"),
    slow: async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return Success("late");
    },
  };
  const outcomes = (log: AuditEntry[]) => log.map(({ method, id, outcome }) => `${method} ${String(id)} ${outcome}`);

  test("the page's sequence: every valid request, refused ones included; invalid ones never reach the stages", () => {
    const log: AuditEntry[] = [];
    const options = { context: { caller: "ann" }, stages: [audited((entry) => log.push(entry)), closed] };
    dispatch(request("ping", undefined, 1), methods, options);
    const batch = dispatch(
      `[${request("shutdown", undefined, 2)},${request("ping", undefined, undefined)},${request("pong", undefined, 3)},{"jsonrpc":"2.0","method":1,"id":4}]`,
      methods,
      options,
    );
    expect(JSON.parse(batch)).toHaveLength(3);
    dispatch('{"jsonrpc":"2.0","method', methods, options);
    dispatch("[]", methods, options);
    expect(outcomes(log)).toStrictEqual(["ping 1 ok", "shutdown 2 error 403", "ping null ok", "pong 3 error -32601"]);
    expect(log.every((entry) => entry.caller === "ann")).toBe(true);
    expect(log.every((entry) => entry.durationMs >= 0)).toBe(true);
  });

  test("given after the refusing stage, it sees only what got through", () => {
    const log: AuditEntry[] = [];
    dispatch(`[${request("shutdown", undefined, 1)},${request("ping", undefined, 2)}]`, methods, {
      context: { caller: "ann" },
      stages: [closed, audited((entry) => log.push(entry))],
    });
    expect(outcomes(log)).toStrictEqual(["ping 2 ok"]);
  });

  test("async dispatch: the duration covers the wait for an async method", async () => {
    const log: AuditEntry[] = [];
    const out = await asyncDispatch(`[${request("slow", undefined, 1)},${request("ping", undefined, 2)}]`, methods, {
      context: { caller: "ann" },
      stages: [audited((entry) => log.push(entry))],
    });
    expect(JSON.parse(out)).toStrictEqual([
      { jsonrpc: "2.0", result: "late", id: 1 },
      { jsonrpc: "2.0", result: "pong", id: 2 },
    ]);
    expect(outcomes(log)).toStrictEqual(["ping 2 ok", "slow 1 ok"]);
    expect(log[1]?.durationMs).toBeGreaterThanOrEqual(25);
  });

  test("a sink that throws is logged and ignored: the client still gets its answer", () => {
    const log = recordLogs();
    try {
      const stages = [
        audited(() => {
          throw new globalThis.Error("disk full");
        }),
      ];
      expect(dispatch(request("ping"), methods, { context: { caller: "ann" }, stages })).toBe(
        '{"jsonrpc":"2.0","result":"pong","id":1}',
      );
      expect(log.entries.filter((entry) => entry.level === "error")).toHaveLength(1);
    } finally {
      log.restore();
    }
  });
});

describe("recipe: a time-out with timeout", () => {
  interface Caller {
    readonly user: string;
    readonly signal: AbortSignal;
  }
  const sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });
  const stopped: string[] = [];
  const methods = {
    report: async (caller: Caller, ms: number) => {
      await sleep(ms, caller.signal);
      if (caller.signal.aborted) {
        stopped.push(`report(${ms}) for ${caller.user} stopped: ${String(caller.signal.reason)}`);
        return Error(1, "stopped");
      }
      return Success(`report of ${ms} ms for ${caller.user}`);
    },
  };
  const timedOut = (ms: number, id: unknown) => ({
    jsonrpc: "2.0",
    error: { code: codes.ERROR_TIMEOUT, message: "Request timed out", data: { timeoutMs: ms } },
    id,
  });
  beforeEach(() => {
    stopped.length = 0;
  });

  test("ERROR_TIMEOUT is -32001, in the range left to the server", () => {
    expect(codes.ERROR_TIMEOUT).toBe(-32001);
    expect(codes.ERROR_TIMEOUT).toBeLessThanOrEqual(-32000);
    expect(codes.ERROR_TIMEOUT).toBeGreaterThanOrEqual(-32099);
  });

  test("the page's sequence: in time answered; late -32001, and the method was aborted", async () => {
    const options = { context: { user: "ada" }, stages: [timeout(100)] };
    expect(await asyncDispatch(request("report", [10], 1), methods, options)).toBe(
      '{"jsonrpc":"2.0","result":"report of 10 ms for ada","id":1}',
    );
    const started = Date.now();
    expect(JSON.parse(await asyncDispatch(request("report", [60_000], 2), methods, options))).toStrictEqual(
      timedOut(100, 2),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    await sleep(0, new AbortController().signal);
    expect(stopped).toStrictEqual(["report(60000) for ada stopped: Error: timed out after 100 ms"]);
  });

  test("each member of a batch has its own time", async () => {
    const out = await asyncDispatch(
      `[${request("report", [60_000], 1)},${request("report", [1], 2)},${request("report", [60_000], undefined)}]`,
      methods,
      { context: { user: "bob" }, stages: [timeout(50)] },
    );
    expect(JSON.parse(out)).toStrictEqual([
      timedOut(50, 1),
      { jsonrpc: "2.0", result: "report of 1 ms for bob", id: 2 },
    ]);
    await sleep(0, new AbortController().signal);
    expect(stopped).toHaveLength(2);
  });

  test("sync dispatch refuses timeout with a TypeError when called", () => {
    expect(() =>
      dispatch(request("report", [1]), methods, { context: { user: "ada" }, stages: [timeout(100)] }),
    ).toThrow(TypeError);
  });

  test("without a plain-object context the method gets no signal, but the answer is cut off; the context option hands it over", async () => {
    let seen: unknown = "not called";
    const waits = {
      wait: async (...args: unknown[]) => {
        seen = args[0];
        await new Promise((resolve) => setTimeout(resolve, 200));
        return Success("late");
      },
    };
    expect(JSON.parse(await asyncDispatch(request("wait", [], 1), waits, { stages: [timeout(20)] }))).toStrictEqual(
      timedOut(20, 1),
    );
    expect(seen).toBeUndefined(); // no context: the method got its params only
    const asContext = timeout(20, { context: (_context, signal) => signal });
    expect(JSON.parse(await asyncDispatch(request("wait", [], 2), waits, { stages: [asContext] }))).toStrictEqual(
      timedOut(20, 2),
    );
    expect(seen).toBeInstanceOf(AbortSignal);
    expect((seen as AbortSignal).aborted).toBe(true);
  });

  test("a method that rejects once aborted (as fetch does) is not logged: its request was cut off", async () => {
    const log = recordLogs();
    try {
      const rejecting = {
        fetchy: (caller: Caller) =>
          new Promise<Result>((_resolve, reject) => {
            caller.signal.addEventListener("abort", () => reject(caller.signal.reason as globalThis.Error));
          }),
      };
      expect(
        JSON.parse(
          await asyncDispatch(request("fetchy", [], 1), rejecting, { context: { user: "ada" }, stages: [timeout(20)] }),
        ),
      ).toStrictEqual(timedOut(20, 1));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(log.entries.filter((entry) => entry.level === "error")).toHaveLength(0);
    } finally {
      log.restore();
    }
  });
});

describe("recipe: an async stage", () => {
  interface Session {
    readonly user: string;
    readonly role: "admin" | "member";
  }
  interface Visitor {
    readonly token: string | undefined;
    readonly session?: Session;
  }
  const NO_SESSION: ErrorResult = { code: 401, message: "Unauthorized", data: NODATA };
  const NOT_ADMIN: ErrorResult = { code: 403, message: "Forbidden", data: NODATA };
  const STORE_DOWN: ErrorResult = { code: 503, message: "Sessions unavailable", data: NODATA };
  const sessions = new Map<string, Session>([
    ["t-ada", { user: "ada", role: "admin" }],
    ["t-bob", { user: "bob", role: "member" }],
  ]);
  const findSession = async (token: string): Promise<Session | undefined> => sessions.get(token);
  const withSession = (call: Call<Visitor>): TE.TaskEither<ErrorResult, Call<Visitor>> =>
    pipe(
      TE.tryCatch(
        async () => (call.context.token === undefined ? undefined : findSession(call.context.token)),
        () => STORE_DOWN,
      ),
      TE.chain(TE.fromNullable(NO_SESSION)),
      TE.map((session) => ({ ...call, context: { ...call.context, session } })),
    );
  const needsAdminRole = (call: Call<Visitor>): TE.TaskEither<ErrorResult, Call<Visitor>> =>
    call.request.method.startsWith("admin.") && call.context.session?.role !== "admin"
      ? TE.left(NOT_ADMIN)
      : TE.right(call);
  const authorized: AsyncStage<Visitor> = flow(withSession, TE.chain(needsAdminRole));
  const methods = {
    whoami: (visitor: Visitor) => Success(visitor.session?.user),
    "admin.stats": (visitor: Visitor) => Success(`stats for ${visitor.session?.user}`),
  };
  const handle = (body: string, token?: string, stages: readonly AnyStage[] = [authorized]) =>
    asyncDispatch(body, methods, { context: { token }, stages });

  test("the page's sequence", async () => {
    expect(await handle(request("whoami", undefined, 1), "t-bob")).toBe('{"jsonrpc":"2.0","result":"bob","id":1}');
    expect(await handle(request("whoami", undefined, 2))).toBe(
      '{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized"},"id":2}',
    );
    expect(await handle(request("admin.stats", undefined, 3), "t-bob")).toBe(
      '{"jsonrpc":"2.0","error":{"code":403,"message":"Forbidden"},"id":3}',
    );
    expect(await handle(request("admin.stats", undefined, 4), "t-ada")).toBe(
      '{"jsonrpc":"2.0","result":"stats for ada","id":4}',
    );
    expect(await handle(request("whoami", undefined, 5), "t-nobody")).toBe(
      '{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized"},"id":5}',
    );
  });

  test("flow(withSession, TE.chain(needsAdminRole)) answers as the two stages given in order", async () => {
    const tokens = [undefined, "t-ada", "t-bob", "t-nobody"];
    const names = ["whoami", "admin.stats", "admin.nothing", "nothing"];
    for (const token of tokens) {
      for (const name of names) {
        const body = `[${request(name, undefined, 1)},${request(name, undefined, undefined)}]`;
        expect({ token, name, out: await handle(body, token) }).toStrictEqual({
          token,
          name,
          out: await handle(body, token, [withSession, needsAdminRole]),
        });
      }
    }
  });

  test("the stages alone are TaskEithers: testable without dispatch", async () => {
    const call: Call<Visitor> = { request: { jsonrpc: "2.0", method: "whoami", id: 1 }, context: { token: "t-ada" } };
    expect(await pipe(call, withSession, TE.chain(needsAdminRole))()).toStrictEqual(
      E.right({ ...call, context: { token: "t-ada", session: { user: "ada", role: "admin" } } }),
    );
    expect(await withSession({ ...call, context: { token: undefined } })()).toStrictEqual(E.left(NO_SESSION));
    const bobsAdminCall = { request: { ...call.request, method: "admin.stats" }, context: { token: "t-bob" } };
    expect(await pipe(bobsAdminCall, withSession, TE.chain(needsAdminRole))()).toStrictEqual(E.left(NOT_ADMIN));
  });

  test("a stage may pass on another request (an alias); the answer keeps the id the request arrived with", async () => {
    const alias: Stage<Visitor> = (call) =>
      E.right(
        call.request.method === "me"
          ? { ...call, request: { ...call.request, method: "whoami", id: "rewritten" } }
          : call,
      );
    expect(await handle(request("me", undefined, 1), "t-ada", [authorized, alias])).toBe(
      '{"jsonrpc":"2.0","result":"ada","id":1}',
    );
    expect(await handle(request("me", undefined, 2), undefined, [alias, authorized])).toBe(
      '{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized"},"id":2}',
    );
    // A notification stays one, whatever id a stage gives it.
    expect(await handle(request("me", undefined, undefined), "t-ada", [alias, authorized])).toBe("");
  });

  test("a store that fails is 503 (TE.tryCatch); a stage whose TaskEither rejects anyway is -32603, logged", async () => {
    const spy = jest.spyOn(sessions, "get").mockImplementation(() => {
      throw new globalThis.Error("connection refused");
    });
    const log = recordLogs();
    try {
      expect(await handle(request("whoami", undefined, 1), "t-ada")).toBe(
        '{"jsonrpc":"2.0","error":{"code":503,"message":"Sessions unavailable"},"id":1}',
      );
      const rejecting: AsyncStage = () => () => Promise.reject(new globalThis.Error("boom"));
      expect(await handle(request("whoami", undefined, 2), "t-ada", [rejecting])).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":2}',
      );
      expect(log.entries.filter((entry) => entry.level === "error")).toHaveLength(1);
    } finally {
      log.restore();
      spy.mockRestore();
    }
  });

  test("sync dispatch: an async function stage is a TypeError at call time; a TaskEither at run time is -32603", () => {
    const log = recordLogs();
    try {
      const asyncFunction: AsyncStage<Visitor> = async (call) => E.right(call);
      expect(() =>
        dispatch(request("whoami"), methods, { context: { token: "t-ada" }, stages: [asyncFunction] }),
      ).toThrow(new TypeError("stages[0] is for async dispatch only (it waits); use asyncDispatch"));
      const out = JSON.parse(
        dispatch(request("whoami"), methods, { context: { token: "t-ada" }, stages: [authorized] }),
      );
      expect(out).toMatchObject({
        error: { code: -32603, data: "A stage returned a Promise; use asyncDispatch" },
        id: 1,
      });
    } finally {
      log.restore();
    }
  });
});

describe("recipe: OpenTelemetry, a span per request", () => {
  const traced = (tracer: Tracer): Around => ({
    _tag: "Around",
    asyncOnly: false,
    around: (F) => (next) => (call) => {
      const { method, id } = call.request;
      const span = tracer.startSpan(method, {
        kind: SpanKind.SERVER,
        attributes: {
          "rpc.system": "jsonrpc",
          "rpc.method": method,
          "rpc.jsonrpc.version": "2.0",
          ...(id === undefined ? {} : { "rpc.jsonrpc.request_id": id === null ? "" : String(id) }),
        },
      });
      const answer = context.with(trace.setSpan(context.active(), span), () => next(call));
      return F.map(answer, (response) => {
        if (E.isLeft(response)) {
          const { code, message } = response.left;
          span.setAttributes({ "rpc.jsonrpc.error_code": code, "rpc.jsonrpc.error_message": message });
          span.setStatus({ code: SpanStatusCode.ERROR, message });
        }
        span.end();
        return response;
      });
    },
  });

  // The real SDK: spans recorded in memory, the context manager on AsyncLocalStorage (tests/helpers/otel.ts).
  const sdk = telemetry();
  const tracer = sdk.tracerProvider.getTracer("recipe");
  /** The span active while each method ran, by its span id. */
  const active: Array<string | undefined> = [];
  const idOfSpan = (span: { spanContext(): { spanId: string } } | undefined) => span?.spanContext().spanId;
  const methods = {
    add: (a: number, b: number) => (active.push(idOfSpan(trace.getActiveSpan())), Success(a + b)),
    later: async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      active.push(idOfSpan(trace.getActiveSpan()));
      return Success("done");
    },
    fail: () => Error(1, "Nope"),
  };
  beforeAll(registerGlobals);
  afterAll(() => {
    context.disable();
  });
  beforeEach(() => {
    active.length = 0;
    sdk.reset();
  });

  test("a span per request, named after the method, with the JSON-RPC attributes; errors set the status", () => {
    const stages = [traced(tracer)];
    const out = dispatch(
      `[${request("add", [1, 2], 1)},${request("fail", undefined, "x")},${request("add", [1, 1], undefined)},${request("nope", undefined, null)}]`,
      methods,
      { stages },
    );
    expect(JSON.parse(out)).toHaveLength(3);
    expect(
      sdk.spans().map(({ name, kind, attributes, status, ended }) => ({ name, kind, attributes, status, ended })),
    ).toStrictEqual([
      {
        name: "add",
        kind: SpanKind.SERVER,
        attributes: {
          "rpc.system": "jsonrpc",
          "rpc.method": "add",
          "rpc.jsonrpc.version": "2.0",
          "rpc.jsonrpc.request_id": "1",
        },
        status: { code: SpanStatusCode.UNSET },
        ended: true,
      },
      {
        name: "fail",
        kind: SpanKind.SERVER,
        attributes: {
          "rpc.system": "jsonrpc",
          "rpc.method": "fail",
          "rpc.jsonrpc.version": "2.0",
          "rpc.jsonrpc.request_id": "x",
          "rpc.jsonrpc.error_code": 1,
          "rpc.jsonrpc.error_message": "Nope",
        },
        status: { code: SpanStatusCode.ERROR, message: "Nope" },
        ended: true,
      },
      {
        name: "add",
        kind: SpanKind.SERVER,
        attributes: { "rpc.system": "jsonrpc", "rpc.method": "add", "rpc.jsonrpc.version": "2.0" },
        status: { code: SpanStatusCode.UNSET },
        ended: true,
      },
      {
        name: "nope",
        kind: SpanKind.SERVER,
        attributes: {
          "rpc.system": "jsonrpc",
          "rpc.method": "nope",
          "rpc.jsonrpc.version": "2.0",
          "rpc.jsonrpc.request_id": "",
          "rpc.jsonrpc.error_code": -32601,
          "rpc.jsonrpc.error_message": "Method not found",
        },
        status: { code: SpanStatusCode.ERROR, message: "Method not found" },
        ended: true,
      },
    ]);
    // The request's span is the active span while its method runs.
    const spans = sdk.spans();
    expect(active).toStrictEqual([idOfSpan(spans[0]), idOfSpan(spans[2])]);
  });

  test("async dispatch: the span is active across the method's awaits, and ends with the answer", async () => {
    const pending = asyncDispatch(request("later", undefined, 7), methods, { stages: [traced(tracer)] });
    // Started, not ended: nothing finished yet.
    expect(sdk.spans()).toHaveLength(0);
    expect(await pending).toBe('{"jsonrpc":"2.0","result":"done","id":7}');
    const spans = sdk.spans();
    expect(spans.map(({ name, ended }) => ({ name, ended }))).toStrictEqual([{ name: "later", ended: true }]);
    expect(active).toStrictEqual([idOfSpan(spans[0])]);
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  test("with the global no-op tracer (no SDK) the answers are those without the stage", async () => {
    const stages = [traced(trace.getTracer("rpcserver-test"))];
    const bodies = [
      request("add", [1, 2], 1),
      request("fail", undefined, 2),
      `[${request("add", [1, 1], 3)},${request("add", [2, 2], undefined)},${request("nope", undefined, 4)}]`,
      request("add", [1, 1], undefined),
    ];
    for (const body of bodies) expect(dispatch(body, methods, { stages })).toBe(dispatch(body, methods));
    expect(await asyncDispatch(request("later", undefined, 1), methods, { stages })).toBe(
      '{"jsonrpc":"2.0","result":"done","id":1}',
    );
  });

  test("an Around stage of your own that throws answers its request alone: -32603, logged", () => {
    const log = recordLogs();
    try {
      const broken: Around = {
        _tag: "Around",
        asyncOnly: false,
        around: () => () => () => {
          throw new globalThis.Error("tracer down");
        },
      };
      expect(
        dispatch(`[${request("add", [1, 2], 1)},${request("add", [1, 2], 2)}]`, methods, { stages: [broken] }),
      ).toBe(
        '[{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1},' +
          '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":2}]',
      );
      expect(log.entries.filter((entry) => entry.level === "error")).toHaveLength(2);
    } finally {
      log.restore();
    }
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
    ["authorization by method name", ["Member", "adminsOnly"]],
    ["rate limit", ["TOO_MANY_REQUESTS", "rateLimited"]],
    ["audit log", ["AuditEntry", "audited", "closed"]],
    ["time-out", ["sleep", "stopped"]],
    [
      "async stage",
      [
        "Session",
        "Visitor",
        "NO_SESSION",
        "NOT_ADMIN",
        "STORE_DOWN",
        "sessions",
        "findSession",
        "withSession",
        "needsAdminRole",
        "authorized",
      ],
    ],
    ["OpenTelemetry", ["traced"]],
    ["big integers", ["MAX_DIGITS", "TOKEN", "parseBig", "writeBig"]],
  ])("%s", (_recipe, names) => {
    for (const name of names) {
      const definition = definitions.get(name);
      expect({ name, defined: definition !== undefined }).toStrictEqual({ name, defined: true });
      expect({ name, shown: page.includes(squash(definition ?? "")) }).toStrictEqual({ name, shown: true });
    }
  });
});
