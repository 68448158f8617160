/**
 * Every source of abort reaches the one signal a method sees, whatever stages are composed (issue
 * 32, item 7). A `timeout` stage hands the method a signal of its own; it used to replace the
 * request's, so that with `stages: [timeout(60000)]` a `$/cancelRequest`, an MCP
 * `notifications/cancelled`, a connection closing, an HTTP client going away or the caller's own
 * signal no longer aborted the method's `ctx.signal`, and a cancelled request ran on for up to the
 * time-out. Each source is driven where it lives: a connection on a real TCP socket (the raw end
 * writes the cancel, or resets the socket), an HTTP server on a real socket whose client goes away
 * (JSON and event stream), `asyncDispatch` with the caller's signal in its context, and the
 * stage's own deadline; then a property over stage lists (0 to 3 `timeout`s among stages that
 * pass, observe, or replace the context) times those sources: the method's signal aborts and its
 * `finally` runs, and no listener of the request is left on a signal that outlives it.
 *
 * On NATS, `serveNats(...).stop()` is a source (it used to drain only: the methods in flight ran to
 * their end, a streaming one for ever, and `stop()` never resolved): a real nats-server, a request
 * plain or streamed, and the caller still gets its answer. The NATS
 * server cannot say that a requester went away, so that is no source.
 *
 * A fixed seed and 40 runs in `npm test`; `PROPS_SEED` (a number, or `random`) and `PROPS_RUNS`
 * for more: `PROPS_SEED=random PROPS_RUNS=1000 npx jest tests/signal-sources.test.ts`.
 */
import { getEventListeners } from "node:events";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import * as E from "fp-ts/Either";
import fc from "fast-check";
import { answerHttp, asyncDispatch, observe, Success, timeout, type AnyStage, type Call, type Result } from "../src";
import { connect } from "../src/connection";
import { serveNats, STREAM_HEADER, STREAM_VALUES, VALUE_HEADER, type NatsMessage } from "../src/nats";
import { connect as natsConnect, headersOf, type TestConnection } from "./fixtures/nats.cjs";
import { startNatsServer, type NatsServer } from "./fixtures/nats-server.cjs";
import { bounded, rawSocketEnd } from "./helpers/real-channels";

const RUNS = Number(process.env["PROPS_RUNS"] ?? "") || 40;
/** `PROPS_SEED=random` draws one (fast-check prints it with any counterexample). */
const SEED =
  process.env["PROPS_SEED"] === "random"
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env["PROPS_SEED"] ?? "") || 20261129;

/** What may abort a request. */
type Source =
  "deadline" | "cancel-lsp" | "cancel-mcp" | "disconnect" | "http-gone" | "http-events-gone" | "caller" | "nats-stop";
const SOURCES: readonly Source[] = [
  "nats-stop",
  "deadline",
  "cancel-lsp",
  "cancel-mcp",
  "disconnect",
  "http-gone",
  "http-events-gone",
  "caller",
];

/**
 * A stage of the list: a `timeout` (its deadline far away, or near for the `deadline` source),
 * `observe`, a stage that passes a new context (spread from the one it got), an `Around` stage that
 * does the same.
 */
type StageKind = "timeout" | "observe" | "new-context" | "around-new-context";
const KINDS: readonly StageKind[] = ["timeout", "observe", "new-context", "around-new-context"];

/** Far enough that it never fires while a test runs: the request ends by its source first. */
const FAR = 60_000;
/** The deadline of the `deadline` source's first `timeout`: fires once the method waits. */
const NEAR = 20;

const newContext = (call: Call) => E.right({ ...call, context: { ...(call.context as object), passed: true } });

const aroundNewContext: AnyStage = {
  _tag: "Around",
  asyncOnly: false,
  around: () => (next) => (call) => next({ ...call, context: { ...(call.context as object), around: true } }),
} as AnyStage;

