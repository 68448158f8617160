/**
 * Type tests of issue 14: contracts, handlers typed by them, the context typed through the stages,
 * the dispatch functions checking it, and the client. jest (transpile only) does not check types:
 * `tsc -p tsconfig.json --noEmit` does, and fails if an assignment below does not compile or a
 * `// @ts-expect-error` line has no error. Each `@ts-expect-error` is a rule, with why it must fail.
 * The type checks live in `typeOnly` bodies (compiled, never run); each test also asserts at run time
 * that what it typed behaves (cheaply: the runtime suites are tests/contract.test.ts and
 * tests/client.test.ts).
 */
import { sequenceT } from "fp-ts/Apply";
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as T from "fp-ts/Task";
import * as TE from "fp-ts/TaskEither";
import * as t from "io-ts";
import { DateFromISOString } from "io-ts-types";
import {
  asyncDispatch,
  contract,
  dispatch,
  Error,
  fromResult,
  implement,
  InvalidParams,
  observe,
  server,
  Success,
  timeout,
  withCodecs,
  withContext,
  withParams,
  type Call,
  type ErrorResult,
  type NoContext,
  type Outcome,
  type Result,
  type Stage,
} from "../src";
import type { ContextOf, TypedAround } from "../src/types";
import { dispatchToResponse } from "../src/main";
import {
  batch,
  client,
  local,
  matchClientError,
  notify,
  withOptions,
  type CallError,
  type ClientError,
  type DeclaredError,
  type Json,
  type RpcCall,
  type RpcNotification,
} from "../src/client";

/** `true` exactly when A and B are the same type. */
type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;
/** Compiles `body` (so its `@ts-expect-error` lines are checked) without running it. */
const typeOnly = (body: () => void): void => void body;

const api = contract({
  add: {
    params: t.tuple([t.number, t.number]),
    result: t.number,
    summary: "Adds",
    paramNames: ["a", "b"],
    examples: [{ params: [1, 2], result: 3 }],
  },
  greet: {
    params: t.type({ name: t.string }),
    result: t.string,
    errors: [{ code: 404, message: "No such person", data: t.type({ name: t.string }) }],
  },
  now: { result: DateFromISOString, examples: [{ params: [], result: "1970-01-01T00:00:00.000Z" }] },
  // A result type with a `result` member: what only the way a handler is registered can tell apart.
  wrapped: { params: t.tuple([t.number]), result: t.type({ result: t.number }) },
  log: { params: t.tuple([t.string]) },
});

/** Handlers that fit `api` with no context, to vary one at a time. */
const fits = {
  add: (a: number, b: number) => E.right(a + b),
  greet: ({ name }: { name: string }) => E.right(name),
  now: () => E.right(new Date(0)),
  wrapped: (n: number) => E.right({ result: n }),
  log: (_line: string) => E.right(null),
};

describe("contract", () => {
  test("method names, codecs and documentation keep their literal types", () => {
    same<keyof typeof api.methods, "add" | "greet" | "now" | "wrapped" | "log">(true);
    same<typeof api.methods.add.paramNames, readonly ["a", "b"]>(true);
    same<typeof api.methods.add.params, t.TupleC<[t.NumberC, t.NumberC]>>(true);
    same<typeof api.methods.now.result, typeof DateFromISOString>(true);
    same<typeof api._tag, "Contract">(true);
    expect(Object.keys(api.methods)).toStrictEqual(["add", "greet", "now", "wrapped", "log"]);
  });

  test("names a client cannot carry, examples not in wire form, and codecs that are not codecs are refused", () => {
    typeOnly(() => {
      // @ts-expect-error `then`: a client object with a `then` member would be taken for a Promise
      contract({ then: { result: t.number } });
      // @ts-expect-error `rpc.*` names are JSON-RPC's own (rpc.discover and any other)
      contract({ "rpc.discover": { result: t.unknown } });
      // @ts-expect-error `rpc.` is refused whatever follows it
      contract({ "rpc.mine": { params: t.tuple([t.string]) } });
      // @ts-expect-error an example's params in the wrong wire form: the codec sends [number, number]
      contract({ add: { params: t.tuple([t.number, t.number]), examples: [{ params: { a: 1 }, result: 3 }] } });
      // @ts-expect-error an example's result in decoded form: the wire carries the codec's output, ISO text
      contract({ now: { result: DateFromISOString, examples: [{ params: [], result: new Date(0) }] } });
      // @ts-expect-error a params "codec" that is not one (an array of codecs)
      contract({ add: { params: [t.number, t.number] } });
      // @ts-expect-error a result "codec" that is not one
      contract({ add: { result: "number" } });
    });
    // Examples in wire form, with a codec whose output differs from its type: the text, not the Date.
    const wire = contract({
      day: { params: t.tuple([DateFromISOString]), examples: [{ params: ["2024-01-01"], result: 1 }] },
    });
    expect(() => contract({ then: { result: t.number } } as never)).toThrow(TypeError);
    expect(Object.keys(wire.methods)).toStrictEqual(["day"]);
  });
});

