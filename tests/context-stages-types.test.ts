/**
 * Type tests of issue 32, item 9: no option turns the context check off. A `server(...)` app's
 * `stages` (typed by the context they take and give), a list of stages typed `AnyStage[]` or
 * `Stage[]`, a stage typed `any` or `AnyStage`, a `context` typed `unknown`: whatever else is
 * passed, a wrong or missing context fails to compile, for `answerHttp`, the dispatch functions,
 * `connect`, `serveNats` and the development server's `serve`. Stages only add to the context what
 * their types say (`timeout` adds `signal`). `tsc -p tsconfig.json --noEmit` compiles the
 * `typeOnly` bodies: each `@ts-expect-error` must be needed (TS2578 otherwise). Each test also runs
 * what its valid cases say, cheaply.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import {
  answerHttp,
  asyncDispatch,
  asyncDispatchToResponse,
  asyncDispatchToSerializable,
  contract,
  dispatch,
  dispatchToResponse,
  dispatchToSerializable,
  serve,
  server,
  Success,
  timeout,
  withContext,
  type AnyStage,
  type Call,
  type Stage,
  type WithSignal,
} from "../src";
import { connect, type ConnectionContext } from "../src/connection";
import { serveNats, type NatsConnection } from "../src/nats";
import type { ContextOf, DispatchContext, TypedStages } from "../src/types";
import { lone, settle } from "./helpers/channels";
import { recordLogs } from "./support";

/** What a user's `any` is: the compiler's "not checked". */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Untyped = any;
/** `true` exactly when A and B are the same type. */
type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;
/** Compiles `body` (so its `@ts-expect-error` lines are checked) without running it. */
const typeOnly = (body: () => void): void => void body;

const api = contract({ whoami: { result: t.string } });
/** An app whose context is `{ user }`, with no stage. */
const app = server(api)
  .context<{ user: string }>()
  .implement({ whoami: (ctx) => E.right(ctx.user) });
/** An app whose stages turn `{ token }` into `{ user }`, then add a signal. */
const auth = (call: Call<{ token: string }>) =>
  E.right({ request: call.request, context: { user: call.context.token } });
const authed = server(api)
  .context<{ token: string }>()
  .use(auth)
  .use(timeout(1000))
  .implement({ whoami: (ctx) => E.right(`${ctx.user} ${String(ctx.signal.aborted)}`) });
const whoami = withContext<{ user: string }>().withParams(t.type({}), (ctx) => Success(ctx.user));
const needsSignal = withContext<{ user: string; signal: AbortSignal }>().withParams(t.type({}), (ctx) =>
  Success(ctx.user),
);
const anyList: AnyStage[] = [];
const WHOAMI = '{"jsonrpc":"2.0","method":"whoami","id":1}';