const stagesOf = (kinds: readonly StageKind[], source: Source): AnyStage[] => {
  let near = source === "deadline";
  return kinds.map((kind) => {
    switch (kind) {
      case "timeout": {
        const ms = near ? NEAR : FAR;
        near = false;
        return timeout(ms) as AnyStage;
      }
      case "observe":
        return observe(() => undefined) as AnyStage;
      case "new-context":
        return newContext as AnyStage;
      case "around-new-context":
        return aroundNewContext;
    }
  });
};

/**
 * One signal per request (issue 33, item 1): the signal the first stage sees in its context and the
 * one the method waits on. On a wire (a connection, HTTP, NATS) they are the same object whatever
 * stages lie between: a `timeout`, or a stage that copies the context, reaches the request's one
 * abort rather than making a signal of its own. Set by {@link recordFirst} and the probe's methods.
 */
let firstSeen: AbortSignal | undefined;
let methodSaw: AbortSignal | undefined;
const recordFirst: AnyStage = ((call: Call) => {
  firstSeen = (call.context as { signal?: AbortSignal }).signal;
  return E.right(call);
}) as AnyStage;

/** What the method saw: it started waiting on its signal, the signal aborted, its `finally` ran. */
interface Probe {
  readonly started: Promise<void>;
  readonly finished: Promise<void>;
  aborted: boolean;
  /** Why the method could not wait (no signal in its context, say). */
  failure: string | undefined;
  readonly methods: {
    readonly hold: (ctx: { signal?: AbortSignal }) => Promise<Result<string>>;
    readonly holdStream: (ctx: { signal?: AbortSignal }) => AsyncGenerator<number, Result<string>>;
  };
}

const probe = (): Probe => {
  let started: () => void = () => undefined;
  let finished: () => void = () => undefined;
  const state: Probe = {
    started: new Promise<void>((resolve) => (started = resolve)),
    finished: new Promise<void>((resolve) => (finished = resolve)),
    aborted: false,
    failure: undefined,
    methods: {
      hold: async (ctx) => {
        try {
          await aborted(ctx.signal, started);
          return Success("stopped");
        } finally {
          finished();
        }
      },
      holdStream: async function* (ctx) {
        try {
          // The value opens an event stream; the wait begins once the reader has taken it.
          yield 1;
          await aborted(ctx.signal, started);
          return Success("stopped");
        } finally {
          finished();
        }
      },
    },
  };
  /** Waits for `signal` to abort, saying it started once the listener is on (before any source can fire). */
  const aborted = async (signal: AbortSignal | undefined, start: () => void): Promise<void> => {
    methodSaw = signal;
    if (!(signal instanceof AbortSignal)) {
      state.failure = `the method's context has no signal (${typeof signal})`;
      start();
      return;
    }
    await new Promise<void>((resolve) => {
      signal.addEventListener("abort", () => resolve(), { once: true });
      start();
    });
    state.aborted = true;
  };
  return state;
};

const call = (method: string, id: number): string => JSON.stringify({ jsonrpc: "2.0", method, id });

/** The method's signal aborted and its `finally` ran (bounded: before the mend it waits until the far deadline). */
const stopped = async (p: Probe, what: string): Promise<void> => {
  await bounded(p.finished, `the method's finally (${what})`, 10_000);
  expect(p.failure).toBeUndefined();
  expect(p.aborted).toBe(true);
};

// --- A connection on a real TCP socket ------------------------------------------------------------

const overConnection = async (stages: AnyStage[], source: Source, streaming: boolean): Promise<void> => {
  const p = probe();
  const end = await rawSocketEnd("newline");
  try {
    const connection = connect(end.channel, {
      methods: p.methods,
      context: {},
      stages,
      cancellation: source === "cancel-mcp" ? "mcp" : "lsp",
    });
    await end.burst([call(streaming ? "holdStream" : "hold", 1)]);
    await bounded(p.started, "the method to start");
    if (source === "cancel-lsp") {
      await end.burst([JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } })]);
    } else if (source === "cancel-mcp") {
      await end.burst([
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }),
      ]);
    } else if (source === "disconnect") {
      end.raw.resetAndDestroy();
    }
    await stopped(p, `${source} over a connection, stages ${stages.length}`);
    connection.close();
  } finally {
    await end.dispose();
  }
};

