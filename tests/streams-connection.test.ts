/**
 * Streams on a connection (issue 24, items 2 and 6): a method's streamed values go out as LSP's
 * `$/progress` or MCP's `notifications/progress` on the request's token, before its one response.
 *
 * - With clients no one here wrote, on real child processes: the official MCP SDK's `Client`
 *   (`onprogress`, and a call cancelled through its signal) against examples/mcp/server.mjs, and
 *   vscode-jsonrpc's `onProgress` (partial results, work-done progress, no token, cancelled)
 *   against examples/lsp/server.mjs. Each driver is a script in tests/fixtures (both libraries are
 *   ESM-first) that prints what it saw; the built package must exist (`npm run build`).
 * - On an in-memory channel, the edges: the exact messages, a connection closed mid-stream, a
 *   channel that does not drain (the method waits), cancellation, a method that throws.
 *
 * No timing is asserted: waits are on what was sent, each bounded.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { answerHttp, Error as RpcError, Success } from "../src";
import { connect, type Channel, type ChannelEvents } from "../src/connection";
import { lone, settle, type End } from "./helpers/channels";
import { tcpPair } from "./helpers/real-channels";

const ROOT = join(__dirname, "..");

const drive = async (script: string): Promise<Record<string, unknown>> => {
  if (!existsSync(join(ROOT, "dist/esm/connection.js"))) throw new Error("run `npm run build` first");
  const { stdout } = await promisify(execFile)(process.execPath, [join("tests/fixtures", script)], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split("\n").pop() as string) as Record<string, unknown>;
};

describe("the MCP SDK's Client against examples/mcp/server.mjs: the tool `count`", () => {
  let seen: Record<string, unknown> = {};
  beforeAll(async () => {
    seen = await drive("mcp-stream-client.mjs");
  });

  test("onprogress sees each step 1..N of total N, then the text", () => {
    expect(seen["steps"]).toEqual([1, 2, 3, 4, 5].map((progress) => ({ progress, total: 5 })));
    expect(seen["count"]).toEqual({ content: [{ type: "text", text: "counted to 5" }] });
  });

  test("a call without onprogress (no token) gets its result alone", () => {
    expect(seen["quiet"]).toEqual({ content: [{ type: "text", text: "counted to 3" }] });
  });

  test("a call cancelled mid-way stops the tool, and the server answers the next call", () => {
    expect(seen["cancelled"]).toBe("McpError");
    expect(seen["before"]).toEqual([1, 2, 3]);
    expect(seen["stderr"]).toMatch(/count\(100000\) stopped after \d+/);
    expect(seen["after"]).toEqual({ content: [{ type: "text", text: "counted to 2" }] });
    expect(seen["errors"]).toEqual([]);
  });
});

describe("vscode-jsonrpc's MessageConnection against examples/lsp/server.mjs: `example/count`", () => {
  let seen: Record<string, { result: unknown; received: Record<string, unknown[]> }> = {};
  let raw: Record<string, unknown> = {};
  beforeAll(async () => {
    raw = await drive("lsp-stream-client.mjs");
    seen = raw as typeof seen;
  });

  test("onProgress receives [1]..[N] on the partialResultToken, then the empty final result", () => {
    expect(seen["partial"]).toEqual({ result: [], received: { "partial-1": [[1], [2], [3], [4], [5]] } });
  });

  test("a workDoneToken gets begin, a report per value, and end; the result is whole", () => {
    expect(seen["workDone"]).toEqual({
      result: [1, 2, 3],
      received: {
        "work-1": [
          { kind: "begin", title: "example/count" },
          { kind: "report", message: "[1]" },
          { kind: "report", message: "[2]" },
          { kind: "report", message: "[3]" },
          { kind: "end" },
        ],
      },
    });
  });

  test("both tokens: partial results on one, begin and end on the other", () => {
    expect(seen["both"]).toEqual({
      result: [],
      received: { "partial-2": [[1], [2]], "7": [{ kind: "begin", title: "example/count" }, { kind: "end" }] },
    });
  });

  test("a request without a token gets only its result: no $/progress at all", () => {
    expect(seen["plain"]).toEqual({ result: [1, 2, 3], received: {} });
    expect(raw["unhandled"]).toEqual([]);
  });

  test("cancelled mid-stream: -32800 at once, the method stopped, the server goes on", () => {
    expect(raw["cancelled"]).toEqual({ code: -32800, message: "Request cancelled" });
    expect(raw["cancelledValues"]).toBeGreaterThanOrEqual(3);
    expect(raw["stderr"]).toMatch(/example\/count\(100000\) stopped after \d+/);
    expect(raw["after"]).toEqual([1, 2]);
    expect(raw["exit"]).toBe(0);
  });
});

// ------------------------------------------------------------------------------- in memory

/** Unhandled rejections while these tests run: there must be none. */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeAll(() => process.on("unhandledRejection", onUnhandled));
afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