describe("a server's stages are typed: they check the context, never switch the check off", () => {
  test("answerHttp: the issue's case, with and without the app's stages", async () => {
    same<typeof app.stages, TypedStages<{ user: string }, { user: string }>>(true);
    same<typeof authed.stages, TypedStages<{ token: string }, WithSignal<{ user: string }>>>(true);
    typeOnly(() => {
      // @ts-expect-error a context of another type
      void answerHttp(WHOAMI, app.methods, { context: { whatever: 1 } });
      // @ts-expect-error the issue's case: the app's stages do not widen the check
      void answerHttp(WHOAMI, app.methods, { context: { whatever: 1 }, stages: app.stages });
      // @ts-expect-error no context at all
      void answerHttp(WHOAMI, app.methods, { stages: app.stages });
      // @ts-expect-error no context, no options
      void answerHttp(WHOAMI, app.methods);
      // @ts-expect-error the stages take { token }, and are given { user }
      void answerHttp(WHOAMI, authed.methods, { context: { user: "ann" }, stages: authed.stages });
      // @ts-expect-error without its stages, the app's methods get { token } where they need { user }
      void answerHttp(WHOAMI, authed.methods, { context: { token: "t" } });
      // @ts-expect-error other options change nothing
      void answerHttp(WHOAMI, app.methods, { context: 42, stages: app.stages, debug: true, accept: "*/*" });
    });
    // What the example does (examples/mcp/http.mjs) compiles with the declared context.
    const answer = await answerHttp(WHOAMI, app.methods, { context: { user: "ann" }, stages: app.stages });
    expect(answer.body).toBe('{"jsonrpc":"2.0","result":"ann","id":1}');
    const turned = await answerHttp(WHOAMI, authed.methods, { context: { token: "tok" }, stages: authed.stages });
    expect(turned.body).toBe('{"jsonrpc":"2.0","result":"tok false","id":1}');
  });

  test("every dispatch function, sync and async, with the app's stages or its options", async () => {
    typeOnly(() => {
      // @ts-expect-error a wrong context, with the stages
      dispatch(WHOAMI, app.methods, { context: { whatever: 1 }, stages: app.stages });
      // @ts-expect-error a missing context, with the stages
      dispatch(WHOAMI, app.methods, { stages: app.stages });
      // @ts-expect-error the same for dispatchToSerializable
      dispatchToSerializable(WHOAMI, app.methods, { context: { whatever: 1 }, stages: app.stages });
      // @ts-expect-error ... and dispatchToResponse, postProcess or not
      dispatchToResponse(WHOAMI, app.methods, { context: 1, stages: app.stages, postProcess: (r) => r._tag });
      // @ts-expect-error asyncDispatch
      void asyncDispatch(WHOAMI, authed.methods, { context: { whatever: 1 }, stages: authed.stages });
      // @ts-expect-error asyncDispatch, no context
      void asyncDispatch(WHOAMI, authed.methods, { stages: authed.stages });
      // @ts-expect-error asyncDispatchToSerializable
      void asyncDispatchToSerializable(WHOAMI, authed.methods, { context: { user: "u" }, stages: authed.stages });
      // @ts-expect-error asyncDispatchToResponse
      void asyncDispatchToResponse(WHOAMI, authed.methods, { context: {}, stages: authed.stages });
      // The app's stages spread into a longer list lose their type: what they turn is not known, so
      // the methods get the context as given.
      // @ts-expect-error { token } given, { user } needed
      void asyncDispatch(WHOAMI, authed.methods, { context: { token: "t" }, stages: [...authed.stages] });
      dispatch(WHOAMI, app.methods, { context: { user: "u" }, stages: app.stages });
      void asyncDispatch(WHOAMI, authed.methods, authed.options({ token: "t" }));
      void asyncDispatchToSerializable(WHOAMI, authed.methods, { context: { token: "t" }, stages: authed.stages });
    });
    expect(await asyncDispatch(WHOAMI, authed.methods, authed.options({ token: "x" }))).toBe(
      '{"jsonrpc":"2.0","result":"x false","id":1}',
    );
    expect(dispatch(WHOAMI, app.methods, app.options({ user: "y" }))).toBe('{"jsonrpc":"2.0","result":"y","id":1}');
  });
});

describe("stages typed no more precisely than a list pass the context on as given", () => {
  test("AnyStage[], Stage[], an AnyStage, an any: the context is still checked", () => {
    const anyStages: AnyStage[] = [timeout(1000)];
    const stages: Stage[] = [(call) => E.right(call)];
    const one: AnyStage = timeout(1000);
    const toUsers: Array<typeof auth> = [auth];
    same<DispatchContext<{ user: string }, AnyStage[]>, { user: string }>(true);
    same<DispatchContext<{ user: string }, readonly [AnyStage]>, { user: string }>(true);
    // A list of timeouts may be empty: no signal is promised.
    same<
      DispatchContext<{ user: string }, ReadonlyArray<ReturnType<typeof timeout<{ user: string }>>>>,
      { user: string }
    >(true);
    same<ContextOf<{ context: unknown }>, unknown>(true);
    typeOnly(() => {
      // @ts-expect-error AnyStage[]
      void asyncDispatch(WHOAMI, { whoami }, { context: { whatever: 1 }, stages: anyStages });
      // @ts-expect-error AnyStage[], no context
      void asyncDispatch(WHOAMI, { whoami }, { stages: anyStages });
      // @ts-expect-error Stage[]
      dispatch(WHOAMI, { whoami }, { context: { whatever: 1 }, stages });
      // @ts-expect-error one stage typed AnyStage in a tuple
      void asyncDispatch(WHOAMI, { whoami }, { context: { whatever: 1 }, stages: [one] });
      // @ts-expect-error stages typed any
      dispatch(WHOAMI, { whoami }, { context: { whatever: 1 }, stages: [] as Untyped });
      // @ts-expect-error one stage typed any
      dispatch(WHOAMI, { whoami }, { context: { whatever: 1 }, stages: [{} as Untyped] });
      // @ts-expect-error a context typed unknown is no { user }
      dispatch(WHOAMI, { whoami }, { context: {} as unknown });
      // @ts-expect-error a list of stages that change the context, of unknown length: write it as a tuple
      dispatch(WHOAMI, { whoami }, { context: { token: "t" }, stages: toUsers });
      // @ts-expect-error a signal is needed, and a list of unknown length may hold no timeout
      void asyncDispatch(WHOAMI, { needsSignal }, { context: { user: "u" }, stages: anyStages });
      void asyncDispatch(WHOAMI, { whoami }, { context: { user: "u" }, stages: anyStages });
      dispatch(WHOAMI, { whoami }, { context: { user: "u" }, stages });
      dispatch(WHOAMI, { whoami }, { context: { token: "t" }, stages: [auth] });
      void asyncDispatch(WHOAMI, { needsSignal }, { context: { user: "u" }, stages: [timeout(1000)] });
      // `any` is the one way to say "do not check".
      dispatch(WHOAMI, { whoami }, { context: {} as Untyped });
    });
    expect(dispatch(WHOAMI, { whoami }, { context: { user: "u" }, stages })).toBe(
      '{"jsonrpc":"2.0","result":"u","id":1}',
    );
  });
});

