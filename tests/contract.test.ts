/**
 * Contracts at run time (src/contract.ts, src/implement.ts): `contract`'s checks, `implement`'s
 * TypeErrors, what dispatch makes of every form a handler answers in (sync and async), the params
 * and result codecs, notifications, `fromResult`, the context through a server's stages, and the
 * OpenRPC document of an implemented table. The typing rules are in tests/contract-types.test.ts.
 */
import * as E from "fp-ts/Either";
import * as TE from "fp-ts/TaskEither";
import * as t from "io-ts";
import { DateFromISOString } from "io-ts-types";
import {
  asyncDispatch,
  contract,
  discover,
  dispatch,
  Error,
  fromResult,
  implement,
  InvalidParams,
  JsonRpcError,
  observe,
  openRpcDocument,
  server,
  Success,
  timeout,
  toJsonSchema,
  type Call,
  type ErrorResult,
  type Observation,
} from "../src";
import { recordLogs } from "./support";

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

const request = (method: string, params?: unknown, id: number | null = 1): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    method,
    ...(params === undefined ? {} : { params }),
    ...(id === null ? {} : { id }),
  });

const api = contract({
  add: {
    params: t.tuple([t.number, t.number]),
    result: t.number,
    summary: "Adds two numbers",
    paramNames: ["a", "b"],
    examples: [{ name: "one and two", params: [1, 2], result: 3 }],
  },
  greet: {
    params: t.type({ name: t.string }),
    result: t.string,
    errors: [{ code: 404, message: "No such person", data: t.type({ name: t.string }) }],
  },
  now: { result: DateFromISOString },
  wrapped: { params: t.tuple([t.number]), result: t.type({ result: t.number }) },
  log: { params: t.tuple([t.string]) },
});

describe("contract()", () => {
  test("keeps the entries, frozen, under a tag", () => {
    expect(api._tag).toBe("Contract");
    expect(Object.keys(api.methods)).toStrictEqual(["add", "greet", "now", "wrapped", "log"]);
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.isFrozen(api.methods)).toBe(true);
    expect(api.methods.add.paramNames).toStrictEqual(["a", "b"]);
  });

  test("the entries are copied: changing the object given later changes nothing", () => {
    const entries: Record<string, { result: t.Any }> = { a: { result: t.number } };
    const c = contract(entries);
    entries["b"] = { result: t.string };
    expect(Object.keys(c.methods)).toStrictEqual(["a"]);
  });

  test.each([
    ["then", { then: { result: t.number } }],
    ["rpc.discover", { "rpc.discover": {} }],
    ["rpc.x", { "rpc.x": {} }],
    ["an empty name", { "": {} }],
  ])("a method named %s is a TypeError", (_name, entries) => {
    expect(() => contract(entries as never)).toThrow(TypeError);
  });

  test.each([
    ["null methods", null],
    ["a string", "add"],
    ["an entry that is not an object", { add: 1 }],
    ["an entry that is null", { add: null }],
    ["params that are not a codec", { add: { params: [t.number] } }],
    ["params that are a plain function", { add: { params: () => true } }],
    ["a result that is not a codec", { add: { result: "number" } }],
    // Both ends use each codec whole: the client decodes the result the server encodes.
    ["a result that can only encode", { add: { result: { encode: (a: unknown) => a, is: () => true } } }],
    ["params that can only decode", { add: { params: { decode: (u: unknown) => ({ _tag: "Right", right: u }) } } }],
  ])("%s is a TypeError", (_what, entries) => {
    expect(() => contract(entries as never)).toThrow(TypeError);
  });

  test("an entry with neither codec is a method that takes no params and answers anything", () => {
    const c = contract({ ping: {} });
    const methods = implement(c, { ping: () => E.right("pong") });
    expect(dispatch(request("ping"), methods)).toBe('{"jsonrpc":"2.0","result":"pong","id":1}');
  });
});

/** Handlers that fit `api`, to vary one at a time. */
const fits = {
  add: (a: number, b: number) => E.right(a + b),
  greet: ({ name }: { name: string }) => E.right(`hi ${name}`),
  now: () => E.right(new Date(0)),
  wrapped: (n: number) => E.right({ result: n }),
  log: (_line: string) => E.right(null),
};