describe("implement: handlers typed by the contract", () => {
  test("params and results come from the codecs, decoded", () => {
    typeOnly(() => {
      implement(api, {
        add: (a, b) => {
          same<typeof a, number>(true);
          same<typeof b, number>(true);
          return E.right(a + b);
        },
        greet: (p) => {
          same<typeof p, { name: string }>(true);
          return E.right(p.name);
        },
        now: (...args) => {
          same<typeof args, []>(true);
          return E.right(new Date(args.length));
        },
        wrapped: (n) => E.right({ result: n }),
        log: (line) => {
          same<typeof line, string>(true);
          // No result codec: the result is `unknown`, anything goes.
          return E.right(Symbol(line));
        },
      });
    });
    expect(typeof implement(api, fits).add).toBe("function");
  });

  test("a handler answers in every Outcome form: Either, TaskEither, Promise of Either", () => {
    const sleep = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));
    const methods = implement(api, {
      add: (a, b) => (b === 0 ? Error(1, "division by zero") : E.right(a + b)), // Either (Error is a Left of never)
      greet: ({ name }) =>
        name === "" ? TE.left({ code: 404, message: "No such person", data: { name } }) : TE.right(`hi ${name}`), // TaskEither
      now: async () => (await sleep(), E.right(new Date(0))), // Promise of an Either
      wrapped: (n) => (n < 0 ? InvalidParams("negative") : E.right({ result: n })), // A has a `result` member: still A
      log: () => Promise.resolve(E.left<ErrorResult, never>({ code: 1, message: "no", data: undefined })), // a Promise of a Left
    });
    same<
      Outcome<number>,
      E.Either<ErrorResult, number> | TE.TaskEither<ErrorResult, number> | PromiseLike<E.Either<ErrorResult, number>>
    >(true);
    // Error and InvalidParams are Lefts of never: an Either of any result, and still a Result.
    same<ReturnType<typeof Error>, E.Either<ErrorResult, never>>(true);
    const stillAResult: Result<number> = Error(1, "x");
    const alsoOutcome: Outcome<string> = InvalidParams();
    expect([stillAResult, alsoOutcome].map((e) => e._tag)).toStrictEqual(["Left", "Left"]);
    expect(Object.keys(methods)).toStrictEqual(["add", "greet", "now", "wrapped", "log"]);
  });

  test("the Result vocabulary joins only through fromResult", () => {
    typeOnly(() => {
      implement(api, {
        add: fromResult((a: number, b: number) => (b === 0 ? Error(1, "no") : Success(a + b))), // Result<A>
        greet: fromResult(async ({ name }: { name: string }) => Success(name)), // Promise<Result<A>>
        now: () => E.right(new Date()),
        wrapped: fromResult((n: number) => Success({ result: n })), // Result<{ result: number }>
        log: fromResult(() => Success(null)),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error Success(...) without fromResult: a Right<{ result: number }> is not a Right<number>
        add: (a, b) => Success(a + b),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error fromResult keeps the result type: a Result<string> is no Outcome<number>
        add: fromResult((a: number, b: number) => Success(`${a + b}`)),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error fromResult keeps the params: a string is not the number the codec decodes
        add: fromResult((a: string, b: number) => Success(a.length + b)),
      });
      // @ts-expect-error fromResult wraps a function returning a Result, not an Either of the value
      fromResult((a: number) => E.right(a));
    });
    const wrapped = fromResult((n: number) => Success(n));
    // A Result's Left names no code (ErrorResult): nothing for declared errors to check.
    same<typeof wrapped, (n: number) => Outcome<number, never>>(true);
    expect(wrapped(2)).toStrictEqual(Success(2));
  });

  test("a handler that does not fit its entry does not compile", () => {
    typeOnly(() => {
      implement(api, {
        ...fits,
        // @ts-expect-error wrong param type: the codec decodes a number, not a string
        add: (a: number, b: string) => E.right(a + Number(b)),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error wrong result type: the codec encodes a number, not a string
        add: (a, b) => E.right(`${a + b}`),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error a Date's wire text where the Date itself is due: the codec encodes
        now: () => E.right(new Date().toISOString()),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error the wrong error type in a Left: a JSON-RPC error has a code and a message
        add: () => E.left("no"),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error a plain value is no Outcome: a handler answers in an Either
        add: (a, b) => a + b,
      });
      implement(api, {
        ...fits,
        // @ts-expect-error named params where the codec has a tuple: no object argument
        add: ({ a }: { a: number }) => E.right(a),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error a handler taking more arguments than the codec decodes
        wrapped: (n: number, m: number) => E.right({ result: n + m }),
      });
    });
    expect(implement(api, fits).now).toBeDefined();
  });

  test("a missing handler, or one the contract does not name, does not compile", () => {
    const { greet: _greet, ...missingGreet } = fits;
    const extra = { ...fits, sub: (a: number, b: number) => E.right(a - b) };
    typeOnly(() => {
      // @ts-expect-error a missing handler (greet)
      implement(api, missingGreet);
      implement(api, {
        ...fits,
        // @ts-expect-error an extra handler name, in an object literal
        sub: (a: number, b: number) => E.right(a - b),
      });
      // @ts-expect-error an extra handler name, in a variable (no excess property check there: NoExtra refuses it)
      implement(api, extra);
    });
    expect(() => implement(api, missingGreet as never)).toThrow(TypeError);
    expect(() => implement(api, extra as never)).toThrow(TypeError);
  });

  test("a handler written context-first where there is no context does not compile (the silent case)", () => {
    typeOnly(() => {
      implement(api, {
        ...fits,
        // @ts-expect-error implement has no context: the context would arrive where `a` belongs
        add: (ctx: { user: string }, a: number) => E.right(a + ctx.user.length),
      });
    });
    expect(implement(api, fits)).toBeDefined();
  });
});

