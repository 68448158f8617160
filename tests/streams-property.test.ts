/**
 * Streams on a connection under random programs (issue 24, "Reliability, in tests"): a property over
 * interleavings of values, cancellations, slow or stopped reading and closes. The server is
 * `connect` on an in-memory channel; its other end is this test, which writes the requests and
 * cancellations by hand and reads what the server sends when the program says (slowly, or not at
 * all for a while). Both conventions: `"lsp"` (`partialResultToken`, `workDoneToken`,
 * `$/cancelRequest`) and `"mcp"` (`_meta.progressToken`, `notifications/cancelled`).
 *
 * Each run draws a few streaming requests, each one a method that yields `1..k`, with random waits
 * between the values (none, a microtask, a turn of the event loop), then answers, throws, yields a
 * value its stream schema refuses, or never finishes (it yields forever and ignores its signal); a
 * token or none; then a list of steps: send the next request, cancel one, read a few messages, stop
 * reading, let the event loop turn, close (the server's `close()`, or the channel ended from this
 * side). The channel says "full" once the messages not yet read reach a small capacity, and drains
 * as they are read; the server's `maxQueued` is small, so a reader that stops may get the
 * connection closed. Once the steps have run, the reader reads again (unless the run says it never
 * does), the unsent requests go out, every answer due is waited for, and the connection is closed.
 *
 * Properties, for every run:
 *
 * - each request has exactly one answer, and a clear one (its result, emptied as LSP requires
 *   after partial results; its error, 7 thrown or -32603 refused; -32800 when LSP-cancelled); none
 *   or one when it was cancelled under MCP, never finishes and was not LSP-cancelled, or the
 *   connection closed first;
 * - its values on the wire (on its own tokens only) are `1, 2, ...` in order, none after its answer;
 *   work-done progress is `begin`, the reports, then one `end` before the answer;
 * - every generator that started has run its `finally` by the end;
 * - no value is held beyond the documented bound: when a method yields its n-th value, its first
 *   n - 1 have all been handed to the channel (one value ahead at most);
 * - no unhandled rejection or uncaught exception; no abort listener left on any method's signal; the
 *   connection's `load()` is zero; the process holds no timer, immediate or handle more than before.
 *
 * A fixed seed and 100 runs per convention in `npm test` (under a second each); `PROPS_SEED` (a
 * number, or `random`) and `PROPS_RUNS` for more:
 * `PROPS_SEED=random PROPS_RUNS=5000 npx jest tests/streams-property.test.ts`.
 */
import { getEventListeners } from "node:events";
import fc from "fast-check";
import { JsonRpcError, Success, withContext, type StandardSchemaV1 } from "../src";
import { connect, type Cancellation, type Channel, type ChannelEvents, type Connection } from "../src/connection";
import { leftOver, resources } from "./helpers/real-channels";
import { recordLogs } from "./support";

const RUNS = Number(process.env["PROPS_RUNS"] ?? "") || 100;
/** `PROPS_SEED=random` draws one (fast-check prints it with any counterexample). */
const SEED =
  process.env["PROPS_SEED"] === "random"
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env["PROPS_SEED"] ?? "") || 20260524;

/** Where a method waits before each value. */
type Pause = "none" | "micro" | "turn";
/** How a method ends after its values. */
type Ending = "return" | "throw" | "refuse" | "never";
/** The tokens a request carries: LSP's (`partial`, `workDone`, `both`), MCP's (`progress`), or none. */
type TokenKind = "none" | "partial" | "workDone" | "both" | "progress";

interface Spec {
  readonly values: number;
  readonly ending: Ending;
  readonly pauses: readonly Pause[];
  readonly token: TokenKind;
}

type Step =
  | { readonly kind: "send" }
  /** Cancels the request sent `request`-th (modulo those sent so far). */
  | { readonly kind: "cancel"; readonly request: number }
  /** Reads `count` of the messages not yet read (a slow reader). */
  | { readonly kind: "read"; readonly count: number }
  | { readonly kind: "stopReading" }
  | { readonly kind: "wait"; readonly turns: number }
  | { readonly kind: "close"; readonly how: "server" | "client" };