describe("implement(): TypeErrors", () => {
  test.each([
    ["handlers that are not an object", null],
    ["a missing handler", { add: fits.add, now: fits.now, wrapped: fits.wrapped, log: fits.log }],
    ["a handler the contract does not name", { ...fits, sub: fits.add }],
    ["a handler that is not a function", { ...fits, greet: "hi" }],
    ["a handler inherited, not own", Object.assign(Object.create(fits) as object, {})],
  ])("%s", (_what, handlers) => {
    expect(() => implement(api, handlers as never)).toThrow(TypeError);
  });

  test("the messages name the method", () => {
    expect(() => implement(api, { ...fits, sub: fits.add } as never)).toThrow('"sub" is not a method of the contract');
    const { greet: _greet, ...noGreet } = fits;
    expect(() => implement(api, noGreet as never)).toThrow('no handler for "greet"');
  });

  test("fromResult of something that is not a function is a TypeError", () => {
    expect(() => fromResult(42 as never)).toThrow(TypeError);
  });

  // Handlers are marked, not wrapped, so the codecs live on the function: one function given for two
  // entries (here a generic identity, in one contract; or in two contracts) used to carry the codecs
  // of the last, `x` decoding its params with `y`'s codec (-32602 to [1]). A function already
  // claimed is now wrapped, so each entry keeps its own.
  test("one function given for two entries keeps each entry's codecs", () => {
    const c = contract({
      x: { params: t.tuple([t.number]), result: t.number },
      y: { params: t.tuple([t.string]), result: t.string },
    });
    const identity = <A>(value: A) => E.right(value);
    const methods = implement(c, { x: identity, y: identity });
    expect(dispatch(request("x", [1]), methods)).toBe('{"jsonrpc":"2.0","result":1,"id":1}');
    expect(dispatch(request("y", ["a"]), methods)).toBe('{"jsonrpc":"2.0","result":"a","id":1}');
  });

  test("the table is frozen, has no prototype, and holds the handlers themselves (the first time they are given)", () => {
    const handlers = {
      add: (a: number, b: number) => E.right(a + b),
      greet: ({ name }: { name: string }) => E.right(name),
      now: () => E.right(new Date(0)),
      wrapped: (n: number) => E.right({ result: n }),
      log: (_line: string) => E.right(null),
    };
    const methods = implement(api, handlers);
    expect(Object.isFrozen(methods)).toBe(true);
    expect(Object.getPrototypeOf(methods)).toBeNull();
    expect(methods.add).toBe(handlers.add);
    expect(Object.keys(methods)).toStrictEqual(["add", "greet", "now", "wrapped", "log"]);
  });
});

