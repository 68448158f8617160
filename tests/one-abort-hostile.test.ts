/**
 * Hostile tests of "one abort per request" (issue 33, item 1), on real sockets and a real
 * nats-server where the wire is the point. Each block says what it attacks; three found defects:
 *
 * - A method that dispatches a body of its own handing on its context (a proxy, a batch of
 *   sub-calls) passes its request's signal along: a `timeout` stage in that inner dispatch found the
 *   outer request's abort through it and aborted it (the outer method's signal aborted when the
 *   inner call timed out), and every request of the inner body shared that one signal. A stage now
 *   reaches the abort of the request it handles only.
 * - serveNats: a message taken once `stop()` was called ran its methods before its call was stopped.
 * - An event stream cancelled after its body was answered aborted the signal of the batch's
 *   notifications.
 */
import { getEventListeners } from "node:events";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { answerHttp, asyncDispatch, Success, timeout, type AnyStage, type Around, type Result } from "../src";
import { serveNats, type NatsService } from "../src/nats";
import { connect as natsConnect, type TestConnection } from "./fixtures/nats.cjs";
import { startNatsServer, type NatsServer } from "./fixtures/nats-server.cjs";
import { bounded } from "./helpers/real-channels";

type Ctx = { readonly signal: AbortSignal };

/** A stage of the user's own that passes on a copy of the context (`{ ...ctx, user }`). */
const copying: Around = {
  _tag: "Around",
  asyncOnly: false,
  around: () => (next) => (call) =>
    next({ request: call.request, context: { ...(call.context as object), user: "u" } }),
};

const serve = async (
  methods: Record<string, (ctx: Ctx) => Promise<Result>>,
): Promise<{ url: string; server: http.Server }> => {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void answerHttp(Buffer.concat(chunks), methods, { context: {} }).then((answer) => {
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
};

const post = async (url: string, body: string): Promise<unknown> => {
  const response = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json" } });
  return JSON.parse(await response.text()) as unknown;
};

describe("a method that dispatches with its own context", () => {
  test("an inner timeout aborts neither the outer request's signal nor the inner body's other requests", async () => {
    const seen: { outer?: boolean; sibling?: boolean | undefined; timedOut?: boolean } = {};
    let siblingSignal: AbortSignal | undefined;
    let release = (): void => undefined;
    const siblingMay = new Promise<void>((resolve) => (release = resolve));
    const inner = {
      slow: (ctx: Ctx): Promise<Result> =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            seen.timedOut = true;
            release();
            resolve(Success("stopped"));
          });
        }),
      sibling: async (ctx: Ctx): Promise<Result> => {
        siblingSignal = ctx.signal;
        await siblingMay;
        return Success("done");
      },
    };
    const { url, server } = await serve({
      proxy: async (ctx: Ctx): Promise<Result> => {
        const signal = ctx.signal;
        const answer = await asyncDispatch(
          '[{"jsonrpc":"2.0","method":"slow","id":1},{"jsonrpc":"2.0","method":"sibling","id":2}]',
          inner,
          { context: ctx, stages: [timeout(5)] },
        );
        seen.outer = signal.aborted;
        seen.sibling = siblingSignal?.aborted;
        return Success(JSON.parse(answer) as unknown);
      },
    });
    try {
      const answer = await post(url, '{"jsonrpc":"2.0","method":"proxy","id":1}');
      expect(answer).toMatchObject({
        id: 1,
        result: [
          { id: 1, error: { code: -32001 } },
          { id: 2, result: "done" },
        ],
      });
      expect(seen).toEqual({ outer: false, sibling: false, timedOut: true });
    } finally {
      server.close();
    }
  });
});

/**
 * A batch of 1,000 on a real socket whose client goes away mid-way: a third of the methods wait on
 * their signal, a third answer at once, a third read their signal only once the client has gone
 * (the signal is made then: it must start aborted, with the reason the client's going gave). Every
 * signal read aborts with -32800, every `finally` runs, each request has a signal of its own, and
 * the signal the wire followed keeps no listener.
 */