/** What one method saw: values produced, and whether its `finally` ran. */
interface Run {
  produced: number;
  finished: boolean;
}

const runs: Run[] = [];

/** `count`: yields 1..to (each from `make`), a tick apart, then answers `result`; its `finally` is recorded. */
const counting = (make: (step: number) => unknown = (step) => step, result: unknown = "counted") =>
  async function* (params: { to: number; failAt?: number }) {
    const run: Run = { produced: 0, finished: false };
    runs.push(run);
    try {
      while (run.produced < params.to) {
        await settle(0);
        run.produced += 1;
        if (run.produced === params.failAt) throw new Error("failed mid-stream");
        yield make(run.produced);
      }
      return Success(result);
    } finally {
      run.finished = true;
    }
  };

const methods = {
  count: counting(),
  countArray: counting((step) => [step], [1, 2, 3]),
  countShaped: counting((step) => (step === 1 ? { progress: 0.5, total: 1, message: "half" } : `step ${step}`)),
  countReport: counting((step) => (step === 1 ? { message: "one", percentage: 50 } : { step })),
  fail: () => RpcError(7, "no"),
};

const request = (method: string, params: unknown, id?: number): string =>
  JSON.stringify({ jsonrpc: "2.0", method, params, ...(id === undefined ? {} : { id }) });

const sentOf = (end: { sent: string[] }): unknown[] => end.sent.map((text) => JSON.parse(text) as unknown);

/** Waits until `check` holds, for at most about two seconds (the test then fails on what it asserts). */
const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 400 && !check(); i++) await settle(5);
};

const serve = (cancellation: "lsp" | "mcp"): End => {
  const end = lone();
  connect(end, { methods, cancellation });
  return end;
};

afterEach(() => {
  runs.length = 0;
});