describe.each([
  ["dispatch", (body: string, methods: never): Promise<string> => Promise.resolve(dispatch(body, methods))],
  ["asyncDispatch", (body: string, methods: never): Promise<string> => asyncDispatch(body, methods)],
])("every Outcome form through %s", (name, run) => {
  const sync = name === "dispatch";
  const answers = (handler: (...args: never[]) => unknown, params?: unknown): Promise<string> => {
    const c = contract({ m: { params: t.tuple([t.number]), result: t.number } });
    return run(request("m", params ?? [1]), implement(c, { m: handler as never }) as never);
  };
  /** The -32603 answer, with the reason the pipeline gives in `data` (none for what was thrown, unless `debug`). */
  const internal = (data?: string): string =>
    JSON.stringify({
      jsonrpc: "2.0",
      error: { code: -32603, message: "Internal error", ...(data === undefined ? {} : { data }) },
      id: 1,
    });
  const promised = internal("The method returned a Promise; use asyncDispatch");
  const notEither = internal("The method did not return an Either");

  test("an Either: Right is the result, Left the error", async () => {
    expect(await answers((n: number) => E.right(n + 1))).toBe('{"jsonrpc":"2.0","result":2,"id":1}');
    expect(await answers(() => Error(7, "Seven", { why: "because" }))).toBe(
      '{"jsonrpc":"2.0","error":{"code":7,"message":"Seven","data":{"why":"because"}},"id":1}',
    );
    expect(await answers(() => InvalidParams("bad"))).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"bad"},"id":1}',
    );
    expect(await answers(() => E.left({ code: 9, message: "Nine", data: [1] }))).toBe(
      '{"jsonrpc":"2.0","error":{"code":9,"message":"Nine","data":[1]},"id":1}',
    );
  });

  test("a TaskEither: its Right or Left (sync dispatch cannot wait: -32603)", async () => {
    expect(await answers((n: number) => TE.right(n * 10))).toBe(
      sync ? promised : '{"jsonrpc":"2.0","result":10,"id":1}',
    );
    expect(await answers(() => TE.left({ code: 5, message: "Five", data: null }))).toBe(
      sync ? promised : '{"jsonrpc":"2.0","error":{"code":5,"message":"Five","data":null},"id":1}',
    );
  });

  test("a Promise of an Either (sync dispatch cannot wait: -32603)", async () => {
    expect(await answers(async (n: number) => E.right(n * 3))).toBe(
      sync ? promised : '{"jsonrpc":"2.0","result":3,"id":1}',
    );
    expect(await answers(() => Promise.resolve(Error(6, "Six")))).toBe(
      sync ? promised : '{"jsonrpc":"2.0","error":{"code":6,"message":"Six"},"id":1}',
    );
  });

  test("anything else is -32603, logged: a plain value, an Either-like object, a Left that is no error", async () => {
    expect(await answers(() => 42)).toBe(notEither);
    expect(await answers(() => undefined)).toBe(notEither);
    expect(await answers(() => ({ _tag: "Up", right: 1 }))).toBe(notEither);
    expect(await answers(() => E.left("no"))).toBe(notEither);
    expect(await answers(() => E.left({ code: 1 }))).toBe(notEither);
    // An async handler's Promise of no Either, and a TaskEither's: async dispatch waits, then refuses.
    expect(await answers(async () => 42)).toBe(sync ? promised : notEither);
    expect(await answers(() => () => Promise.resolve(42))).toBe(sync ? promised : notEither);
    const logged = logs.entries.filter((entry) => String(entry.args[0]).includes("other than an Either"));
    expect(logged).toHaveLength(sync ? 5 : 7);
  });

  test("a handler that throws, a Promise that rejects, a TaskEither that rejects: -32603, logged", async () => {
    expect(
      await answers(() => {
        throw new globalThis.Error("boom");
      }),
    ).toBe(internal());
    expect(await answers(() => Promise.reject(new globalThis.Error("later")))).toBe(sync ? promised : internal());
    expect(await answers(() => () => Promise.reject(new globalThis.Error("task")))).toBe(sync ? promised : internal());
    // A TaskEither that throws when run (rather than rejecting).
    expect(
      await answers(() => () => {
        throw new globalThis.Error("run");
      }),
    ).toBe(internal());
    expect(logs.entries.some((entry) => entry.level === "error")).toBe(true);
  });

  test("a JsonRpcError thrown by a handler is sent as given", async () => {
    expect(
      await answers(() => {
        throw new JsonRpcError(12, "Twelve", { at: "handler" });
      }),
    ).toBe('{"jsonrpc":"2.0","error":{"code":12,"message":"Twelve","data":{"at":"handler"}},"id":1}');
  });

  test("params the codec refuses are -32602, the handler not called", async () => {
    const handler = jest.fn((n: number) => E.right(n));
    const answer = JSON.parse(await answers(handler, ["one"])) as { error: { code: number; data: unknown } };
    expect(answer.error.code).toBe(-32602);
    expect(JSON.stringify(answer.error.data)).toContain("number");
    expect(JSON.parse(await answers(handler, { n: 1 }))).toMatchObject({ error: { code: -32602 } });
    expect(JSON.parse(await answers(handler))).toMatchObject({ result: 1 });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  test("a result of the wrong type whose encode throws is -32603", async () => {
    const c = contract({ m: { result: DateFromISOString } });
    const methods = implement(c, { m: () => E.right("not a Date" as unknown as Date) });
    expect(await run(request("m"), methods as never)).toBe(internal());
  });
});