interface Program {
  readonly specs: readonly Spec[];
  readonly steps: readonly Step[];
  /** Messages not yet read at which the channel says "full". */
  readonly capacity: number;
  readonly maxQueued: number;
  /** Whether a reader that stopped reads again once the steps have run. */
  readonly resumes: boolean;
}

const spec = (cancellation: Cancellation): fc.Arbitrary<Spec> =>
  fc
    .record({
      values: fc.nat(5),
      ending: fc.constantFrom<Ending>("return", "return", "throw", "refuse", "never"),
      pauses: fc.array(fc.constantFrom<Pause>("none", "micro", "turn"), { minLength: 1, maxLength: 3 }),
      token:
        cancellation === "lsp"
          ? fc.constantFrom<TokenKind>("none", "partial", "workDone", "both")
          : fc.constantFrom<TokenKind>("none", "progress", "progress"),
    })
    // A method that never finishes and never leaves the thread would hold it for good: it waits a
    // turn of the event loop at least once per round.
    .map((drawn) =>
      drawn.ending === "never" && !drawn.pauses.includes("turn")
        ? { ...drawn, pauses: [...drawn.pauses, "turn"] }
        : drawn,
    );

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: "send" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), request: fc.nat(5) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("read" as const), count: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "stopReading" as const }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("wait" as const), turns: fc.integer({ min: 1, max: 6 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("close" as const),
      how: fc.constantFrom("server" as const, "client" as const),
    }),
  },
);

const program = (cancellation: Cancellation): fc.Arbitrary<Program> =>
  fc.record({
    specs: fc.array(spec(cancellation), { minLength: 1, maxLength: 5 }),
    steps: fc.array(step, { minLength: 1, maxLength: 25 }),
    capacity: fc.integer({ min: 1, max: 4 }),
    maxQueued: fc.integer({ min: 2, max: 24 }),
    resumes: fc.boolean(),
  });

/** A message the server sent, as the test reads it. */
interface Message {
  readonly id?: unknown;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly data?: unknown };
}

/** Numbers only: the value `"refused"` is refused, as a method's bad value would be. */
const numbers: StandardSchemaV1<number, number> = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate: (value) => (typeof value === "number" ? { value } : { issues: [{ message: "not a number" }] }),
  },
};

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const pause = async (kind: Pause | undefined): Promise<void> => {
  if (kind === "micro") await Promise.resolve();
  else if (kind === "turn") await turn();
};

/** Request `i`'s id, and its tokens: `p<i>` partial results, `w<i>` work done, `m<i>` MCP progress. */
const ID = 100;
const tokensOf = (kind: TokenKind, i: number): Record<string, unknown> => {
  switch (kind) {
    case "partial":
      return { partialResultToken: `p${i}` };
    case "workDone":
      return { workDoneToken: `w${i}` };
    case "both":
      return { partialResultToken: `p${i}`, workDoneToken: `w${i}` };
    case "progress":
      return { _meta: { progressToken: `m${i}` } };
    case "none":
      return {};
  }
};

/** The request a progress message carries a value of (a partial result, a report, MCP progress), if any. */
const valueOf = (message: Message): number | undefined => {
  const params = message.params ?? {};
  const token = message.method === "$/progress" ? params["token"] : params["progressToken"];
  if (typeof token !== "string") return undefined;
  const value = params["value"] as { kind?: unknown } | undefined;
  if (token.startsWith("w") && value?.kind !== "report") return undefined;
  return Number(token.slice(1));
};

/** What one method did. */
interface Trace {
  started: boolean;
  finished: boolean;
  /** The most values it held at once: yielded, not yet handed to the channel. */
  held: number;
  signal?: AbortSignal;
  /** The run is over: a method still running ends at its next value. */
  abandoned?: boolean;
}

