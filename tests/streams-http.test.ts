/**
 * Streams over HTTP (issue 24, items 3, 5 and 6): a POST whose `Accept` names `text/event-stream`
 * is answered with server-sent events, the values' notifications then the final answer, by
 * `answerHttp` and by the development server, which writes that function's stream to its `res`.
 *
 * - On real sockets, the same checks against both: the development server (`serve` on port 0) and
 *   `answerHttp` in a fetch handler served by `node:http` as an adapter serves one: the values on
 *   the request's id, MCP's token, LSP's tokens (the emptied result), a batch, 202 and 204, the
 *   bytes without that `Accept` unchanged, a method answering before any value, a client aborting
 *   mid-stream (the generator's `finally` runs, its signal aborted, nothing unhandled), a slow
 *   reader (the generator pauses: a count, never a time), and a value the stream schema refuses.
 * - In one process, through the Fetch API alone: the answer `toHttp` would give without that
 *   `Accept`, the bound on what a method runs ahead of its reader, a cancelled body.
 * - The official MCP SDK's `StreamableHTTPClientTransport` against examples/mcp/http.mjs, in a child
 *   process (tests/fixtures/mcp-http-client.mjs; the built package must exist: `npm run build`).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { answerHttp, asyncDispatch, Success, toHttp, type HttpOptions } from "../src";
import { acceptsEvents } from "../src/internal/http/accept";
import {
  devServer,
  EventReader,
  parseEvents,
  realProcess,
  serveFetch,
  steady,
  streamingMethods,
  Trace,
  turns,
  type Running,
} from "./fixtures/sse";

const ROOT = join(__dirname, "..");
const EVENTS = "text/event-stream, application/json";

const call = (method: string, params: unknown, id?: string | number): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    method,
    ...(params === undefined ? {} : { params }),
    ...(id === undefined ? {} : { id }),
  });

const progress = (token: unknown, value: unknown): unknown => ({
  jsonrpc: "2.0",
  method: "$/progress",
  params: { token, value },
});

const escaped: unknown[] = [];
const onRejection = (reason: unknown): void => void escaped.push(reason);
beforeAll(() => realProcess().on("unhandledRejection", onRejection));
afterAll(() => realProcess().off("unhandledRejection", onRejection));

const seen = new Trace();
const methods = streamingMethods(seen);
const options = { context: {} };

/** `answerHttp` in a fetch handler; `extra` options for the dispatch (a serializer). */
const fetchHandler = (extra: Omit<HttpOptions, "context"> = {}) =>
  serveFetch(async (request) => {
    const body = new Uint8Array(await request.arrayBuffer());
    const answer = await answerHttp(body, methods, {
      ...options,
      ...extra,
      accept: request.headers.get("Accept"),
      signal: request.signal,
    });
    return new Response(answer.body, answer);
  });

const post = (url: string, body: string, accept?: string, signal?: AbortSignal): Promise<Response> =>
  fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(accept === undefined ? {} : { Accept: accept }) },
    body,
    ...(signal === undefined ? {} : { signal }),
  });

/** A streamed answer's head and its messages. */
const streamed = async (url: string, body: string): Promise<{ head: unknown; messages: unknown[] }> => {
  const response = await post(url, body, EVENTS);
  const head = {
    status: response.status,
    type: response.headers.get("content-type"),
    cache: response.headers.get("cache-control"),
  };
  return { head, messages: parseEvents(await response.text()) };
};

const EVENT_HEAD = { status: 200, type: "text/event-stream", cache: "no-cache" };

