/**
 * Streams on a connection, the client side (issue 24, items 4 and 5): a call made through a
 * connection's `transport` with `onValue` carries a progress token (its own id, where the
 * connection's convention puts it), the other side's progress notifications on that token are its
 * values, handed to `onValue` in order, then its answer comes. rpcserver's client against
 * rpcserver's server, both conventions, on the in-memory pair (tests/helpers/channels.ts, whose
 * paused end really stops receiving) and on a real TCP socket (Content-Length framing for LSP,
 * newline-delimited for MCP).
 *
 * No timing is asserted: every wait is on a condition, and bounded.
 */
import type { Socket } from "node:net";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { contract, Success } from "../src";
import { client, foldStream, open, type TransportError, type TransportOptions } from "../src/client";
import { connect, type Cancellation, type Channel, type ChannelEvents, type Connection } from "../src/connection";
import { pair } from "./helpers/channels";
import { tcpPair } from "./helpers/real-channels";

/** Values held for slow consumers past which reading pauses (docs/streams.md). */
const HIGH_WATER = 16;

/** Unhandled rejections while these tests run: there must be none. */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => process.on("unhandledRejection", onUnhandled));
afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

/** Waits until `done` holds: a macrotask at a time, at most ten seconds (then fails, naming `what`). */
const until = async (done: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
};

/** A few macrotasks, for what is under way to arrive (nothing is asserted about time). */
const turns = async (count = 20): Promise<void> => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

// ------------------------------------------------------------------------------- the server

/** What one run of a method did: values made, and whether its `finally` ran. */
interface Probe {
  produced: number;
  stopped: boolean;
}

const probes: Probe[] = [];
afterEach(() => {
  probes.length = 0;
});

/** The value of step `step` of `to`: MCP's progress shape, which both conventions carry as it is. */
const stepValue = (step: number, to: number, pad: number): unknown => ({
  progress: step,
  total: to,
  ...(pad > 0 ? { message: "x".repeat(pad) } : {}),
});

const served = {
  /** Steps 1..to (`{ progress, total, message? }`), then `counted to <to>`; it yields the thread every 8 values. */
  steps: async function* ({ to, pad = 0 }: { to: number; pad?: number }) {
    const probe: Probe = { produced: 0, stopped: false };
    probes.push(probe);
    try {
      while (probe.produced < to) {
        if (probe.produced % 8 === 7) await new Promise((resolve) => setImmediate(resolve));
        probe.produced += 1;
        yield stepValue(probe.produced, to, pad);
      }
      return Success(`counted to ${to}`);
    } finally {
      probe.stopped = true;
    }
  },
  /** LSP's partial results: `[step]` each, the whole array as the result. */
  count: async function* ({ to }: { to: number }) {
    for (let step = 1; step <= to; step++) yield [step];
    return Success(Array.from({ length: to }, (_, i) => i + 1));
  },
  /** Any value: `"step <n>"`. */
  words: async function* ({ to }: { to: number }) {
    for (let step = 1; step <= to; step++) yield `step ${step}`;
    return Success("said");
  },
  /** By position: no place for a token. */
  countAt: async function* (to: number) {
    for (let step = 1; step <= to; step++) yield step;
    return Success(`counted to ${to}`);
  },
};

// ------------------------------------------------------------------------------- the two ends

type Kind = "memory" | "tcp";

/** What the client's channel saw: progress notifications delivered to its connection, pauses, and what it sent. */
interface Seen {
  values: number;
  paused: number;
  resumed: number;
  readonly sent: string[];
}

/** `channel`, watched: what it sends, the progress notifications it delivers, its pauses. */
const watched = (channel: Channel, progressMethod: string, seen: Seen): Channel => ({
  send: (text) => {
    seen.sent.push(text);
    return channel.send(text);
  },
  start: (events: ChannelEvents) =>
    channel.start({
      ...events,
      message: (text) => {
        if (text.includes(`"method":"${progressMethod}"`)) seen.values += 1;
        events.message(text);
      },
    }),
  ...(channel.pause === undefined || channel.resume === undefined
    ? {}
    : {
        pause: () => {
          seen.paused += 1;
          channel.pause?.();
        },
        resume: () => {
          seen.resumed += 1;
          channel.resume?.();
        },
      }),
  close: (reason) => channel.close(reason),
});

