/**
 * The peer on a connection: serving through the pipeline without head-of-line blocking, calling
 * through its transport, both cancellation conventions, flow control, and closing without leaks.
 */
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as t from "io-ts";
import { getEventListeners } from "node:events";
import { asyncDispatch, contract, Error as RpcError, server, Success } from "../src";
import { client, notify, withOptions } from "../src/client";
import { connect, type Connection } from "../src/connection";
import { lone, pair, settle } from "./helpers/channels";

const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  sleep: { params: t.tuple([t.number]), result: t.string },
  hold: { result: t.string },
  fail: { result: t.null },
});

/** Signals the `sleep` handlers were handed, to check they abort. */
const signals: AbortSignal[] = [];
/**
 * The `hold` requests in flight, each ended by calling it: a request slower than another by the
 * test's say, not by a timer that a loaded machine can let run out first.
 */
const held: Array<() => void> = [];
const app = server(api)
  .context<object>()
  .implement({
    add: (_ctx, a, b) => E.right(a + b),
    sleep: (ctx, ms) => () =>
      new Promise((resolve) => {
        const { signal } = ctx as { signal: AbortSignal };
        signals.push(signal);
        // Cancelled before it started (a cancel can overtake a request on a slow machine): no timer.
        if (signal.aborted) return;
        const timer = setTimeout(() => resolve(E.right(`slept ${ms}`)), ms);
        signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
      }),
    hold: () => () => new Promise((resolve) => void held.push(() => resolve(E.right("released")))),
    fail: () => RpcError(7, "failed"),
  });
const serving = { methods: app.methods, context: {} };

const request = (method: string, params: unknown, id?: number | string): string =>
  JSON.stringify({ jsonrpc: "2.0", method, params, ...(id === undefined ? {} : { id }) });

const answers = (sent: string[]): unknown[] => sent.map((text) => JSON.parse(text) as unknown);

/** Waits until `check` holds, for at most about two seconds (the test then fails on what it asserts). */
const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 400 && !check(); i++) await settle(5);
};

afterEach(() => {
  signals.length = 0;
  held.length = 0;
});

describe("serving", () => {
  test("requests, notifications and a batch go through the pipeline; a notification is not answered", async () => {
    const end = lone();
    connect(end, serving);
    end.inject(request("add", [1, 2], 1));
    end.inject(request("add", [1, 2]));
    end.inject(`[${request("add", [2, 2], "a")},${request("fail", [], 2)},${request("nope", [], 3)}]`);
    await settle(5);
    expect(answers(end.sent)).toEqual([
      { jsonrpc: "2.0", result: 3, id: 1 },
      [
        { jsonrpc: "2.0", result: 4, id: "a" },
        { jsonrpc: "2.0", error: { code: 7, message: "failed" }, id: 2 },
        { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "nope" }, id: 3 },
      ],
    ]);
  });

  test("no head-of-line blocking: a fast request is answered before a slow one sent earlier", async () => {
    const end = lone();
    connect(end, serving);
    end.inject(request("hold", [], 1));
    end.inject(request("sleep", [1], 2));
    await until(() => end.sent.length === 1);
    expect(answers(end.sent).map((a) => (a as { id: number }).id)).toEqual([2]);
    expect(held).toHaveLength(1);
    held[0]?.();
    await until(() => end.sent.length === 2);
    expect(answers(end.sent).map((a) => (a as { id: number }).id)).toEqual([2, 1]);
  });

  test("garbage is -32700, an invalid request -32600, and the connection goes on", async () => {
    const end = lone();
    connect(end, serving);
    end.inject("{not json");
    end.inject('{"jsonrpc":"1.0","method":"add","id":1}');
    end.inject(request("add", [1, 1], 2));
    await settle(5);
    const got = answers(end.sent) as Array<{ error?: { code: number }; result?: unknown }>;
    expect(got.map((a) => a.error?.code ?? a.result)).toEqual([-32700, -32600, 2]);
  });

  test("JSON that is no request (a number, a string, null, an empty or scalar batch) is answered as asyncDispatch answers its text, served at once or after waiting", async () => {
    const messages = ["5", '"add"', "null", "true", "[]", "[1,2]", `[null,${request("add", [1, 1], 1)}]`, "{not json"];
    const expected = await Promise.all(messages.map((text) => asyncDispatch(text, app.methods, { context: {} })));
    expect(expected.every((answer) => answer !== "")).toBe(true);
    // At once: each handed to the pipeline as the value the connection parsed to route it.
    const now = lone();
    connect(now, serving);
    for (const text of messages) now.inject(text);
    await until(() => now.sent.length === messages.length);
    expect(now.sent).toEqual(expected);
    // After waiting for the one slot a slow request holds: kept as text meanwhile, and parsed then.
    const later = lone();
    const peer = connect(later, { ...serving, maxInFlight: 1 });
    later.inject(request("sleep", [20], "slow"));
    for (const text of messages) later.inject(text);
    expect(peer.load().incoming).toBe(messages.length + 1);
    await until(() => later.sent.length === messages.length + 1);
    expect(later.sent.slice(1)).toEqual(expected);
  });

  test("a message over maxMessageLength is answered -32002 and skipped; the connection goes on", async () => {
    const end = lone();
    const peer = connect(end, { ...serving, maxMessageLength: 100 });
    end.inject(request("add", [1, "x".repeat(200)], 1));
    end.inject(request("add", [1, 1], 2));
    await settle(5);
    expect(answers(end.sent)).toEqual([
      {
        jsonrpc: "2.0",
        error: { code: -32002, message: "Message too large", data: { length: 255, max: 100 } },
        id: null,
      },
      { jsonrpc: "2.0", result: 2, id: 2 },
    ]);
    expect(end.isClosed()).toBe(false);
    peer.close();
  });
});