describe("server: the context declared once and turned by the stages", () => {
  const sessions = new Map([["t1", "ann"]]);
  const auth = (call: Call<{ token: string }>): E.Either<ErrorResult, Call<{ user: string }>> => {
    const user = sessions.get(call.context.token);
    return user === undefined
      ? E.left({ code: 401, message: "Unauthorized", data: null })
      : E.right({ request: call.request, context: { user } });
  };

  test("an auth stage turns { token } into { user }; timeout adds its signal; the handlers see each", () => {
    const app = server(api)
      .context<{ token: string }>()
      .use(
        observe((o) => {
          same<typeof o.context, { token: string }>(true);
          void o;
        }),
      )
      .use(auth)
      .use(
        observe((o) => {
          same<typeof o.context, { user: string }>(true);
          void o;
        }),
      )
      .use(timeout(1000))
      .implement({
        add: (ctx, a, b) => {
          same<typeof ctx, { user: string } & { readonly signal: AbortSignal }>(true);
          return ctx.signal.aborted ? Error(1, "late") : E.right(a + b);
        },
        greet: (ctx, { name }) => TE.right(`${ctx.user} greets ${name}`),
        now: (_ctx) => E.right(new Date()),
        wrapped: fromResult((ctx: { user: string }, n: number) => Success({ result: n + ctx.user.length })),
        log: (_ctx, _line) => E.right(null),
      });
    same<Parameters<typeof app.dispatch>, [request: string | Uint8Array, context: { token: string }]>(true);
    typeOnly(() => {
      void app.dispatch("[]", { token: "t1" });
      // @ts-expect-error dispatch must be given the declared context
      void app.dispatch("[]", { tok: "t1" });
      // @ts-expect-error ... and given one
      void app.dispatch("[]");
      // @ts-expect-error options too take the declared context
      app.options({ user: "ann" });
    });
    expect(app.stages).toHaveLength(4);
  });

  test("without a context, handlers take none, and dispatch gives none", () => {
    const plain = server(api).implement(fits);
    same<Parameters<typeof plain.dispatch>, [request: string | Uint8Array]>(true);
    typeOnly(() => {
      // @ts-expect-error a server without a context takes none
      void plain.dispatch("[]", { token: "t1" });
      server(api).implement({
        ...fits,
        // @ts-expect-error no context declared: a context-first handler would get the context where `a` belongs
        add: (ctx: { user: string }, a: number, b: number) => E.right(ctx.user.length + a + b),
      });
    });
    expect(plain.options()).toStrictEqual({ stages: [] });
  });

  test("with a context, every handler takes it first", () => {
    typeOnly(() => {
      server(api)
        .context<{ user: string }>()
        .implement({
          ...fits,
          // @ts-expect-error the context comes first: `a` would be handed the context
          add: (a: number, b: number) => E.right(a + b),
        });
      server(api)
        .context<{ token: string }>()
        .use(auth)
        .implement({
          add: (_ctx, a, b) => E.right(a + b),
          greet: (_ctx, { name }) => E.right(name),
          now: () => E.right(new Date()),
          wrapped: (_ctx, n) => E.right({ result: n }),
          // @ts-expect-error a handler expecting another context than the stages give it
          log: (ctx: { admin: boolean }) => E.right(ctx.admin),
        });
    });
    expect(true).toBe(true);
  });

  test("observe sees the context typed where it stands; a stage that refuses the context does not compile", () => {
    const needsSession = (call: Call<{ session: string }>): E.Either<ErrorResult, Call<{ session: string }>> =>
      E.right(call);
    typeOnly(() => {
      server(api)
        .context<{ token: string }>()
        // @ts-expect-error observe reads `user`, which comes only after auth
        .use(observe((o) => o.context.user));
      // @ts-expect-error a stage that expects another context than the one it is handed
      server(api).context<{ token: string }>().use(needsSession);
      server(api)
        .context<{ token: string }>()
        // @ts-expect-error an observe typed for another context
        .use(observe<{ id: number }>(() => undefined));
      // @ts-expect-error auth after auth: the second is handed { user }, not { token }
      server(api).context<{ token: string }>().use(auth).use(auth);
      server(api)
        .context<{ token: string }>()
        .use(auth)
        .implement({
          ...fits,
          // @ts-expect-error no timeout, no signal
          add: (ctx: { user: string; signal: AbortSignal }, a: number, b: number) =>
            E.right(a + b + Number(ctx.signal.aborted)),
        });
    });
    // A stage generic in its context passes it on as it is.
    const passThrough = <C>(call: Call<C>): E.Either<ErrorResult, Call<C>> => E.right(call);
    const app = server(api)
      .context<{ token: string }>()
      .use(passThrough)
      .use(auth)
      .implement({
        add: (ctx, a, b) => E.right(a + b + ctx.user.length),
        greet: (_ctx, { name }) => E.right(name),
        now: () => E.right(new Date()),
        wrapped: (_ctx, n) => E.right({ result: n }),
        log: () => E.right(null),
      });
    expect(app.stages).toHaveLength(2);
  });

  test("a stage answering a TaskEither or a Promise types the context as well", () => {
    const asyncAuth = (call: Call<{ token: string }>) => TE.right({ request: call.request, context: { id: 7 } });
    const promiseAuth = (call: Call<{ id: number }>) =>
      Promise.resolve(E.right({ request: call.request, context: { id: String(call.context.id) } }));
    const app = server(api)
      .context<{ token: string }>()
      .use(asyncAuth)
      .use(promiseAuth)
      .implement({
        add: (ctx, a, b) => {
          same<typeof ctx, { id: string }>(true);
          return E.right(a + b);
        },
        greet: (_ctx, { name }) => E.right(name),
        now: () => E.right(new Date()),
        wrapped: (_ctx, n) => E.right({ result: n }),
        log: () => E.right(null),
      });
    expect(app.stages).toHaveLength(2);
  });

  test("timeout's context option types what the handlers receive", () => {
    const bySignal = timeout<{ user: string }, AbortSignal>(1000, { context: (_context, signal) => signal });
    same<typeof bySignal, TypedAround<{ user: string }, AbortSignal>>(true);
    typeOnly(() => {
      server(api)
        .context<{ user: string }>()
        .use(bySignal)
        .implement({
          ...fits,
          add: (signal, a, b) => E.right(a + b + Number(signal.aborted)),
          greet: (_signal, { name }) => E.right(name),
          wrapped: (_signal, n) => E.right({ result: n }),
          log: () => E.right(null),
          // @ts-expect-error the context is the signal now, not { user }
          now: (ctx: { user: string }) => E.right(new Date(ctx.user)),
        });
    });
    expect(bySignal._tag).toBe("Around");
  });
});

