/**
 * Connections on real channels (issue 21, items 1 and 2): TCP sockets with both framings, `ws`,
 * `worker_threads` ports and a child process's pipes, driven raw with writes coalesced into one
 * burst or split at every byte. A real Node stream does not stop at `pause()` (a chunk already
 * read is delivered whole, and the kernel's backlog arrives as one chunk on resume), so these
 * find what the in-memory pair cannot:
 *
 * - a burst of well-formed messages slows the peer, it never closes the connection, and every
 *   request is answered exactly once with its id;
 * - with every slot taken by methods that call back to the other side, the answers they wait for
 *   and cancellations are still read (no deadlock).
 *
 * No timing is asserted: the slow methods wait on timers only to be slow, and every wait is bounded.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as t from "io-ts";
import { contract, server } from "../src";
import { client, withOptions } from "../src/client";
import { connect, type Connection } from "../src/connection";
import {
  bounded,
  frameReader,
  KINDS,
  rawEnd,
  rawSocketEnd,
  rawWriter,
  realPair,
  type Kind,
} from "./helpers/real-channels";

const api = contract({
  note: { params: t.tuple([t.number]) },
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  slow: { params: t.tuple([t.number]), result: t.number },
  ask: { params: t.tuple([t.number]), result: t.number },
  echo: { params: t.tuple([t.number]), result: t.number },
});

/** What the methods of one side saw. */
interface Seen {
  readonly notes: number[];
  /** `ask` calls whose signal aborted, by their argument. */
  readonly cancelled: Set<number>;
  /** `echo` calls waiting on `release`, by their argument. */
  readonly held: number[];
}

/**
 * The methods of one side: `slow` waits `ms` on a timer (cleared when its signal aborts); `ask`
 * calls `echo` on the other side before it answers; `echo` waits for `gate` (open by default).
 */
const methodsOf = (peer: () => Connection, seen: Seen, gate: () => Promise<void> = () => Promise.resolve()) =>
  server(api)
    .context<object>()
    .implement({
      note: (_ctx, n) => {
        seen.notes.push(n);
        return E.right(undefined as never);
      },
      add: (_ctx, a, b) => E.right(a + b),
      slow: (ctx, ms) => () =>
        new Promise((resolve) => {
          const { signal } = ctx as { signal: AbortSignal };
          const timer = setTimeout(() => resolve(E.right(ms)), ms);
          signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
        }),
      ask: (ctx, n) => () => {
        const { signal } = ctx as { signal: AbortSignal };
        signal.addEventListener("abort", () => seen.cancelled.add(n), { once: true });
        return client(api, peer().transport)
          .echo(n)()
          .then((answer) =>
            E.isRight(answer)
              ? E.right(answer.right)
              : E.left({ code: -32603, message: `echo failed: ${JSON.stringify(answer.left)}`, data: undefined }),
          );
      },
      echo: (_ctx, n) => () => {
        seen.held.push(n);
        return gate().then(() => E.right(n));
      },
    }).methods;

const newSeen = (): Seen => ({ notes: [], cancelled: new Set(), held: [] });

const request = (method: string, params: unknown, id?: number): string =>
  JSON.stringify({ jsonrpc: "2.0", method, params, ...(id === undefined ? {} : { id }) });

type Answer = { readonly id?: unknown; readonly result?: unknown; readonly error?: { readonly code: number } };

/** The ids answered, each with how many times. */
const answerCounts = (received: readonly unknown[]): Map<unknown, number> => {
  const counts = new Map<unknown, number>();
  for (const message of received.flatMap((m) => (Array.isArray(m) ? m : [m])) as Answer[]) {
    if (message.id !== undefined) counts.set(message.id, (counts.get(message.id) ?? 0) + 1);
  }
  return counts;
};

/** Watches a connection's `closed`: the reason once it has closed. */
const watchClosed = (peer: Connection): (() => unknown) => {
  let reason: unknown = undefined;
  let closed = false;
  void peer.closed.then((why) => {
    closed = true;
    reason = why;
  });
  return () => (closed ? (reason ?? "closed") : undefined);
};

/** `promise`, whose failure also says whether (and why) the connection closed. */
const saying = <T>(peer: Connection, promise: Promise<T>): Promise<T> =>
  promise.catch(async (error: unknown) => {
    const state = await Promise.race([
      peer.closed.then((reason) => `closed: ${String(reason)}`),
      new Promise<string>((resolve) => setTimeout(() => resolve("still open"), 0)),
    ]);
    throw new Error(`${error instanceof Error ? error.message : String(error)}; the connection is ${state}`);
  });

const range = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i);