/**
 * The test's end of the channel: what the server sends goes to `wire` (all of it, in order) and to
 * the inbox (not read yet); `send` says "full" once `capacity` messages are unread, and the channel
 * drains as the test reads. `carried[i]`: the values of request `i` the channel has had.
 */
const clientEnd = (p: Program) => {
  const wire: Message[] = [];
  const inbox: Message[] = [];
  const carried = p.specs.map(() => 0);
  let events: ChannelEvents | undefined;
  let full = false;
  const state = { closed: false, reading: true };
  const end = (reason: unknown): void => {
    if (state.closed) return;
    state.closed = true;
    events?.closed(reason);
  };
  const channel: Channel = {
    send: (text) => {
      if (state.closed) return false;
      const message = JSON.parse(text) as Message;
      wire.push(message);
      inbox.push(message);
      const of = valueOf(message);
      if (of !== undefined) carried[of] = (carried[of] ?? 0) + 1;
      full = inbox.length >= p.capacity;
      return !full;
    },
    start: (given) => {
      events = given;
    },
    close: end,
  };
  const read = (count: number): void => {
    if (!state.reading) return;
    inbox.splice(0, count);
    if (full && !state.closed && inbox.length < p.capacity) {
      full = false;
      events?.drain();
    }
  };
  const deliver = (message: object): void => {
    const text = JSON.stringify(message);
    queueMicrotask(() => {
      if (!state.closed) events?.message(text);
    });
  };
  return { channel, wire, carried, state, end, read, deliver };
};

/** The served method: request `i` runs `p.specs[i]`, recording what it does in `traces[i]`. */
const streamer = (p: Program, traces: readonly Trace[], carried: readonly number[]) =>
  withContext<{ signal: AbortSignal }>().withCodecs({ stream: numbers }, async function* (ctx, params: unknown) {
    const i = (params as { index: number }).index;
    const { values, ending, pauses, token } = p.specs[i] as Spec;
    const trace = traces[i] as Trace;
    trace.started = true;
    trace.signal = ctx.signal;
    try {
      for (let n = 1; (ending === "never" && !trace.abandoned) || n <= values; n++) {
        await pause(pauses[(n - 1) % pauses.length]);
        // Values held once this one is yielded: it, and those the channel has not had yet.
        if (token !== "none") trace.held = Math.max(trace.held, n - (carried[i] ?? 0));
        yield n;
      }
      await pause(pauses[0]);
      if (ending === "throw") throw new JsonRpcError(7, "failed mid-stream");
      if (ending === "refuse") yield "refused" as unknown as number;
      return Success(Array.from({ length: values }, (_, k) => k + 1));
    } finally {
      trace.finished = true;
    }
  });

/** One run: the server, the test's end, and what the steps did. */
interface Run {
  readonly cancellation: Cancellation;
  readonly p: Program;
  readonly end: ReturnType<typeof clientEnd>;
  readonly peer: Connection;
  readonly traces: readonly Trace[];
  readonly sent: number[];
  readonly cancelled: Set<number>;
  peerClosed: boolean;
}

const send = (run: Run): void => {
  const i = run.sent.length;
  const spec = run.p.specs[i];
  if (spec === undefined) return;
  run.sent.push(i);
  run.end.deliver({ jsonrpc: "2.0", method: "run", params: { index: i, ...tokensOf(spec.token, i) }, id: ID + i });
};

const execute = async (run: Run, s: Step): Promise<void> => {
  switch (s.kind) {
    case "send":
      return send(run);
    case "cancel": {
      const i = run.sent[s.request % Math.max(run.sent.length, 1)];
      if (i === undefined) return;
      run.cancelled.add(i);
      run.end.deliver(
        run.cancellation === "lsp"
          ? { jsonrpc: "2.0", method: "$/cancelRequest", params: { id: ID + i } }
          : { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: ID + i, reason: "test" } },
      );
      return;
    }
    case "read":
      return run.end.read(s.count);
    case "stopReading":
      run.end.state.reading = false;
      return;
    case "wait":
      for (let k = 0; k < s.turns; k++) await turn();
      return;
    case "close":
      if (s.how === "server") run.peer.close(new Error("closed by the test"));
      else run.end.end(new Error("the client went away"));
      return;
  }
};