describe("dispatch checks the methods against the context its options give", () => {
  const noCtx = withCodecs({ params: t.type({ n: t.number }) }, ({ n }) => Success(n));
  const userCtx = withContext<{ user: string }>().withCodecs({ params: t.type({ n: t.number }) }, (ctx, { n }) =>
    Success(`${ctx.user}${n}`),
  );
  const zero = withParams(t.type({}), () => Success(1));
  const plain = { p: (a: number) => Success(a) };
  const toUser = (call: Call<{ token: string }>) =>
    E.right({ request: call.request, context: { user: call.context.token } });
  const needsSignal = withContext<{ user: string; signal: AbortSignal }>().withParams(t.type({}), (c) =>
    Success(c.user),
  );

  test("a method made by withCodecs or withParams takes no context; one made by withContext needs its own", () => {
    typeOnly(() => {
      dispatch("", { noCtx });
      // @ts-expect-error the issue's silent case: a method without a context under a context gets it as `{ n }`
      dispatch("", { noCtx }, { context: 42 });
      // @ts-expect-error the same with withParams
      dispatch("", { m: withParams(t.tuple([t.number]), (n) => Success(n)) }, { context: { user: "ann" } });
      dispatch("", { userCtx }, { context: { user: "ann" } });
      // @ts-expect-error a context of the wrong type
      dispatch("", { userCtx }, { context: 42 });
      // @ts-expect-error no context for a method that needs one
      dispatch("", { userCtx });
      // @ts-expect-error the same in async dispatch
      void asyncDispatch("", { userCtx }, { context: { admin: true } });
      // A method taking no arguments at all fits any dispatch; a plain function is not checked.
      dispatch("", { zero }, { context: 42 });
      dispatch("", { zero });
      dispatch("", plain, { context: 42 });
      // @ts-expect-error a contract's implement has no context: refused under one
      dispatch("", implement(api, fits), { context: { user: "ann" } });
    });
    expect(dispatch('{"jsonrpc":"2.0","method":"noCtx","params":{"n":1},"id":1}', { noCtx })).toBe(
      '{"jsonrpc":"2.0","result":1,"id":1}',
    );
  });

  test("the stages tuple turns the context", () => {
    same<
      ContextOf<{ readonly context: { readonly token: "t" }; readonly stages: readonly [typeof toUser] }>,
      { user: string }
    >(true);
    same<ContextOf<{ context: { user: string } }>, { user: string }>(true);
    same<ContextOf<{ readonly stages: readonly [] }>, NoContext>(true);
    same<ContextOf<object>, NoContext>(true);
    typeOnly(() => {
      dispatch("", { userCtx }, { context: { token: "t" }, stages: [toUser] });
      // @ts-expect-error the stage wants a { token }, the context is a number
      dispatch("", { userCtx }, { context: 42, stages: [toUser] });
      void asyncDispatch(
        "",
        { userCtx },
        { context: { token: "t" }, stages: [observe((o) => void o), toUser, timeout(10)] },
      );
      void asyncDispatch("", { needsSignal }, { context: { user: "u" }, stages: [timeout(10)] });
      // @ts-expect-error no timeout, no signal
      void asyncDispatch("", { needsSignal }, { context: { user: "u" } });
      void asyncDispatch(
        "",
        { userCtx },
        { context: { user: "u" }, stages: [observe<{ user: string }>((o) => void o.context.user)] },
      );
      void asyncDispatch(
        "",
        // @ts-expect-error observe typed for another context: the methods get a Refused context
        { userCtx },
        { context: { user: "u" }, stages: [observe<{ id: number }>((o) => void o.context.id)] },
      );
      dispatch(
        "",
        // @ts-expect-error after toUser the methods get { user }, not the { token } given
        { t: withContext<{ token: string }>().withParams(t.type({}), (c) => Success(c.token)) },
        { context: { token: "t" }, stages: [toUser] },
      );
    });
    expect(
      dispatch(
        '{"jsonrpc":"2.0","method":"userCtx","params":{"n":1},"id":1}',
        { userCtx },
        {
          context: { token: "t" },
          stages: [toUser],
        },
      ),
    ).toBe('{"jsonrpc":"2.0","result":"t1","id":1}');
  });

  test("a server's methods and options go to dispatch together", () => {
    const auth = (call: Call<{ token: string }>) =>
      E.right({ request: call.request, context: { user: call.context.token } });
    const app = server(api)
      .context<{ token: string }>()
      .use(auth)
      .implement({
        add: (ctx, a, b) => E.right(a + b + ctx.user.length),
        greet: (_ctx, { name }) => E.right(name),
        now: () => E.right(new Date()),
        wrapped: (_ctx, n) => E.right({ result: n }),
        log: () => E.right(null),
      });
    typeOnly(() => {
      // @ts-expect-error the server's methods expect { user }: without its stages the context is wrong
      void asyncDispatch("", app.methods, { context: { token: "t" } });
      // @ts-expect-error ... and without a context at all
      void asyncDispatch("", app.methods);
    });
    void asyncDispatch("", app.methods, { context: { user: "ann" } });
    expect(app.methods.add).toBeDefined();
  });
});