describe("LSP on a connection", () => {
  test("partialResultToken: each value as $/progress, then the result emptied ([] for an array)", async () => {
    const end = serve("lsp");
    end.inject(request("countArray", { to: 2, partialResultToken: "p" }, 1));
    await until(() => end.sent.length === 3);
    expect(sentOf(end)).toEqual([
      { jsonrpc: "2.0", method: "$/progress", params: { token: "p", value: [1] } },
      { jsonrpc: "2.0", method: "$/progress", params: { token: "p", value: [2] } },
      { jsonrpc: "2.0", result: [], id: 1 },
    ]);
  });

  test("a result that is not an array is emptied to null; with no value sent it is kept", async () => {
    const end = serve("lsp");
    end.inject(request("count", { to: 1, partialResultToken: 9 }, 1));
    await until(() => end.sent.length === 2);
    end.inject(request("count", { to: 0, partialResultToken: 9 }, 2));
    await until(() => end.sent.length === 3);
    expect(sentOf(end)).toEqual([
      { jsonrpc: "2.0", method: "$/progress", params: { token: 9, value: 1 } },
      { jsonrpc: "2.0", result: null, id: 1 },
      { jsonrpc: "2.0", result: "counted", id: 2 },
    ]);
  });

  test("workDoneToken: begin, reports (message and percentage passed, anything else as JSON text), end", async () => {
    const end = serve("lsp");
    end.inject(request("countReport", { to: 2, workDoneToken: "w" }, 1));
    await until(() => end.sent.length === 5);
    expect(sentOf(end)).toEqual([
      { jsonrpc: "2.0", method: "$/progress", params: { token: "w", value: { kind: "begin", title: "countReport" } } },
      {
        jsonrpc: "2.0",
        method: "$/progress",
        params: { token: "w", value: { kind: "report", message: "one", percentage: 50 } },
      },
      {
        jsonrpc: "2.0",
        method: "$/progress",
        params: { token: "w", value: { kind: "report", message: '{"step":2}' } },
      },
      { jsonrpc: "2.0", method: "$/progress", params: { token: "w", value: { kind: "end" } } },
      { jsonrpc: "2.0", result: "counted", id: 1 },
    ]);
  });

  test("a method that throws mid-stream: end, then its error", async () => {
    const end = serve("lsp");
    end.inject(request("count", { to: 5, failAt: 2, workDoneToken: "w" }, 1));
    await until(() => end.sent.length === 4);
    const sent = sentOf(end) as Array<Record<string, unknown>>;
    expect(sent.slice(0, 3)).toEqual([
      { jsonrpc: "2.0", method: "$/progress", params: { token: "w", value: { kind: "begin", title: "count" } } },
      { jsonrpc: "2.0", method: "$/progress", params: { token: "w", value: { kind: "report", message: "1" } } },
      { jsonrpc: "2.0", method: "$/progress", params: { token: "w", value: { kind: "end" } } },
    ]);
    expect(sent[3]).toMatchObject({ id: 1, error: { code: -32603 } });
    expect(runs[0]?.finished).toBe(true);
  });

  test("$/cancelRequest mid-stream: end, -32800 at once, and the method stops at its next value", async () => {
    const end = serve("lsp");
    end.inject(request("count", { to: 1_000_000, partialResultToken: "p", workDoneToken: "w" }, 1));
    await until(() => end.sent.length >= 4);
    end.inject(JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } }));
    await until(() => runs[0]?.finished === true);
    const sent = sentOf(end);
    const tail = sent.slice(-2);
    expect(tail).toEqual([
      { jsonrpc: "2.0", method: "$/progress", params: { token: "w", value: { kind: "end" } } },
      { jsonrpc: "2.0", error: { code: -32800, message: "Request cancelled" }, id: 1 },
    ]);
    expect(runs[0]?.finished).toBe(true);
    // Nothing after the answer, and the method made at most one value past the last one sent.
    await settle(10);
    expect(sentOf(end)).toEqual(sent);
    expect(runs[0]?.produced).toBeLessThanOrEqual(sent.length - 3 + 1);
  });

  test("no token, or a notification with one: no $/progress, only the result", async () => {
    const end = serve("lsp");
    end.inject(request("count", { to: 2 }, 1));
    end.inject(request("count", { to: 2, partialResultToken: "p" }));
    await until(() => end.sent.length === 1 && runs.every((run) => run.finished));
    expect(sentOf(end)).toEqual([{ jsonrpc: "2.0", result: "counted", id: 1 }]);
  });
});