describe.each([
  ["the development server", () => devServer(methods)],
  ["answerHttp in a fetch handler", () => fetchHandler()],
])("over HTTP, %s", (name, start) => {
  let running: Running | undefined;
  const url = (): string => (running as Running).url;
  const key = (what: string): string => `${name}: ${what}`;
  beforeAll(async () => {
    running = await start();
  });
  afterAll(() => running?.close());

  test("a request with no token: each value as $/progress on its id, then its answer, whole", async () => {
    expect(await streamed(url(), call("count", [3], 7))).toEqual({
      head: EVENT_HEAD,
      messages: [progress(7, 1), progress(7, 2), progress(7, 3), { jsonrpc: "2.0", result: "counted to 3", id: 7 }],
    });
  });

  test("MCP's _meta.progressToken: notifications/progress (its own fields, or its index and the value as text)", async () => {
    const mcp = (method: string) => call(method, { to: 2, _meta: { progressToken: "m" } }, "a");
    const notification = (params: object) => ({ jsonrpc: "2.0", method: "notifications/progress", params });
    expect((await streamed(url(), mcp("progress"))).messages).toEqual([
      notification({ progressToken: "m", progress: 1, total: 2 }),
      notification({ progressToken: "m", progress: 2, total: 2 }),
      { jsonrpc: "2.0", result: "done 2", id: "a" },
    ]);
    expect((await streamed(url(), mcp("count"))).messages).toEqual([
      notification({ progressToken: "m", progress: 1, message: "1" }),
      notification({ progressToken: "m", progress: 2, message: "2" }),
      { jsonrpc: "2.0", result: "counted to 2", id: "a" },
    ]);
  });

  test("LSP's partialResultToken: partial results, then the emptied result; workDoneToken: begin, reports, end", async () => {
    expect((await streamed(url(), call("items", { to: 3, partialResultToken: "p" }, 1))).messages).toEqual([
      progress("p", [1]),
      progress("p", [2]),
      progress("p", [3]),
      { jsonrpc: "2.0", result: [], id: 1 },
    ]);
    expect((await streamed(url(), call("items", { to: 2, workDoneToken: "w" }, 2))).messages).toEqual([
      progress("w", { kind: "begin", title: "items" }),
      progress("w", { kind: "report", message: "[1]" }),
      progress("w", { kind: "report", message: "[2]" }),
      progress("w", { kind: "end" }),
      { jsonrpc: "2.0", result: [1, 2], id: 2 },
    ]);
  });

  test("a batch: each request's values in its order, then the batch's answers as one event, last", async () => {
    const body = `[${[
      call("count", [2], "a"),
      call("progress", { to: 2, _meta: { progressToken: "b" } }, "b"),
      call("ping", undefined, "c"),
      call("note", undefined),
    ].join(",")}]`;
    const { head, messages } = await streamed(url(), body);
    expect(head).toEqual(EVENT_HEAD);
    const last = messages.pop();
    expect(last).toEqual([
      { jsonrpc: "2.0", result: "counted to 2", id: "a" },
      { jsonrpc: "2.0", result: "done 2", id: "b" },
      { jsonrpc: "2.0", result: "pong", id: "c" },
    ]);
    expect(messages.filter((m) => (m as { method: string }).method === "$/progress")).toEqual([
      progress("a", 1),
      progress("a", 2),
    ]);
    expect(messages.filter((m) => (m as { method: string }).method === "notifications/progress")).toHaveLength(2);
    expect(messages).toHaveLength(4);
  });

  test("notifications only: 202 with no body from a client that accepts events, 204 from any other", async () => {
    const notifications = `[${call("count", [2])},${call("note", undefined)}]`;
    for (const body of [call("count", [2]), notifications]) {
      const accepted = await post(url(), body, EVENTS);
      expect([accepted.status, await accepted.text()]).toEqual([202, ""]);
      const plain = await post(url(), body);
      expect([plain.status, plain.headers.get("content-type"), await plain.text()]).toEqual([204, null, ""]);
    }
  });

  test("without text/event-stream in Accept: the bytes toHttp(await asyncDispatch(...)) answers today", async () => {
    const bodies = [
      call("count", [3], 1),
      call("items", { to: 2, partialResultToken: "p" }, 2),
      `[${call("count", [2], "a")},${call("ping", undefined, "b")}]`,
      call("nope", undefined, 3),
      "{not json",
    ];
    for (const body of bodies) {
      const today = toHttp(await asyncDispatch(body, methods, options));
      for (const accept of [undefined, "application/json", "*/*", "text/event-stream;q=0, application/json"]) {
        const response = await post(url(), body, accept);
        expect([response.status, response.headers.get("content-type"), await response.text()]).toEqual([
          today.status,
          "application/json",
          today.body,
        ]);
      }
    }
  });

  test("a method that answers before any value: plain JSON, even with text/event-stream in Accept", async () => {
    for (const [body, text] of [
      [call("quick", undefined, 1), '{"jsonrpc":"2.0","result":"at once","id":1}'],
      [call("ping", undefined, 2), '{"jsonrpc":"2.0","result":"pong","id":2}'],
      [call("count", [0], 3), '{"jsonrpc":"2.0","result":"counted to 0","id":3}'],
    ] as const) {
      const response = await post(url(), body, EVENTS);
      expect([response.status, response.headers.get("content-type"), await response.text()]).toEqual([
        200,
        "application/json",
        text,
      ]);
    }
  });

  test("the client aborting mid-stream stops the generator: its finally runs, its signal aborted, nothing unhandled", async () => {
    const client = new AbortController();
    const response = await post(url(), call("endless", [key("abort"), 1024, 1_000_000], 1), EVENTS, client.signal);
    const reader = new EventReader(response.body as ReadableStream<Uint8Array>);
    expect(await reader.next()).toEqual(progress(1, "x".repeat(1024)));
    expect(await reader.next()).toEqual(progress(1, "x".repeat(1024)));
    client.abort();
    const stop = await seen.whenStopped(key("abort"));
    expect(stop.aborted).toBe(true);
    expect(stop.at).toBeLessThan(1_000_000);
    await turns(5);
    expect(escaped).toEqual([]);
  });

  test("a slow reader pauses the generator: it runs a bounded number of values ahead, then on as read", async () => {
    const size = 64 * 1024;
    const count = 2000;
    const client = new AbortController();
    const response = await post(url(), call("endless", [key("slow"), size, count], 1), EVENTS, client.signal);
    const reader = new EventReader(response.body as ReadableStream<Uint8Array>);
    await reader.next();
    // Held at its yield: what the socket buffers on both sides hold (a few MB), far short of the 2000.
    const held = await steady(() => seen.yielded.get(key("slow")) ?? 0);
    expect(held).toBeLessThan(count / 4);
    expect(seen.hasStopped(key("slow"))).toBe(false);
    for (let i = 0; i < held + 20; i++) await reader.next();
    expect(seen.yielded.get(key("slow"))).toBeGreaterThan(held);
    client.abort();
    expect((await seen.whenStopped(key("slow"))).at).toBeLessThan(count);
  });

  test("a value the stream schema refuses mid-stream: the values before it, then -32603 as the last event", async () => {
    const { messages } = await streamed(url(), call("refused", undefined, 9));
    expect(messages).toEqual([
      progress(9, 1),
      progress(9, 2),
      { jsonrpc: "2.0", error: { code: -32603, message: "Internal error", data: ["stream: 3 is too big"] }, id: 9 },
    ]);
  });
});

