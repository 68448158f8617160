/**
 * `serveNats(...).stop()` is a source of abort (issue 32, item 7): it used to drain only, so that
 * a method waiting on its signal held `stop()` for ever, and a streaming method that never ends
 * too. Now the methods in flight see their `signal` abort (reason: -32800 "Request cancelled"),
 * a streaming method stops at its next `yield`, every message taken is still answered (the caller
 * gets a Left), and `stop()` resolves; `stop({ abort: false })` drains without aborting. On a
 * real nats-server, with rpcserver's own client.
 */
import * as E from "fp-ts/Either";
import { defaultMaxListeners, getEventListeners } from "node:events";
import * as t from "io-ts";
import { contract, implement, timeout, type AnyStage } from "../src";
import { client, open } from "../src/client";
import { natsTransport, serveNats } from "../src/nats";
import { connect, type TestConnection } from "./fixtures/nats.cjs";
import { startNatsServer, type NatsServer } from "./fixtures/nats-server.cjs";
import { bounded } from "./helpers/processes";

const SAFETY_MS = 15_000;

const api = contract({
  hold: { result: t.string },
  forever: { stream: t.number, result: t.string },
  stubborn: { result: t.string },
});

let server: NatsServer;
let serving: TestConnection;
let calling: TestConnection;
let subjects = 0;

beforeAll(async () => {
  server = await startNatsServer();
  [serving, calling] = await Promise.all([connect(server.url), connect(server.url)]);
});

afterAll(async () => {
  await Promise.all([serving.close(), calling.close()]);
  await server.stop();
});

/** A promise and its resolver. */
const signal = () => {
  let done = (): void => undefined;
  const promise = new Promise<void>((resolve) => (done = resolve));
  return { promise, done };
};

const serve = async (stages: AnyStage[]) => {
  const started = signal();
  const finished = { hold: signal(), forever: signal() };
  const letGo = signal();
  let yielded = 0;
  /** Each signal `hold` was handed, in order. */
  const seen: AbortSignal[] = [];
  // The context function gives `signal` (a plain object gains it): the contract's handlers type no context.
  const methods = implement(api, {
    hold: async (ctx: { signal: AbortSignal }) => {
      seen.push(ctx.signal);
      try {
        await new Promise<never>((_, reject) => {
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason as Error), { once: true });
          started.done();
        });
        return E.right("never");
      } finally {
        finished.hold.done();
      }
    },
    forever: async function* () {
      try {
        // A generator that never ends, and never waits on I/O.
        for (;;) {
          yield (yielded += 1);
        }
      } finally {
        finished.forever.done();
      }
    },
    stubborn: async () => {
      await letGo.promise;
      return E.right("done anyway");
    },
  } as never);
  subjects += 1;
  const subject = `rpc.stopping${subjects}`;
  const service = await serveNats(
    serving,
    methods as never,
    {
      name: "stopping",
      version: "1.0.0",
      subject,
      context: () => ({}),
      stages,
    } as never,
  );
  const rpc = client(api, natsTransport(calling, subject, { timeoutMs: SAFETY_MS }));
  return { service, rpc, started, finished, letGo, seen, yielded: () => yielded };
};

const CANCELLED = { _tag: "ServerError", code: -32800, message: "Request cancelled" };

describe.each([
  ["no stages", [] as AnyStage[]],
  ["stages: [timeout(60000)]", [timeout(60_000) as AnyStage]],
])("stop() with %s", (_name, stages) => {
  test("a plain method waiting on its signal and an infinite stream are stopped, answered Left -32800, and stop() resolves", async () => {
    const { service, rpc, started, finished, yielded } = await serve(stages);
    const held = rpc.hold()();
    const values: number[] = [];
    const run = open(rpc.forever());
    const streamed = (async () => {
      for await (const value of run) values.push(value);
      return run.result;
    })();
    await bounded(started.promise, "the plain method to wait on its signal", SAFETY_MS);
    while (values.length < 5) await new Promise((resolve) => setTimeout(resolve, 5));

    await bounded(service.stop(), "stop() to resolve", SAFETY_MS);
    await bounded(finished.hold.promise, "the plain method's finally", SAFETY_MS);
    await bounded(finished.forever.promise, "the stream's finally", SAFETY_MS);
    expect(await bounded(held, "the plain call's answer", SAFETY_MS)).toEqual(
      E.left(expect.objectContaining(CANCELLED)),
    );
    const result = await bounded(streamed, "the streamed call's answer", SAFETY_MS);
    expect(result).toEqual(E.left(expect.objectContaining(CANCELLED)));
    // All its values came, in order, before the answer: the answer counts them (no gap).
    expect(values).toEqual(Array.from({ length: values.length }, (_, i) => i + 1));
    expect(values.length).toBeLessThanOrEqual(yielded());
    expect(service.figures().inFlight).toBe(0);
  }, 30_000);
});

