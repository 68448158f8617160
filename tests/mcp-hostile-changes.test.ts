/**
 * A hostile peer against the MCP server's changes (`subscriptions/listen`, `logging/setLevel`,
 * sessions). Each test is a finding of the hostile2 review (repro/mcp-hostile2/ has a reproducer
 * of each, on real sockets and pipes), which failed before its mend: listens of one id or of none
 * on a connection, a filter of unbounded URIs, a reader that does not read, a log level set for
 * everyone by a client with no session, and a 2026 request's own log level.
 */
import * as E from "fp-ts/Either";
import { connect } from "../src/connection";
import { mcpHandler, mcpServer, mcpSessions, tool, type McpServer } from "../src/mcp";
import { pair, settle } from "./helpers/channels";
import { echo, META, modern, post2025, serverOf, SUBSCRIPTION } from "./helpers/mcp-changing";

/** Sessions' ids, made here: Node 18 has no `globalThis.crypto.randomUUID` without its flag. */
let ids = 0;
const id = (): string => `session-${(ids += 1)}`;

const listen = (id: unknown, notifications: Record<string, unknown> = { toolsListChanged: true }) => ({
  jsonrpc: "2.0",
  id,
  method: "subscriptions/listen",
  params: { _meta: META, notifications },
});

/** A connection to `mcp` on in-memory channels, and what its client received. */
const connected = (mcp: McpServer) => {
  const [serverEnd, clientEnd] = pair();
  const peer = connect(serverEnd, { methods: mcp.methods, stages: mcp.stages, context: {}, cancellation: "mcp" });
  const received: Array<{ method?: string; params?: { _meta?: Record<string, unknown> }; id?: unknown }> = [];
  clientEnd.start({
    message: (text) => {
      const parsed = JSON.parse(text) as (typeof received)[number] | Array<(typeof received)[number]>;
      received.push(...(Array.isArray(parsed) ? parsed : [parsed]));
    },
    oversize: () => undefined,
    drain: () => undefined,
    closed: () => undefined,
  });
  const send = (message: unknown): void => void clientEnd.send(JSON.stringify(message));
  const stampedWith = (id: unknown) =>
    received.filter((m) => m.method === "notifications/tools/list_changed" && m.params?._meta?.[SUBSCRIPTION] === id);
  return { peer, received, send, stampedWith };
};

const cancel = (requestId: unknown) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });

describe("subscriptions/listen on a connection, hostile ids", () => {
  test("two listens of one id: cancelling that id (twice) leaves none of them hearing changes", async () => {
    const mcp = serverOf();
    const { peer, send, stampedWith } = connected(mcp);
    send(listen("dup"));
    send(listen("dup"));
    await settle(5);
    send(cancel("dup"));
    send(cancel("dup"));
    await settle(5);
    const before = stampedWith("dup").length;
    mcp.change({ tools: { echo } });
    await settle(5);
    // Today one of the two is never ended: it hears every change until the connection closes,
    // holding one of the server's 1024 listen slots that no cancel can free.
    expect(stampedWith("dup").length).toBe(before);
    peer.close();
  });

  test("a listen of id null (which no notifications/cancelled can name) is refused", async () => {
    const mcp = serverOf();
    const { peer, send, received } = connected(mcp);
    send(listen(null));
    await settle(5);
    expect(received.some((m) => m.method === "notifications/subscriptions/acknowledged")).toBe(false);
    peer.close();
  });
});

test("at most 16 listens on one connection (-32603 past them): its other requests are still answered", async () => {
  const mcp = serverOf();
  const { peer, send, received } = connected(mcp);
  for (let id = 1; id <= 17; id += 1) send(listen(id));
  send({ jsonrpc: "2.0", id: "list", method: "tools/list", params: { _meta: META } });
  for (let turn = 0; turn < 200 && !received.some((m) => m.id === "list"); turn += 1) await settle(1);
  expect(received.filter((m) => m.method === "notifications/subscriptions/acknowledged")).toHaveLength(16);
  expect(received.find((m) => m.id === 17)).toEqual({
    jsonrpc: "2.0",
    error: { code: -32603, message: "Subscription limit reached (16 on a connection)" },
    id: 17,
  });
  expect(received.some((m) => m.id === "list")).toBe(true);
  peer.close();
});

describe("subscriptions/listen's filter", () => {
  test("resourceSubscriptions is bound as resources/subscribe is (at most 1024 URIs held per stream)", async () => {
    const mcp = serverOf();
    const { peer, send, received } = connected(mcp);
    send(listen(1, { resourceSubscriptions: Array.from({ length: 5000 }, (_, i) => `u:${i}`) }));
    await settle(10);
    const ack = received.find((m) => m.method === "notifications/subscriptions/acknowledged") as
      { params: { notifications: { resourceSubscriptions?: string[] } } } | undefined;
    const error = received.find((m) => m.id === 1 && "error" in m);
    // Either refused, or honored in part: not 5000 URIs held (and scanned on every `updated`).
    expect(error !== undefined || (ack?.params.notifications.resourceSubscriptions?.length ?? 0) <= 1024).toBe(true);
    peer.close();
  });
});

