/**
 * `mcpHandler`'s optional sessions on real sockets: the server (tests/fixtures/mcp-sessions-server.mjs,
 * built from dist, on node:http through the example's glue) in a child process. The session's id
 * issued by `initialize`, 400 without it, 404 for one unknown, ended (DELETE), pushed out by the
 * bound or idle too long; the GET stream and a notification on it; `Last-Event-ID` after a dropped
 * connection, within the replay's bound and past it; a request of the 2026-07-28 era answered with
 * no session; and a process with a session open that exits by itself (no timer holds it).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { request, type IncomingMessage } from "node:http";
import { join } from "node:path";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { mcpHandler, mcpServer, mcpSessions, tool } from "../src/mcp";
import { usingFixture } from "./helpers/processes";
import { onEvents, postHeaders, postRequest, type SseEvent } from "./helpers/mcp-http";

const ROOT = join(__dirname, "..");
const SERVER = "tests/fixtures/mcp-sessions-server.mjs";
const BOTH = "application/json, text/event-stream";

const fixture = usingFixture(SERVER);

interface Answer {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

/** A request on a socket of its own, answered whole. */
const send = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> =>
  new Promise((settle, fail) => {
    const req = request({ host: "127.0.0.1", port: fixture.port(), path, method, agent: false, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => settle({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.once("error", fail);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });

const call = (id: number, method: string, params: Record<string, unknown> = {}): Record<string, unknown> => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

const post = (path: string, body: unknown, session?: string): Promise<Answer> =>
  send("POST", path, postHeaders(session), body);

const INITIALIZE = call(1, "initialize", {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "test", version: "1" },
});

/** A new session's id, from its `initialize`'s answer. */
const begin = async (path = "/mcp"): Promise<string> => {
  const answer = await post(path, INITIALIZE);
  expect(answer.status).toBe(200);
  const id = answer.headers["mcp-session-id"];
  if (typeof id !== "string") throw new Error(`no session id: ${JSON.stringify(answer.headers)}`);
  return id;
};

const announce = async (session: string, text: string): Promise<void> => {
  const answer = await post("/mcp", call(7, "tools/call", { name: "announce", arguments: { text } }), session);
  expect(answer.status).toBe(200);
  expect(answer.body).toContain("announced");
};

type Event = SseEvent;

/** A session's GET stream, read event by event; `drop` ends its connection without a word. */
interface Stream {
  readonly response: IncomingMessage;
  readonly next: () => Promise<Event>;
  readonly drop: () => void;
}

const openStream = (session: string, lastEventId?: string, path = "/mcp"): Promise<Stream> =>
  new Promise((settle, fail) => {
    const req = request({
      host: "127.0.0.1",
      port: fixture.port(),
      path,
      method: "GET",
      agent: false,
      headers: {
        Accept: "text/event-stream",
        "Mcp-Session-Id": session,
        ...(lastEventId === undefined ? {} : { "Last-Event-ID": lastEventId }),
      },
    });
    req.once("error", fail);
    req.once("response", (response) => {
      if (response.statusCode !== 200) return fail(new Error(`the GET stream: ${String(response.statusCode)}`));
      const events: Event[] = [];
      const waiting: Array<(event: Event) => void> = [];
      onEvents(response, (event) => {
        const taker = waiting.shift();
        if (taker !== undefined) taker(event);
        else events.push(event);
      });
      settle({
        response,
        next: () => {
          const event = events.shift();
          return event !== undefined ? Promise.resolve(event) : new Promise((take) => waiting.push(take));
        },
        drop: () => req.destroy(),
      });
    });
    req.end();
  });

/** The text of a log notification's event. */
const logged = (event: Event): unknown => (JSON.parse(event.data) as { params: { data: unknown } }).params.data;

const sleep = (ms: number): Promise<void> => new Promise((settle) => setTimeout(settle, ms));

/** Moves the server's clock (it stands still otherwise): idleness is what the test says, not how slow the machine was. */
const advance = async (ms: number): Promise<void> => {
  expect((await send("POST", `/advance?ms=${ms}`)).status).toBe(204);
};

describe("mcpHandler with sessions, on real sockets", () => {
  test("initialize issues a fresh session id of visible ASCII, which later requests name", async () => {
    const first = await begin();
    const second = await begin();
    expect(first).toMatch(/^[\x21-\x7e]{32,}$/);
    expect(second).not.toBe(first);
    const listed = await post("/mcp", call(2, "tools/list"), first);
    expect(listed.status).toBe(200);
    expect(listed.body).toContain('"announce"');
  });

  test("a request without the session's id is 400, with a JSON-RPC error; an unknown id is 404", async () => {
    const without = await post("/mcp", call(2, "tools/list"));
    expect(without.status).toBe(400);
    expect(JSON.parse(without.body)).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: expect.stringContaining("Mcp-Session-Id") as string },
      id: null,
    });
    expect((await send("GET", "/mcp", { Accept: "text/event-stream" })).status).toBe(400);
    expect((await send("DELETE", "/mcp")).status).toBe(400);
    const unknown = "00000000-0000-4000-8000-000000000000";
    const stale = await post("/mcp", call(2, "tools/list"), unknown);
    expect(stale.status).toBe(404);
    expect(JSON.parse(stale.body)).toEqual({
      jsonrpc: "2.0",
      error: { code: -32001, message: "Session not found" },
      id: null,
    });
    expect((await send("GET", "/mcp", { Accept: "text/event-stream", "Mcp-Session-Id": unknown })).status).toBe(404);
    expect((await send("DELETE", "/mcp", { "Mcp-Session-Id": unknown })).status).toBe(404);
  });

  test("DELETE ends the session: then its id is 404 on every method", async () => {
    const session = await begin();
    expect((await send("DELETE", "/mcp", { "Mcp-Session-Id": session })).status).toBe(204);
    expect((await post("/mcp", call(2, "tools/list"), session)).status).toBe(404);
    expect((await send("GET", "/mcp", { Accept: "text/event-stream", "Mcp-Session-Id": session })).status).toBe(404);
    expect((await send("DELETE", "/mcp", { "Mcp-Session-Id": session })).status).toBe(404);
  });

  test("the browser guard comes first: a foreign Host is 403 on a GET with a session", async () => {
    const session = await begin();
    const refused = await send("GET", "/mcp", {
      Accept: "text/event-stream",
      "Mcp-Session-Id": session,
      Host: "evil.example",
    });
    expect(refused.status).toBe(403);
  });

  test("the GET stream: a primer with an id, then a notification the server sends outside any request", async () => {
    const session = await begin();
    const stream = await openStream(session);
    expect(stream.response.statusCode).toBe(200);
    expect(stream.response.headers["content-type"]).toBe("text/event-stream");
    const primer = await stream.next();
    expect(primer).toEqual({ id: expect.stringMatching(/^\d+$/) as string, data: "" });
    await announce(session, "hello");
    const event = await stream.next();
    expect(event.id).toMatch(/^\d+$/);
    expect(Number(event.id)).toBeGreaterThan(Number(primer.id));
    expect(JSON.parse(event.data)).toEqual({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: "hello" },
    });
    stream.drop();
  });

  test("Last-Event-ID after a dropped connection: what followed that event, in order, then the stream goes on", async () => {
    const session = await begin();
    const stream = await openStream(session);
    await stream.next();
    await announce(session, "one");
    const one = await stream.next();
    expect(logged(one)).toBe("one");
    stream.drop();
    await announce(session, "two");
    await announce(session, "three");
    const again = await openStream(session, one.id);
    expect(again.response.statusCode).toBe(200);
    expect(logged(await again.next())).toBe("two");
    expect(logged(await again.next())).toBe("three");
    expect((await again.next()).data).toBe("");
    await announce(session, "four");
    expect(logged(await again.next())).toBe("four");
    again.drop();
  });

  test("the replay is bounded (3 events kept on /mcp): past it, the client is told what it lost, then the latest come back", async () => {
    const session = await begin();
    const stream = await openStream(session);
    const primer = await stream.next();
    stream.drop();
    for (const text of ["a", "b", "c", "d", "e"]) await announce(session, text);
    const b = Number(primer.id) + 2;
    const again = await openStream(session, primer.id);
    // The notice first, of no id (no place to resume from): a and b (through b's id) are lost.
    const notice = await again.next();
    expect(notice.id).toBeUndefined();
    expect(JSON.parse(notice.data)).toEqual({
      jsonrpc: "2.0",
      method: "notifications/rpcserver/events_lost",
      params: { lastEventId: primer.id, through: b, reason: "evicted" },
    });
    const replayed = [await again.next(), await again.next(), await again.next(), await again.next()];
    expect(replayed.map((event) => (event.data === "" ? "" : logged(event)))).toEqual(["c", "d", "e", ""]);
    expect(replayed.map((event) => Number(event.id))).toEqual([b + 1, b + 2, b + 3, b + 4]);
    again.drop();
    // The oldest kept event's id before: nothing lost, no notice.
    const whole = await openStream(session, String(b));
    expect(logged(await whole.next())).toBe("c");
    whole.drop();
  });

  test("a Last-Event-ID that is not one of the session's replays nothing, and says that what came before may be lost", async () => {
    const session = await begin();
    // No event sent yet: nothing can have been lost, and nothing is said.
    const quiet = await openStream(session, "not-an-id");
    const primer = await quiet.next();
    expect(primer.data).toBe("");
    quiet.drop();
    await announce(session, "before");
    const before = Number(primer.id) + 1;
    for (const unknown of ["not-an-id", String(before + 1000), "-1", "1e3"]) {
      const stream = await openStream(session, unknown);
      expect(JSON.parse((await stream.next()).data)).toEqual({
        jsonrpc: "2.0",
        method: "notifications/rpcserver/events_lost",
        params: { lastEventId: unknown, through: before, reason: "unknown" },
      });
      expect((await stream.next()).data).toBe("");
      stream.drop();
    }
    const stream = await openStream(session, "not-an-id");
    await stream.next();
    expect((await stream.next()).data).toBe("");
    await announce(session, "after");
    expect(logged(await stream.next())).toBe("after");
    stream.drop();
  });

  test("the bound on sessions (2 on /few): a third ends the one used least recently", async () => {
    const a = await begin("/few");
    const b = await begin("/few");
    expect((await post("/few", call(2, "ping"), a)).status).toBe(200);
    const c = await begin("/few");
    expect((await post("/few", call(3, "ping"), b)).status).toBe(404);
    expect((await post("/few", call(4, "ping"), a)).status).toBe(200);
    expect((await post("/few", call(5, "ping"), c)).status).toBe(200);
  });

  test("a session idle past idleMs (500 ms on /brief) is 404; one with its stream open is not idle", async () => {
    const idle = await begin("/brief");
    const streaming = await begin("/brief");
    const stream = await openStream(streaming, undefined, "/brief");
    await stream.next();
    // Well past the bound, on the server's clock.
    await advance(1500);
    expect((await post("/brief", call(2, "ping"), idle)).status).toBe(404);
    expect((await post("/brief", call(3, "ping"), streaming)).status).toBe(200);
    stream.drop();
  });

  test("a stream's end counts as a use: a client that listened past idleMs finds its session when it comes back", async () => {
    const session = await begin("/brief");
    const stream = await openStream(session, undefined, "/brief");
    const primer = await stream.next();
    await advance(1500);
    stream.drop();
    // The server sees the drop (its clock still): a use now. Should it see it after the GET below,
    // the stream is still open then, and the session in use: 200 either way.
    await sleep(100);
    const again = await openStream(session, primer.id, "/brief");
    expect(again.response.statusCode).toBe(200);
    again.drop();
  });

  test("a request of the 2026-07-28 era (its _meta names its version) is answered with no session", async () => {
    const discover = call(2, "server/discover", {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    });
    const modern = { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover" };
    // The last: an `Mcp-Session-Id` no session has, which the era's request ignores (no 404).
    for (const headers of [{}, modern, { ...modern, "Mcp-Session-Id": "no-such-session" }]) {
      const answer = await send(
        "POST",
        "/mcp",
        { "Content-Type": "application/json", Accept: BOTH, ...headers },
        discover,
      );
      // Without the headers, the era's own check answers (-32020, 400), not the sessions' (no id: 400 -32000).
      const body = JSON.parse(answer.body) as {
        id: unknown;
        result?: { resultType?: unknown };
        error?: { code: number };
      };
      expect(answer.headers["mcp-session-id"]).toBeUndefined();
      if (Object.keys(headers).length === 0) expect([answer.status, body.error?.code]).toEqual([400, -32020]);
      else expect([answer.status, body.id, body.result?.resultType]).toEqual([200, 2, "complete"]);
    }
  });

  test("a process with a session open exits by itself: no timer of the sessions keeps it alive", async () => {
    const once = spawn(process.execPath, [SERVER, "once"], { cwd: ROOT });
    let out = "";
    once.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    once.stderr.resume();
    const code = await new Promise((settle) => once.once("exit", settle));
    expect(code).toBe(0);
    expect(out).toMatch(/^session [\w-]+, 1 open$/m);
  });
});

