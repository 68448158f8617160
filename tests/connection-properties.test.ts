/**
 * A property of connections: under random interleavings of calls in both directions, answers,
 * cancellations (either convention) and closes, every request is answered at most once, with its
 * own id; exactly once unless MCP-cancelled or the connection closed first; and every call a
 * client made settles.
 */
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import fc from "fast-check";
import * as t from "io-ts";
import { contract, server } from "../src";
import { client, withOptions } from "../src/client";
import { connect, type Cancellation } from "../src/connection";
import { pair, settle } from "./helpers/channels";

const api = contract({ sleep: { params: t.tuple([t.number]), result: t.number } });
const app = server(api)
  .context<object>()
  .implement({
    sleep: (ctx, ms) => () =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(E.right(ms)), ms);
        (ctx as { signal: AbortSignal }).signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
      }),
  });

type Op =
  | { readonly kind: "call"; readonly side: 0 | 1; readonly ms: number }
  | { readonly kind: "cancel"; readonly call: number }
  | { readonly kind: "wait"; readonly ms: number }
  | { readonly kind: "close"; readonly side: 0 | 1 };

const side = fc.constantFrom<0 | 1>(0, 1);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("call" as const), side, ms: fc.integer({ min: 0, max: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), call: fc.nat(30) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("close" as const), side }) },
);

const run = async (cancellation: Cancellation, ops: readonly Op[]): Promise<void> => {
  const [a, b] = pair();
  const peers = [a, b].map((end) => connect(end, { methods: app.methods, context: {}, cancellation }));
  const clients = peers.map((peer) => client(api, peer.transport));
  const calls: Array<{ side: 0 | 1; controller: AbortController; done: Promise<unknown>; cancelled: boolean }> = [];
  let closed = false;
  for (const step of ops) {
    if (step.kind === "call") {
      const controller = new AbortController();
      const call = pipe(
        (clients[step.side] as (typeof clients)[0]).sleep(step.ms),
        withOptions({ signal: controller.signal }),
      );
      calls.push({ side: step.side, controller, done: call(), cancelled: false });
    } else if (step.kind === "cancel") {
      const target = calls[step.call % Math.max(calls.length, 1)];
      if (target !== undefined) {
        target.cancelled = true;
        target.controller.abort();
      }
    } else if (step.kind === "wait") {
      await settle(step.ms);
    } else {
      closed = true;
      peers[step.side]?.close();
    }
  }
  // Every call settles (none hangs), whatever happened.
  await Promise.all(calls.map((call) => call.done));
  await settle(10);
  // What each side received: answers to its own requests, by id.
  for (const [me, end] of [a, b].entries()) {
    const requested = new Map<unknown, boolean>(); // id -> cancelled
    const sentByMe = end.sent.map((text) => JSON.parse(text) as { id?: unknown; method?: string; params?: unknown });
    const cancelledIds = new Set(
      sentByMe
        .filter((m) => m.method === "$/cancelRequest" || m.method === "notifications/cancelled")
        .map((m) => {
          const params = m.params as { id?: unknown; requestId?: unknown };
          return params.id ?? params.requestId;
        }),
    );
    for (const m of sentByMe) if (m.method === "sleep" && "id" in m) requested.set(m.id, cancelledIds.has(m.id));
    const other = me === 0 ? b : a;
    const received = other.sent
      .map((text) => JSON.parse(text) as { id?: unknown; method?: string })
      .filter((m) => m.method === undefined);
    const counts = new Map<unknown, number>();
    for (const response of received) {
      expect(requested.has(response.id)).toBe(true); // no answer to a request never made
      counts.set(response.id, (counts.get(response.id) ?? 0) + 1);
    }
    for (const [id, cancelled] of requested) {
      const count = counts.get(id) ?? 0;
      expect(count).toBeLessThanOrEqual(1);
      if (!closed && !(cancelled && cancellation === "mcp")) expect([id, count]).toEqual([id, 1]);
    }
  }
  for (const peer of peers) peer.close();
  await settle();
  for (const peer of peers) expect(peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
};

test.each(["lsp", "mcp"] as const)(
  "%s: every request answered at most once, exactly once unless cancelled (mcp) or closed",
  async (cancellation) => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), (ops) => run(cancellation, ops)),
      { numRuns: 60, seed: 20261123 },
    );
  },
);