describe("cancellation, incoming", () => {
  test("lsp: $/cancelRequest answers -32800 at once and aborts the signal; a later answer is dropped", async () => {
    const end = lone();
    connect(end, { ...serving, cancellation: "lsp" });
    // A minute: it cannot end before the cancel comes, however slow the machine (aborted, it stops).
    end.inject(request("sleep", [60_000], 1));
    await settle();
    end.inject(JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } }));
    await until(() => end.sent.length === 1);
    expect(answers(end.sent)).toEqual([
      { jsonrpc: "2.0", error: { code: -32800, message: "Request cancelled" }, id: 1 },
    ]);
    expect(signals.map((s) => s.aborted)).toEqual([true]);
  });

  test("mcp: notifications/cancelled aborts the signal and sends no answer", async () => {
    const end = lone();
    connect(end, { ...serving, cancellation: "mcp" });
    end.inject(request("sleep", [60_000], "r1"));
    await settle();
    end.inject(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "r1" } }));
    end.inject(request("add", [1, 1], "r2"));
    await until(() => end.sent.length === 1);
    expect(answers(end.sent)).toEqual([{ jsonrpc: "2.0", result: 2, id: "r2" }]);
    expect(signals.map((s) => s.aborted)).toEqual([true]);
  });

  test("mcp: a cancelled member of a batch is left out of its answer", async () => {
    const end = lone();
    connect(end, { ...serving, cancellation: "mcp" });
    end.inject(`[${request("sleep", [60_000], 1)},${request("add", [1, 2], 2)}]`);
    await settle();
    end.inject(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }));
    // Without the cancel the batch's answer would wait the minute out: none would come here.
    await until(() => end.sent.length === 1);
    expect(answers(end.sent)).toEqual([[{ jsonrpc: "2.0", result: 3, id: 2 }]]);
  });

  test("cancelling an unknown or finished request is ignored", async () => {
    const end = lone();
    connect(end, serving);
    end.inject(request("add", [1, 2], 1));
    await settle();
    end.inject(JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } }));
    end.inject(JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 99 } }));
    end.inject(JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: "junk" }));
    await settle(5);
    expect(answers(end.sent)).toEqual([{ jsonrpc: "2.0", result: 3, id: 1 }]);
  });
});