describe("a stage that says nothing of the context passes it on", () => {
  test("an untyped Stage, a generic pass-through; the context is still checked through them; postProcess types the answers", () => {
    const userCtx = withContext<{ user: string }>().withParams(t.type({ a: t.number }), (ctx, p) =>
      Success(`${ctx.user}${p.a}`),
    );
    const readOnly: Stage = (call) => E.right(call);
    const passThrough = <C>(call: Call<C>) => E.right(call);
    typeOnly(() => {
      dispatch("", { userCtx }, { context: { user: "ada" }, stages: [readOnly] });
      dispatch("", { userCtx }, { context: { user: "ada" }, stages: [passThrough, readOnly] });
      // @ts-expect-error the context is still checked after a stage that passes it on
      dispatch("", { userCtx }, { context: { nope: 1 }, stages: [readOnly] });
      const _answers = dispatchToResponse("", { userCtx }, { context: { user: "ada" }, postProcess: (r) => r._tag });
      same<typeof _answers, "Left" | "Right" | Array<"Left" | "Right"> | undefined>(true);
      // @ts-expect-error the check holds with postProcess too
      dispatchToResponse("", { userCtx }, { context: 42, postProcess: (r) => r._tag });
    });
    expect(readOnly({ request: { jsonrpc: "2.0", method: "m" }, context: 1 })._tag).toBe("Right");
  });
});