describe("an implemented table in dispatch", () => {
  const methods = implement(api, {
    ...fits,
    greet: ({ name }) => (name === "" ? Error(404, "No such person", { name }) : E.right(`hi ${name}`)),
  });

  test("params decoded, results encoded by the codecs (a Date sent as ISO text)", async () => {
    expect(dispatch(request("add", [1, 2]), methods)).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
    expect(dispatch(request("greet", { name: "ann" }), methods)).toBe('{"jsonrpc":"2.0","result":"hi ann","id":1}');
    expect(await asyncDispatch(request("now"), methods)).toBe(
      '{"jsonrpc":"2.0","result":"1970-01-01T00:00:00.000Z","id":1}',
    );
  });

  test("a result with a `result` member is the result itself, not taken for a Result", () => {
    expect(dispatch(request("wrapped", [5]), methods)).toBe('{"jsonrpc":"2.0","result":{"result":5},"id":1}');
  });

  test("a Right of undefined, without a result codec, is sent as null", () => {
    const c = contract({ m: {} });
    expect(dispatch(request("m"), implement(c, { m: () => E.right(undefined) }))).toBe(
      '{"jsonrpc":"2.0","result":null,"id":1}',
    );
  });

  test("an error's data as the handler gives it", () => {
    expect(dispatch(request("greet", { name: "" }), methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":404,"message":"No such person","data":{"name":""}},"id":1}',
    );
  });

  test("a method it does not have is -32601, as for any table", () => {
    expect(JSON.parse(dispatch(request("sub", [1, 2]), methods))).toMatchObject({ error: { code: -32601 } });
    expect(JSON.parse(dispatch(request("toString"), methods))).toMatchObject({ error: { code: -32601 } });
  });

  test.each([
    ["dispatch", (body: string) => Promise.resolve(dispatch(body, logged.methods))],
    ["asyncDispatch", (body: string) => asyncDispatch(body, logged.methods)],
  ])("notifications of contract methods run and are not answered (%s)", async (_name, run) => {
    logged.lines.length = 0;
    expect(await run(request("log", ["one"], null))).toBe("");
    expect(
      await run(
        JSON.stringify([
          { jsonrpc: "2.0", method: "log", params: ["two"] },
          { jsonrpc: "2.0", method: "add", params: [1, 2], id: 7 },
          { jsonrpc: "2.0", method: "log", params: [3] },
          { jsonrpc: "2.0", method: "log", params: ["four"] },
        ]),
      ),
    ).toBe('[{"jsonrpc":"2.0","result":3,"id":7}]');
    // A notification whose params the codec refuses is not run (and not answered).
    expect(logged.lines).toStrictEqual(["one", "two", "four"]);
  });

  test("a notification whose handler fails is not answered either", async () => {
    const c = contract({ m: {} });
    const failing = implement(c, { m: () => Error(1, "no") });
    const throwing = implement(c, {
      m: () => {
        throw new globalThis.Error("boom");
      },
    });
    expect(dispatch(request("m", undefined, null), failing)).toBe("");
    expect(await asyncDispatch(request("m", undefined, null), throwing)).toBe("");
  });
});

const logged = (() => {
  const lines: string[] = [];
  const methods = implement(api, {
    ...fits,
    log: (line) => {
      lines.push(line);
      return E.right(null);
    },
  });
  return { lines, methods };
})();

describe("fromResult", () => {
  test("a function in the Result vocabulary: Success, Error, async, with the result codec", async () => {
    const methods = implement(api, {
      ...fits,
      add: fromResult((a: number, b: number) => (b === 0 ? Error(1, "no zero") : Success(a + b))),
      greet: fromResult(async ({ name }: { name: string }) => Success(name.toUpperCase())),
      now: fromResult(() => Success(new Date(86_400_000))),
      wrapped: fromResult((n: number) => Success({ result: n })),
    });
    expect(dispatch(request("add", [2, 3]), methods)).toBe('{"jsonrpc":"2.0","result":5,"id":1}');
    expect(dispatch(request("add", [2, 0]), methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":1,"message":"no zero"},"id":1}',
    );
    expect(await asyncDispatch(request("greet", { name: "ann" }), methods)).toBe(
      '{"jsonrpc":"2.0","result":"ANN","id":1}',
    );
    expect(dispatch(request("now"), methods)).toBe('{"jsonrpc":"2.0","result":"1970-01-02T00:00:00.000Z","id":1}');
    // In the Result vocabulary, Success({ result: n }) is a Result of { result: n }.
    expect(dispatch(request("wrapped", [4]), methods)).toBe('{"jsonrpc":"2.0","result":{"result":4},"id":1}');
  });

  test("it marks the function, and returns it", () => {
    const f = (n: number) => Success(n);
    expect(fromResult(f)).toBe(f);
  });

  test("an Either of the bare value is no Result: -32603", () => {
    const c = contract({ m: { result: t.number } });
    const methods = implement(c, { m: fromResult((() => E.right(1)) as never) });
    expect(dispatch(request("m"), methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"The method did not return a Result"},"id":1}',
    );
  });
});

describe("server(): the context through the stages", () => {
  const sessions = new Map([["t1", "ann"]]);
  const auth = (call: Call<{ token: string }>): E.Either<ErrorResult, Call<{ user: string }>> => {
    const user = sessions.get(call.context.token);
    return user === undefined
      ? E.left({ code: 401, message: "Unauthorized", data: null })
      : E.right({ request: call.request, context: { user } });
  };

  const build = (seen: Array<Observation<unknown>>) =>
    server(api)
      .context<{ token: string }>()
      .use(observe((o) => void seen.push(o)))
      .use(auth)
      .use(observe((o) => void seen.push(o)))
      .use(timeout(60_000))
      .implement({
        add: (ctx, a, b) => E.right(a + b + ctx.user.length),
        greet: (ctx, { name }) => TE.right(`${ctx.user} greets ${name}`),
        now: (ctx) =>
          ctx.signal instanceof AbortSignal && !ctx.signal.aborted ? E.right(new Date(0)) : Error(1, "no"),
        wrapped: fromResult((ctx: { user: string }, n: number) => Success({ result: n + ctx.user.length })),
        log: (ctx, line) => E.right(`${ctx.user}: ${line}`),
      });

  test("handlers receive the context the stages made, first; observe sees it where it stands", async () => {
    const seen: Array<Observation<unknown>> = [];
    const app = build(seen);
    expect(await app.dispatch(request("add", [1, 2]), { token: "t1" })).toBe('{"jsonrpc":"2.0","result":6,"id":1}');
    expect(await app.dispatch(request("greet", { name: "bob" }), { token: "t1" })).toBe(
      '{"jsonrpc":"2.0","result":"ann greets bob","id":1}',
    );
    expect(await app.dispatch(request("now"), { token: "t1" })).toBe(
      '{"jsonrpc":"2.0","result":"1970-01-01T00:00:00.000Z","id":1}',
    );
    expect(await app.dispatch(request("wrapped", [1]), { token: "t1" })).toBe(
      '{"jsonrpc":"2.0","result":{"result":4},"id":1}',
    );
    // Each answer is seen from the inside out: the inner observe (after auth) first.
    expect(seen.map((o) => [o.method, o.context])).toStrictEqual(
      ["add", "greet", "now", "wrapped"].flatMap((method) => [
        [method, { user: "ann" }],
        [method, { token: "t1" }],
      ]),
    );
  });

  test("a stage's Left answers the request; later stages and the handler do not run", async () => {
    const seen: Array<Observation<unknown>> = [];
    const app = build(seen);
    expect(await app.dispatch(request("add", [1, 2]), { token: "nope" })).toBe(
      '{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized","data":null},"id":1}',
    );
    expect(seen.map((o) => o.context)).toStrictEqual([{ token: "nope" }]);
  });

  test("timeout hands the handler a signal, aborted when the time is up (-32001)", async () => {
    let signal: AbortSignal | undefined;
    const c = contract({ slow: { result: t.string } });
    const app = server(c)
      .context<{ user: string }>()
      .use(timeout(5))
      .implement({
        slow: (ctx) => () => {
          signal = ctx.signal;
          return new Promise(() => undefined);
        },
      });
    expect(await app.dispatch(request("slow"), { user: "ann" })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeoutMs":5}},"id":1}',
    );
    expect(signal?.aborted).toBe(true);
  });

  test("methods and options(context) dispatch as app.dispatch does, sync too when every stage is", () => {
    const app = server(api)
      .context<{ token: string }>()
      .use(auth)
      .implement({
        ...fits,
        add: (ctx, a, b) => E.right(a + b + ctx.user.length),
        greet: (_ctx, { name }) => E.right(name),
        now: () => E.right(new Date(0)),
        wrapped: (_ctx, n) => E.right({ result: n }),
        log: () => E.right(null),
      });
    expect(app.options({ token: "t1" })).toStrictEqual({ context: { token: "t1" }, stages: [auth] });
    expect(app.stages).toStrictEqual([auth]);
    expect(app.contract).toBe(api);
    expect(dispatch(request("add", [1, 2]), app.methods, app.options({ token: "t1" }))).toBe(
      '{"jsonrpc":"2.0","result":6,"id":1}',
    );
  });

  test("without a context: handlers take none, options() has only the stages", async () => {
    const app = server(api).implement(fits);
    expect(app.options()).toStrictEqual({ stages: [] });
    expect(await app.dispatch(request("add", [1, 2]))).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
  });

  test("stages may answer a TaskEither or a Promise; a builder can be shared, each use a new one", async () => {
    const base = server(api).context<{ token: string }>();
    const asyncAuth = (call: Call<{ token: string }>) =>
      call.context.token === "t1"
        ? TE.right({ request: call.request, context: { id: 7 } })
        : TE.left<ErrorResult, Call<{ id: number }>>({ code: 401, message: "Unauthorized", data: undefined });
    const promised = (call: Call<{ id: number }>) =>
      Promise.resolve(E.right({ request: call.request, context: { id: call.context.id * 2 } }));
    const handlers = {
      add: (ctx: { id: number }, a: number, b: number) => E.right(a + b + ctx.id),
      greet: (_ctx: unknown, { name }: { name: string }) => E.right(name),
      now: () => E.right(new Date(0)),
      wrapped: (_ctx: unknown, n: number) => E.right({ result: n }),
      log: () => E.right(null),
    };
    const one = base.use(asyncAuth).implement(handlers);
    const two = base.use(asyncAuth).use(promised).implement(handlers);
    expect(one.stages).toHaveLength(1);
    expect(two.stages).toHaveLength(2);
    expect(await one.dispatch(request("add", [1, 2]), { token: "t1" })).toBe('{"jsonrpc":"2.0","result":10,"id":1}');
    expect(await two.dispatch(request("add", [1, 2]), { token: "t1" })).toBe('{"jsonrpc":"2.0","result":17,"id":1}');
    expect(await two.dispatch(request("add", [1, 2]), { token: "x" })).toBe(
      '{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized"},"id":1}',
    );
  });

  test("implement's TypeErrors hold for a server too", () => {
    expect(() =>
      server(api)
        .context<{ token: string }>()
        .implement({ ...fits, sub: fits.add } as never),
    ).toThrow(TypeError);
  });
});

describe("the OpenRPC document of an implemented table", () => {
  const methods = implement(api, fits);
  const info = { title: "Contract", version: "1.0.0" };

  test("each method from its entry: params, result, errors, examples, summary", () => {
    const document = openRpcDocument(methods, info);
    expect(document.methods.map((m) => m.name)).toStrictEqual(["add", "greet", "now", "wrapped", "log"]);
    const [add, greet, now, wrapped, log] = document.methods;
    expect(add).toStrictEqual({
      name: "add",
      summary: "Adds two numbers",
      paramStructure: "by-position",
      params: [
        { name: "a", schema: { type: "number" }, required: true },
        { name: "b", schema: { type: "number" }, required: true },
      ],
      result: { name: "result", schema: { type: "number" } },
      examples: [
        {
          name: "one and two",
          params: [
            { name: "a", value: 1 },
            { name: "b", value: 2 },
          ],
          result: { name: "result", value: 3 },
        },
      ],
    });
    expect(greet?.paramStructure).toBe("by-name");
    expect(greet?.params).toStrictEqual([{ name: "name", schema: { type: "string" }, required: true }]);
    expect(greet?.errors).toStrictEqual([
      {
        code: 404,
        message: "No such person",
        data: toJsonSchema(t.type({ name: t.string })),
      },
    ]);
    expect(now?.params).toStrictEqual([]);
    expect(now?.result).toStrictEqual({ name: "result", schema: toJsonSchema(DateFromISOString) });
    expect(now?.result.schema).toMatchObject({ type: "string" });
    expect(wrapped?.result.schema).toMatchObject({ type: "object", required: ["result"] });
    expect(log?.result).toStrictEqual({ name: "result", schema: {} });
  });

  test("rpc.discover placed in the table describes it", () => {
    const table = { ...methods, "rpc.discover": discover(info, methods) };
    const answer = JSON.parse(dispatch(request("rpc.discover"), table)) as {
      result: { methods: Array<{ name: string }> };
    };
    expect(answer.result.methods.map((m) => m.name)).toStrictEqual(["add", "greet", "now", "wrapped", "log"]);
  });

  // A contract method without a params codec whose handler takes the context (`now: (ctx) => ...`)
  // was described with a `param0` (its arity) before issue 14's item 4: a server with a context
  // marks its methods, and the document drops the context of a marked method.
  test("a server's context is never listed as a param", () => {
    const app = server(api)
      .context<{ token: string }>()
      .implement({
        add: (_ctx, a, b) => E.right(a + b),
        greet: (_ctx, { name }) => E.right(name),
        now: (_ctx) => E.right(new Date(0)),
        wrapped: (_ctx, n) => E.right({ result: n }),
        log: (_ctx, _line) => E.right(null),
      });
    const document = openRpcDocument(app.methods, info);
    expect(document.methods.map((m) => [m.name, m.params.map((p) => p.name)])).toStrictEqual([
      ["add", ["a", "b"]],
      ["greet", ["name"]],
      ["now", []],
      ["wrapped", ["param0"]],
      ["log", ["param0"]],
    ]);
  });
});