test("a method that ignores its signal is waited for and answered with its own result", async () => {
  const { service, rpc, letGo } = await serve([]);
  const answered = rpc.stubborn()();
  await calling.flush();
  await serving.flush();
  while (service.figures().inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const stopping = service.stop();
  letGo.done();
  await bounded(stopping, "stop() to resolve", SAFETY_MS);
  expect(await bounded(answered, "the answer", SAFETY_MS)).toEqual(E.right("done anyway"));
});

test("stop({ abort: false }) drains: the signal stays unaborted until a later stop()", async () => {
  const { service, rpc, started, finished } = await serve([]);
  const held = rpc.hold()();
  await bounded(started.promise, "the method to wait on its signal", SAFETY_MS);
  let drained = false;
  const draining = service.stop({ abort: false }).then(() => (drained = true));
  // The drain does not end the method: its signal has not aborted.
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(drained).toBe(false);
  await bounded(service.stop(), "a later stop() to resolve", SAFETY_MS);
  await bounded(draining, "the drain to resolve", SAFETY_MS);
  await bounded(finished.hold.promise, "the method's finally", SAFETY_MS);
  expect(await held).toEqual(E.left(expect.objectContaining(CANCELLED)));
});

test("many messages in flight put no listener-leak warning in the host's log (each request has a signal of its own)", async () => {
  // Every message in flight used to follow the one service-wide signal that stop() aborts: past
  // ten of them (`defaultMaxListeners`), Node printed "MaxListenersExceededWarning: Possible
  // EventTarget memory leak detected" on the host's stderr, for a service merely busy. The
  // warning goes to the process's own stderr, out of the test's reach: what it counts is counted,
  // on every signal added to through EventTarget's own method (a service-wide signal would be),
  // and, read back, on each signal the methods were handed (on Node 18 their listeners go through
  // the guarded prototype's method, which the spy does not see).
  let most = 0;
  const add = EventTarget.prototype.addEventListener;
  const spy = jest.spyOn(EventTarget.prototype, "addEventListener").mockImplementation(function (
    this: EventTarget,
    ...args: Parameters<EventTarget["addEventListener"]>
  ) {
    add.apply(this, args);
    if (this instanceof AbortSignal) most = Math.max(most, getEventListeners(this, "abort").length);
  });
  const { service, rpc, seen } = await serve([]);
  try {
    // The spy counts: a listener of the test's own is seen.
    new AbortController().signal.addEventListener("abort", () => undefined);
    expect(most).toBeGreaterThanOrEqual(1);
    // Methods that listen on their signals, and stop() reaches every one of them.
    const calls = Array.from({ length: 16 }, () => rpc.hold()());
    while (service.figures().inFlight < calls.length || seen.length < calls.length) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(new Set(seen).size).toBe(calls.length);
    for (const handed of seen) expect(getEventListeners(handed, "abort")).toHaveLength(1);
    await bounded(service.stop(), "stop() to resolve", SAFETY_MS);
    expect(await bounded(Promise.all(calls), "the answers", SAFETY_MS)).toEqual(
      calls.map(() => E.left(expect.objectContaining(CANCELLED))),
    );
  } finally {
    spy.mockRestore();
  }
  expect(most).toBeLessThanOrEqual(defaultMaxListeners);
});
