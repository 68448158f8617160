/**
 * Stages of your own (the `stages` option) through sync and async dispatch: passing, passing a new
 * context, refusing, throwing, returning something else; their order; async stages; where they
 * run (after validation, before the method is looked up); batches and notifications. Then the two
 * stages the library ships: `timeout` and `observe`.
 */
import * as E from "fp-ts/Either";
import { flow } from "fp-ts/function";
import * as TE from "fp-ts/TaskEither";
import {
  asyncDispatch,
  asyncDispatchToResponse,
  dispatch,
  dispatchToResponse,
  dispatchToSerializable,
  JsonRpcError,
  NOCONTEXT,
  NODATA,
  observe,
  Success,
  timeout,
  type AsyncStage,
  type Call,
  type Methods,
  type Observation,
  type Result,
  type Stage,
} from "../src";
import { jsonDispatchers, recordLogs } from "./support";

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => {
  logs.restore();
  jest.useRealTimers();
});

const req = (method: string, params?: unknown, id?: unknown): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    method,
    ...(params === undefined ? {} : { params }),
    ...(id === undefined ? {} : { id }),
  });

const parsed = (text: string): unknown => (text === "" ? "" : JSON.parse(text));

const pass: Stage = (call) => E.right(call);
const forbidden = { code: 403, message: "Forbidden", data: { why: "no" } };
const refuse: Stage = () => E.left(forbidden);

/** A promise that never settles (the method never answers). */
const never = (): Promise<Result> => new Promise<Result>(() => undefined);

const loggedMessages = (): unknown[] => logs.entries.map((entry) => entry.args[0]);

// -------------------------------------------------------------------------------------------------