describe.each(KINDS)("%s", (kind: Kind) => {
  test("130 small notifications in one burst, then requests: nothing closes, every request is answered", async () => {
    const end = await rawEnd(kind);
    const seen = newSeen();
    let peer: Connection | undefined;
    try {
      peer = connect(end.channel, { methods: methodsOf(() => peer as Connection, seen), context: {} });
      const closedWith = watchClosed(peer);
      await end.burst(range(1, 130).map((n) => request("note", [n])));
      await end.burst(range(1, 10).map((id) => request("add", [id, id], id)));
      await saying(
        peer,
        end.until((received) => answerCounts(received).size >= 10, "10 answers"),
      );
      expect(closedWith()).toBeUndefined();
      expect(seen.notes.sort((a, b) => a - b)).toEqual(range(1, 130));
      expect(end.received).toEqual(
        expect.arrayContaining(range(1, 10).map((id) => ({ jsonrpc: "2.0", result: 2 * id, id }))),
      );
      expect([...answerCounts(end.received)]).toEqual(range(1, 10).map((id) => [id, 1]));
    } finally {
      peer?.close();
      await end.dispose();
    }
  });

  test("300 requests at once to a 300 ms method (maxInFlight 64): each answered once with its id, still open", async () => {
    const end = await rawEnd(kind);
    const seen = newSeen();
    let peer: Connection | undefined;
    try {
      peer = connect(end.channel, { methods: methodsOf(() => peer as Connection, seen), context: {} });
      const closedWith = watchClosed(peer);
      await end.burst(range(1, 300).map((id) => request("slow", [300], id)));
      await saying(
        peer,
        end.until((received) => received.length >= 300, "300 answers", 30_000),
      );
      expect(closedWith()).toBeUndefined();
      expect([...answerCounts(end.received)].sort(([a], [b]) => Number(a) - Number(b))).toEqual(
        range(1, 300).map((id) => [id, 1]),
      );
      expect(end.received.every((m) => (m as Answer).result === 300)).toBe(true);
      expect(peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
    } finally {
      peer?.close();
      await end.dispose();
    }
  });

  test("deadlock: maxInFlight 4, 20 methods that call back before answering; a cancellation is read while every slot is busy", async () => {
    const pair = await realPair(kind);
    const callerSeen = newSeen();
    const serverSeen = newSeen();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let caller: Connection | undefined;
    let serving: Connection | undefined;
    try {
      // The caller's `echo` is held until the test releases it: the serving side's four slots stay
      // taken by `ask`s, each awaiting its call back.
      caller = connect(pair.channels[0], {
        methods: methodsOf(
          () => caller as Connection,
          callerSeen,
          () => gate,
        ),
        context: {},
      });
      serving = connect(pair.channels[1], {
        methods: methodsOf(() => serving as Connection, serverSeen),
        context: {},
        maxInFlight: 4,
      });
      const closedWith = [watchClosed(caller), watchClosed(serving)];
      const controllers = range(0, 20).map(() => new AbortController());
      const ask = (n: number) =>
        pipe(client(api, (caller as Connection).transport).ask(n), withOptions({ signal: controllers[n]?.signal }))();
      const stillOpen = (): boolean => closedWith.every((c) => c() === undefined);
      // Four asks take the serving side's four slots, each awaiting its call back (held).
      const asks = range(0, 4).map(ask);
      await bounded(
        (async () => {
          while (callerSeen.held.length < 4 && stillOpen()) await new Promise((r) => setTimeout(r, 5));
        })(),
        "four call backs to arrive",
      );
      expect(closedWith.map((c) => c())).toEqual([undefined, undefined]);
      const target = callerSeen.held[0] as number;
      controllers[target]?.abort();
      // The cancellation is read and acted on (the ask's signal aborts) while every slot is busy.
      await bounded(
        (async () => {
          while (!serverSeen.cancelled.has(target) && stillOpen()) await new Promise((r) => setTimeout(r, 5));
        })(),
        `the cancellation of ask(${target}) to be read while all slots are busy`,
      );
      // Sixteen more, in one go, while the call backs are still held; then the call backs are answered.
      asks.push(...range(4, 16).map(ask));
      expect(serverSeen.cancelled).toEqual(new Set([target]));
      release();
      const results = await bounded(Promise.all(asks), "all 20 asks to settle", 30_000);
      results.forEach((result, n) => {
        if (n === target)
          expect(E.isLeft(result) && result.left._tag === "TransportError" && result.left.reason).toBe("aborted");
        else expect([n, result]).toEqual([n, E.right(n)]);
      });
      expect(closedWith.map((c) => c())).toEqual([undefined, undefined]);
    } finally {
      release();
      caller?.close();
      serving?.close();
      await pair.dispose();
    }
  });
});

describe.each(["newline", "contentLength"] as const)("TCP, %s framing, split at every byte", (framing) => {
  test("requests, notifications and a batch written one byte per write (multi-byte characters too)", async () => {
    const end = await rawSocketEnd(framing);
    const seen = newSeen();
    let peer: Connection | undefined;
    try {
      peer = connect(end.channel, { methods: methodsOf(() => peer as Connection, seen), context: {} });
      const closedWith = watchClosed(peer);
      const texts = [
        request("note", [1]),
        request("add", [1, 2], 1),
        // Multi-byte characters are split inside their UTF-8 sequences.
        JSON.stringify({ jsonrpc: "2.0", method: "add", params: [3, 4], id: "é𝄞✓" }),
        `[${request("add", [5, 6], 3)},${request("note", [2])},${request("slow", [1], 4)}]`,
      ];
      await end.split(texts);
      await saying(
        peer,
        end.until((received) => received.length >= 3, "3 answers"),
      );
      expect(closedWith()).toBeUndefined();
      expect(end.received).toEqual([
        { jsonrpc: "2.0", result: 3, id: 1 },
        { jsonrpc: "2.0", result: 7, id: "é𝄞✓" },
        [
          { jsonrpc: "2.0", result: 11, id: 3 },
          { jsonrpc: "2.0", result: 1, id: 4 },
        ],
      ]);
      expect(seen.notes).toEqual([1, 2]);
    } finally {
      peer?.close();
      await end.dispose();
    }
  });

  test("a burst of 130 notifications and 300 slow requests in one write, then the same split at every byte", async () => {
    const end = await rawSocketEnd(framing);
    const seen = newSeen();
    let peer: Connection | undefined;
    try {
      peer = connect(end.channel, { methods: methodsOf(() => peer as Connection, seen), context: {} });
      const closedWith = watchClosed(peer);
      await end.burst([
        ...range(1, 130).map((n) => request("note", [n])),
        ...range(1, 300).map((id) => request("slow", [20], id)),
      ]);
      await end.split(range(301, 70).map((id) => request("add", [id, 0], id)));
      await saying(
        peer,
        end.until((received) => received.length >= 370, "370 answers", 30_000),
      );
      expect(closedWith()).toBeUndefined();
      expect([...answerCounts(end.received)].sort(([a], [b]) => Number(a) - Number(b))).toEqual(
        range(1, 370).map((id) => [id, 1]),
      );
      expect(seen.notes.length).toBe(130);
    } finally {
      peer?.close();
      await end.dispose();
    }
  });
});

describe("a child process over stdio: examples/lsp/server.mjs (Content-Length)", () => {
  const ROOT = join(__dirname, "..");
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });

  test("300 example/slow requests in one burst: every one answered once, the process does not exit", async () => {
    if (!existsSync(join(ROOT, "dist/esm/connection.js"))) throw new Error("run `npm run build` first");
    const spawned = spawn(process.execPath, ["examples/lsp/server.mjs"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    });
    child = spawned;
    let exited: number | string | null | undefined;
    const exit = new Promise<void>((resolve) =>
      spawned.on("exit", (code, signal) => {
        exited = code ?? signal;
        resolve();
      }),
    );
    let stderr = "";
    spawned.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const received: Answer[] = [];
    let wake: () => void = () => undefined;
    spawned.stdout.on(
      "data",
      frameReader("contentLength", (text) => {
        received.push(JSON.parse(text) as Answer);
        wake();
      }),
    );
    const writer = rawWriter("contentLength", { write: (bytes, done) => spawned.stdin.write(bytes, done) });
    await writer.burst(range(1, 300).map((id) => request("example/slow", { ms: 300 }, id)));
    await bounded(
      new Promise<void>((resolve, reject) => {
        wake = () => {
          if (received.length >= 300) resolve();
        };
        void exit.then(() =>
          reject(
            new Error(
              `the server exited (${String(exited)}) after ${received.length} answers; stderr: ${stderr.slice(0, 200)}`,
            ),
          ),
        );
        wake();
      }),
      "300 answers from the LSP example",
      30_000,
    );
    expect(exited).toBeUndefined();
    expect([...answerCounts(received)].sort(([a], [b]) => Number(a) - Number(b))).toEqual(
      range(1, 300).map((id) => [id, 1]),
    );
    expect(received.every((answer) => answer.result === "slept 300 ms")).toBe(true);
    // It still serves, then shuts down as a language server does.
    await writer.burst([
      JSON.stringify({ jsonrpc: "2.0", method: "shutdown", id: 301 }),
      JSON.stringify({ jsonrpc: "2.0", method: "exit" }),
    ]);
    await bounded(exit, "the LSP example to exit");
    expect(exited).toBe(0);
  });
});
