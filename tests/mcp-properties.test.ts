/**
 * A property of rpcserver/mcp on a connection (MCP's `notifications/cancelled`), driven by a client
 * written here as raw JSON-RPC on an in-memory channel: under random interleavings of tool calls
 * (a generator of progress, a wait, a throw; with a progress token or without), cancellations of
 * calls in flight, of calls over and of ids never used, and waits, every request is answered at most
 * once, exactly once unless it was cancelled, with what its tool answers; a call's progress is its
 * own, in order, and none comes after its answer; a cancel of an id that is not in flight is answered
 * with nothing; and every tool that started has ended (its `finally` run) once the calls are over.
 * Changes of the tool list while all this runs (a tool added and removed) each reach the client as
 * one `notifications/tools/list_changed`, and a call of that tool is answered once, by the tool or
 * as unknown.
 */
import * as E from "fp-ts/Either";
import fc from "fast-check";
import * as t from "io-ts";
import { connect } from "../src/connection";
import { mcpServer, tool } from "../src/mcp";
import { setLogger } from "../src/internal/core/logger";
import { pair, settle } from "./helpers/channels";

// The throwing tool's log lines ("a tool threw") are expected: kept off the test's output.
beforeAll(() => setLogger({ error: () => undefined, warn: () => undefined, info: () => undefined }));

const seen = { started: 0, ended: 0 };
// Its abort listener goes with the pause: a tool pauses many times under one signal.
const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });

const kit = mcpServer({
  name: "property",
  version: "1.0.0",
  tools: {
    count: tool({
      description: "Yields progress 1..to, every other one after a timer",
      input: t.type({ to: t.number }),
      run: async function* ({ to }, { signal }) {
        seen.started += 1;
        try {
          for (let progress = 1; progress <= to; progress += 1) {
            if (progress % 2 === 0) await pause(0, signal);
            yield { progress, total: to };
          }
          return E.right(`counted to ${to}`);
        } finally {
          seen.ended += 1;
        }
      },
    }),
    sleep: tool({
      description: "Waits ms",
      input: t.type({ ms: t.number }),
      run: async ({ ms }, { signal }) => {
        seen.started += 1;
        try {
          await pause(ms, signal);
          return E.right(`slept ${ms}`);
        } finally {
          seen.ended += 1;
        }
      },
    }),
    fail: tool({
      description: "Throws",
      run: () => {
        throw new Error("thrown on purpose");
      },
    }),
  },
});

type Op =
  | { readonly kind: "count"; readonly to: number; readonly token: boolean }
  | { readonly kind: "sleep"; readonly ms: number; readonly token: boolean }
  | { readonly kind: "fail" }
  | { readonly kind: "cancel"; readonly call: number }
  | { readonly kind: "cancelUnknown" }
  | { readonly kind: "wait"; readonly ms: number }
  | { readonly kind: "change" }
  | { readonly kind: "extra" };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("count" as const),
      to: fc.integer({ min: 0, max: 40 }),
      token: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("sleep" as const),
      ms: fc.integer({ min: 0, max: 4 }),
      token: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fail" as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("cancel" as const), call: fc.nat(30) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelUnknown" as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("change" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("extra" as const) }) },
);

/** The tool the `change` steps add and remove, in turn. */
const extra = tool({ description: "Here for a while", run: () => E.right("extra") });
let extraThere = false;

interface Message {
  readonly id?: number;
  readonly method?: string;
  readonly params?: { readonly progressToken?: string; readonly progress?: number };
  readonly result?: unknown;
  readonly error?: unknown;
}

interface Call {
  readonly id: number;
  readonly token: string | undefined;
  /** What it answers (`result`), or either of these for a call of the tool that comes and goes. */
  readonly expected: unknown;
  readonly either?: readonly unknown[];
  readonly values: number;
  cancelled: boolean;
}

const text = (value: string, isError = false) => ({
  content: [{ type: "text", text: value }],
  ...(isError ? { isError } : {}),
});