describe("LSP's work-done progress: one behaviour on every wire (issue 33, item 2)", () => {
  test("a method that streams nothing sends neither begin nor end, only its result", async () => {
    const end = serve("lsp");
    end.inject(request("count", { to: 0, workDoneToken: "w" }, 1));
    await until(() => end.sent.length >= 1 && runs.every((run) => run.finished));
    await settle(10);
    expect(sentOf(end)).toEqual([{ jsonrpc: "2.0", result: "counted", id: 1 }]);
  });

  test("cancelled before its first value: no begin nor end, only the -32800", async () => {
    const held = lone();
    connect(held, {
      methods: {
        // Waits for its cancel before it yields anything.
        wait: async function* (context: { signal: AbortSignal }, _params: unknown) {
          if (!context.signal.aborted)
            await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
          yield 1;
          return Success("never");
        },
      },
      context: {},
      cancellation: "lsp",
    });
    held.inject(request("wait", { workDoneToken: "w" }, 1));
    await settle(10);
    held.inject(JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } }));
    await until(() => held.sent.length >= 1);
    await settle(10);
    expect(sentOf(held)).toEqual([{ jsonrpc: "2.0", error: { code: -32800, message: "Request cancelled" }, id: 1 }]);
  });

  /** What an HTTP client with `Accept: text/event-stream` reads for `body`: each event's message, or the JSON answer. */
  const overHttp = async (body: string): Promise<unknown[]> => {
    const answer = await answerHttp(body, methods, { accept: "text/event-stream, application/json" });
    const text = await new Response(answer.body).text();
    if (answer.headers["Content-Type"] !== "text/event-stream") return [JSON.parse(text) as unknown];
    return text
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice("data: ".length)) as unknown);
  };

  test.each([
    ["a workDoneToken", { to: 2, workDoneToken: "w" }],
    ["both tokens", { to: 2, partialResultToken: "p", workDoneToken: "w" }],
    ["a workDoneToken, and no value", { to: 0, workDoneToken: "w" }],
    ["both tokens, and no value", { to: 0, partialResultToken: "p", workDoneToken: "w" }],
  ])("%s: a connection sends what an HTTP event stream carries, in the same order", async (_what, params) => {
    const body = request("count", params, 1);
    const http = await overHttp(body);
    const end = serve("lsp");
    end.inject(body);
    await until(() => end.sent.some((text) => text.includes('"id":1')));
    await settle(10);
    expect(sentOf(end)).toEqual(http);
  });
});

describe("MCP on a connection", () => {
  test("_meta.progressToken: each value as notifications/progress (its own fields, or its index)", async () => {
    const end = serve("mcp");
    end.inject(request("countShaped", { to: 3, _meta: { progressToken: "t" } }, 1));
    await until(() => end.sent.length === 4);
    expect(sentOf(end)).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "t", progress: 0.5, total: 1, message: "half" },
      },
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "t", progress: 2, message: "step 2" },
      },
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "t", progress: 3, message: "step 3" },
      },
      { jsonrpc: "2.0", result: "counted", id: 1 },
    ]);
  });

  test("a number is sent as its index; LSP's tokens mean nothing here; no token: only the result", async () => {
    const end = serve("mcp");
    end.inject(request("count", { to: 2, _meta: { progressToken: 4 } }, 1));
    await until(() => end.sent.length === 3);
    end.inject(request("count", { to: 2, partialResultToken: "p" }, 2));
    await until(() => end.sent.length === 4);
    expect(sentOf(end)).toEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 4, progress: 1, message: "1" } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 4, progress: 2, message: "2" } },
      { jsonrpc: "2.0", result: "counted", id: 1 },
      { jsonrpc: "2.0", result: "counted", id: 2 },
    ]);
  });

  test("notifications/cancelled mid-stream: the method stops, nothing more is sent, no answer", async () => {
    const end = serve("mcp");
    end.inject(request("count", { to: 1_000_000, _meta: { progressToken: "t" } }, 1));
    await until(() => end.sent.length >= 3);
    end.inject(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }));
    await until(() => runs[0]?.finished === true);
    const sent = sentOf(end) as Array<{ method?: string }>;
    await settle(10);
    expect(sentOf(end)).toEqual(sent);
    expect(sent.every((message) => message.method === "notifications/progress")).toBe(true);
  });
});