describe("a batch of 1,000 whose HTTP client goes away mid-way", () => {
  const N = 1000;

  const run = async (events: boolean, stages: readonly AnyStage[]): Promise<void> => {
    let started = 0;
    let finished = 0;
    const signals = new Set<AbortSignal>();
    const reasons: unknown[] = [];
    let allStarted = (): void => undefined;
    const everyoneStarted = new Promise<void>((resolve) => (allStarted = resolve));
    let gone: AbortSignal | undefined;
    let clientGone = (): void => undefined;
    const wentAway = new Promise<void>((resolve) => (clientGone = resolve));
    const start = (): void => {
      started += 1;
      if (started === N) allStarted();
    };
    const methods = {
      hold: (ctx: Ctx): Promise<Result> => {
        const signal = ctx.signal;
        signals.add(signal);
        return new Promise<Result>((resolve) => {
          signal.addEventListener("abort", () => {
            reasons.push(signal.reason);
            resolve(Success("stopped"));
          });
          start();
        }).finally(() => (finished += 1));
      },
      quick: (): Result => {
        start();
        finished += 1;
        return Success("quick");
      },
      late: async (ctx: Ctx): Promise<Result> => {
        try {
          start();
          await wentAway;
          const signal = ctx.signal;
          signals.add(signal);
          expect(signal.aborted).toBe(true);
          reasons.push(signal.reason);
          return Success("late");
        } finally {
          finished += 1;
        }
      },
    };
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const controller = new AbortController();
        gone = controller.signal;
        res.once("close", () => {
          controller.abort();
          clientGone();
        });
        void answerHttp(Buffer.concat(chunks), methods, {
          context: {},
          stages,
          accept: req.headers.accept,
          signal: controller.signal,
        } as never).then(async (answer) => {
          if (res.destroyed) return;
          res.writeHead(answer.status, answer.headers);
          if (typeof answer.body === "string" || answer.body === null) res.end(answer.body ?? undefined);
          else await pipeline(Readable.fromWeb(answer.body as never), res).catch(() => undefined);
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const names = ["hold", "quick", "late"] as const;
      const body = JSON.stringify(
        Array.from({ length: N }, (_, i) => ({ jsonrpc: "2.0", method: names[i % 3], id: i })),
      );
      const request = http.request({
        host: "127.0.0.1",
        port: (server.address() as AddressInfo).port,
        method: "POST",
        agent: false,
        headers: { "Content-Type": "application/json", Accept: events ? "text/event-stream" : "application/json" },
      });
      request.on("error", () => undefined);
      request.end(body);
      await bounded(everyoneStarted, "every method to start");
      request.destroy();
      await bounded(wentAway, "the server to see the client go");
      await bounded(
        (async () => {
          while (finished < N) await new Promise((resolve) => setImmediate(resolve));
        })(),
        "every finally to run",
      );
      const held = Math.ceil(N / 3);
      const late = Math.floor(N / 3);
      expect(signals.size).toBe(held + late);
      expect(reasons).toHaveLength(held + late);
      for (const reason of reasons) expect(reason).toMatchObject({ code: -32800 });
      expect(getEventListeners(gone as AbortSignal, "abort")).toHaveLength(0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  };

  test.each([
    ["JSON", false, []],
    ["JSON, timeout(60000)", false, [timeout(60000)]],
    ["event stream", true, []],
    [
      "event stream, two timeouts around a stage that copies the context",
      true,
      [timeout(60000), copying, timeout(30000)],
    ],
  ] as const)("%s", async (_, events, stages) => {
    await run(events, stages as readonly AnyStage[]);
  });
});

/**
 * NATS: a message the service takes once `stop()` was called (a burst already on its way) starts
 * aborted: its method's signal is aborted when the method starts. It used to be dispatched first and
 * stopped after, so that the method ran its first steps (all of a synchronous one) with a signal
 * not yet aborted.
 */
describe("serveNats: stop() while a burst arrives, on a real nats-server", () => {
  let nats: NatsServer;
  let serving: TestConnection;
  let calling: TestConnection;

  beforeAll(async () => {
    nats = await startNatsServer();
    [serving, calling] = await Promise.all([natsConnect(nats.url), natsConnect(nats.url)]);
  });

  afterAll(async () => {
    await Promise.all([serving.close(), calling.close()]);
    await nats.stop();
  });

  test("each message taken after stop() starts aborted, with -32800", async () => {
    const BURST = 100;
    const running: { service?: NatsService } = {};
    let stopping: Promise<void> | undefined;
    const taken: { readonly afterStop: boolean; readonly aborted: boolean; readonly reason: unknown }[] = [];
    const methods = {
      first: (): Result => {
        stopping = running.service?.stop();
        return Success("first");
      },
      probe: (ctx: Ctx): Result => {
        taken.push({ afterStop: stopping !== undefined, aborted: ctx.signal.aborted, reason: ctx.signal.reason });
        return Success("probe");
      },
    };
    running.service = await serveNats(
      serving,
      methods as never,
      {
        name: "burst",
        version: "1.0.0",
        subject: "rpc.burst",
        context: () => ({}),
      } as never,
    );
    const call = (method: string, id: number): Promise<unknown> =>
      calling.request("rpc.burst", JSON.stringify({ jsonrpc: "2.0", method, id }), { timeout: 5_000 });
    const sent = [call("first", 0), ...Array.from({ length: BURST }, (_, i) => call("probe", i + 1))];
    await calling.flush();
    await Promise.allSettled(sent);
    await bounded(stopping ?? Promise.reject(new Error("not stopped")), "stop() to resolve");
    const afterStop = taken.filter((message) => message.afterStop);
    expect(afterStop.length).toBeGreaterThan(0);
    for (const message of afterStop) {
      expect(message).toEqual({ afterStop: true, aborted: true, reason: expect.objectContaining({ code: -32800 }) });
    }
  }, 20_000);
});

/**
 * An event stream whose client cancels after the body is answered (its last event still unread):
 * the requests are over, and none of their signals aborts then. A notification of the batch (which
 * has no sink, so was kept until the body ended) used to be aborted by that late cancel.
 */
test("an event stream cancelled after its body is answered aborts no request's signal", async () => {
  let notificationSignal: AbortSignal | undefined;
  let answered = false;
  const methods = {
    background: (ctx: Ctx): Result => {
      notificationSignal = ctx.signal;
      return Success(null);
    },
    values: async function* () {
      yield 1;
      return Success("done");
    },
  };
  const answer = await answerHttp(
    '[{"jsonrpc":"2.0","method":"background"},{"jsonrpc":"2.0","method":"values","id":1}]',
    methods as never,
    {
      context: {},
      accept: "text/event-stream",
      serializer: (value: unknown) => {
        // The batch's one response (the value's notification has a method).
        if (typeof value === "object" && value !== null && "id" in value && !("method" in value)) answered = true;
        return JSON.stringify(value);
      },
    },
  );
  const body = answer.body as ReadableStream<Uint8Array>;
  const reader = body.getReader();
  await reader.read(); // the value's event
  // The answer is written, then handed to the stream within the microtasks that follow.
  while (!answered) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  await reader.cancel();
  expect(notificationSignal?.aborted).toBe(false);
});

/**
 * Abort listeners that throw, on each path an abort takes (the client going away, with and without
 * a `timeout` on the wire's abort; the deadline of the inner of two timeouts): each listener runs
 * once, in its turn, what they throw is logged, and the batch is answered.
 */
describe("abort listeners that throw", () => {
  const listening = (calls: string[], settle?: (result: Result) => void) => (ctx: Ctx) => {
    const signal = ctx.signal;
    signal.onabort = () => {
      calls.push("onabort");
      throw new Error("onabort throws");
    };
    signal.addEventListener("abort", () => {
      calls.push("first");
      throw new Error("the first listener throws");
    });
    AbortSignal.any([signal]).addEventListener("abort", () => calls.push("derived"));
    signal.addEventListener("abort", () => {
      calls.push("last");
      settle?.(Success("stopped"));
    });
  };

  test.each([
    ["no stage", []],
    ["timeout(60000)", [timeout(60000)]],
  ] as const)("the client going away, %s", async (_, stages) => {
    const calls: string[] = [];
    const gone = new AbortController();
    let started = 0;
    let allStarted = (): void => undefined;
    const waiting = new Promise<void>((resolve) => (allStarted = resolve));
    const methods = {
      m: (ctx: Ctx): Promise<Result> =>
        new Promise((resolve) => {
          listening(calls, resolve)(ctx);
          if (++started === 2) allStarted();
        }),
    };
    const answered = answerHttp(
      '[{"jsonrpc":"2.0","method":"m","id":1},{"jsonrpc":"2.0","method":"m","id":2}]',
      methods,
      {
        context: {},
        signal: gone.signal,
        stages: stages as readonly AnyStage[],
      } as never,
    );
    await waiting;
    gone.abort();
    const answer = await answered;
    expect(JSON.parse(answer.body as string)).toEqual([
      { jsonrpc: "2.0", result: "stopped", id: 1 },
      { jsonrpc: "2.0", result: "stopped", id: 2 },
    ]);
    expect(calls.filter((call) => call === "first")).toHaveLength(2);
    expect(calls.filter((call) => call === "onabort")).toHaveLength(2);
    expect(calls.filter((call) => call === "last")).toHaveLength(2);
    expect(calls.filter((call) => call === "derived")).toHaveLength(2);
  });

  test("the inner deadline of two timeouts", async () => {
    const calls: string[] = [];
    const methods = {
      m: (ctx: Ctx): Promise<Result> => {
        listening(calls)(ctx);
        return new Promise<Result>(() => undefined);
      },
    };
    const answer = await answerHttp('{"jsonrpc":"2.0","method":"m","id":1}', methods, {
      context: {},
      stages: [timeout(60000), timeout(5)],
    } as never);
    expect(JSON.parse(answer.body as string)).toMatchObject({ error: { code: -32001, data: { timeoutMs: 5 } }, id: 1 });
    expect(calls.filter((call) => call !== "derived")).toEqual(["onabort", "first", "last"]);
  });
});
