/**
 * A POST's event stream resumed with `Last-Event-ID` when `mcpHandler` has sessions (MCP 2025-11-25,
 * Streamable HTTP, "Resumability and Redelivery"). On real sockets, the server
 * (tests/fixtures/mcp-resume-server.mjs, from dist, on node:http through the example's glue) in a
 * child process: a call whose connection drops goes on, and a GET with its last event's id gets the
 * rest and the answer; with no reader it pauses; DELETE, `notifications/cancelled` and `resumeMs`
 * cancel it (its `finally` runs); the SDK's own client, its connection cut mid-call, sees every step.
 * In process, on the fetch handler: what is kept is bounded, and a gap is said.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { request, type ClientRequest, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { mcpHandler, mcpServer, mcpSessions, tool } from "../src/mcp";
import { ResumableCall } from "../src/internal/mcp/resumable";
import { usingFixture } from "./helpers/processes";
import { onEvents, postHeaders, postRequest, type SseEvent } from "./helpers/mcp-http";
import * as E from "fp-ts/Either";
import * as t from "io-ts";

const ROOT = join(__dirname, "..");

const fixture = usingFixture("tests/fixtures/mcp-resume-server.mjs");

type Event = SseEvent;

/** An event stream, read event by event; `drop` ends its connection without a word. */
interface Stream {
  readonly response: IncomingMessage;
  /** The whole body, once it ended. */
  readonly text: Promise<string>;
  readonly next: () => Promise<Event | "end">;
  readonly drop: () => void;
}

/** The events of `response`, as they come, then `"end"`. */
const eventsOf = (req: ClientRequest, response: IncomingMessage): Stream => {
  const events: Array<Event | "end"> = [];
  const waiting: Array<(event: Event | "end") => void> = [];
  const put = (event: Event | "end"): void => {
    const taker = waiting.shift();
    if (taker !== undefined) taker(event);
    else events.push(event);
  };
  let all = "";
  onEvents(response, put);
  response.on("data", (chunk: string) => (all += chunk));
  const text = new Promise<string>((settle) => response.on("end", () => settle(all)));
  response.on("end", () => put("end"));
  response.on("close", () => put("end"));
  return {
    response,
    text,
    next: () => {
      const event = events.shift();
      return event !== undefined ? Promise.resolve(event) : new Promise((take) => waiting.push(take));
    },
    drop: () => req.destroy(),
  };
};

/** A request on a socket of its own, its answer read as events. */
const exchange = (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Stream> =>
  new Promise((settle, fail) => {
    const req = request({ host: "127.0.0.1", port: fixture.port(), path, method, agent: false, headers });
    req.once("error", fail);
    req.once("response", (response) => settle(eventsOf(req, response)));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });

/** The whole body of an answer. */
const whole = (stream: Stream): Promise<string> => stream.text;

const post = (path: string, body: unknown, session?: string): Promise<Stream> =>
  exchange("POST", path, postHeaders(session), body);

const resume = (path: string, session: string, lastEventId: string): Promise<Stream> =>
  exchange("GET", path, { Accept: "text/event-stream", "Mcp-Session-Id": session, "Last-Event-ID": lastEventId });

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } },
};

const begin = async (path = "/mcp"): Promise<string> => {
  const answer = await post(path, INITIALIZE);
  await whole(answer);
  const id = answer.response.headers["mcp-session-id"];
  if (typeof id !== "string") throw new Error("no session id");
  return id;
};

let ids = 10;
/**
 * A call of `count`; with `hold`, it waits after that step until {@link release} (or its cancel):
 * what a test does to it then finds it under way, however late a loaded machine lets the test act.
 */
const count = (label: string, to: number, ms: number, hold?: number): Record<string, unknown> => ({
  jsonrpc: "2.0",
  id: (ids += 1),
  method: "tools/call",
  params: {
    name: "count",
    arguments: { label, to, ms, ...(hold === undefined ? {} : { hold }) },
    _meta: { progressToken: label },
  },
});

