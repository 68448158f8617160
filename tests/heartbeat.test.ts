/**
 * The heartbeat of an answer with events accepted (`heartbeatMs`): a request with an id that has
 * waited that long for its first value or its answer gets its head (an event stream) and a comment
 * at each interval while the stream is silent, so that a client that gives up on a silent request
 * (undici's `fetch` at 300 s for a head) or a proxy (nginx at 60 s for a byte) keeps it.
 *
 * On real sockets (`nodeHandler` under `node:http`, read by `http.request`): the head and two
 * comments arrive while the method still waits, and the method goes on only once they did (so the
 * test hangs, and fails, where the head waits for the first value); the answer and values follow
 * in order; a client leaving while it waits aborts the method's signal; a body of notifications
 * still gets its 202; with `0` a late answer is still JSON. In one process: `fetchHandler`, the
 * typed client's `open` over it, and the option's checks.
 */
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { answerHttp, contract, implement, Success } from "../src";
import { client, http, open } from "../src/client";
import { fetchHandler } from "../src/fetch";
import { mcpHandler, mcpServer, mcpSessions, tool } from "../src/mcp";
import { nodeHandler } from "../src/server";

const EVENTS = "text/event-stream, application/json";

/** A promise and the function that resolves it. */
const gate = (): { readonly wait: Promise<void>; readonly open: () => void } => {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
};

const call = (method: string, params: unknown, id?: number): string =>
  JSON.stringify({ jsonrpc: "2.0", method, params, ...(id === undefined ? {} : { id }) });

/** MCP's 2025-11-25 `initialize`, as a client begins a session. */
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
};

/** POSTs `body` to an MCP handler, in `session` if one is named, accepting events. */
const mcpPost = (
  handler: (request: Request) => Promise<Response>,
  session: string | null,
  body: unknown,
): Promise<Response> =>
  handler(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: EVENTS,
        ...(session === null ? {} : { "Mcp-Session-Id": session }),
      },
      body: JSON.stringify(body),
    }),
  );

/** What the methods below wait for, and what they saw: one test at a time. */
let release = gate();
let aborted = gate();
/** Opened by `plain` and `note` as they start: a test waits for it before it lets time pass. */
let started = gate();
let finished = false;

const methods = {
  /** Waits for the test, then yields one value and answers. */
  later: async function* (context: { signal?: AbortSignal }) {
    context.signal?.addEventListener("abort", aborted.open);
    try {
      await release.wait;
      yield 1;
      return Success("done");
    } finally {
      finished = true;
    }
  },
  /** Waits for the test, then answers with no value. */
  plain: async (_context: { signal?: AbortSignal }) => {
    started.open();
    await release.wait;
    return Success("late");
  },
  /** A notification's method that waits for the test. */
  note: async (_context: { signal?: AbortSignal }) => {
    started.open();
    await release.wait;
    return Success(null);
  },
};

let server: Server;
let port: number;
/** The handler's `heartbeatMs` for the server below: each test sets it. */
let heartbeatMs = 50;

beforeAll(async () => {
  const handlers = new Map<number, ReturnType<typeof nodeHandler>>();
  const handlerFor = (ms: number): ReturnType<typeof nodeHandler> => {
    let handler = handlers.get(ms);
    if (handler === undefined) {
      handler = nodeHandler(methods, { heartbeatMs: ms, context: () => ({}) });
      handlers.set(ms, handler);
    }
    return handler;
  };
  server = createServer((req, res) => void handlerFor(heartbeatMs)(req, res));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  release = gate();
  aborted = gate();
  started = gate();
  finished = false;
  heartbeatMs = 50;
});

/** POSTs `body` with `accept`: the response once its head came, and its body's text as it comes. */
const post = async (
  body: string,
  accept = EVENTS,
): Promise<{ readonly res: IncomingMessage; readonly text: () => string; readonly ended: Promise<void> }> => {
  const req = httpRequest({
    host: "127.0.0.1",
    port,
    method: "POST",
    headers: { "content-type": "application/json", accept },
  });
  req.end(body);
  const [res] = (await once(req, "response")) as [IncomingMessage];
  let text = "";
  res.setEncoding("utf8");
  res.on("data", (chunk: string) => (text += chunk));
  const ended = once(res, "end").then(() => undefined);
  return { res, text: () => text, ended };
};