interface Ends {
  readonly server: Connection;
  readonly client: Connection;
  readonly seen: Seen;
  /** Progress notifications that reached the client's own methods (its user's handler). */
  readonly handled: unknown[];
  /** The server's socket (TCP only). */
  readonly serverSocket: Socket | undefined;
  readonly dispose: () => Promise<void>;
}

const progressMethodOf = (cancellation: Cancellation): string =>
  cancellation === "lsp" ? "$/progress" : "notifications/progress";

/**
 * A server serving `served` and a client (whose user handles progress notifications) on one channel
 * of `kind` (in memory: one that pauses, unless `pausable` is false), the client with `maxWaitingLength` if given.
 */
const ends = async (
  kind: Kind,
  cancellation: Cancellation,
  options: { readonly pausable?: boolean; readonly maxWaitingLength?: number; readonly maxMessageLength?: number } = {},
): Promise<Ends> => {
  const seen: Seen = { values: 0, paused: 0, resumed: 0, sent: [] };
  const handled: unknown[] = [];
  const progressMethod = progressMethodOf(cancellation);
  const real = kind === "tcp" ? await tcpPair(cancellation === "lsp" ? "contentLength" : "newline") : undefined;
  const [serverChannel, clientChannel] = real?.channels ?? pair({ holds: true, pausable: options.pausable ?? true });
  const server = connect(serverChannel, { methods: served, cancellation });
  const client = connect(watched(clientChannel, progressMethod, seen), {
    methods: {
      [progressMethod]: (params: unknown) => {
        handled.push(params);
        return Success(null);
      },
    },
    cancellation,
    ...(options.maxWaitingLength === undefined ? {} : { maxWaitingLength: options.maxWaitingLength }),
    ...(options.maxMessageLength === undefined ? {} : { maxMessageLength: options.maxMessageLength }),
  });
  return {
    server,
    client,
    seen,
    handled,
    serverSocket: real?.sockets?.[0],
    dispose: async () => {
      client.close();
      server.close();
      await real?.dispose();
    },
  };
};

let nextId = 1;

const request = (method: string, params: unknown, id: number): string =>
  JSON.stringify({ jsonrpc: "2.0", method, params, id });

type Settled = E.Either<TransportError, unknown>;

/** A call through the connection's transport: its answer (the response, parsed), or its TransportError. */
const call = async (client: Connection, body: string, options: TransportOptions): Promise<Settled> => {
  const settled = await client.transport(body, options)();
  if (E.isLeft(settled)) return settled;
  const answer = settled.right;
  return E.right(typeof answer === "string" ? (answer === "" ? "" : (JSON.parse(answer) as unknown)) : answer.json);
};

const paramsOf = (text: string | undefined): Record<string, unknown> =>
  (JSON.parse(text ?? "{}") as { params: Record<string, unknown> }).params;

/** What the server answers `steps` with, by convention: LSP empties the final result once values went. */
const stepsResult = (cancellation: Cancellation, to: number): unknown =>
  cancellation === "lsp" ? null : `counted to ${to}`;

/** The most messages one read of a socket (64 KiB) can hold, each at least `length` long: what a pause cannot stop. */
const perChunk = (length: number): number => Math.ceil(65_536 / length) + 1;

// ------------------------------------------------------------------------------- the cases

const CASES: ReadonlyArray<readonly [Cancellation, Kind]> = [
  ["lsp", "memory"],
  ["lsp", "tcp"],
  ["mcp", "memory"],
  ["mcp", "tcp"],
];