/** Lets the call labelled `label`, held at its `hold` step, go on. */
const release = async (path: string, session: string, label: string): Promise<void> => {
  const answer = await post(
    path,
    { jsonrpc: "2.0", id: (ids += 1), method: "tools/call", params: { name: "release", arguments: { label } } },
    session,
  );
  expect(await whole(answer)).toContain('"released"');
};

/** The record of the call of `count` labelled `label`: the latest step it reached, and how it ended. */
const status = async (path: string, session: string, label: string): Promise<{ step: number; end: string }> => {
  const answer = await post(
    path,
    { jsonrpc: "2.0", id: (ids += 1), method: "tools/call", params: { name: "status", arguments: { label } } },
    session,
  );
  const text = await whole(answer);
  return (JSON.parse(text) as { result: { structuredContent: { step: number; end: string } } }).result
    .structuredContent;
};

/** Waits until the call labelled `label` ended (each look a request of its own; the test's timeout bounds it). */
const ended = async (path: string, session: string, label: string): Promise<string> => {
  for (;;) {
    const { end } = await status(path, session, label);
    if (end !== "running") return end;
    await sleep(50);
  }
};

const sleep = (ms: number): Promise<void> => new Promise((settle) => setTimeout(settle, ms));

/** The progress of a progress notification's event, or the text of an answer's. */
const what = (event: Event | "end"): unknown => {
  if (event === "end") return "end";
  const message = JSON.parse(event.data) as {
    method?: string;
    params?: { progress: number };
    result?: { content: Array<{ text: string }> };
  };
  return message.method === "notifications/progress" ? message.params?.progress : message.result?.content[0]?.text;
};

/** Reads events until the stream's end: what each was, and their ids. */
const rest = async (stream: Stream): Promise<{ seen: unknown[]; ids: Array<string | undefined> }> => {
  const seen: unknown[] = [];
  const ids: Array<string | undefined> = [];
  for (;;) {
    const event = await stream.next();
    if (event === "end") return { seen, ids };
    seen.push(what(event));
    ids.push(event.id);
  }
};