describe("connect, serveNats and serve check the context too, stages or not", () => {
  test("connect: methods with the app's stages, or the app itself", async () => {
    typeOnly(() => {
      // @ts-expect-error a wrong context, with the app's stages
      connect(lone(), { methods: app.methods, stages: app.stages, context: { whatever: 1 } });
      // @ts-expect-error no context, with the app's stages
      connect(lone(), { methods: app.methods, stages: app.stages });
      // @ts-expect-error the app's context is { token }
      connect(lone(), { server: authed, context: { user: "u" }, stages: [] as AnyStage[] });
      connect(lone(), { methods: app.methods, stages: app.stages, context: { user: "u" } });
    });
    const end = lone();
    const peer = connect(end, { server: authed, context: { token: "t" } });
    end.inject(WHOAMI);
    await settle(5);
    expect(end.sent.map((text) => JSON.parse(text) as unknown)).toEqual([{ jsonrpc: "2.0", result: "t false", id: 1 }]);
    peer.close();
  });

  test("serveNats: the context function's context, through the stages", () => {
    typeOnly(() => {
      const nc = undefined as unknown as NatsConnection;
      const identity = { name: "who", version: "1.0.0", subject: "rpc.who" };
      // @ts-expect-error a context function making another context, with the app's stages
      void serveNats(nc, app.methods, { ...identity, context: () => ({ whatever: 1 }), stages: app.stages });
      // @ts-expect-error no context function, with the app's stages
      void serveNats(nc, app.methods, { ...identity, stages: app.stages });
      // @ts-expect-error a context function typed unknown
      void serveNats(nc, app.methods, { ...identity, context: (): unknown => ({}), stages: anyList });
      void serveNats(nc, authed.methods, { ...identity, context: () => ({ token: "t" }), stages: authed.stages });
      void serveNats(nc, app.methods, { ...identity, context: () => ({ user: "u" }) });
    });
    expect(authed.stages).toHaveLength(2);
  });

  test("serve: the development server's methods are checked against its context", async () => {
    typeOnly(() => {
      // @ts-expect-error a wrong context
      void serve("localhost", 0, { methods: { whoami }, context: { whatever: 1 } });
      // @ts-expect-error no context
      void serve("localhost", 0, { methods: app.methods });
      // @ts-expect-error a context typed unknown
      void serve("localhost", 0, { methods: app.methods, context: {} as unknown });
    });
    const logs = recordLogs();
    const running = await serve("127.0.0.1", 0, { methods: app.methods, context: { user: "dev" }, inspector: false });
    try {
      const address = running.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      const answer = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: WHOAMI });
      expect(await answer.text()).toBe('{"jsonrpc":"2.0","result":"dev","id":1}');
    } finally {
      running.close();
      logs.restore();
    }
  });
});

describe("one context type for a connection and HTTP", () => {
  // What every wire gives a plain-object context: the request's signal (WithSignal). A connection
  // adds `peer` too, which HTTP has not: an app declared with ConnectionContext is for connections.
  const both = server(api)
    .context<WithSignal<{ user: string }>>()
    .implement({ whoami: (ctx) => E.right(`${ctx.user} ${String(ctx.signal.aborted)}`) });
  const onlyConnections = server(api)
    .context<ConnectionContext<{ user: string }>>()
    .implement({ whoami: (ctx) => E.right(`${ctx.user} ${typeof ctx.peer}`) });

  test("WithSignal<C> serves both; ConnectionContext<C> only a connection, said at compile time", async () => {
    typeOnly(() => {
      // @ts-expect-error HTTP has no peer: ConnectionContext is a connection's context
      void answerHttp(WHOAMI, onlyConnections.methods, { context: { user: "u" }, stages: onlyConnections.stages });
      // @ts-expect-error the same without stages
      void answerHttp(WHOAMI, onlyConnections.methods, { context: { user: "u" } });
      connect(lone(), { server: onlyConnections, context: { user: "u" } });
    });
    const overHttp = await answerHttp(WHOAMI, both.methods, { context: { user: "web" }, stages: both.stages });
    expect(overHttp.body).toBe('{"jsonrpc":"2.0","result":"web false","id":1}');
    const end = lone();
    const peer = connect(end, { server: both, context: { user: "ide" } });
    end.inject(WHOAMI);
    await settle(5);
    expect(end.sent.map((text) => JSON.parse(text) as unknown)).toEqual([
      { jsonrpc: "2.0", result: "ide false", id: 1 },
    ]);
    peer.close();
  });
});