describe("answerHttp in a fetch handler, with a serializer that pretty-prints", () => {
  test("each line of a message is a data: line of its event", async () => {
    const running = await fetchHandler({ serializer: (value) => JSON.stringify(value, null, 2) });
    try {
      const response = await post(running.url, call("count", [1], 1), EVENTS);
      const text = await response.text();
      expect(
        text.startsWith('event: message\ndata: {\ndata:   "jsonrpc": "2.0",\ndata:   "method": "$/progress",'),
      ).toBe(true);
      expect(parseEvents(text)).toEqual([progress(1, 1), { jsonrpc: "2.0", result: "counted to 1", id: 1 }]);
    } finally {
      await running.close();
    }
  });
});

describe("answerHttp through the Fetch API alone", () => {
  const inProcess = (body: string, accept: string | undefined, more: Omit<HttpOptions, "context"> = {}) =>
    answerHttp(body, methods, { ...options, ...more, ...(accept === undefined ? {} : { accept }) });

  test("Accept: text/event-stream names it (any case, with parameters), not */*, not with q=0", () => {
    expect(acceptsEvents("text/event-stream")).toBe(true);
    expect(acceptsEvents("application/json, Text/Event-Stream;charset=utf-8")).toBe(true);
    expect(acceptsEvents("text/event-stream; q=0.5, application/json")).toBe(true);
    expect(acceptsEvents("text/event-stream;q=0, application/json")).toBe(false);
    expect(acceptsEvents("*/*")).toBe(false);
    expect(acceptsEvents("text/*")).toBe(false);
    expect(acceptsEvents("application/json")).toBe(false);
    expect(acceptsEvents("text/event-streams")).toBe(false);
    expect(acceptsEvents(null)).toBe(false);
    expect(acceptsEvents(undefined)).toBe(false);
  });

  test("without that Accept: toHttp's very answer, with a context and without, the 204 object shared", async () => {
    const bodies = [
      call("count", [2], 1),
      call("ping", undefined, 2),
      call("count", [2]),
      `[${call("note", undefined)}]`,
    ];
    // No context: the methods take their params alone.
    const plain = {
      ping: () => Success("pong"),
      count: async function* (to: number) {
        yield to;
        return Success(to);
      },
      note: () => Success(null),
    };
    for (const body of bodies) {
      expect(await inProcess(body, undefined)).toStrictEqual(toHttp(await asyncDispatch(body, methods, options)));
      expect(await answerHttp(body, plain)).toStrictEqual(toHttp(await asyncDispatch(body, plain)));
    }
    expect(await inProcess(call("note", undefined), "application/json")).toBe(toHttp(""));
  });

  test("notifications only, with that Accept: one frozen 202 answer, no body, no headers", async () => {
    const answer = await inProcess(call("note", undefined), EVENTS);
    expect(answer).toStrictEqual({ status: 202, headers: {}, body: null });
    expect(Object.isFrozen(answer)).toBe(true);
    expect(new Response(answer.body, answer).status).toBe(202);
  });

  test("back-pressure: the method runs one value ahead of what the reader has read, no more", async () => {
    const answer = await inProcess(call("endless", ["pace", 1, 100], 1), EVENTS);
    expect(seen.yielded.get("pace")).toBe(1); // the first value chose the answer, and waits to be read
    const reader = new EventReader(answer.body as ReadableStream<Uint8Array>);
    for (let read = 1; read <= 5; read++) {
      await reader.next();
      await turns(10);
      expect(seen.yielded.get("pace")).toBe(read + 1);
    }
    await reader.cancel();
    expect(await seen.whenStopped("pace")).toEqual({ at: 6, aborted: true });
  });

  test("the body cancelled: the generator stops (its signal aborted), and nothing is left unhandled", async () => {
    const answer = await inProcess(call("endless", ["cancelled", 1, 100], 1), EVENTS);
    await (answer.body as ReadableStream<Uint8Array>).cancel("gone");
    expect(await seen.whenStopped("cancelled")).toEqual({ at: 1, aborted: true });
    await turns(5);
    expect(escaped).toEqual([]);
  });

  test("the request's signal aborting mid-stream ends the stream, closed rather than errored, and stops the generator", async () => {
    const client = new AbortController();
    const answer = await inProcess(call("endless", ["signalled", 1, 100], 1), EVENTS, { signal: client.signal });
    const reader = new EventReader(answer.body as ReadableStream<Uint8Array>);
    await reader.next();
    client.abort();
    // The client went away: a host logs a body stream that errors (@hono/node-server prints it with
    // its stack), and a client leaving is normal. The stream ends whole-evented, with no answer.
    await expect(reader.next()).resolves.toBeUndefined();
    expect((await seen.whenStopped("signalled")).aborted).toBe(true);
  });

  test("a method that throws mid-stream: its values, LSP's work-done end, then its error as the last event", async () => {
    const answer = await inProcess(call("fails", { workDoneToken: 5 }, 1), EVENTS);
    expect(parseEvents(await new Response(answer.body).text())).toEqual([
      progress(5, { kind: "begin", title: "fails" }),
      progress(5, { kind: "report", message: "1" }),
      progress(5, { kind: "end" }),
      { jsonrpc: "2.0", error: { code: 1, message: "broke" }, id: 1 },
    ]);
  });

  test("a bad option rejects as asyncDispatch does, with that Accept or without", async () => {
    for (const accept of [undefined, EVENTS]) {
      await expect(inProcess(call("ping", undefined, 1), accept, { maxBatchSize: -1 })).rejects.toThrow(RangeError);
    }
  });
});