describe("a POST's event stream, resumable with sessions, on real sockets", () => {
  test("dropped mid-call, the call goes on: a GET with its last event's id gets the rest, then the answer", async () => {
    const session = await begin();
    const call = await post("/mcp", count("resumed", 6, 60, 2), session);
    expect(call.response.headers["content-type"]).toBe("text/event-stream");
    const first = await call.next();
    const second = await call.next();
    expect([what(first), what(second)]).toEqual([1, 2]);
    if (first === "end" || second === "end") throw new Error("ended early");
    // Ids name the call's stream, `<call>-<event>`, never a whole number (the GET stream's).
    expect(first.id).toMatch(/^\d+-1$/);
    expect(second.id).toBe(first.id?.replace(/-1$/, "-2"));
    call.drop();
    await release("/mcp", session, "resumed");
    const again = await resume("/mcp", session, second.id ?? "");
    expect(again.response.statusCode).toBe(200);
    expect(again.response.headers["content-type"]).toBe("text/event-stream");
    const { seen, ids: after } = await rest(again);
    expect(seen).toEqual([3, 4, 5, 6, "counted to 6"]);
    const call_ = second.id?.split("-")[0];
    expect(after).toEqual([3, 4, 5, 6, 7].map((n) => `${call_}-${n}`));
    expect(await status("/mcp", session, "resumed")).toEqual({ step: 6, end: "done" });
  });

  test("a GET with the last event's id while the POST still reads: the POST's stream ends, the GET gets the rest once", async () => {
    const session = await begin();
    const call = await post("/mcp", count("replaced", 6, 10, 2), session);
    const first = await call.next();
    const second = await call.next();
    if (first === "end" || second === "end") throw new Error("ended early");
    // The POST's connection stays open: the GET replaces its reader rather than finding none.
    const again = await resume("/mcp", session, second.id ?? "");
    expect(again.response.statusCode).toBe(200);
    expect(await call.next()).toBe("end");
    await release("/mcp", session, "replaced");
    const { seen } = await rest(again);
    expect(seen).toEqual([3, 4, 5, 6, "counted to 6"]);
    expect(await status("/mcp", session, "replaced")).toEqual({ step: 6, end: "done" });
  });

  test("with no reader the call pauses once 4 events (replay) wait unread, and a reader comes back to all of them", async () => {
    const session = await begin();
    const call = await post("/mcp", count("paused", 40, 5, 1), session);
    const first = await call.next();
    if (first === "end") throw new Error("ended early");
    call.drop();
    await release("/mcp", session, "paused");
    // It would be done in 200 ms if it ran on; paused, it is not, however long it waits.
    await sleep(400);
    const paused = await status("/mcp", session, "paused");
    expect(paused.end).toBe("running");
    expect(paused.step).toBeLessThan(40);
    const again = await resume("/mcp", session, first.id ?? "");
    const { seen } = await rest(again);
    expect(seen).toEqual([...Array.from({ length: 39 }, (_, i) => i + 2), "counted to 40"]);
    expect(await status("/mcp", session, "paused")).toEqual({ step: 40, end: "done" });
  });

  test("DELETE of the session cancels a call waiting for its reader: the tool's finally runs", async () => {
    const session = await begin();
    const call = await post("/mcp", count("deleted", 40, 5, 1), session);
    await call.next();
    call.drop();
    // Its client gone, the call waits for it (up to resumeMs, 20 s on /mcp).
    await sleep(100);
    expect((await status("/mcp", session, "deleted")).end).toBe("running");
    const deleted = await exchange("DELETE", "/mcp", { "Mcp-Session-Id": session });
    expect(deleted.response.statusCode).toBe(204);
    // The session is gone: its status is asked on another.
    expect(await ended("/mcp", await begin(), "deleted")).toBe("stopped");
  });

  test("notifications/cancelled naming the call cancels it: its stream ends with no answer", async () => {
    const session = await begin();
    const asked = count("cancelled", 40, 20, 1);
    const call = await post("/mcp", asked, session);
    await call.next();
    const cancel = await post(
      "/mcp",
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: asked["id"], reason: "enough" } },
      session,
    );
    expect(cancel.response.statusCode).toBe(202);
    const { seen } = await rest(call);
    expect(seen).not.toContain("counted to 40");
    expect(await ended("/mcp", session, "cancelled")).toBe("stopped");
  });

  test("a call with no reader past resumeMs (300 ms on /brief) is cancelled, and its last event's id is then 400", async () => {
    const session = await begin("/brief");
    const call = await post("/brief", count("abandoned", 40, 5, 1), session);
    const first = await call.next();
    if (first === "end") throw new Error("ended early");
    call.drop();
    expect(await ended("/brief", session, "abandoned")).toBe("stopped");
    const again = await resume("/brief", session, first.id ?? "");
    expect(again.response.statusCode).toBe(400);
    expect(JSON.parse(await whole(again))).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: expect.stringContaining("Last-Event-ID") as string },
      id: null,
    });
  });

  test("a Last-Event-ID of a call's form that names no call held is 400; the session's GET stream is not touched", async () => {
    const session = await begin();
    const stream = await exchange("GET", "/mcp", { Accept: "text/event-stream", "Mcp-Session-Id": session });
    const primer = await stream.next();
    expect(primer).toEqual({ id: expect.stringMatching(/^\d+$/) as string, data: "" });
    const stray = await resume("/mcp", session, "999-1");
    expect(stray.response.statusCode).toBe(400);
    await whole(stray);
    // Still open: a second GET stream would have closed it.
    const ended_ = await Promise.race([stream.next(), sleep(200).then(() => "open" as const)]);
    expect(ended_).toBe("open");
    stream.drop();
  });

  test("the SDK's client, its call's connection cut after 3 events, comes back by itself and sees every step", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join("tests/fixtures", "mcp-resume-client.mjs"), String(fixture.port())],
      { cwd: ROOT, timeout: 30_000 },
    );
    const seen = JSON.parse(stdout) as Record<string, unknown>;
    expect(seen["failed"]).toBeUndefined();
    expect(seen["cut"]).toBe(true);
    expect(seen["progress"]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(seen["result"]).toEqual([{ type: "text", text: "counted to 8" }]);
    expect(seen["record"]).toEqual({ step: 8, end: "done" });
  });
});