// --- HTTP on a real socket, the client going away ------------------------------------------------

/** The stages the next HTTP request is answered with (runs are one at a time). */
let httpStages: AnyStage[] = [];
let httpMethods: Probe["methods"] | undefined;
let server: http.Server;
let port = 0;

beforeAll(async () => {
  // As the integration examples answer: the client going away (`res` closing) aborts `signal`.
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const gone = new AbortController();
      res.once("close", () => gone.abort());
      void answerHttp(Buffer.concat(chunks), httpMethods, {
        context: {},
        stages: httpStages,
        accept: req.headers.accept,
        signal: gone.signal,
      } as never).then(async (answer) => {
        res.writeHead(answer.status, answer.headers);
        if (typeof answer.body === "string" || answer.body === null) res.end(answer.body ?? undefined);
        else await pipeline(Readable.fromWeb(answer.body as never), res).catch(() => undefined);
      });
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const overHttp = async (stages: AnyStage[], events: boolean): Promise<void> => {
  const p = probe();
  httpStages = stages;
  httpMethods = p.methods;
  const request = http.request({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: "/rpc",
    agent: false,
    headers: { "Content-Type": "application/json", Accept: events ? "text/event-stream" : "application/json" },
  });
  request.on("error", () => undefined); // the client's own reset
  const responded = new Promise<http.IncomingMessage>((resolve) => request.once("response", resolve));
  request.end(call(events ? "holdStream" : "hold", 1));
  if (events) {
    // The first event read: the method waits on its signal now.
    const response = await bounded(responded, "the event stream to open");
    expect(response.headers["content-type"]).toBe("text/event-stream");
    await bounded(new Promise((resolve) => response.once("data", resolve)), "the first event");
  }
  await bounded(p.started, "the method to start");
  request.destroy();
  await stopped(p, `an HTTP client going away (${events ? "event stream" : "JSON"}), stages ${stages.length}`);
};

// --- asyncDispatch: the caller's own signal, the stage's deadline ---------------------------------

/** `asyncDispatch` with the caller's signal in the context; `abort` false leaves the deadline to stop it. */
const dispatched = async (stages: AnyStage[], streaming: boolean, abort: boolean): Promise<void> => {
  const p = probe();
  const caller = new AbortController();
  const answered = asyncDispatch(
    call(streaming ? "holdStream" : "hold", 1),
    p.methods as never,
    {
      context: { signal: caller.signal },
      stages,
    } as never,
  );
  await bounded(p.started, "the method to start");
  if (abort) caller.abort(new Error("the caller's own"));
  await stopped(p, `${abort ? "the caller's signal" : "the deadline"}, stages ${stages.length}`);
  await answered;
  // Settled: nothing of the request is left on the caller's signal, which outlives it.
  expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
};

// --- NATS on a real nats-server: the service stopping ---------------------------------------------

let nats: NatsServer | undefined;
let serving: TestConnection | undefined;
let calling: TestConnection | undefined;
let subjects = 0;

afterAll(async () => {
  await Promise.all([serving?.close(), calling?.close()]);
  await nats?.stop();
});

/** The caller's messages to `subject` (a plain request, or one asking for values): each, up to the answer. */
const askNats = (subject: string, method: string, streaming: boolean): Promise<NatsMessage[]> => {
  const to = calling!;
  const inbox = `_INBOX.stop.${subject}`;
  const messages: NatsMessage[] = [];
  const answered = new Promise<NatsMessage[]>((resolve) => {
    const subscription = to.subscribe(inbox, {
      callback: (_error, message) => {
        messages.push(message);
        if ((message.headers?.get(VALUE_HEADER) ?? "") !== "") return;
        subscription.unsubscribe();
        resolve(messages);
      },
    });
  });
  // The inbox is subscribed on the NATS server before the request can be answered.
  return to.flush().then(() => {
    to.publish(subject, call(method, 1), {
      reply: inbox,
      ...(streaming ? { headers: headersOf({ [STREAM_HEADER]: STREAM_VALUES }) } : {}),
    });
    return answered;
  });
};

const overNats = async (stages: AnyStage[], streaming: boolean): Promise<void> => {
  nats ??= await startNatsServer();
  serving ??= await natsConnect(nats.url);
  calling ??= await natsConnect(nats.url);
  const p = probe();
  subjects += 1;
  const subject = `rpc.stop${subjects}`;
  const service = await serveNats(
    serving,
    p.methods as never,
    {
      name: "stop",
      version: "1.0.0",
      subject,
      openrpc: false,
      context: () => ({}),
      stages,
    } as never,
  );
  const answers = askNats(subject, streaming ? "holdStream" : "hold", streaming);
  await bounded(p.started, "the method to start");
  await bounded(service.stop(), "stop() to resolve", 10_000);
  await stopped(p, `the NATS service stopping (${streaming ? "streamed" : "plain"}), stages ${stages.length}`);
  const messages = await bounded(answers, "the NATS answer");
  const last = messages[messages.length - 1]!;
  // Answered, with what the method answered once its signal aborted (after the one value a
  // streamed call sent): tests/nats-stop.test.ts has methods that end with the signal's reason.
  expect(messages).toHaveLength(streaming ? 2 : 1);
  expect(JSON.parse(last.string())).toEqual({ jsonrpc: "2.0", result: "stopped", id: 1 });
};

/** Drives one source against one stage list; on a wire, the method's signal is the one the first stage saw. */
const run = async (kinds: readonly StageKind[], source: Source, streaming: boolean): Promise<void> => {
  firstSeen = undefined;
  methodSaw = undefined;
  await drive([recordFirst, ...stagesOf(kinds, source)], source, streaming);
  // The caller's own signal cannot be aborted by a `timeout`: there, a stage's signal follows it.
  if (source === "deadline" || source === "caller") return;
  expect(firstSeen).toBeInstanceOf(AbortSignal);
  expect(methodSaw).toBe(firstSeen);
};

const drive = (stages: AnyStage[], source: Source, streaming: boolean): Promise<void> => {
  switch (source) {
    case "deadline":
      return dispatched(stages, streaming, false);
    case "caller":
      return dispatched(stages, streaming, true);
    case "cancel-lsp":
    case "cancel-mcp":
    case "disconnect":
      return overConnection(stages, source, streaming);
    case "http-gone":
      return overHttp(stages, false);
    case "http-events-gone":
      return overHttp(stages, true);
    case "nats-stop":
      return overNats(stages, streaming);
  }
};

describe("with stages: [timeout(60000)], every source of abort reaches the method's signal", () => {
  test.each([
    ["cancel-lsp", "$/cancelRequest on a TCP connection (LSP)"],
    ["cancel-mcp", "notifications/cancelled on a TCP connection (MCP)"],
    ["disconnect", "the TCP connection reset"],
  ] as const)("%s: %s", async (source, _what) => {
    await run(["timeout"], source, false);
    await run(["timeout"], source, true);
  });

  test("an HTTP client going away before the answer (JSON), on a real socket", async () => {
    await run(["timeout"], "http-gone", false);
  });

  test("an HTTP client leaving an event stream mid-way, on a real socket", async () => {
    await run(["timeout"], "http-events-gone", true);
  });

  test("serveNats(...).stop() on a real nats-server, plain and streamed: stopped, and answered", async () => {
    await run(["timeout"], "nats-stop", false);
    await run(["timeout"], "nats-stop", true);
    await run([], "nats-stop", false);
    await run([], "nats-stop", true);
  });

  test("the caller's own signal in asyncDispatch's context", async () => {
    await run(["timeout"], "caller", false);
  });

  test("two timeouts: the outer's deadline reaches the method through the inner", async () => {
    const p = probe();
    const answered = asyncDispatch(
      call("hold", 1),
      p.methods as never,
      {
        context: {},
        stages: [timeout(NEAR), timeout(FAR)],
      } as never,
    );
    await stopped(p, "the outer deadline");
    expect(JSON.parse(await answered)).toMatchObject({ error: { code: -32001, data: { timeoutMs: NEAR } } });
  });

  test("one signal per request: each request of a batch has its own, and a timeout aborts the one every stage saw", async () => {
    // Before: a body's requests shared one signal, and `timeout` handed its method another, so that
    // a stage before it never saw the time-out.
    const seen: AbortSignal[] = [];
    const record = ((c: Call) => {
      seen.push((c.context as { signal: AbortSignal }).signal);
      return E.right(c);
    }) as AnyStage;
    const methods = {
      slow: (ctx: { signal: AbortSignal }) =>
        new Promise<Result<string>>((resolve) =>
          ctx.signal.addEventListener("abort", () => resolve(Success("late")), { once: true }),
        ),
      quick: (ctx: { signal: AbortSignal }) => Promise.resolve(Success(ctx.signal.aborted)),
    };
    const answer = await answerHttp(`[${call("slow", 1)},${call("quick", 2)}]`, methods, {
      context: {},
      stages: [record, timeout(NEAR)],
      accept: "application/json",
    } as never);
    expect(JSON.parse(answer.body as string)).toEqual([
      { jsonrpc: "2.0", error: { code: -32001, message: "Request timed out", data: { timeoutMs: NEAR } }, id: 1 },
      { jsonrpc: "2.0", result: false, id: 2 },
    ]);
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect([seen[0]?.aborted, seen[1]?.aborted]).toEqual([true, false]);
  });

  test("a timeout that makes the signal the context: a timeout after it aborts that same signal", async () => {
    const seen: unknown[] = [];
    const methods = {
      hold: (signal: AbortSignal) => {
        seen.push(signal);
        return new Promise<Result<boolean>>((resolve) =>
          signal.addEventListener("abort", () => resolve(Success(signal.aborted)), { once: true }),
        );
      },
    };
    const record = ((c: Call) => {
      seen.push(c.context);
      return E.right(c);
    }) as AnyStage;
    const answer = await answerHttp(
      call("hold", 1),
      methods as never,
      {
        context: {},
        stages: [timeout(FAR, { context: (_context, signal) => signal }), record, timeout(NEAR)],
        accept: "application/json",
      } as never,
    );
    expect(JSON.parse(answer.body as string)).toMatchObject({ error: { code: -32001, data: { timeoutMs: NEAR } } });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    expect(seen[1]).toBe(seen[0]);
  });

  test("a wire's context shows its members and `signal` only, as a plain object would", async () => {
    const contexts: unknown[] = [];
    const methods = { see: (ctx: object) => (contexts.push(ctx), Success(Object.keys(ctx))) };
    const answer = await answerHttp(
      call("see", 1),
      methods as never,
      {
        context: { user: "ann" },
        stages: [timeout(FAR)],
        accept: "application/json",
      } as never,
    );
    expect(JSON.parse(answer.body as string)).toMatchObject({ result: ["user", "signal"] });
    expect(contexts[0]).toStrictEqual({ user: "ann", signal: expect.any(AbortSignal) });
    expect(
      Object.getOwnPropertySymbols(contexts[0]).filter(
        (s) => Object.getOwnPropertyDescriptor(contexts[0], s)?.enumerable,
      ),
    ).toEqual([]);
  });

  test("a request that settles leaves no listener on the signal it followed", async () => {
    const caller = new AbortController();
    const quick = { quick: () => Promise.resolve(Success(1)), now: () => Success(2) };
    for (const method of ["quick", "now"]) {
      await asyncDispatch(call(method, 1), quick, {
        context: { signal: caller.signal },
        stages: [timeout(FAR), observe(() => undefined), timeout(FAR)],
      } as never);
      expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    }
  });
});

describe("property: stage lists x sources of abort", () => {
  test("the method's signal aborts and its finally runs, whatever stages are composed", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...KINDS), { maxLength: 5 }),
        fc.constantFrom(...SOURCES),
        fc.boolean(),
        async (kinds, source, streaming) => {
          const timeouts = kinds.filter((kind) => kind === "timeout").length;
          fc.pre(timeouts <= 3 && (source !== "deadline" || timeouts > 0));
          await run(kinds, source, streaming || source === "http-events-gone");
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });
});