describe("the edges", () => {
  test("a connection closed mid-stream ends the method (its finally runs), with no unhandled rejection", async () => {
    const end = lone();
    const peer = connect(end, { methods, cancellation: "mcp" });
    end.inject(request("count", { to: 1_000_000, _meta: { progressToken: "t" } }, 1));
    await until(() => end.sent.length >= 3);
    peer.close();
    await until(() => runs[0]?.finished === true);
    expect(runs[0]?.finished).toBe(true);
    const sent = end.sent.length;
    await settle(10);
    expect(end.sent.length).toBe(sent);
    expect(peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
  });

  test("a channel that does not drain holds the method: one value ahead at most, until it drains", async () => {
    const channel = stiff();
    connect(channel, { methods, cancellation: "lsp" });
    channel.receive(request("count", { to: 6, partialResultToken: "p" }, 1));
    await until(() => channel.sent.length === 1);
    await settle(20);
    // The first value was taken by a full channel: the method waits at its yield.
    expect(runs[0]?.produced).toBe(1);
    expect(channel.sent.length).toBe(1);
    channel.drain();
    await until(() => channel.sent.length === 2);
    await settle(20);
    expect(runs[0]?.produced).toBe(2);
    channel.full = false;
    channel.drain();
    await until(() => channel.sent.length === 7);
    expect(JSON.parse(channel.sent[6] as string)).toEqual({ jsonrpc: "2.0", result: null, id: 1 });
    expect(runs[0]).toEqual({ produced: 6, finished: true });
  });

  test("a channel that does not drain, then closes: the waiting method is stopped", async () => {
    const channel = stiff();
    const peer = connect(channel, { methods, cancellation: "mcp" });
    channel.receive(request("count", { to: 6, _meta: { progressToken: "t" } }, 1));
    await until(() => channel.sent.length === 1);
    peer.close();
    await until(() => runs[0]?.finished === true);
    expect(runs[0]).toEqual({ produced: 1, finished: true });
  });

  test("a value the serializer cannot write stops the method, answered -32603", async () => {
    const end = lone();
    connect(end, { methods: { nan: counting(() => Number.NaN) }, cancellation: "lsp" });
    end.inject(request("nan", { to: 3, partialResultToken: "p" }, 1));
    await until(() => end.sent.length === 1);
    expect(sentOf(end)).toEqual([expect.objectContaining({ id: 1, error: expect.objectContaining({ code: -32603 }) })]);
    expect(runs[0]).toEqual({ produced: 1, finished: true });
  });
});

/** A channel whose `send` says "full" while `full` is set, and drains when the test says. */
const stiff = (): Channel & {
  sent: string[];
  full: boolean;
  receive: (text: string) => void;
  drain: () => void;
} => {
  let events: ChannelEvents | undefined;
  const channel = {
    sent: [] as string[],
    full: true,
    receive: (text: string) => events?.message(text),
    drain: () => events?.drain(),
    send: (text: string) => {
      channel.sent.push(text);
      return !channel.full;
    },
    start: (given: ChannelEvents) => {
      events = given;
    },
    close: (reason?: unknown) => events?.closed(reason),
  };
  return channel;
};

describe("on a real TCP socket, in a burst", () => {
  test.each(["contentLength", "newline"] as const)(
    "%s framing: 40 streaming requests written at once each get their values in order, then their answer",
    async (framing) => {
      const pair = await tcpPair(framing);
      const [serverChannel, clientChannel] = pair.channels;
      const server = connect(serverChannel, {
        methods: {
          count: async function* ({ to }: { to: number }) {
            for (let step = 1; step <= to; step++) yield [step];
            return Success(to);
          },
        },
        cancellation: "lsp",
      });
      const progress = new Map<string, unknown[]>();
      const client = connect(clientChannel, {
        methods: {
          "$/progress": ({ token, value }: { token: string; value: unknown }) => {
            progress.set(token, [...(progress.get(token) ?? []), value]);
            return Success(null);
          },
        },
        cancellation: "lsp",
      });
      try {
        const answers = await Promise.all(
          Array.from({ length: 40 }, async (_, n) => {
            const body = request("count", { to: 5, partialResultToken: `t${n}` }, 9_000_000 + n);
            const answer = await client.transport(body, { signal: new AbortController().signal })();
            if (answer._tag === "Left") throw new Error(JSON.stringify(answer.left));
            return typeof answer.right === "string" ? (JSON.parse(answer.right) as unknown) : answer.right.json;
          }),
        );
        // The final result is emptied (LSP 3.17: every value went out as a partial result).
        expect(answers).toEqual(
          Array.from({ length: 40 }, (_, n) => ({ jsonrpc: "2.0", result: null, id: 9_000_000 + n })),
        );
        for (let n = 0; n < 40; n++) expect(progress.get(`t${n}`)).toEqual([[1], [2], [3], [4], [5]]);
        expect(server.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
      } finally {
        client.close();
        server.close();
        await pair.dispose();
      }
    },
  );
});