describe("logging/setLevel with sessions", () => {
  const init = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  });
  const post = post2025;
  const call = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "chatty", arguments: {} } };

  test("a batch of initialize and setLevel (no session yet) does not set every other session's level", async () => {
    const handler = mcpHandler(serverOf(), { sessions: mcpSessions({ id }) });
    const started = await handler(post(init(1)));
    const victim = started.headers.get("mcp-session-id");
    await started.text();
    expect(await (await handler(post(call, victim))).text()).toContain("an info line");
    const attack = await handler(
      post([init(1), { jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "emergency" } }]),
    );
    await attack.text();
    // The setLevel has no session's client, so it sets nothing: before the mend it set the server's
    // level and silenced every session that set none of its own (docs/mcp.md: "a session's ... level
    // applies to its own calls only").
    expect(await (await handler(post(call, victim))).text()).toContain("an info line");
  });
});

describe("a 2026 era call's log level", () => {
  const levels = tool({
    description: "Logs at debug, info and error",
    run: (_args, ctx) => {
      for (const at of ["debug", "info", "error"] as const) ctx.log(at, `a ${at} line`);
      return E.right("done");
    },
  });
  const modernCall = (logLevel: string) =>
    modern("tools/call", {
      _meta: { ...META, "io.modelcontextprotocol/logLevel": logLevel },
      name: "levels",
      arguments: {},
    });
  const linesOf = async (response: Response) =>
    Array.from((await response.text()).matchAll(/"data":"a (\w+) line"/g), (match) => match[1]);

  test("is the one it names: debug gets debug, whatever the server's level", async () => {
    const handler = mcpHandler(mcpServer({ name: "levels", version: "1.0.0", tools: { levels } }));
    // Today the server's level ("info" by default) filters first: a request that asks for debug never gets it.
    expect(await linesOf(await handler(modernCall("debug")))).toEqual(["debug", "info", "error"]);
  });

  test("is not lowered by another client's logging/setLevel over stateless HTTP", async () => {
    const handler = mcpHandler(mcpServer({ name: "levels", version: "1.0.0", tools: { levels } }));
    const setLevel = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: '{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"emergency"}}',
      }),
    );
    await setLevel.text();
    expect(await linesOf(await handler(modernCall("info")))).toEqual(["info", "error"]);
  });
});

describe("a listen over HTTP whose reader does not read", () => {
  test("ends once 256 notifications wait unread: what it holds is bounded, and the changes after reach it no more", async () => {
    const mcp = serverOf();
    const response = await mcpHandler(mcp)(
      modern("subscriptions/listen", { notifications: { toolsListChanged: true } }, "slow"),
    );
    for (let change = 0; change < 5000; change += 1) mcp.change({ tools: { echo } });
    const events = (await response.text()).split("\n\n").filter((event) => event.includes("data:"));
    const last = JSON.parse(events.at(-1)?.replace(/^[\s\S]*?data: /, "") ?? "null") as {
      id?: unknown;
      result?: unknown;
    };
    // The acknowledgement, at most 256 unread and the one that passed the bound (and one the drain
    // had taken), then the stream's result: not 5000.
    expect(events.length).toBeGreaterThan(256);
    expect(events.length).toBeLessThanOrEqual(256 + 4);
    expect(last.id).toBe("slow");
    expect(last.result).toEqual(expect.objectContaining({ resultType: "complete" }));
  });
});

describe("sessions under a flood of initialize", () => {
  const initialize = (id: number, protocolVersion = "2025-11-25") => ({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "c", version: "1" } },
  });
  const post = post2025;
  const getStream = (session: string) =>
    new Request("http://localhost/mcp", { headers: { Accept: "text/event-stream", "Mcp-Session-Id": session } });

  test("past max, a session in use (its stream open) is not pushed out: a new one is refused 503 instead", async () => {
    const handler = mcpHandler(serverOf(), { sessions: mcpSessions({ max: 2, id }) });
    const begin = async () => (await handler(post(initialize(1)))).headers.get("mcp-session-id");
    const [first, second] = [await begin(), await begin()];
    const streams = [await handler(getStream(first ?? "")), await handler(getStream(second ?? ""))];
    const flood = await handler(post(initialize(1)));
    expect(flood.status).toBe(503);
    expect(flood.headers.get("mcp-session-id")).toBeNull();
    expect((await handler(post({ jsonrpc: "2.0", id: 2, method: "ping" }, first ?? ""))).status).toBe(200);
    // One stream closed: its session is idle now, and the least recently used of the idle ones goes.
    await streams[0]?.body?.cancel();
    const next = await handler(post(initialize(1)));
    expect(next.headers.get("mcp-session-id")).not.toBeNull();
    expect((await handler(post({ jsonrpc: "2.0", id: 2, method: "ping" }, second ?? ""))).status).toBe(200);
    await streams[1]?.body?.cancel();
  });

  test("a batch whose initialize fails (its ping answered) begins no session", async () => {
    const handler = mcpHandler(serverOf(), { sessions: mcpSessions({ id }) });
    const answer = await handler(
      post([
        { jsonrpc: "2.0", id: 1, method: "initialize", params: {} },
        { jsonrpc: "2.0", id: 2, method: "ping" },
      ]),
    );
    expect(answer.headers.get("mcp-session-id")).toBeNull();
  });

  test("a session's first GET, without Last-Event-ID, hears what was sent since initialize", async () => {
    const mcp = serverOf();
    const handler = mcpHandler(mcp, { sessions: mcpSessions({ id }) });
    const session = (await handler(post(initialize(1)))).headers.get("mcp-session-id") ?? "";
    mcp.change({ tools: { echo } });
    const reader = (await handler(getStream(session))).body?.getReader();
    let text = "";
    while (!text.includes("list_changed")) {
      const step = await reader?.read();
      if (step === undefined || step.done === true) break;
      text += new TextDecoder().decode(step.value);
    }
    expect(text).toContain('"method":"notifications/tools/list_changed"');
    await reader?.cancel();
  });
});