/** Resolves once `read()` holds `count` comments (`:` lines), checking at each chunk. */
const comments = (res: IncomingMessage, read: () => string, count: number): Promise<void> =>
  new Promise((resolve) => {
    const check = (): void => {
      if ((read().match(/^:\n\n/gm) ?? []).length >= count) {
        res.off("data", check);
        resolve();
      }
    };
    res.on("data", check);
    check();
  });

describe("heartbeat over nodeHandler on a real socket", () => {
  it("sends the head and comments while the method waits, then its value and answer", async () => {
    const { res, text, ended } = await post(call("later", [], 1));
    // The head came while the method still waits for `release`: only the heartbeat sent it.
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/event-stream");
    await comments(res, text, 2);
    expect(finished).toBe(false);
    release.open();
    await ended;
    const events = text()
      .split("\n\n")
      .filter((block) => block.startsWith("event: message"))
      .map((block) => JSON.parse(block.slice(block.indexOf("data: ") + 6)) as unknown);
    expect(events).toEqual([
      { jsonrpc: "2.0", method: "$/progress", params: { token: 1, value: 1 } },
      { jsonrpc: "2.0", result: "done", id: 1 },
    ]);
    // Every block is an event or a comment: nothing else went on the wire.
    expect(
      text()
        .split("\n\n")
        .filter((block) => block !== "" && block !== ":" && !block.startsWith("event: message")),
    ).toEqual([]);
    expect(finished).toBe(true);
  });

  it("answers a method with no value as the last event once the stream is open", async () => {
    const { res, text, ended } = await post(call("plain", [], 2));
    expect(res.headers["content-type"]).toBe("text/event-stream");
    await comments(res, text, 1);
    release.open();
    await ended;
    expect(text()).toMatch(/event: message\ndata: \{"jsonrpc":"2.0","result":"late","id":2\}\n\n$/);
  });

  it("aborts the method's signal when the client leaves during the heartbeat", async () => {
    const { res, text } = await post(call("later", [], 3));
    await comments(res, text, 1);
    res.destroy();
    await aborted.wait;
    release.open();
    await new Promise((resolve) => setTimeout(resolve, 0));
    // The generator was stopped at its yield: its finally ran.
    await new Promise<void>((resolve) => {
      const check = (): void => (finished ? resolve() : void setTimeout(check, 5));
      check();
    });
    expect(finished).toBe(true);
  });

  it("keeps 202 for a body of notifications, however long they take", async () => {
    const pending = post(call("note", []));
    // Several heartbeats' worth of time pass with nothing sent (the handler answers 202 after the
    // notification's method ends, as before): counted from its method's start.
    await started.wait;
    await new Promise((resolve) => setTimeout(resolve, heartbeatMs * 4));
    release.open();
    const { res, ended } = await pending;
    await ended;
    expect(res.statusCode).toBe(202);
  });

  it("with heartbeatMs 0, a late answer is JSON, as before", async () => {
    heartbeatMs = 0;
    const pending = post(call("plain", [], 4));
    await started.wait;
    await new Promise((resolve) => setTimeout(resolve, 200));
    release.open();
    const { res, text, ended } = await pending;
    await ended;
    expect(res.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(text())).toEqual({ jsonrpc: "2.0", result: "late", id: 4 });
  });

  it("sends no heartbeat to a client that does not accept events", async () => {
    const pending = post(call("plain", [], 5), "application/json");
    await started.wait;
    await new Promise((resolve) => setTimeout(resolve, heartbeatMs * 4));
    release.open();
    const { res, text, ended } = await pending;
    await ended;
    expect(res.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(text())).toEqual({ jsonrpc: "2.0", result: "late", id: 5 });
  });
});