const run = async (ops: readonly Op[]): Promise<void> => {
  const [server, client] = pair();
  const peer = connect(server, { methods: kit.methods, stages: kit.stages, context: {}, cancellation: "mcp" });
  const received: Message[] = [];
  client.start({
    message: (line) => void received.push(JSON.parse(line) as Message),
    oversize: () => undefined,
    drain: () => undefined,
    closed: () => undefined,
  });
  const calls: Call[] = [];
  const before = { ...seen };
  let changes = 0;
  // The client says who it is first: from then on it hears of the server's changes.
  client.send(
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"p","version":"1"}}}',
  );
  for (let turn = 0; turn < 100 && !received.some((m) => m.id === 0); turn += 1) await settle(1);
  received.length = 0;
  for (const step of ops) {
    if (step.kind === "count" || step.kind === "sleep" || step.kind === "fail") {
      const id = calls.length + 1;
      const token = step.kind !== "fail" && step.token ? `t${id}` : undefined;
      const args = step.kind === "count" ? { to: step.to } : step.kind === "sleep" ? { ms: step.ms } : {};
      calls.push({
        id,
        token,
        values: step.kind === "count" ? step.to : 0,
        expected:
          step.kind === "count"
            ? text(`counted to ${step.to}`)
            : step.kind === "sleep"
              ? text(`slept ${step.ms}`)
              : text("thrown on purpose", true),
        cancelled: false,
      });
      const meta = token === undefined ? {} : { _meta: { progressToken: token } };
      client.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: step.kind, arguments: args, ...meta },
        }),
      );
    } else if (step.kind === "cancel") {
      const target = calls[step.call % Math.max(calls.length, 1)];
      if (target !== undefined) {
        target.cancelled = true;
        client.send(
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: target.id } }),
        );
      }
    } else if (step.kind === "change") {
      extraThere = !extraThere;
      changes += 1;
      kit.change({ tools: { extra: extraThere ? extra : undefined } });
    } else if (step.kind === "extra") {
      const id = calls.length + 1;
      calls.push({
        id,
        token: undefined,
        values: 0,
        expected: undefined,
        either: [text("extra"), -32602],
        cancelled: false,
      });
      client.send(
        JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "extra", arguments: {} } }),
      );
    } else if (step.kind === "cancelUnknown") {
      client.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 10_000 } }));
    } else {
      await settle(step.ms);
    }
  }
  // Until every call not cancelled is answered and every tool that started has ended (bounded: a
  // hang fails the checks below, not the test's time-out).
  const answered = (id: number): number => received.filter((m) => m.id === id && m.method === undefined).length;
  for (let turn = 0; turn < 2_000; turn += 1) {
    if (
      calls.every((call) => call.cancelled || answered(call.id) > 0) &&
      seen.started - before.started === seen.ended - before.ended
    )
      break;
    await settle(1);
  }
  await settle(5);
  for (const message of received) {
    // Nothing but answers to calls made, progress on their tokens, and list changes: no error for an unknown cancel.
    if (message.method === undefined) expect(calls.some((call) => call.id === message.id)).toBe(true);
    else expect(["notifications/progress", "notifications/tools/list_changed"]).toContain(message.method);
  }
  expect(received.filter((m) => m.method === "notifications/tools/list_changed")).toHaveLength(changes);
  for (const call of calls) {
    const answers = received.flatMap((m, at) => (m.id === call.id && m.method === undefined ? [at] : []));
    expect(answers.length).toBeLessThanOrEqual(1);
    if (!call.cancelled) expect([call.id, answers.length]).toEqual([call.id, 1]);
    const at = answers[0];
    // The tool that comes and goes: its answer, or -32602 (unknown) as the list stood when the call was read.
    if (at !== undefined && call.either !== undefined)
      expect(call.either).toContainEqual(received[at]?.result ?? (received[at]?.error as { code?: number }).code);
    else if (at !== undefined) expect(received[at]?.result).toEqual(call.expected);
    const progress = received.flatMap((m, index) =>
      m.method === "notifications/progress" && m.params?.progressToken === call.token && call.token !== undefined
        ? [{ index, progress: m.params?.progress }]
        : [],
    );
    // In order, from 1, all before the answer; all of them when it was not cancelled.
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_p, i) => i + 1));
    if (at !== undefined) expect(progress.every((p) => p.index < at)).toBe(true);
    if (!call.cancelled && call.token !== undefined) expect(progress).toHaveLength(call.values);
  }
  expect(seen.ended - before.ended).toBe(seen.started - before.started);
  peer.close();
  await settle();
};

test("every call answered at most once, exactly once unless cancelled; progress its own, in order, before its answer; every tool ended", async () => {
  await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 25 }), run), { numRuns: 60, seed: 20261130 });
});