/** Whether request `i` must be answered if nothing closes first. */
const due = (run: Run, i: number): boolean =>
  run.cancelled.has(i) ? run.cancellation === "lsp" : run.p.specs[i]?.ending !== "never";

const isAnswerTo = (i: number) => (message: Message) => message.id === ID + i && message.method === undefined;

/**
 * After the steps: unless closed, the reader reads again (if the run says so), the unsent requests
 * go out, and every answer due is waited for; then the server closes, and its methods stop.
 * Whether the connection closed (or went unread) before the answers were due.
 */
const finish = async (run: Run): Promise<boolean> => {
  const { end, p, peer, traces, sent } = run;
  const silent = !end.state.reading && !p.resumes;
  if (p.resumes) end.state.reading = true;
  const early = (): boolean => end.state.closed || run.peerClosed;
  if (!early()) while (sent.length < p.specs.length) send(run);
  for (let k = 0; k < 3000 && !early(); k++) {
    if (silent ? k >= 50 : sent.every((i) => !due(run, i) || end.wire.some(isAnswerTo(i)))) break;
    end.read(Infinity);
    await turn();
  }
  const closedFirst = early() || silent;
  peer.close();
  const stopped = (): boolean => run.peerClosed && traces.every((trace) => trace.finished || !trace.started);
  for (let k = 0; k < 500 && !stopped(); k++) await turn();
  return closedFirst;
};

/** Request `i`'s answer, if it has one: exactly one unless `optional`, and a clear one. */
const checkAnswer = (run: Run, i: number, what: string, optional: boolean): number => {
  const { values, ending, token } = run.p.specs[i] as Spec;
  const answers = run.end.wire.flatMap((m, at) => (isAnswerTo(i)(m) ? [at] : []));
  expect([what, "answers", optional ? Math.min(answers.length, 1) : 1]).toEqual([what, "answers", answers.length]);
  const at = answers[0];
  const answer = at === undefined ? undefined : run.end.wire[at];
  if (answer === undefined) return run.end.wire.length;
  const cancelled = answer.error?.code === -32800 && run.cancellation === "lsp" && run.cancelled.has(i);
  const emptied = (token === "partial" || token === "both") && values > 0;
  const expected = cancelled
    ? { code: -32800 }
    : ending === "return"
      ? { result: emptied ? [] : Array.from({ length: values }, (_, k) => k + 1) }
      : { code: { throw: 7, refuse: -32603, never: "no answer of its own" }[ending] };
  const got = answer.error === undefined ? { result: answer.result } : { code: answer.error.code };
  expect([what, got]).toEqual([what, expected]);
  return at as number;
};

/** Request `i`'s progress: its values 1, 2, ... in order, all before its answer (at `at`); work done begun and ended. */
const checkValues = (run: Run, i: number, what: string, at: number): void => {
  const { values, ending, token } = run.p.specs[i] as Spec;
  const mine = run.end.wire.flatMap((m, where) => {
    const params = m.params ?? {};
    const tok = params["token"] ?? params["progressToken"];
    return typeof tok === "string" && Number(tok.slice(1)) === i ? [{ params, where }] : [];
  });
  expect([what, "after its answer", mine.filter(({ where }) => where > at).length]).toEqual([
    what,
    "after its answer",
    0,
  ]);
  const numbered = mine.flatMap(({ params }) => {
    if (token === "progress") {
      expect([what, params["message"]]).toEqual([what, String(params["progress"])]);
      return [params["progress"]];
    }
    const value = params["value"] as { kind?: string; message?: string } | number;
    if (typeof value === "number") return [value];
    return value.kind === "report" ? [Number(value.message)] : [];
  });
  expect([what, numbered]).toEqual([what, numbered.map((_, k) => k + 1)]);
  if (ending !== "never") expect([what, numbered.length <= values]).toEqual([what, true]);
  if (token !== "workDone" && token !== "both") return;
  // Work done: begin, then the reports (none when the values are partial results), at most one
  // end and last; an answered request that began had its end.
  const kinds = mine
    .filter(({ params }) => params["token"] === `w${i}`)
    .map(({ params }) => (params["value"] as { kind: string }).kind);
  const ends = kinds.filter((kind) => kind === "end").length;
  const shape = kinds.map((_, k) =>
    k === 0 ? "begin" : k === kinds.length - 1 && ends > 0 ? "end" : token === "both" ? "nothing" : "report",
  );
  expect([what, kinds]).toEqual([what, shape]);
  if (at < run.end.wire.length && kinds.length > 0) expect([what, "ends", ends]).toEqual([what, "ends", 1]);
};