describe("mcpHandler with sessions, in process", () => {
  test("a session's calls under way are bounded (maxCalls): past it a call is 429, a cancel is still taken", async () => {
    const held: Array<() => void> = [];
    let stopped = 0;
    const server = mcpServer({
      name: "capped",
      version: "1.0.0",
      tools: {
        hold: tool({
          description: "Sends one progress, then waits until its call is cancelled",
          input: t.type({}),
          run: async function* (_args, { signal }) {
            try {
              yield { progress: 1 };
              await new Promise<void>((resolve) => {
                held.push(resolve);
                signal.addEventListener("abort", () => resolve(), { once: true });
              });
              return E.right("held");
            } finally {
              stopped += 1;
            }
          },
        }),
      },
    });
    const handler = mcpHandler(server, { sessions: mcpSessions({ maxCalls: 2, id: randomUUID }) });
    const to = (body: unknown, session?: string): Request => postRequest(session, body);
    const session = (await handler(to(INITIALIZE))).headers.get("Mcp-Session-Id") ?? "";
    const hold = (id: number): Record<string, unknown> =>
      call(id, "tools/call", { name: "hold", arguments: {}, _meta: { progressToken: id } });
    // Two calls whose clients read their first event and leave: each goes on, waiting for its client.
    for (const id of [2, 3]) {
      const answer = await handler(to(hold(id), session));
      expect(answer.headers.get("content-type")).toBe("text/event-stream");
      const reader = answer.body?.getReader();
      await reader?.read();
      await reader?.cancel();
    }
    const refused = await handler(to(hold(4), session));
    expect(refused.status).toBe(429);
    expect(JSON.parse(await refused.text())).toStrictEqual({
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: "Too Many Requests: this session has 2 calls under way; wait for one to end, or cancel one",
      },
      id: null,
    });
    expect(held).toHaveLength(2);
    // A batch counts each request: three, under a bound of two, are refused whole (another session, none held).
    const other = (await handler(to(INITIALIZE))).headers.get("Mcp-Session-Id") ?? "";
    const batched = await handler(to([hold(6), hold(7), hold(8)], other));
    expect(batched.status).toBe(429);
    // A client's answer (to an elicitation, say) is always taken: a server's request waits for it.
    const answer = await handler(to({ jsonrpc: "2.0", id: 99, result: {} }, session));
    expect(answer.status).not.toBe(429);
    // A body of notifications alone is taken at the bound: here the cancel that frees a call.
    const cancelled = await handler(
      to({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } }, session),
    );
    expect(cancelled.status).toBe(202);
    for (let turn = 0; stopped < 1 && turn < 1000; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(1);
    let again = await handler(to(hold(5), session));
    for (let turn = 0; again.status === 429 && turn < 100; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      again = await handler(to(hold(5), session));
    }
    expect(again.headers.get("content-type")).toBe("text/event-stream");
    await again.body?.cancel();
    await handler(new Request("http://127.0.0.1/mcp", { method: "DELETE", headers: { "Mcp-Session-Id": session } }));
    for (let turn = 0; stopped < 3 && turn < 1000; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(3);
  });

  test("a reader that falls `replay` events behind has its stream closed, holding no more than that", async () => {
    const sessions = mcpSessions({ replay: 3, id: randomUUID });
    const handler = mcpHandler(mcpServer({ name: "slow", version: "1.0.0" }), { sessions });
    const begun = await handler(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: BOTH },
        body: JSON.stringify(INITIALIZE),
      }),
    );
    const session = begun.headers.get("Mcp-Session-Id") ?? "";
    const stream = await handler(
      new Request("http://127.0.0.1/mcp", {
        headers: { Accept: "text/event-stream", "Mcp-Session-Id": session },
      }),
    );
    // Not read while 10 are sent: the primer and 3 are held, then the stream is closed on its reader.
    for (let i = 1; i <= 10; i += 1) sessions.notify("notifications/message", { level: "info", data: i });
    const text = await stream.text();
    const events = text.split("\n\n").filter((event) => event !== "");
    expect(events).toHaveLength(4);
    expect(events.map((event) => /^id: (\d+)$/m.exec(event)?.[1])).toEqual(["1", "2", "3", "4"]);
    expect(text).toContain('"data":3');
    expect(text).not.toContain('"data":4');
    // It comes back with the last id it read (4, the value 3) and gets what is kept, the latest 3: the
    // values 4 to 7 came while it was away, past the bound, and are lost.
    const again = await handler(
      new Request("http://127.0.0.1/mcp", {
        headers: { Accept: "text/event-stream", "Mcp-Session-Id": session, "Last-Event-ID": "4" },
      }),
    );
    const reader = again.body?.getReader();
    const decoder = new TextDecoder();
    let replayed = "";
    while (!replayed.includes('"data":10')) replayed += decoder.decode((await reader?.read())?.value);
    expect(replayed.match(/"data":\d+/g)).toEqual(['"data":8', '"data":9', '"data":10']);
    await reader?.cancel();
  });
});