describe("calling the other side", () => {
  test("both sides serve and call on one connection", async () => {
    const [a, b] = pair();
    const left = connect(a, serving);
    const right = connect(b, serving);
    expect(await client(api, left.transport).add(1, 2)()).toEqual(E.right(3));
    expect(await client(api, right.transport).add(3, 4)()).toEqual(E.right(7));
    left.close();
  });

  test("two clients on one transport share its ids (no answer goes to the wrong call)", async () => {
    const [a, b] = pair();
    const left = connect(a, serving);
    connect(b, serving);
    const one = client(api, left.transport);
    const two = client(api, left.transport);
    expect(await Promise.all([one.add(1, 1)(), two.add(2, 2)(), one.add(3, 3)()])).toEqual([
      E.right(2),
      E.right(4),
      E.right(6),
    ]);
    left.close();
  });

  test.each(["lsp", "mcp"] as const)(
    "%s: aborting a call sends the cancellation; the other side's signal fires",
    async (cancellation) => {
      const [a, b] = pair();
      const left = connect(a, { ...serving, cancellation });
      connect(b, { ...serving, cancellation });
      const controller = new AbortController();
      const call = pipe(client(api, left.transport).sleep(10_000), withOptions({ signal: controller.signal }))();
      await settle(5);
      controller.abort();
      const result = await call;
      expect(E.isLeft(result) && result.left._tag === "TransportError" && result.left.reason).toBe("aborted");
      await settle(5);
      expect(signals.map((s) => s.aborted)).toEqual([true]);
      expect(
        a.sent.some((text) => text.includes(cancellation === "lsp" ? "$/cancelRequest" : "notifications/cancelled")),
      ).toBe(true);
      expect(left.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
      left.close();
    },
  );

  test("a batch and a notification over the connection", async () => {
    const [a, b] = pair();
    const left = connect(a, serving);
    connect(b, serving);
    const other = client(api, left.transport);
    const { batch } = await import("../src/client");
    expect(await batch([other.add(1, 2), other.fail(), notify(other.add(0, 0))])()).toEqual([
      E.right(3),
      E.left({ _tag: "ServerError", code: 7, message: "failed" }),
      E.right(undefined),
    ]);
    left.close();
  });
});

describe("closing", () => {
  test("every in-flight incoming signal aborts, every outgoing call fails closed, nothing is left", async () => {
    const [a, b] = pair();
    const left = connect(a, serving);
    const right = connect(b, serving);
    const calls = [client(api, left.transport).sleep(10_000)(), client(api, left.transport).sleep(10_000)()];
    await settle(5);
    expect(right.load().incoming).toBe(2);
    right.close(new Error("bye"));
    for (const result of await Promise.all(calls)) {
      expect(E.isLeft(result) && result.left._tag === "TransportError" && result.left.reason).toBe("closed");
    }
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
    await expect(left.closed).resolves.toEqual(new Error("bye"));
    expect(left.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
    const after = await client(api, left.transport).add(1, 1)();
    expect(E.isLeft(after) && after.left._tag === "TransportError" && after.left.reason).toBe("closed");
  });
});

describe("flow control", () => {
  test("past maxInFlight messages wait in order; past half of maxWaitingLength reading pauses, and resumes as they are served", async () => {
    const end = lone();
    const peer = connect(end, { ...serving, maxInFlight: 2, maxWaitingLength: 400 });
    // Each request is 57 units: two run, and the fourth waiting one passes the high water (200).
    for (let id = 1; id <= 8; id++) end.inject(request("sleep", [5], id));
    expect(end.flow).toEqual({ paused: 1, resumed: 0 });
    expect(peer.load().incoming).toBe(8);
    await until(() => end.sent.length === 8);
    expect(answers(end.sent).map((answer) => (answer as { id: number }).id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(end.flow).toEqual({ paused: 1, resumed: 1 });
    expect(end.isClosed()).toBe(false);
  });

  test("a burst on a channel that cannot pause waits its turn: all answered, never closed", async () => {
    const end = lone({ pausable: false });
    const peer: Connection = connect(end, { ...serving, maxInFlight: 2 });
    for (let id = 1; id <= 200; id++) end.inject(request("sleep", [1], id));
    expect(peer.load().incoming).toBe(200);
    await until(() => end.sent.length === 200);
    expect(new Set(answers(end.sent).map((answer) => (answer as { id: number }).id)).size).toBe(200);
    expect(end.isClosed()).toBe(false);
    expect(peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
  });

  test("130 notifications in one burst slow the peer down; nothing is lost and the connection stays", async () => {
    const end = lone();
    const heard: number[] = [];
    const peer = connect(end, {
      methods: { note: (n: number) => (heard.push(n), Success(null)), ping: () => Success("pong") },
      maxInFlight: 4,
    });
    for (let n = 0; n < 130; n++) end.inject(JSON.stringify({ jsonrpc: "2.0", method: "note", params: [n] }));
    end.inject(request("ping", [], 1));
    await until(() => end.sent.length === 1);
    expect(heard).toEqual(Array.from({ length: 130 }, (_, n) => n));
    expect(answers(end.sent)).toEqual([{ jsonrpc: "2.0", result: "pong", id: 1 }]);
    expect(peer.load().incoming).toBe(0);
  });

  test("past maxWaitingLength the peer is hostile: the connection closes with the bound in its reason", async () => {
    const end = lone();
    const peer = connect(end, { ...serving, maxInFlight: 1, maxWaitingLength: 200 });
    for (let id = 1; id <= 10; id++) end.inject(request("sleep", [1000], id));
    expect(end.isClosed()).toBe(true);
    await expect(peer.closed).resolves.toEqual(
      new Error("the peer sends past the in-flight limit: 228 units of messages wait, over maxWaitingLength (200)"),
    );
    expect(peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
  });

  test("a batch counts each of its requests, and a connection bounds batches (1024) by default", async () => {
    const end = lone();
    const peer = connect(end, { ...serving, maxInFlight: 4 });
    end.inject(`[${Array.from({ length: 10 }, (_, i) => request("sleep", [5], i + 1)).join(",")}]`);
    end.inject(request("add", [1, 1], "after"));
    // The batch takes 10 slots (it starts alone, past the limit), and the request after it waits.
    expect(peer.load().incoming).toBe(11);
    await until(() => end.sent.length === 2);
    expect((answers(end.sent)[0] as unknown[]).length).toBe(10);
    end.inject(`[${Array.from({ length: 1025 }, (_, i) => request("add", [i, 1], i)).join(",")}]`);
    await until(() => end.sent.length === 3);
    expect(answers(end.sent)[2]).toEqual({
      jsonrpc: "2.0",
      error: { code: -32600, message: "Invalid Request", data: { size: 1025, max: 1024 } },
      id: null,
    });
  });

  test("a peer that never reads: serving stops while the channel is full, and nothing grows; our own calls past maxQueued fail overloaded", async () => {
    const end = lone({ fullAfter: 1 });
    const peer = connect(end, { ...serving, maxQueued: 3 });
    for (let id = 1; id <= 6; id++) end.inject(request("add", [1, id], id));
    await settle(5);
    // The first answer filled the channel: the rest wait, unserved, and the connection stays.
    expect(end.sent).toHaveLength(1);
    expect(peer.load()).toEqual({ incoming: 5, outgoing: 0, queued: 0 });
    const other = client(api, peer.transport);
    const queued = [other.add(1, 1)(), other.add(2, 2)(), other.add(3, 3)()];
    expect(await other.add(4, 4)()).toEqual(E.left({ _tag: "TransportError", reason: "overloaded", limit: 3 }));
    expect(peer.load()).toEqual({ incoming: 5, outgoing: 3, queued: 3 });
    expect(end.isClosed()).toBe(false);
    peer.close();
    for (const answer of await Promise.all(queued)) {
      expect(E.isLeft(answer) && answer.left._tag === "TransportError" && answer.left.reason).toBe("closed");
    }
  });

  test("the last bound: a peer that never reads yet keeps sending what must be answered is closed", async () => {
    const end = lone({ fullAfter: 1 });
    const peer = connect(end, { ...serving, maxQueued: 1, maxInFlight: 1, maxOutgoing: 1, maxMessageLength: 10 });
    // Each too-long message is answered -32002 at once (nothing to serve): only the bound stops them.
    for (let n = 0; n < 6; n++) end.inject(request("add", [1, n], n));
    expect(end.isClosed()).toBe(true);
    await expect(peer.closed).resolves.toEqual(new Error("the peer does not read: 4 messages queued"));
  });

  test("bad limits are RangeErrors, a bad convention a TypeError", () => {
    expect(() => connect(lone(), { maxInFlight: 0 })).toThrow(RangeError);
    expect(() => connect(lone(), { maxQueued: 1.5 })).toThrow(RangeError);
    expect(() => connect(lone(), { maxWaitingLength: -1 })).toThrow(RangeError);
    expect(() => connect(lone(), { maxOutgoing: Number.NaN })).toThrow(RangeError);
    expect(() => connect(lone(), { maxBatchSize: 0 })).toThrow(RangeError);
    expect(() => connect(lone(), { cancellation: "x" as never })).toThrow(TypeError);
  });
});

test("plain methods and Success work on a connection too", async () => {
  const end = lone();
  connect(end, { methods: { ping: () => Success("pong") } });
  end.inject(request("ping", [], 1));
  await settle(5);
  expect(answers(end.sent)).toEqual([{ jsonrpc: "2.0", result: "pong", id: 1 }]);
});