describe("heartbeat of pipelined responses", () => {
  it("holds no comments for a response queued behind another", async () => {
    heartbeatMs = 5;
    const socket = connect(port, "127.0.0.1");
    await once(socket, "connect");
    const body = (id: number): string => call("plain", [], id);
    const head = (text: string): string =>
      `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: ${EVENTS}\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
    // Three slow requests in one write: Node answers them in order, the second and third queued behind the first.
    socket.write(head(body(11)) + head(body(12)) + head(body(13)));
    let text = "";
    socket.setEncoding("utf8");
    const count = (pattern: RegExp, within: string): number => (within.match(pattern) ?? []).length;
    await new Promise<void>((resolve) => {
      socket.on("data", (chunk: string) => {
        text += chunk;
        // The first response's comments show the heartbeats that went: as many went for the queued two.
        if (count(/:\n\n/g, text) >= 20) resolve();
      });
    });
    release.open();
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (count(/"result":"late"/g, text) === 3) {
          socket.off("data", check);
          resolve();
        }
      };
      socket.on("data", check);
      check();
    });
    socket.destroy();
    const [, first, second, third] = text.split("HTTP/1.1 200 OK");
    expect(count(/"id":11/g, first ?? "")).toBe(1);
    expect(count(/"id":12/g, second ?? "")).toBe(1);
    expect(count(/"id":13/g, third ?? "")).toBe(1);
    // Queued, each kept one comment at most; on the wire, it had a few beats before its answer.
    expect(count(/:\n\n/g, second ?? "")).toBeLessThan(5);
    expect(count(/:\n\n/g, third ?? "")).toBeLessThan(5);
  });
});

describe("heartbeat in one process", () => {
  it("fetchHandler: the head comes before the method's first value", async () => {
    const handler = fetchHandler(methods, { heartbeatMs: 20, context: () => ({}) });
    const response = await handler(
      new Request("http://localhost/", {
        method: "POST",
        headers: { accept: EVENTS, "content-type": "application/json" },
        body: call("later", [], 6),
      }),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(finished).toBe(false);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(":\n\n");
    release.open();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      rest += new TextDecoder().decode(chunk.value);
    }
    expect(rest).toMatch(/data: \{"jsonrpc":"2.0","result":"done","id":6\}\n\n$/);
  });

  it("stops beating once the client cancels the stream", async () => {
    // An interval no other timer of this process uses: its arming is the heartbeat's.
    const ms = 37;
    const handler = fetchHandler(methods, { heartbeatMs: ms, context: () => ({}) });
    const armed = jest.spyOn(globalThis, "setTimeout");
    try {
      const response = await handler(
        new Request("http://localhost/", {
          method: "POST",
          headers: { accept: EVENTS, "content-type": "application/json" },
          body: call("later", [], 7),
        }),
      );
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      await reader.cancel();
      await aborted.wait;
      const beats = (): number => armed.mock.calls.filter(([, delay]) => delay === ms).length;
      const before = beats();
      await new Promise((resolve) => setTimeout(resolve, ms * 5));
      expect(beats()).toBe(before);
    } finally {
      armed.mockRestore();
      release.open();
    }
    // The generator stopped at its yield once released: its finally ran before the next test begins.
    await new Promise<void>((resolve) => {
      const check = (): void => (finished ? resolve() : void setTimeout(check, 5));
      check();
    });
  });

  it("the typed client's open reads a stream with comments before its values", async () => {
    const api = contract({ later: { params: t.tuple([t.number]), stream: t.number, result: t.string } });
    const served = implement(api, {
      later: async function* (to) {
        await release.wait;
        for (let i = 1; i <= to; i++) yield i;
        return E.right("done");
      },
    });
    const handler = fetchHandler(served, { heartbeatMs: 10 });
    let heard = 0;
    const remote = client(
      api,
      http("http://localhost/", {
        fetch: async (input, init) => {
          const response = await handler(new Request(input, init));
          heard++;
          // Let a few comments go before the values: the method waits for this.
          setTimeout(release.open, 50);
          return response;
        },
      }),
    );
    const values: number[] = [];
    const run = open(remote.later(2));
    for await (const value of run) values.push(value);
    const answer = await run.result;
    expect(heard).toBe(1);
    expect(values).toEqual([1, 2]);
    expect(answer).toEqual(E.right("done"));
  });

  it("an MCP session's initialize that outlasts heartbeatMs still answers JSON and begins its session", async () => {
    const server = mcpServer({ name: "slow", version: "1.0.0" });
    // A stage that takes longer than the heartbeat, on every method, initialize included.
    const slow = async <A>(handled: A): Promise<E.Either<never, A>> => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return E.right(handled);
    };
    const handler = mcpHandler(server, {
      sessions: mcpSessions({ id: randomUUID }),
      heartbeatMs: 20,
      stages: [...server.stages, slow],
    } as never);
    const answer = await mcpPost(handler, null, INITIALIZE);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.headers.get("mcp-session-id")).toMatch(/^[\w-]+$/);
    expect(JSON.parse(await answer.text())).toMatchObject({ id: 1, result: { protocolVersion: "2025-11-25" } });
  });

  it("an MCP session's resumable stream hands comments on unnumbered, and numbers only its events", async () => {
    const server = mcpServer({
      name: "resumable",
      version: "1.0.0",
      tools: {
        later: tool({
          description: "Waits for the test, then one step",
          run: async function* () {
            await release.wait;
            yield { progress: 1 };
            return E.right("done");
          },
        }),
      },
    });
    const handler = mcpHandler(server, { sessions: mcpSessions({ replay: 2, id: randomUUID }), heartbeatMs: 10 });
    const begun = await mcpPost(handler, null, INITIALIZE);
    const session = begun.headers.get("mcp-session-id");
    await begun.text();
    const answer = await mcpPost(handler, session, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "later", arguments: {}, _meta: { progressToken: "p" } },
    });
    expect(answer.headers.get("content-type")).toBe("text/event-stream");
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    // More comments than the call keeps events (replay 2): kept, they would have pushed its events out.
    while ((text.match(/^:$/gm) ?? []).length < 5) text += decoder.decode((await reader.read()).value);
    release.open();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    const blocks = text.split("\n\n").filter((block) => block !== "");
    // The comments came alone, with no id; the two events are the call's first and second.
    expect(blocks.filter((block) => block === ":").length).toBeGreaterThanOrEqual(5);
    const events = blocks.filter((block) => block !== ":");
    expect(events.map((block) => /^id: \d+-(\d+)$/m.exec(block)?.[1])).toEqual(["1", "2"]);
    expect(events[1]).toContain('"id":2');
    expect(text).not.toContain("events_lost");
  });

  it("refuses a heartbeatMs that is not a number of milliseconds", async () => {
    for (const bad of [-1, Number.NaN, Infinity, 2 ** 31, "15000"]) {
      expect(() => fetchHandler(methods, { heartbeatMs: bad as number })).toThrow(
        /fetchHandler: heartbeatMs must be a number of milliseconds up to 2147483647 \(0 for none\), got /,
      );
      expect(() => nodeHandler(methods, { heartbeatMs: bad as number })).toThrow(/nodeHandler: heartbeatMs/);
      for (const accept of [EVENTS, "application/json"]) {
        await expect(answerHttp(call("plain", [], 1), methods, { accept, heartbeatMs: bad as number })).rejects.toThrow(
          /answerHttp: heartbeatMs/,
        );
      }
    }
  });

  it("refuses a heartbeatMs that is no number at compile time, whatever the other options", async () => {
    // Each beside the options that change how the rest is typed: a context function, stages, an app, sessions.
    const typed = { ping: () => Success("pong") };
    const app = implement(contract({ ping: { result: t.string } }), { ping: () => E.right("pong") });
    const pass = <A>(handled: A): E.Either<never, A> => E.right(handled);
    expect(() =>
      // @ts-expect-error heartbeatMs is a number
      fetchHandler(typed, { heartbeatMs: "1", stages: [pass], context: () => ({}) }),
    ).toThrow(TypeError);
    // @ts-expect-error heartbeatMs is a number
    expect(() => nodeHandler(app, { heartbeatMs: "1", maxBodyBytes: 10 })).toThrow(TypeError);
    // @ts-expect-error heartbeatMs is a number
    expect(() => mcpHandler(mcpServer({ name: "s", version: "1" }), { sessions: true, heartbeatMs: "1" })).toThrow(
      TypeError,
    );
    await expect(
      // @ts-expect-error heartbeatMs is a number
      answerHttp(call("ping", [], 1), typed, { accept: EVENTS, stages: [pass], heartbeatMs: "1" }),
    ).rejects.toThrow(TypeError);
  });
});