/** Every method stopped, none held more than a value, no listener on its signal; the connection empty. */
const checkMethods = (run: Run): void => {
  run.traces.forEach((trace, i) => {
    const what = `request ${i} (${JSON.stringify(run.p.specs[i])})`;
    expect([what, trace.started && !trace.finished ? "still running" : "stopped"]).toEqual([what, "stopped"]);
    expect([what, "held", Math.min(trace.held, 1)]).toEqual([what, "held", trace.held]);
    const listeners = trace.signal === undefined ? 0 : getEventListeners(trace.signal, "abort").length;
    expect([what, "abort listeners", listeners]).toEqual([what, "abort listeners", 0]);
  });
  expect(run.peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
};

/** Methods a failed run's connection did not stop: they end at their next value, not in later runs. */
let abandon = (): void => undefined;

const property = async (cancellation: Cancellation, p: Program): Promise<void> => {
  const escaped: string[] = [];
  const onRejection = (reason: unknown): void => void escaped.push(`unhandledRejection: ${String(reason)}`);
  const onException = (error: unknown): void => void escaped.push(`uncaughtException: ${String(error)}`);
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  // What the library logs (a method that threw, a value refused) is expected here, and jest's
  // console would hold a timer of its own for it.
  const logs = recordLogs();
  const before = resources();
  try {
    const end = clientEnd(p);
    const traces: Trace[] = p.specs.map(() => ({ started: false, finished: false, held: 0 }));
    abandon = () => traces.forEach((trace) => (trace.abandoned = true));
    const peer = connect(end.channel, {
      methods: { run: streamer(p, traces, end.carried) },
      context: {},
      cancellation,
      maxQueued: p.maxQueued,
    });
    const run: Run = { cancellation, p, end, peer, traces, sent: [], cancelled: new Set(), peerClosed: false };
    void peer.closed.then(() => (run.peerClosed = true));
    for (const s of p.steps) await execute(run, s);
    const closedFirst = await finish(run);

    for (const i of run.sent) {
      const what = `request ${i} (${JSON.stringify(p.specs[i])}${run.cancelled.has(i) ? ", cancelled" : ""})`;
      checkValues(run, i, what, checkAnswer(run, i, what, closedFirst || !due(run, i)));
    }
    // Nothing for a request never sent.
    const ids = new Set(run.sent.map((i) => ID + i));
    expect(end.wire.filter((m) => m.id !== undefined && !ids.has(m.id as number))).toEqual([]);
    checkMethods(run);

    // Jest's status line holds a 100 ms timer of its own now and then: a few short waits (bounded) before judging.
    let left = leftOver(before, resources());
    for (let k = 0; k < 20 && left.length > 0; k++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      left = leftOver(before, resources());
    }
    expect(left).toEqual([]);
    expect(escaped).toEqual([]);
  } finally {
    abandon();
    logs.restore();
    process.off("unhandledRejection", onRejection);
    process.off("uncaughtException", onException);
  }
};

describe.each(["lsp", "mcp"] as const)("streams on a connection, %s convention", (cancellation) => {
  test("every request: one clear answer, its values in order before it; every method stopped; nothing held or left", async () => {
    await fc.assert(
      fc.asyncProperty(program(cancellation), (p) => property(cancellation, p)),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