describe.each(CASES)("%s over %s", (cancellation, kind) => {
  let the: Ends;
  beforeEach(async () => {
    the = await ends(kind, cancellation);
  });
  afterEach(async () => {
    await the.dispose();
  });
  const signal = new AbortController().signal;

  test("values come through onValue in order, then the answer; the token is the call's id", async () => {
    const events: unknown[] = [];
    const id = nextId++;
    const answer = await call(the.client, request("steps", { to: 5 }, id), {
      signal,
      ids: [id],
      onValue: (value) => void events.push(value),
    });
    events.push(answer);
    expect(events).toEqual([
      ...[1, 2, 3, 4, 5].map((step) => stepValue(step, 5, 0)),
      E.right({ jsonrpc: "2.0", result: stepsResult(cancellation, 5), id }),
    ]);
    const params = paramsOf(the.seen.sent[0]);
    if (cancellation === "lsp") expect(params).toEqual({ to: 5, partialResultToken: id });
    else expect(params).toEqual({ to: 5, _meta: { progressToken: id } });
    expect(the.handled).toEqual([]);
    expect(the.client.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
  });

  test("a consumer that takes each value later still gets them all in order, the answer after the last", async () => {
    const events: unknown[] = [];
    const id = nextId++;
    const answer = await call(the.client, request("steps", { to: 100 }, id), {
      signal,
      onValue: (value) =>
        new Promise<void>((taken) =>
          setImmediate(() => {
            events.push(value);
            taken();
          }),
        ),
    });
    events.push(answer);
    expect(events).toEqual([
      ...Array.from({ length: 100 }, (_, i) => stepValue(i + 1, 100, 0)),
      E.right({ jsonrpc: "2.0", result: stepsResult(cancellation, 100), id }),
    ]);
  });

  test("params by position, or none: no place for a token, so nothing is sent and the call says why", async () => {
    const values: unknown[] = [];
    for (const body of [request("countAt", [3], nextId++), request("countAt", undefined, nextId++)]) {
      const answer = await call(the.client, body, { signal, onValue: (value) => void values.push(value) });
      expect(answer).toMatchObject(E.left({ _tag: "TransportError", reason: "network" }));
      const { cause } = (answer as E.Left<{ cause: unknown }>).left;
      expect(cause).toBeInstanceOf(TypeError);
      expect(String(cause)).toMatch(/needs its params by name .* its values would be lost/);
    }
    expect([values, the.seen.sent]).toEqual([[], []]);
    // Without onValue it is a plain call, answered whole.
    const id = nextId++;
    const body = request("countAt", [3], id);
    expect(await call(the.client, body, { signal })).toEqual(E.right({ jsonrpc: "2.0", result: "counted to 3", id }));
    expect(the.seen.sent).toEqual([body]);
  });

  test("a token the caller put in the request is kept, sent unchanged, and used", async () => {
    const values: unknown[] = [];
    const id = nextId++;
    const params =
      cancellation === "lsp"
        ? { to: 3, partialResultToken: "mine" }
        : { to: 3, _meta: { progressToken: "mine", trace: "t-1" } };
    const body = request("steps", params, id);
    const answer = await call(the.client, body, { signal, onValue: (value) => void values.push(value) });
    expect(answer).toEqual(E.right({ jsonrpc: "2.0", result: stepsResult(cancellation, 3), id }));
    expect(values).toEqual([1, 2, 3].map((step) => stepValue(step, 3, 0)));
    expect(the.seen.sent).toEqual([body]);
  });

  test("the same call without onValue: no token, the whole result, no value anywhere", async () => {
    const id = nextId++;
    const body = request("steps", { to: 3 }, id);
    const answer = await call(the.client, body, { signal });
    expect(answer).toEqual(E.right({ jsonrpc: "2.0", result: "counted to 3", id }));
    expect(the.seen.sent).toEqual([body]);
    expect(the.seen.values).toBe(0);
    expect(the.handled).toEqual([]);
  });

  test("aborted mid-stream: cancelled on the other side, the generator stops (finally), no value after, the server goes on", async () => {
    const controller = new AbortController();
    const values: unknown[] = [];
    const id = nextId++;
    const answer = await call(the.client, request("steps", { to: 1e9 }, id), {
      signal: controller.signal,
      onValue: (value) => {
        values.push(value);
        if (values.length === 3) controller.abort(new Error("enough"));
      },
    });
    expect(answer).toEqual(E.left({ _tag: "TransportError", reason: "aborted", cause: new Error("enough") }));
    const cancelNotification =
      cancellation === "lsp"
        ? { jsonrpc: "2.0", method: "$/cancelRequest", params: { id } }
        : { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } };
    expect(the.seen.sent.map((text) => JSON.parse(text) as unknown)).toContainEqual(cancelNotification);
    await until(() => probes[0]?.stopped === true, "the generator's finally");
    // The server goes on: a next streamed call is served, after every late value of the first.
    const next = nextId++;
    const after: unknown[] = [];
    const second = await call(the.client, request("steps", { to: 2 }, next), {
      signal,
      onValue: (value) => void after.push(value),
    });
    expect(second).toEqual(E.right({ jsonrpc: "2.0", result: stepsResult(cancellation, 2), id: next }));
    expect(after).toEqual([1, 2].map((step) => stepValue(step, 2, 0)));
    // Values that were on their way for the aborted call were dropped: not to it, nor to the user's handler.
    expect(values).toHaveLength(3);
    expect(the.handled).toEqual([]);
  });

  test("a slow consumer: at most 16 values held, reading pauses, then every value in order", async () => {
    const pad = 0;
    const to = 300;
    const waiting: Array<() => void> = [];
    const values: unknown[] = [];
    let mostHeld = 0;
    const id = nextId++;
    const answer = call(the.client, request("steps", { to, pad }, id), {
      signal,
      onValue: (value) => {
        values.push(value);
        // Delivered to the connection and not yet handed on: what it holds.
        mostHeld = Math.max(mostHeld, the.seen.values - values.length);
        return new Promise<void>((taken) => waiting.push(taken));
      },
    });
    await until(() => the.seen.paused > 0, "reading to pause");
    await turns();
    // The consumer has taken none: one value handed on, the rest held up to the bound (and on a
    // socket, what the read under way had already brought).
    expect(values).toHaveLength(1);
    const held = the.seen.values - 1;
    expect(held).toBeGreaterThan(HIGH_WATER);
    const bound = HIGH_WATER + 1 + (kind === "tcp" ? perChunk(60) : 0);
    expect(held).toBeLessThanOrEqual(bound);
    if (kind === "memory") expect(held).toBe(HIGH_WATER + 1);
    // The consumer goes on, one value per macrotask.
    const pump = setInterval(() => waiting.shift()?.(), 0);
    try {
      expect(await answer).toEqual(E.right({ jsonrpc: "2.0", result: stepsResult(cancellation, to), id }));
    } finally {
      clearInterval(pump);
    }
    expect(values).toEqual(Array.from({ length: to }, (_, i) => stepValue(i + 1, to, pad)));
    expect(mostHeld).toBeLessThanOrEqual(bound);
    expect(the.seen.resumed).toBeGreaterThan(0);
  });

  test("a consumer that calls the other side for each value, on the same connection: no deadlock, every value in order", async () => {
    const to = 200;
    const values: unknown[] = [];
    const id = nextId++;
    const answer = await call(the.client, request("steps", { to }, id), {
      signal,
      onValue: async (value) => {
        // A consumer slower than the server (values are held, reading may pause)...
        await new Promise((resolve) => setImmediate(resolve));
        // ...that then waits on a call of its own: its answer must be read, however many values are held.
        const each = nextId++;
        const looked = await call(the.client, request("countAt", [1], each), { signal });
        expect(looked).toEqual(E.right({ jsonrpc: "2.0", result: "counted to 1", id: each }));
        values.push(value);
      },
    });
    expect(answer).toEqual(E.right({ jsonrpc: "2.0", result: stepsResult(cancellation, to), id }));
    expect(values).toEqual(Array.from({ length: to }, (_, i) => stepValue(i + 1, to, 0)));
    // Reading did pause for the held values, and went on for the consumer's calls.
    expect(the.seen.paused).toBeGreaterThan(0);
  });

  test("the connection closing mid-stream: a TransportError closed, the generator stopped, no unhandled rejection", async () => {
    const values: unknown[] = [];
    const id = nextId++;
    const answer = call(the.client, request("steps", { to: 1e9 }, id), {
      signal,
      onValue: (value) => {
        values.push(value);
        if (values.length === 1) return undefined;
        // The consumer never takes the second value: the close must end the call anyway.
        the.server.close(new Error("server gone"));
        return new Promise<void>(() => undefined);
      },
    });
    const settled = await answer;
    expect(settled).toMatchObject(E.left({ _tag: "TransportError", reason: "closed" }));
    await until(() => probes[0]?.stopped === true, "the generator's finally");
    expect(the.client.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
  });

  test("a progress notification on a token no call of this side has reaches the user's handler, as before", async () => {
    const controller = new AbortController();
    const values: unknown[] = [];
    const id = nextId++;
    const other =
      cancellation === "lsp" ? { token: "elsewhere", value: 42 } : { progressToken: "elsewhere", progress: 42 };
    const answer = call(the.client, request("steps", { to: 1e9 }, id), {
      signal: controller.signal,
      onValue: (value) => {
        values.push(value);
        if (values.length === 1) {
          const body = JSON.stringify({ jsonrpc: "2.0", method: progressMethodOf(cancellation), params: other });
          void the.server.transport(body, { signal })();
        }
      },
    });
    await until(() => the.handled.length > 0, "the user's handler");
    controller.abort();
    expect(await answer).toMatchObject(E.left({ reason: "aborted" }));
    expect(the.handled).toEqual([other]);
    // With no streamed call at all, as before too.
    const body = JSON.stringify({ jsonrpc: "2.0", method: progressMethodOf(cancellation), params: other });
    void the.server.transport(body, { signal })();
    await until(() => the.handled.length === 2, "the user's handler, again");
  });

  test("onValue that throws: the call fails with what it threw, and is cancelled on the other side", async () => {
    const id = nextId++;
    const thrown = new Error("consumer broke");
    const answer = await call(the.client, request("steps", { to: 1e9 }, id), {
      signal,
      onValue: () => {
        throw thrown;
      },
    });
    expect(answer).toEqual(E.left({ _tag: "TransportError", reason: "network", cause: thrown }));
    await until(() => probes[0]?.stopped === true, "the generator's finally");
    // A rejected Promise is the same.
    const next = nextId++;
    const rejected = await call(the.client, request("steps", { to: 1e9 }, next), {
      signal,
      onValue: () => Promise.reject(thrown),
    });
    expect(rejected).toEqual(E.left({ _tag: "TransportError", reason: "network", cause: thrown }));
    await until(() => probes[1]?.stopped === true, "the second generator's finally");
  });
});

// ------------------------------------------------------------------------------- one convention, one case

describe("the edges", () => {
  const signal = new AbortController().signal;

  test("LSP: partial results of an array, then the final result emptied to []", async () => {
    const the = await ends("memory", "lsp");
    try {
      const values: unknown[] = [];
      const id = nextId++;
      const answer = await call(the.client, request("count", { to: 3 }, id), {
        signal,
        onValue: (value) => void values.push(value),
      });
      expect(values).toEqual([[1], [2], [3]]);
      expect(answer).toEqual(E.right({ jsonrpc: "2.0", result: [], id }));
    } finally {
      await the.dispose();
    }
  });

  test("MCP: a value not shaped as progress arrives as the server sent it: its place, and its text as the message", async () => {
    const the = await ends("memory", "mcp");
    try {
      const values: unknown[] = [];
      const id = nextId++;
      const body = request("words", { to: 2, _meta: { trace: "t-1" } }, id);
      const answer = await call(the.client, body, { signal, onValue: (value) => void values.push(value) });
      expect(values).toEqual([
        { progress: 1, message: "step 1" },
        { progress: 2, message: "step 2" },
      ]);
      expect(answer).toEqual(E.right({ jsonrpc: "2.0", result: "said", id }));
      // An existing _meta keeps its members; the token is added to it.
      expect(paramsOf(the.seen.sent[0])).toEqual({ to: 2, _meta: { trace: "t-1", progressToken: id } });
    } finally {
      await the.dispose();
    }
  });

  test("a token already awaited on the connection: the second call is refused, nothing sent", async () => {
    const the = await ends("memory", "lsp");
    try {
      const controller = new AbortController();
      const first = call(the.client, request("steps", { to: 1e9, partialResultToken: "same" }, nextId++), {
        signal: controller.signal,
        onValue: () => undefined,
      });
      const sent = the.seen.sent.length;
      const second = await call(the.client, request("steps", { to: 1, partialResultToken: "same" }, nextId++), {
        signal,
        onValue: () => undefined,
      });
      expect(second).toMatchObject(E.left({ _tag: "TransportError", reason: "network" }));
      expect(((second as E.Left<{ cause: Error }>).left.cause as Error).message).toMatch(/"same" is already in use/);
      expect(the.seen.sent).toHaveLength(sent);
      controller.abort();
      expect(await first).toMatchObject(E.left({ reason: "aborted" }));
    } finally {
      await the.dispose();
    }
  });

  test("a channel that cannot pause: past maxWaitingLength of held values, the call fails tooLarge and is cancelled", async () => {
    const limit = 4000;
    const the = await ends("memory", "mcp", { pausable: false, maxWaitingLength: limit });
    try {
      const values: unknown[] = [];
      const id = nextId++;
      const answer = await call(the.client, request("steps", { to: 1e9, pad: 100 }, id), {
        signal,
        onValue: (value) => {
          values.push(value);
          return new Promise<void>(() => undefined);
        },
      });
      expect(answer).toEqual(E.left({ _tag: "TransportError", reason: "tooLarge", limit }));
      expect(values).toHaveLength(1);
      // Each notification is over 100 units: the call failed before 40 were held.
      expect(the.seen.values).toBeLessThan(1 + limit / 100);
      expect(the.seen.paused).toBe(0);
      await until(() => probes[0]?.stopped === true, "the generator's finally");
      const next = nextId++;
      const again = await call(the.client, request("steps", { to: 2 }, next), { signal, onValue: () => undefined });
      expect(again).toEqual(E.right({ jsonrpc: "2.0", result: "counted to 2", id: next }));
    } finally {
      await the.dispose();
    }
  });

  test.each(["memory", "tcp"] as const)(
    "%s: a value past the client's maxMessageLength fails the streamed call tooLarge, never a success without it",
    async (kind) => {
      const limit = 2000;
      for (const cancellation of ["lsp", "mcp"] as const) {
        const the = await ends(kind, cancellation, { maxMessageLength: limit });
        try {
          const values: unknown[] = [];
          const id = nextId++;
          const params = cancellation === "lsp" ? { to: 3, pad: 3000 } : { to: 3, pad: 3000, _meta: {} };
          const answer = await call(the.client, request("steps", params, id), {
            signal,
            onValue: (value) => void values.push(value),
          });
          expect(answer).toEqual(E.left({ _tag: "TransportError", reason: "tooLarge", limit }));
          expect(values).toEqual([]);
          // The connection goes on: a call whose values fit is answered (LSP empties its result).
          const next = nextId++;
          const again = await call(the.client, request("steps", { to: 2 }, next), { signal, onValue: () => undefined });
          const result = cancellation === "lsp" ? null : "counted to 2";
          expect(again).toEqual(E.right({ jsonrpc: "2.0", result, id: next }));
        } finally {
          await the.dispose();
        }
      }
    },
  );

  test("TCP: a consumer that stops taking values holds the server's generator at its yield, and an abort then frees both", async () => {
    const the = await ends("tcp", "lsp");
    try {
      const controller = new AbortController();
      const pad = 1024;
      const values: unknown[] = [];
      const id = nextId++;
      const answer = call(the.client, request("steps", { to: 1e9, pad }, id), {
        signal: controller.signal,
        onValue: (value) => {
          values.push(value);
          return new Promise<void>(() => undefined);
        },
      });
      // The client pauses; the kernel's buffers fill; the server's socket says full, its sink waits.
      await until(
        () => the.seen.paused > 0 && the.serverSocket?.writableNeedDrain === true,
        "the server's socket to be full",
      ).catch((error: unknown) => {
        throw new Error(
          `${String(error)}: paused ${the.seen.paused}, values ${the.seen.values}, produced ${probes[0]?.produced}, needDrain ${the.serverSocket?.writableNeedDrain}, server ${JSON.stringify(the.server.load())}`,
        );
      });
      const produced = probes[0]?.produced ?? 0;
      await turns(50);
      expect(probes[0]?.produced).toBeLessThanOrEqual(produced + 1);
      expect(probes[0]?.stopped).toBe(false);
      expect(values).toHaveLength(1);
      expect(the.seen.values - 1).toBeLessThanOrEqual(HIGH_WATER + 1 + perChunk(pad));
      controller.abort();
      expect(await answer).toMatchObject(E.left({ reason: "aborted" }));
      await until(() => probes[0]?.stopped === true, "the generator's finally");
      const next = nextId++;
      const again = await call(the.client, request("steps", { to: 2 }, next), { signal, onValue: () => undefined });
      expect(again).toEqual(E.right({ jsonrpc: "2.0", result: null, id: next }));
      expect(the.handled).toEqual([]);
    } finally {
      await the.dispose();
    }
  });
});

// ------------------------------------------------------------------------------- through the client

/** The contract of what `served` serves, as a client sees it. */
const api = contract({
  // LSP's way: partial results are items of the result, which comes back emptied to [].
  count: { params: t.type({ to: t.number }), stream: t.array(t.number), result: t.array(t.number) },
  // MCP's way: progress, then the result as it is.
  steps: {
    params: t.type({ to: t.number }),
    stream: t.type({ progress: t.number, total: t.number }),
    result: t.union([t.string, t.null]),
  },
});

describe.each(CASES)("client(api, connection.transport) and open, %s over %s", (cancellation, kind) => {
  let the: Ends;
  beforeEach(async () => {
    the = await ends(kind, cancellation);
  });
  afterEach(async () => {
    await the.dispose();
  });

  test("open: the values decoded, in order, then the result", async () => {
    const { count, steps } = client(api, the.client.transport);
    const run = open(steps({ to: 3 }));
    const values: unknown[] = [];
    for await (const value of run) values.push(value);
    expect(values).toEqual([1, 2, 3].map((step) => ({ progress: step, total: 3 })));
    expect(await run.result).toEqual(E.right(stepsResult(cancellation, 3)));
    const summed = await foldStream(0, (sum, step: { progress: number }) => sum + step.progress)(steps({ to: 4 }))();
    expect(summed).toEqual(E.right([10, stepsResult(cancellation, 4)]));
    const parts = await foldStream([] as number[], (all, items: number[]) => [...all, ...items])(count({ to: 4 }))();
    if (cancellation === "lsp") {
      // LSP's partial results put together; the final result is emptied to [].
      expect(parts).toEqual(E.right([[1, 2, 3, 4], []]));
    } else {
      // MCP carries only its progress shape: [1] arrives as { progress: 1, message: "[1]" }, which
      // the stream codec refuses, and the call is cancelled.
      expect(parts).toMatchObject(E.left({ _tag: "InvalidAnswer", reason: "valueRefused" }));
      expect(await steps({ to: 1 })()).toEqual(E.right("counted to 1"));
    }
    expect(the.handled).toEqual([]);
  });

  test("break: the call is cancelled on the other side, its generator stops, and the server goes on", async () => {
    const { steps } = client(api, the.client.transport);
    const run = open(steps({ to: 1e9 }));
    const values: unknown[] = [];
    for await (const value of run) {
      values.push(value);
      if (values.length === 3) break;
    }
    expect(await run.result).toMatchObject(E.left({ _tag: "TransportError", reason: "aborted" }));
    await until(() => probes[0]?.stopped === true, "the generator's finally");
    expect(await steps({ to: 2 })()).toEqual(E.right("counted to 2"));
    expect(the.handled).toEqual([]);
  });
});