describe("the MCP SDK's Client over Streamable HTTP against examples/mcp/http.mjs", () => {
  let saw: Record<string, unknown> = {};
  beforeAll(async () => {
    if (!existsSync(join(ROOT, "dist/esm/index.js"))) throw new Error("run `npm run build` first");
    const { stdout } = await promisify(execFile)(process.execPath, [join("tests/fixtures", "mcp-http-client.mjs")], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 30_000,
    });
    saw = JSON.parse(stdout.trim().split("\n").pop() as string) as Record<string, unknown>;
  });

  test("initialize (stateless: no session), then tools/list: the tools of examples/mcp/app.mjs", () => {
    expect(saw["server"]).toEqual({ name: "rpcserver-mcp-example", version: "1.0.0" });
    expect(saw["sessionId"]).toBeNull();
    expect(saw["tools"]).toEqual(["add", "sleep", "count"]);
  });

  test("tools/call count with onprogress: each step 1..N of total N, then the text", () => {
    expect(saw["steps"]).toEqual([1, 2, 3, 4, 5].map((step) => ({ progress: step, total: 5 })));
    expect(saw["count"]).toEqual({ content: [{ type: "text", text: "counted to 5" }] });
    expect(saw["quiet"]).toEqual({ content: [{ type: "text", text: "counted to 3" }] });
    expect(saw["add"]).toEqual({ content: [{ type: "text", text: "5" }] });
    expect(saw["errors"]).toEqual([]);
  });

  test("a GET on /mcp is 405 (no stream outside a call), which MCP allows", () => {
    expect(saw["get"]).toEqual({ status: 405, allow: "POST" });
  });
});