describe.each(jsonDispatchers)("user stages through %s", (_name, run) => {
  const methods: Methods = {
    ping: () => Success("pong"),
    whoami: (ctx: unknown) => Success(ctx),
    add: (a: number, b: number) => Success(a + b),
  };

  test("a stage that passes lets the request through to its method", async () => {
    const seen: Call[] = [];
    const spy: Stage = (call) => {
      seen.push(call);
      return E.right(call);
    };
    expect(await run(req("add", [1, 2], 1), methods, { stages: [spy] })).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.request).toStrictEqual({ jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 });
  });

  test("a stage sees the dispatch context and may pass a new one, which the method receives", async () => {
    const seen: unknown[] = [];
    const authenticate: Stage<{ token: string }> = (call) => {
      seen.push(call.context);
      return E.right({ ...call, context: { token: call.context.token, user: "ann" } });
    };
    expect(
      parsed(await run(req("whoami", undefined, 1), methods, { context: { token: "t" }, stages: [authenticate] })),
    ).toStrictEqual({ jsonrpc: "2.0", result: { token: "t", user: "ann" }, id: 1 });
    expect(seen).toStrictEqual([{ token: "t" }]);
  });

  test("a stage may give a context where dispatch had none: the method then receives it first", async () => {
    const addUser: Stage = (call) => E.right({ ...call, context: "bob" });
    const greet = (ctx: string, name: string): Result => Success(`${ctx} greets ${name}`);
    expect(await run(req("greet", ["cid"], 1), { greet }, { stages: [addUser] })).toBe(
      '{"jsonrpc":"2.0","result":"bob greets cid","id":1}',
    );
  });

  test("a stage may rewrite the request (here its method) before the lookup", async () => {
    const alias: Stage = (call) =>
      call.request.method === "hello"
        ? E.right({ ...call, request: { ...call.request, method: "ping" } })
        : E.right(call);
    expect(await run(req("hello", undefined, 1), methods, { stages: [alias] })).toBe(
      '{"jsonrpc":"2.0","result":"pong","id":1}',
    );
  });

  test("a refusal answers with its code, message and data, and the request's id; the method never runs", async () => {
    const ping = jest.fn(() => Success("pong"));
    expect(parsed(await run(req("ping", undefined, "abc"), { ping }, { stages: [refuse] }))).toStrictEqual({
      jsonrpc: "2.0",
      error: forbidden,
      id: "abc",
    });
    const bare: Stage = () => E.left({ code: 1, message: "no data", data: NODATA });
    expect(await run(req("ping", undefined, null), { ping }, { stages: [bare] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":1,"message":"no data"},"id":null}',
    );
    expect(ping).not.toHaveBeenCalled();
  });

  test("a stage that throws is -32603 (logged); its message in data only under debug", async () => {
    const ping = jest.fn(() => Success("pong"));
    const throwing: Stage = () => {
      throw new globalThis.Error("stage secret");
    };
    expect(await run(req("ping", undefined, 1), { ping }, { stages: [throwing] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}',
    );
    expect(logs.entries).toContainEqual({
      level: "error",
      args: [
        'rpcserver: stage for method "ping" raised an exception',
        expect.objectContaining({ message: "stage secret" }),
      ],
    });
    expect(await run(req("ping", undefined, 1), { ping }, { stages: [throwing], debug: true })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"stage secret"},"id":1}',
    );
    expect(ping).not.toHaveBeenCalled();
  });

  test("a stage that throws a JsonRpcError answers with that error", async () => {
    const throwing: Stage = () => {
      throw new JsonRpcError(401, "Unauthorized", { realm: "x" });
    };
    expect(parsed(await run(req("ping", undefined, 1), methods, { stages: [throwing] }))).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: 401, message: "Unauthorized", data: { realm: "x" } },
      id: 1,
    });
  });

  test.each([
    ["a number", 42],
    ["undefined", undefined],
    ["null", null],
    ["a plain object", { request: {}, context: 1 }],
    ["a Right that holds no call", E.right(42)],
    ["a Left that holds no ErrorResult", E.left("no")],
    ["a Left of an object without code and message", E.left({})],
  ])("a stage that returns %s is -32603 'A stage did not return an Either' (logged)", async (_what, value) => {
    const odd = (() => value) as unknown as Stage;
    expect(parsed(await run(req("ping", undefined, 2), methods, { stages: [odd] }))).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: -32603, message: "Internal error", data: "A stage did not return an Either" },
      id: 2,
    });
    expect(loggedMessages()).toContain('rpcserver: a stage for method "ping" returned something other than an Either');
  });

  test("stages run in the order given; a refusal stops the later ones and the method", async () => {
    const order: string[] = [];
    const named =
      (name: string, refuses = false): Stage =>
      (call) => {
        order.push(name);
        return refuses ? E.left({ code: 1, message: name, data: NODATA }) : E.right(call);
      };
    const ping = jest.fn(() => {
      order.push("method");
      return Success("pong");
    });
    await run(req("ping", undefined, 1), { ping }, { stages: [named("c"), named("a"), named("b")] });
    expect(order).toStrictEqual(["c", "a", "b", "method"]);
    order.length = 0;
    expect(await run(req("ping", undefined, 1), { ping }, { stages: [named("a"), named("b", true), named("c")] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":1,"message":"b"},"id":1}',
    );
    expect(order).toStrictEqual(["a", "b"]);
  });

  test("each stage sees the call the previous one passed on", async () => {
    const seen: unknown[] = [];
    const first: Stage = (call) => E.right({ ...call, context: 1 });
    const second: Stage = (call) => {
      seen.push(call.context);
      return E.right({ ...call, context: (call.context as number) + 1 });
    };
    expect(await run(req("whoami", undefined, 1), methods, { stages: [first, second] })).toBe(
      '{"jsonrpc":"2.0","result":2,"id":1}',
    );
    expect(seen).toStrictEqual([1]);
  });

  test("stages compose with fp-ts flow and E.chain", async () => {
    const order: string[] = [];
    const tag =
      (name: string): Stage =>
      (call) => {
        order.push(name);
        return E.right(call);
      };
    const adminsOnly: Stage<{ role: string }> = (call) =>
      call.request.method.startsWith("admin.") && call.context.role !== "admin"
        ? E.left({ code: 403, message: "Forbidden", data: call.request.method })
        : E.right(call);
    const both: Stage<{ role: string }> = flow(tag("first") as Stage<{ role: string }>, E.chain(adminsOnly));
    const all: Stage<{ role: string }> = flow(both, E.chain(tag("last") as Stage<{ role: string }>));
    const table: Methods = { "admin.reset": () => Success("reset"), ping: () => Success("pong") };
    expect(await run(req("admin.reset", undefined, 1), table, { context: { role: "user" }, stages: [all] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":403,"message":"Forbidden","data":"admin.reset"},"id":1}',
    );
    expect(order).toStrictEqual(["first"]);
    expect(await run(req("admin.reset", undefined, 2), table, { context: { role: "admin" }, stages: [all] })).toBe(
      '{"jsonrpc":"2.0","result":"reset","id":2}',
    );
    expect(order).toStrictEqual(["first", "first", "last"]);
  });

  test("in a batch, a refusal answers its own request only; the rest runs; a refused notification is never answered", async () => {
    const calls: string[] = [];
    const table: Methods = {
      secret: (tag: string) => {
        calls.push(`secret ${tag}`);
        return Success("s");
      },
      ping: (tag: string) => {
        calls.push(`ping ${tag}`);
        return Success(tag);
      },
    };
    const noSecrets: Stage = (call) =>
      call.request.method === "secret" ? E.left({ code: 403, message: "Forbidden", data: NODATA }) : E.right(call);
    const body = `[${[
      req("secret", ["1"], 1),
      req("ping", ["2"], 2),
      req("secret", ["n1"]),
      req("ping", ["n2"]),
      req("nope", [], 3),
    ].join(",")}]`;
    expect(parsed(await run(body, table, { stages: [noSecrets] }))).toStrictEqual([
      { jsonrpc: "2.0", error: { code: 403, message: "Forbidden" }, id: 1 },
      { jsonrpc: "2.0", result: "2", id: 2 },
      { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "nope" }, id: 3 },
    ]);
    expect(calls.sort()).toStrictEqual(["ping 2", "ping n2"]);
    // a batch of refused notifications only: nothing to send
    expect(await run(`[${req("secret", ["a"])},${req("secret", ["b"])}]`, table, { stages: [noSecrets] })).toBe("");
    expect(await run(req("secret", ["c"]), table, { stages: [noSecrets] })).toBe("");
  });

  test("a throwing stage answers its own request in a batch; a notification it throws for is not answered", async () => {
    const throwsOnOdd: Stage = (call) => {
      if ((call.request.params as number[])[0]! % 2 === 1) throw new globalThis.Error("odd");
      return E.right(call);
    };
    const body = `[${[req("add", [1, 1], 1), req("add", [2, 2], 2), req("add", [3, 3])].join(",")}]`;
    expect(parsed(await run(body, methods, { stages: [throwsOnOdd] }))).toStrictEqual([
      { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: 1 },
      { jsonrpc: "2.0", result: 4, id: 2 },
    ]);
  });

  test("stages run after validation: an invalid request never reaches a stage", async () => {
    const spy = jest.fn(pass);
    expect(await run('{"jsonrpc":"2.0","method":1,"id":1}', methods, { stages: [spy] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"method: must be a string"},"id":null}',
    );
    await run('[{"jsonrpc":"1.0","method":"ping","id":1},1,"x"]', methods, { stages: [spy] });
    await run("{not json", methods, { stages: [spy] });
    await run("[]", methods, { stages: [spy] });
    expect(spy).not.toHaveBeenCalled();
  });

  test("stages run before the lookup: a stage sees a request for an unknown method and may refuse it first", async () => {
    const seen: string[] = [];
    const known: Stage = (call) => {
      seen.push(call.request.method);
      return call.request.method === "forbidden"
        ? E.left({ code: 1, message: "refused first", data: NODATA })
        : E.right(call);
    };
    expect(await run(req("forbidden", undefined, 1), methods, { stages: [known] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":1,"message":"refused first"},"id":1}',
    );
    expect(await run(req("unknown", undefined, 2), methods, { stages: [known] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"unknown"},"id":2}',
    );
    // and before the params are checked
    expect(await run(req("add", [1], 3), methods, { stages: [known] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"expected at least 2 params, got 1"},"id":3}',
    );
    expect(seen).toStrictEqual(["forbidden", "unknown", "add"]);
  });

  test("a stage that is not a function, or stages that are not an array, are a TypeError", async () => {
    // sync dispatch throws, async dispatch rejects: either way the promise below rejects
    const attempt = (stages: unknown): Promise<string> =>
      Promise.resolve().then(() => run(req("ping", undefined, 1), methods, { stages: stages as never }));
    await expect(attempt([42])).rejects.toThrow(TypeError);
    await expect(attempt([pass, null])).rejects.toThrow("stages[1] must be a function");
    await expect(attempt(pass)).rejects.toThrow("stages must be an array");
  });

  test("no stages, or an empty list, is dispatch as usual", async () => {
    expect(await run(req("ping", undefined, 1), methods, { stages: [] })).toBe(
      '{"jsonrpc":"2.0","result":"pong","id":1}',
    );
    expect(await run(req("ping", undefined, 1), methods, { stages: undefined })).toBe(
      '{"jsonrpc":"2.0","result":"pong","id":1}',
    );
  });

  // src/stages.ts, `Call`: "The response's id is always the id of the request as it arrived,
  // whatever a stage makes of `request`." The pipeline answers with the id of the request a stage
  // passed on instead (resolve, the call and a later stage's refusal all read `call.request.id`).
  test("the answer keeps the id the request arrived with, whatever a stage makes of the request", async () => {
    const renumber: Stage = (call) => E.right({ ...call, request: { ...call.request, id: 99 } });
    expect(await run(req("ping", undefined, 1), methods, { stages: [renumber] })).toBe(
      '{"jsonrpc":"2.0","result":"pong","id":1}',
    );
    expect(await run(req("nope", undefined, 1), methods, { stages: [renumber] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"nope"},"id":1}',
    );
    expect(await run(req("ping", undefined, 1), methods, { stages: [renumber, refuse] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":403,"message":"Forbidden","data":{"why":"no"}},"id":1}',
    );
    const forget: Stage = (call) => {
      const { id: _id, ...rest } = call.request;
      return E.right({ ...call, request: rest });
    };
    expect(await run(req("ping", undefined, 7), methods, { stages: [forget] })).toBe(
      '{"jsonrpc":"2.0","result":"pong","id":7}',
    );
    expect(await run(req("ping", undefined, undefined), methods, { stages: [renumber] })).toBe("");
  });
});

test("an async stage that renumbers the request: the answer keeps the id it came with", async () => {
  const renumber: AsyncStage = (call) => TE.right({ ...call, request: { ...call.request, id: "other" } });
  const methods: Methods = { ping: async () => Success("pong") };
  expect(await asyncDispatch(req("ping", undefined, "mine"), methods, { stages: [renumber] })).toBe(
    '{"jsonrpc":"2.0","result":"pong","id":"mine"}',
  );
  expect(
    await asyncDispatch(`[${req("ping", undefined, 1)},${req("ping", undefined, 2)}]`, methods, {
      stages: [renumber, observe(() => undefined)],
    }),
  ).toBe('[{"jsonrpc":"2.0","result":"pong","id":1},{"jsonrpc":"2.0","result":"pong","id":2}]');
});

// -------------------------------------------------------------------------------------------------

describe("async stages", () => {
  const methods: Methods = {
    whoami: (ctx: unknown) => Success(ctx),
    ping: () => Success("pong"),
  };

  test("a stage returning a TaskEither: its Right passes (with its context), its Left refuses", async () => {
    const lookupUser: AsyncStage<{ token: string }> = (call) =>
      call.context.token === "good"
        ? TE.right({ ...call, context: { token: call.context.token, user: "ann" } })
        : TE.left({ code: 401, message: "Unauthorized", data: NODATA });
    expect(
      parsed(
        await asyncDispatch(req("whoami", undefined, 1), methods, { context: { token: "good" }, stages: [lookupUser] }),
      ),
    ).toStrictEqual({ jsonrpc: "2.0", result: { token: "good", user: "ann" }, id: 1 });
    expect(
      await asyncDispatch(req("whoami", undefined, 2), methods, { context: { token: "bad" }, stages: [lookupUser] }),
    ).toBe('{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized"},"id":2}');
  });

  test("a stage returning a Promise of an Either, or an async function, is waited for", async () => {
    const later: AsyncStage = (call) =>
      new Promise((ok) => setImmediate(() => ok(E.right({ ...call, context: "later" }))));
    const asyncFn = async (call: Call): Promise<E.Either<typeof forbidden, Call>> =>
      call.request.method === "ping" ? E.left(forbidden) : E.right(call);
    expect(await asyncDispatch(req("whoami", undefined, 1), methods, { stages: [later] })).toBe(
      '{"jsonrpc":"2.0","result":"later","id":1}',
    );
    expect(await asyncDispatch(req("ping", undefined, 2), methods, { stages: [asyncFn] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":403,"message":"Forbidden","data":{"why":"no"}},"id":2}',
    );
    expect(await asyncDispatch(req("whoami", undefined, 3), methods, { context: "c", stages: [asyncFn, later] })).toBe(
      '{"jsonrpc":"2.0","result":"later","id":3}',
    );
  });

  test("async and sync stages mix, in order", async () => {
    const order: string[] = [];
    const syncOne: Stage = (call) => {
      order.push("sync");
      return E.right(call);
    };
    const asyncOne: AsyncStage = async (call) => {
      await Promise.resolve();
      order.push("async");
      return E.right(call);
    };
    const te: AsyncStage = (call) => () => {
      order.push("task");
      return Promise.resolve(E.right(call));
    };
    await asyncDispatch(req("ping", undefined, 1), methods, { stages: [asyncOne, syncOne, te, asyncOne] });
    expect(order).toStrictEqual(["async", "sync", "task", "async"]);
  });

  test("a rejected Promise, or one of something other than an Either, is -32603 for that request", async () => {
    const rejecting: AsyncStage = () => Promise.reject(new globalThis.Error("async stage secret"));
    const odd = (async () => 42) as unknown as AsyncStage;
    const body = `[${req("ping", undefined, 1)},${req("ping", undefined, 2)}]`;
    expect(parsed(await asyncDispatch(body, methods, { stages: [rejecting] }))).toStrictEqual([
      { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: 1 },
      { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: 2 },
    ]);
    expect(await asyncDispatch(req("ping", undefined, 1), methods, { stages: [rejecting], debug: true })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"async stage secret"},"id":1}',
    );
    expect(await asyncDispatch(req("ping", undefined, 3), methods, { stages: [odd] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"A stage did not return an Either"},"id":3}',
    );
    expect(loggedMessages()).toContain('rpcserver: stage for method "ping" raised an exception');
  });

  test("in an async batch each request waits on its own stage; refusals answer their own request only", async () => {
    const slowRefusal: AsyncStage = (call) =>
      new Promise((ok) =>
        setImmediate(() =>
          ok(call.request.id === 1 ? E.left({ code: 9, message: "nine", data: NODATA }) : E.right(call)),
        ),
      );
    const body = `[${req("ping", undefined, 1)},${req("ping", undefined, 2)},${req("ping")}]`;
    expect(parsed(await asyncDispatch(body, methods, { stages: [slowRefusal] }))).toStrictEqual([
      { jsonrpc: "2.0", error: { code: 9, message: "nine" }, id: 1 },
      { jsonrpc: "2.0", result: "pong", id: 2 },
    ]);
  });
});

// -------------------------------------------------------------------------------------------------

describe("sync dispatch and stages that wait", () => {
  const methods: Methods = { ping: () => Success("pong") };

  test("an async function stage is a TypeError thrown by dispatch itself; nothing runs", () => {
    const ping = jest.fn(() => Success("pong"));
    const asyncStage = async (call: Call) => E.right(call);
    expect(() => dispatch(req("ping", undefined, 1), { ping }, { stages: [asyncStage] })).toThrow(TypeError);
    expect(() => dispatch(req("ping", undefined, 1), { ping }, { stages: [pass, asyncStage] })).toThrow(
      "stages[1] is for async dispatch only (it waits); use asyncDispatch",
    );
    expect(() => dispatchToResponse(req("ping", undefined, 1), { ping }, { stages: [asyncStage] })).toThrow(TypeError);
    expect(() => dispatchToSerializable(req("ping", undefined, 1), { ping }, { stages: [asyncStage] })).toThrow(
      TypeError,
    );
    expect(ping).not.toHaveBeenCalled();
  });

  test("a plain function that returns a Promise at run time is -32603 for that request only", async () => {
    const sneaky = ((call: Call) =>
      call.request.id === 1 ? Promise.resolve(E.right(call)) : E.right(call)) as unknown as Stage;
    const body = `[${req("ping", undefined, 1)},${req("ping", undefined, 2)}]`;
    expect(parsed(dispatch(body, methods, { stages: [sneaky] }))).toStrictEqual([
      {
        jsonrpc: "2.0",
        error: { code: -32603, message: "Internal error", data: expect.stringContaining("use asyncDispatch") },
        id: 1,
      },
      { jsonrpc: "2.0", result: "pong", id: 2 },
    ]);
    expect(loggedMessages()).toContain('rpcserver: stage for method "ping" returned a Promise to sync dispatch');
    // a rejection of the refused Promise is handled, not left to crash the host
    const unhandled = jest.fn();
    process.on("unhandledRejection", unhandled);
    try {
      const rejecting = (() => Promise.reject(new globalThis.Error("late"))) as unknown as Stage;
      expect(parsed(dispatch(req("ping", undefined, 3), methods, { stages: [rejecting] }))).toMatchObject({
        error: { code: -32603 },
        id: 3,
      });
      await new Promise((r) => setImmediate(r));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off("unhandledRejection", unhandled);
    }
  });

  test("a stage that returns a TaskEither to sync dispatch is -32603 for that request", () => {
    const te = ((call: Call) => TE.right(call)) as unknown as Stage;
    expect(parsed(dispatch(req("ping", undefined, 1), methods, { stages: [te] }))).toMatchObject({
      error: { code: -32603, message: "Internal error" },
      id: 1,
    });
  });
});

// -------------------------------------------------------------------------------------------------

describe("timeout", () => {
  test("a method that never settles is answered -32001 'Request timed out' with data { timeoutMs }", async () => {
    expect(await asyncDispatch(req("slow", undefined, 1), { slow: never }, { stages: [timeout(5)] })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeoutMs":5}},"id":1}',
    );
    expect(
      await asyncDispatchToResponse(req("slow", undefined, "x"), { slow: never }, { stages: [timeout(3)] }),
    ).toStrictEqual(E.left({ code: -32001, message: "Request timed out", data: { timeoutMs: 3 }, id: "x" }));
  });

  test("the method gets ctx.signal (plain-object context), aborted at the timeout; its later answer is dropped", async () => {
    const signals: AbortSignal[] = [];
    const contexts: unknown[] = [];
    const slow = (ctx: { user: string; signal: AbortSignal }): Promise<Result> => {
      signals.push(ctx.signal);
      contexts.push({ ...ctx });
      // answers only when aborted: that answer comes too late and is dropped
      return new Promise((ok) => ctx.signal.addEventListener("abort", () => ok(Success("too late"))));
    };
    expect(
      await asyncDispatch(req("slow", undefined, 1), { slow }, { context: { user: "ann" }, stages: [timeout(5)] }),
    ).toBe('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeoutMs":5}},"id":1}');
    expect(contexts).toStrictEqual([{ user: "ann", signal: expect.any(AbortSignal) }]);
    expect(signals[0]?.aborted).toBe(true);
    expect((signals[0]?.reason as Error).message).toBe("timed out after 5 ms");
  });

  test("at the time-out every abort listener runs once, in order, and one that throws is logged, not re-thrown", async () => {
    const order: string[] = [];
    const slow = (ctx: { signal: AbortSignal }): Promise<Result> => {
      ctx.signal.addEventListener("abort", () => order.push("first"));
      ctx.signal.addEventListener("abort", () => {
        order.push("throws");
        throw new globalThis.Error("listener threw");
      });
      ctx.signal.onabort = () => order.push("onabort");
      ctx.signal.addEventListener("abort", { handleEvent: () => order.push("object") }, { once: true });
      ctx.signal.addEventListener("abort", () => order.push("capture"), true);
      return never();
    };
    expect(await asyncDispatch(req("slow", undefined, 1), { slow }, { context: {}, stages: [timeout(5)] })).toContain(
      '"code":-32001',
    );
    await new Promise((done) => setTimeout(done, 20));
    expect(order).toEqual(["first", "throws", "onabort", "object", "capture"]);
    expect(logs.entries.map((entry) => entry.args[0])).toEqual([
      "rpcserver: a listener on a method's abort signal threw",
    ]);
    expect((logs.entries[0]?.args[1] as Error).message).toBe("listener threw");
  });

  test("a context that is not a plain object, or none, is left as it is (the answer is still cut off)", async () => {
    const seen: unknown[][] = [];
    const slow = (...args: unknown[]): Promise<Result> => {
      seen.push(args);
      return never();
    };
    class Session {
      user = "ann";
    }
    const session = new Session();
    // Typed as one options type: a union of object types would infer the context from its first member.
    for (const options of [{ context: "ctx" }, { context: session }, {}] as Array<{ readonly context?: unknown }>) {
      expect(
        parsed(await asyncDispatch(req("slow", [1], 1), { slow }, { ...options, stages: [timeout(2)] })),
      ).toMatchObject({
        error: { code: -32001 },
      });
    }
    expect(seen).toStrictEqual([["ctx", 1], [session, 1], [1]]);
    expect(seen[1]?.[0]).toBe(session);
  });

  test("the context option decides how the method is handed the signal", async () => {
    const seen: unknown[] = [];
    const slow = (ctx: unknown): Promise<Result> => {
      seen.push(ctx);
      return never();
    };
    const attach = jest.fn((context: unknown, signal: AbortSignal) => ({ wrapped: context, signal }));
    expect(
      parsed(
        await asyncDispatch(
          req("slow", undefined, 1),
          { slow },
          { context: "c", stages: [timeout(2, { context: attach })] },
        ),
      ),
    ).toMatchObject({
      error: { code: -32001, data: { timeoutMs: 2 } },
      id: 1,
    });
    expect(attach).toHaveBeenCalledTimes(1);
    expect(attach.mock.calls[0]?.[0]).toBe("c");
    expect(seen).toStrictEqual([{ wrapped: "c", signal: attach.mock.calls[0]?.[1] }]);
    expect((seen[0] as { signal: AbortSignal }).signal.aborted).toBe(true);
  });

  test("a fast async method's answer wins; the timer is cleared and the signal never aborted", async () => {
    jest.useFakeTimers({ doNotFake: ["nextTick", "queueMicrotask"] });
    let signal: AbortSignal | undefined;
    const fast = async (ctx: { signal: AbortSignal }): Promise<Result> => {
      signal = ctx.signal;
      await Promise.resolve();
      return Success("fast");
    };
    const answer = asyncDispatch(req("fast", undefined, 1), { fast }, { context: {}, stages: [timeout(50)] });
    expect(jest.getTimerCount()).toBe(1);
    expect(await answer).toBe('{"jsonrpc":"2.0","result":"fast","id":1}');
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(1000);
    expect(signal?.aborted).toBe(false);
  });

  test("a method that answers synchronously is never timed out (no timer is even set)", async () => {
    jest.useFakeTimers({ doNotFake: ["nextTick", "queueMicrotask"] });
    const now = (ctx: { signal: AbortSignal }): Result => Success(ctx.signal.aborted);
    const answer = asyncDispatch(req("now", undefined, 1), { now }, { context: {}, stages: [timeout(1)] });
    expect(jest.getTimerCount()).toBe(0);
    expect(await answer).toBe('{"jsonrpc":"2.0","result":false,"id":1}');
  });

  test("with fake timers: not answered before ms, answered at ms; a later settlement changes nothing", async () => {
    jest.useFakeTimers({ doNotFake: ["nextTick", "queueMicrotask"] });
    let finish!: (result: Result) => void;
    const slow = (): Promise<Result> => new Promise((ok) => (finish = ok));
    let answered: string | undefined;
    const answer = asyncDispatch(req("slow", undefined, 7), { slow }, { stages: [timeout(100)] }).then((text) => {
      answered = text;
      return text;
    });
    jest.advanceTimersByTime(99);
    await Promise.resolve();
    await Promise.resolve();
    expect(answered).toBeUndefined();
    jest.advanceTimersByTime(1);
    expect(await answer).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeoutMs":100}},"id":7}',
    );
    finish(Success("late"));
    await Promise.resolve();
    expect(answered).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeoutMs":100}},"id":7}',
    );
  });

  test.each([0, -1, NaN, Infinity, -Infinity, "5" as unknown as number])("timeout(%p) is a RangeError", (ms) => {
    expect(() => timeout(ms)).toThrow(RangeError);
  });

  test("small positive and fractional ms are accepted", () => {
    expect(() => timeout(1)).not.toThrow();
    expect(() => timeout(0.5)).not.toThrow();
  });

  test("sync dispatch refuses timeout() with a TypeError; async dispatch takes it", async () => {
    const methods: Methods = { ping: () => Success("pong") };
    expect(() => dispatch(req("ping", undefined, 1), methods, { stages: [timeout(5)] })).toThrow(TypeError);
    expect(() => dispatch(req("ping", undefined, 1), methods, { stages: [pass, timeout(5)] })).toThrow(
      "stages[1] is for async dispatch only",
    );
    expect(() => dispatchToResponse(req("ping", undefined, 1), methods, { stages: [timeout(5)] })).toThrow(TypeError);
    expect(() => dispatchToSerializable(req("ping", undefined, 1), methods, { stages: [timeout(5)] })).toThrow(
      TypeError,
    );
    expect(await asyncDispatch(req("ping", undefined, 1), methods, { stages: [timeout(5)] })).toBe(
      '{"jsonrpc":"2.0","result":"pong","id":1}',
    );
  });

  test("in a batch: only the request that never settles is timed out; a timed-out notification is not answered", async () => {
    const methods: Methods = {
      slow: never,
      fast: async (n: number) => Success(n),
      now: () => Success("now"),
    };
    const body = `[${[req("slow", undefined, 1), req("fast", [2], 2), req("slow"), req("now", undefined, 3)].join(",")}]`;
    expect(parsed(await asyncDispatch(body, methods, { stages: [timeout(5)] }))).toStrictEqual([
      { jsonrpc: "2.0", error: { code: -32001, message: "Request timed out", data: { timeoutMs: 5 } }, id: 1 },
      { jsonrpc: "2.0", result: 2, id: 2 },
      { jsonrpc: "2.0", result: "now", id: 3 },
    ]);
    expect(await asyncDispatch(req("slow"), methods, { stages: [timeout(2)] })).toBe("");
  });

  test("a later stage that never settles is cut off too; a stage before it refuses as usual", async () => {
    const stuck: AsyncStage = () => new Promise(() => undefined);
    expect(
      parsed(
        await asyncDispatch(req("ping", undefined, 1), { ping: () => Success(1) }, { stages: [timeout(3), stuck] }),
      ),
    ).toMatchObject({ error: { code: -32001 }, id: 1 });
    expect(
      parsed(await asyncDispatch(req("ping", undefined, 1), { ping: never }, { stages: [refuse, timeout(3)] })),
    ).toStrictEqual({ jsonrpc: "2.0", error: forbidden, id: 1 });
  });
});

// -------------------------------------------------------------------------------------------------

describe("observe", () => {
  const methods: Methods = {
    ping: () => Success("pong"),
    later: async () => Success("later"),
    boom: () => {
      throw new globalThis.Error("boom");
    },
  };

  test("sync: the callback gets method, id, durationMs and the response", () => {
    const seen: Observation[] = [];
    expect(dispatch(req("ping", undefined, 1), methods, { stages: [observe((o) => seen.push(o))] })).toBe(
      '{"jsonrpc":"2.0","result":"pong","id":1}',
    );
    expect(seen).toStrictEqual([
      {
        method: "ping",
        id: 1,
        context: NOCONTEXT,
        durationMs: expect.any(Number),
        response: E.right({ result: "pong", id: 1 }),
      },
    ]);
    expect(seen[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  test("async: the callback gets the answer of an async method once it settles", async () => {
    const seen: Observation[] = [];
    expect(await asyncDispatch(req("later", undefined, "a"), methods, { stages: [observe((o) => seen.push(o))] })).toBe(
      '{"jsonrpc":"2.0","result":"later","id":"a"}',
    );
    expect(seen).toStrictEqual([
      {
        method: "later",
        id: "a",
        context: NOCONTEXT,
        durationMs: expect.any(Number),
        response: E.right({ result: "later", id: "a" }),
      },
    ]);
  });

  test.each(jsonDispatchers)(
    "%s: a notification is observed with id undefined and its (unsent) answer",
    async (_name, run) => {
      const seen: Observation[] = [];
      const body = `[${req("ping")},${req("ping", undefined, null)},${req("boom")}]`;
      expect(parsed(await run(body, methods, { stages: [observe((o) => seen.push(o))] }))).toStrictEqual([
        { jsonrpc: "2.0", result: "pong", id: null },
      ]);
      expect(seen.map(({ method, id, response }) => ({ method, id, response }))).toStrictEqual([
        { method: "ping", id: undefined, response: E.right({ result: "pong", id: null }) },
        { method: "ping", id: null, response: E.right({ result: "pong", id: null }) },
        {
          method: "boom",
          id: undefined,
          response: E.left({ code: -32603, message: "Internal error", data: NODATA, id: null }),
        },
      ]);
    },
  );

  test.each(jsonDispatchers)(
    "%s: sees refusals of a later stage and unknown methods; not what an earlier stage refused",
    async (_name, run) => {
      const seen: Observation[] = [];
      const watch = observe((o) => seen.push(o));
      await run(req("ping", undefined, 1), methods, { stages: [watch, refuse] });
      await run(req("nope", undefined, 2), methods, { stages: [watch] });
      await run(req("ping", undefined, 3), methods, { stages: [refuse, watch] });
      await run('{"jsonrpc":"2.0","method":7,"id":4}', methods, { stages: [watch] });
      expect(seen.map((o) => [o.method, o.id, o.response])).toStrictEqual([
        ["ping", 1, E.left({ ...forbidden, id: 1 })],
        ["nope", 2, E.left({ code: -32601, message: "Method not found", data: "nope", id: 2 })],
      ]);
    },
  );

  test.each(jsonDispatchers)("%s: a callback that throws is logged and the answer still sent", async (_name, run) => {
    const throwing = observe(() => {
      throw new globalThis.Error("observer broke");
    });
    expect(await run(req("ping", undefined, 1), methods, { stages: [throwing] })).toBe(
      '{"jsonrpc":"2.0","result":"pong","id":1}',
    );
    expect(logs.entries).toContainEqual({
      level: "error",
      args: ["rpcserver: an observe callback threw", expect.objectContaining({ message: "observer broke" })],
    });
  });

  test("observe before timeout sees the time-out", async () => {
    const seen: Observation[] = [];
    await asyncDispatch(
      req("slow", undefined, 1),
      { slow: never },
      { stages: [observe((o) => seen.push(o)), timeout(2)] },
    );
    expect(seen.map((o) => o.response)).toStrictEqual([
      E.left({ code: -32001, message: "Request timed out", data: { timeoutMs: 2 }, id: 1 }),
    ]);
  });

  test("sync: a method returning a Promise is observed as the -32603 it is answered with", () => {
    const seen: Observation[] = [];
    dispatch(req("later", undefined, 1), methods, { stages: [observe((o) => seen.push(o))] });
    expect(seen[0]?.response).toStrictEqual(
      E.left({
        code: -32603,
        message: "Internal error",
        data: "The method returned a Promise; use asyncDispatch",
        id: 1,
      }),
    );
  });

  test.each([undefined, null, 42, "f", {}])("observe(%p) is a TypeError", (callback) => {
    expect(() => observe(callback as never)).toThrow(TypeError);
  });
});