describe("client", () => {
  const methods = implement(api, fits);
  const rpc = client(api, local(methods));

  test("arguments: positional spread, one named object, or none", () => {
    same<Parameters<typeof rpc.add>, [number, number]>(true);
    same<Parameters<typeof rpc.greet>, [params: { name: string }]>(true);
    same<Parameters<typeof rpc.now>, []>(true);
    typeOnly(() => {
      // @ts-expect-error positional params are arguments, not one array
      rpc.add([1, 2]);
      // @ts-expect-error too few positional arguments
      rpc.add(1);
      // @ts-expect-error named params are one object, not a string
      rpc.greet("ann");
      // @ts-expect-error a method without params takes no argument
      rpc.now(1);
      // @ts-expect-error params are the decoded form: a Date for a DateFromISOString codec, not its text
      client(contract({ day: { params: t.tuple([DateFromISOString]) } }), local({})).day("2024-01-01");
      // @ts-expect-error no such method
      rpc.sub(1, 2);
    });
    expect(Object.keys(rpc)).toStrictEqual(["add", "greet", "now", "wrapped", "log"]);
  });

  test("a call is an RpcCall of the decoded result: a TaskEither", async () => {
    same<ReturnType<typeof rpc.add>, RpcCall<number>>(true);
    same<ReturnType<typeof rpc.now>, RpcCall<Date>>(true);
    same<ReturnType<typeof rpc.wrapped>, RpcCall<{ result: number }>>(true);
    same<ReturnType<typeof rpc.log>, RpcCall<unknown>>(true);
    const asTaskEither: TE.TaskEither<ClientError, Date> = rpc.now();
    const mapped = pipe(
      rpc.add(1, 2),
      TE.map((n) => n * 2),
    );
    same<typeof mapped, TE.TaskEither<ClientError, number>>(true);
    const bounded = pipe(rpc.add(1, 2), withOptions({ signal: new AbortController().signal, timeoutMs: 500 }));
    same<typeof bounded, RpcCall<number>>(true);
    typeOnly(() => {
      // @ts-expect-error a call answers a Date here, not its text
      const text: TE.TaskEither<ClientError, string> = rpc.now();
      void text;
      // @ts-expect-error timeoutMs is a number
      withOptions({ timeoutMs: "5" });
    });
    expect(await asTaskEither()).toStrictEqual(E.right(new Date(0)));
    expect(await mapped()).toStrictEqual(E.right(6));
    expect(await bounded()).toStrictEqual(E.right(3));
  });

  test("notify answers void; batch answers a tuple or a record of Eithers", async () => {
    const fire = notify(rpc.log("hello"));
    same<typeof fire, RpcNotification>(true);
    const asTaskEither: TE.TaskEither<ClientError, void> = fire;
    const tuple = batch([rpc.add(1, 2), rpc.now(), notify(rpc.log("x"))]);
    same<
      typeof tuple,
      T.Task<[E.Either<ClientError, number>, E.Either<ClientError, Date>, E.Either<ClientError, void>]>
    >(true);
    const record = batch({ sum: rpc.add(1, 2), hello: rpc.greet({ name: "b" }) }, { timeoutMs: 1000 });
    // greet declares a 404 with data: its Left is a CallError of it (issue 22), a ClientError too.
    same<
      typeof record,
      T.Task<{
        sum: E.Either<ClientError, number>;
        hello: E.Either<CallError<DeclaredError<404, { name: string }>>, string>;
      }>
    >(true);
    // All or nothing, sequenceT-style, from the members' own Eithers.
    const both = pipe(
      tuple,
      T.map(([a, b]) => sequenceT(E.Apply)(a, b)),
    );
    same<typeof both, T.Task<E.Either<ClientError, [number, Date]>>>(true);
    typeOnly(() => {
      void batch([
        // @ts-expect-error a mapped TaskEither is no longer a call: it cannot join a batch
        pipe(
          rpc.add(1, 2),
          TE.map((n) => n * 2),
        ),
      ]);
      // @ts-expect-error notify takes a call, not a notification
      notify(fire);
      // @ts-expect-error a notification's answer is void, not the result
      const n: TE.TaskEither<ClientError, unknown[]> = notify(rpc.log("x"));
      void n;
    });
    expect(await asTaskEither()).toStrictEqual(E.right(undefined));
    expect(await tuple()).toStrictEqual([E.right(3), E.right(new Date(0)), E.right(undefined)]);
    expect(await record()).toStrictEqual({ sum: E.right(3), hello: E.right("b") });
    expect(await both()).toStrictEqual(E.right([3, new Date(0)]));
  });

  test("matchClientError is exhaustive, each case typed by its kind", () => {
    const describeError = matchClientError({
      ServerError: (e) => `server ${e.code}: ${e.message}`,
      TransportError: (e) => (e.reason === "status" ? `HTTP ${e.status}` : e.reason),
      InvalidAnswer: (e) => (e.reason === "resultRefused" ? `refused: ${e.message}` : e.reason),
      InvalidCall: (e) => `not sent: ${e.method}`,
    });
    same<typeof describeError, (error: ClientError) => string>(true);
    typeOnly(() => {
      // @ts-expect-error a missing case (InvalidCall)
      matchClientError({
        ServerError: () => 1,
        TransportError: () => 2,
        InvalidAnswer: () => 3,
      });
      matchClientError({
        // @ts-expect-error a TransportError has no code
        TransportError: (e) => e.code,
        ServerError: () => 1,
        InvalidAnswer: () => 3,
        InvalidCall: () => 4,
      });
      matchClientError({
        ServerError: () => 1,
        TransportError: () => 2,
        InvalidAnswer: () => 3,
        InvalidCall: () => 4,
        // @ts-expect-error no such kind
        Timeout: () => 5,
      });
    });
    expect(describeError({ _tag: "InvalidCall", method: "add", cause: null })).toBe("not sent: add");
  });

  test("client<typeof table>: params from the functions, results as their JSON form", () => {
    const table = {
      add: (a: number, b: number) => Success(a + b),
      divide: (a: number, b: number) => (b === 0 ? Error(1, "division by zero") : Success(a / b)),
      echo: async (p: { text: string }) => Success(p.text),
      today: (): Result<Date> => Success(new Date()),
      coded: withCodecs({ params: t.tuple([t.string]), result: t.type({ at: DateFromISOString }) }, (s) =>
        Success({ at: new Date(s) }),
      ),
      whoami: withContext<{ user: string }>().withParams(t.type({}), (ctx) => Success(ctx.user)),
      greet: withContext<{ user: string }>().withCodecs({ params: t.type({ greeting: t.string }) }, (ctx, p) =>
        Success(`${p.greeting}, ${ctx.user}`),
      ),
    };
    const untyped = client<typeof table>(local(table));
    same<ReturnType<typeof untyped.add>, RpcCall<number>>(true);
    same<ReturnType<typeof untyped.divide>, RpcCall<number>>(true);
    same<ReturnType<typeof untyped.echo>, RpcCall<string>>(true);
    // No codecs on this side: what arrives is JSON, so a Date is its text.
    same<ReturnType<typeof untyped.today>, RpcCall<string>>(true);
    same<ReturnType<typeof untyped.coded>, RpcCall<{ at: string }>>(true);
    same<Json<{ at: Date; n: number; f: () => void; u: undefined[] }>, { at: string; n: number; u: null[] }>(true);
    // A method marked as taking a context: the context is the server's, not the caller's.
    same<Parameters<typeof untyped.whoami>, []>(true);
    same<Parameters<typeof untyped.greet>, [params: { greeting: string }]>(true);
    typeOnly(() => {
      // @ts-expect-error params typed from the functions
      untyped.add(1, "2");
      // @ts-expect-error `then` is never a method of the client (await would take it for a Promise)
      void untyped.then;
      // @ts-expect-error nor `toJSON`
      void untyped.toJSON;
      // @ts-expect-error the context is not the client's to send
      untyped.whoami({ user: "x" });
    });

    // A table of plain functions taking a context: say so with "context".
    const withCtx = {
      whoami: (ctx: { user: string }) => Success(ctx.user),
      add: (_ctx: { user: string }, a: number, b: number) => Success(a + b),
    };
    const ctxClient = client<typeof withCtx, "context">(local(withCtx, { context: { user: "ann" } }));
    same<Parameters<typeof ctxClient.add>, [a: number, b: number]>(true);
    same<Parameters<typeof ctxClient.whoami>, []>(true);
    // Without "context", a plain function's first parameter is a param like the others.
    const noCtxClient = client<typeof withCtx>(local(withCtx));
    same<Parameters<typeof noCtxClient.add>, [_ctx: { user: string }, a: number, b: number]>(true);
    expect(typeof noCtxClient.add).toBe("function");
    typeOnly(() => {
      // @ts-expect-error the context is not the client's to send
      ctxClient.add({ user: "x" }, 1, 2);
      // @ts-expect-error "context" or "no context", nothing else
      client<typeof withCtx, "ctx">(local(withCtx));
    });
    expect(typeof untyped.add).toBe("function");
  });
});