describe("a POST's event stream, resumable, on the fetch handler", () => {
  /** What the tool `held` saw: "started", then "finally" once its `finally` ran. */
  const held: string[] = [];

  const handlerOf = (replay: number): ((request: Request) => Promise<Response>) => {
    const server = mcpServer({
      name: "in-process",
      version: "1.0.0",
      tools: {
        held: tool({
          description: "Waits for its signal, then yields",
          run: async function* (_args, { signal }) {
            held.push("started");
            try {
              await new Promise((settle) => signal.addEventListener("abort", settle, { once: true }));
              yield { progress: 1 };
              return E.right("released");
            } finally {
              held.push("finally");
            }
          },
        }),
        steps: tool({
          description: "Yields `to` steps",
          input: t.type({ to: t.number }),
          run: async function* ({ to }) {
            for (let step = 1; step <= to; step += 1) yield { progress: step };
            return E.right(`${to} steps`);
          },
        }),
      },
    });
    return mcpHandler(server, { sessions: mcpSessions({ replay, id: randomUUID }) });
  };

  /** One event a pull, as the stream hands it. */
  const read = async (reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Event | "end"> => {
    const step = await reader.read();
    if (step.done) return "end";
    const text = new TextDecoder().decode(step.value);
    const id = /^id: (.*)$/m.exec(text)?.[1];
    return { id, data: /^data: (.*)$/m.exec(text)?.[1] ?? "" };
  };

  test("a reader that comes back from further than what is kept is told what it lost, then gets what is kept", async () => {
    const handler = handlerOf(2);
    const session = (await handler(postRequest(undefined, INITIALIZE))).headers.get("mcp-session-id") ?? "";
    const answer = await handler(
      postRequest(session, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "steps", arguments: { to: 6 }, _meta: { progressToken: 1 } },
      }),
    );
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    const handed: Array<Event | "end"> = [];
    for (let i = 0; i < 5; i += 1) handed.push(await read(reader));
    expect(handed.map(what)).toEqual([1, 2, 3, 4, 5]);
    await reader.cancel();
    const first = handed[0];
    if (first === undefined || first === "end") throw new Error("no first event");
    const call = first.id?.split("-")[0] ?? "";
    const again = await handler(
      new Request("http://localhost/mcp", {
        headers: { Accept: "text/event-stream", "Mcp-Session-Id": session, "Last-Event-ID": first.id ?? "" },
      }),
    );
    expect(again.status).toBe(200);
    const resumed = (again.body as ReadableStream<Uint8Array>).getReader();
    const notice = await read(resumed);
    if (notice === "end") throw new Error("no notice");
    expect(notice.id).toBeUndefined();
    expect(JSON.parse(notice.data)).toEqual({
      jsonrpc: "2.0",
      method: "notifications/rpcserver/events_lost",
      params: { lastEventId: first.id, through: `${call}-3`, reason: "evicted" },
    });
    const after: Array<Event | "end"> = [];
    for (let event = await read(resumed); event !== "end"; event = await read(resumed)) after.push(event);
    expect(after.map(what)).toEqual([4, 5, 6, "6 steps"]);
    expect(after.map((event) => (event === "end" ? "" : event.id))).toEqual([4, 5, 6, 7].map((n) => `${call}-${n}`));
  });

  test("DELETE cancels a call not answered yet (no event yet): its finally runs, and its POST is answered", async () => {
    const handler = handlerOf(2);
    const session = (await handler(postRequest(undefined, INITIALIZE))).headers.get("mcp-session-id") ?? "";
    const answer = handler(
      postRequest(session, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "held", _meta: { progressToken: 1 } },
      }),
    );
    // Under way (each look a turn of its own; the test's timeout bounds it).
    while (!held.includes("started")) await sleep(5);
    const deleted = await handler(
      new Request("http://localhost/mcp", { method: "DELETE", headers: { "Mcp-Session-Id": session } }),
    );
    expect(deleted.status).toBe(204);
    expect(await (await answer).text()).not.toContain("released");
    expect(held).toEqual(["started", "finally"]);
  });

  test("a cancel that names no request id (none, or null) cancels nothing, not the calls whose own id cannot be told", async () => {
    held.length = 0;
    const handler = handlerOf(4);
    const session = (await handler(postRequest(undefined, INITIALIZE))).headers.get("mcp-session-id") ?? "";
    const call = { jsonrpc: "2.0", method: "tools/call", params: { name: "held", arguments: {} } };
    // A batch: its calls' ids are not one request's, so no cancel names it by them.
    const batch = handler(
      postRequest(session, [
        { ...call, id: 7 },
        { ...call, id: 8 },
      ]),
    );
    await new Promise((settle) => setTimeout(settle, 50));
    expect(held).toEqual(["started", "started"]);
    for (const params of [{}, { requestId: null }]) {
      const cancel = await handler(postRequest(session, { jsonrpc: "2.0", method: "notifications/cancelled", params }));
      expect(cancel.status).toBe(202);
    }
    await new Promise((settle) => setTimeout(settle, 50));
    expect(held).toEqual(["started", "started"]);
    // The session's end cancels them.
    await handler(new Request("http://localhost/mcp", { method: "DELETE", headers: { "Mcp-Session-Id": session } }));
    await (await batch).text();
    expect(held).toEqual(["started", "started", "finally", "finally"]);
  });

  test("a batch of cancels against many calls under way reads each call's body once, not once per cancel", async () => {
    held.length = 0;
    const handler = handlerOf(4);
    const session = (await handler(postRequest(undefined, INITIALIZE))).headers.get("mcp-session-id") ?? "";
    const CALLS = 20;
    const pad = "x".repeat(10_000);
    const answers = Array.from({ length: CALLS }, (_, i) =>
      handler(
        postRequest(session, {
          jsonrpc: "2.0",
          id: 100 + i,
          method: "tools/call",
          params: { name: "held", arguments: {}, _meta: { pad } },
        }),
      ),
    );
    while (held.length < CALLS) await new Promise((settle) => setTimeout(settle, 5));
    // 99 cancels of ids no call has, and one of call 105's.
    const cancels = Array.from({ length: 100 }, (_, i) => ({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: i === 50 ? 105 : 1000 + i },
    }));
    const parse = jest.spyOn(JSON, "parse");
    let parses: number;
    try {
      expect((await handler(postRequest(session, cancels))).status).toBe(202);
      parses = parse.mock.calls.length;
    } finally {
      parse.mockRestore();
    }
    // The calls' bodies once each, and the cancels' body a few times (the session, the dispatch):
    // once per cancel and call, it was 100 x 20 parses of 10 kB.
    expect(parses).toBeLessThanOrEqual(CALLS + 10);
    await new Promise((settle) => setTimeout(settle, 50));
    expect(held.filter((step) => step === "finally")).toHaveLength(1);
    expect(await (await answers[5])?.text()).not.toContain("released");
    // A second batch reads no call's body again.
    const again = jest.spyOn(JSON, "parse");
    try {
      await handler(postRequest(session, cancels.slice(0, 10)));
      expect(again.mock.calls.length).toBeLessThanOrEqual(10);
    } finally {
      again.mockRestore();
    }
    await handler(new Request("http://localhost/mcp", { method: "DELETE", headers: { "Mcp-Session-Id": session } }));
    await Promise.all(answers.map(async (answer, i) => (i === 5 ? "" : (await answer).text())));
    expect(held.filter((step) => step === "finally")).toHaveLength(CALLS);
  });

  test("a call answered as JSON keeps nothing: its id names no stream", async () => {
    const handler = handlerOf(2);
    const session = (await handler(postRequest(undefined, INITIALIZE))).headers.get("mcp-session-id") ?? "";
    const answer = await handler(
      postRequest(session, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "steps", arguments: { to: 0 } },
      }),
    );
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(await answer.text()).toContain("0 steps");
    const again = await handler(
      new Request("http://localhost/mcp", {
        headers: { Accept: "text/event-stream", "Mcp-Session-Id": session, "Last-Event-ID": "1-1" },
      }),
    );
    expect(again.status).toBe(400);
  });
});

describe("ResumableCall, the part that keeps a call's events", () => {
  test("a call whose stream fails errors its reader's stream after what it sent, rather than end as if whole", async () => {
    const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
    let pulled = 0;
    const inner = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => {
          pulled += 1;
          if (pulled === 1) controller.enqueue(bytes("event: message\ndata: {}\n\n"));
          else controller.error(new Error("the dispatch failed"));
        },
      },
      { highWaterMark: 0 },
    );
    let gone = 0;
    const call = new ResumableCall(
      inner.getReader(),
      1,
      4,
      60_000,
      () => undefined,
      () => (gone += 1),
    );
    const reader = call.open(0, undefined).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("id: 1-1\nevent: message\ndata: {}\n\n");
    await expect(reader.read()).rejects.toThrow("the dispatch failed");
    expect(gone).toBe(1);
  });

  /** A call's inner stream of three events (`data: 1` to `data: 3`), each made when read: `pulled()` says how many were. */
  const threeEvents = (): { readonly stream: ReadableStream<Uint8Array>; readonly pulled: () => number } => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => {
          pulled += 1;
          if (pulled <= 3) controller.enqueue(new TextEncoder().encode(`data: ${pulled}\n\n`));
          else controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, pulled: () => pulled };
  };

  test("a newer reader that replaces a live one: the older's stream ends, and the call reads nothing ahead meanwhile", async () => {
    const inner = threeEvents();
    const call = new ResumableCall(
      inner.stream.getReader(),
      1,
      4,
      60_000,
      () => undefined,
      () => undefined,
    );
    const first = call.open(0, undefined).getReader();
    expect(new TextDecoder().decode((await first.read()).value)).toBe("id: 1-1\ndata: 1\n\n");
    const second = call.open(1, undefined).getReader();
    expect(await first.read()).toEqual({ done: true, value: undefined });
    // A turn of the event loop: a read ahead started by the replacement would have pulled by now.
    await new Promise((resolve) => setImmediate(resolve));
    expect(inner.pulled()).toBe(1);
    expect(new TextDecoder().decode((await second.read()).value)).toBe("id: 1-2\ndata: 2\n\n");
    expect(inner.pulled()).toBe(2);
    await second.cancel();
    call.stop();
  });

  test("a reader that comes back within resumeMs clears its wait: the call is not cancelled later, and goes on", async () => {
    // Jest's clock: the time between the leave and the return is what the test says, not the machine's.
    jest.useFakeTimers({ doNotFake: ["queueMicrotask", "nextTick", "setImmediate"] });
    try {
      const inner = threeEvents().stream;
      let cancelled = 0;
      let gone = 0;
      const call = new ResumableCall(
        inner.getReader(),
        1,
        4,
        100,
        () => (cancelled += 1),
        () => (gone += 1),
      );
      const first = call.open(0, undefined).getReader();
      expect(new TextDecoder().decode((await first.read()).value)).toBe("id: 1-1\ndata: 1\n\n");
      // The reader leaves: the call waits 100 ms for one. One comes back at 60 ms.
      await first.cancel();
      jest.advanceTimersByTime(60);
      const second = call.open(1, undefined).getReader();
      // Long past the first wait's end: a wait not cleared would have cancelled the call by now.
      jest.advanceTimersByTime(1_000);
      expect(cancelled).toBe(0);
      const rest: string[] = [];
      for (let read = await second.read(); read.done !== true; read = await second.read()) {
        rest.push(new TextDecoder().decode(read.value));
      }
      expect(rest).toEqual(["id: 1-2\ndata: 2\n\n", "id: 1-3\ndata: 3\n\n"]);
      expect([cancelled, gone]).toEqual([0, 1]);
    } finally {
      jest.useRealTimers();
    }
  });
});
