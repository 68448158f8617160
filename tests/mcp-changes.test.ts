/**
 * What changes while an MCP server runs (`McpServer.change`, `updated`) and who hears of it: a 2026
 * era `subscriptions/listen` stream (its acknowledgement first, then what its filter asked for,
 * each stamped with its id; its result when the server closes it), a 2025 era session's GET stream
 * (a resource's update only to the sessions subscribed to it; each session's own log level), and
 * a connection's client. Through `mcpHandler` as a fetch handler, and `connect` on in-memory
 * channels.
 */
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import * as E from "fp-ts/Either";
import { connect } from "../src/connection";
import { setLogger } from "../src/internal/core/logger";
import { mcpHandler, mcpSessions, text, tool } from "../src/mcp";
import { pair, settle } from "./helpers/channels";
import { echo, messagesOf, modern, note, post2025, serverOf, SUBSCRIPTION } from "./helpers/mcp-changing";

const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "changing", version: "1.0.0" } };

describe("subscriptions/listen (2026-07-28)", () => {
  test("its acknowledgement first (what it will hear of), then each change it asked for, stamped with its id", async () => {
    const mcp = serverOf();
    const handler = mcpHandler(mcp);
    const leaving = new AbortController();
    const listen = await handler(
      modern(
        "subscriptions/listen",
        {
          notifications: {
            toolsListChanged: true,
            promptsListChanged: true,
            resourcesListChanged: false,
            resourceSubscriptions: ["note://a"],
          },
        },
        "listen-1",
        leaving.signal,
      ),
    );
    expect(listen.status).toBe(200);
    expect(listen.headers.get("content-type")).toBe("text/event-stream");
    const stream = messagesOf(listen);
    // No prompts declared: not honored; resources' list not asked for: not honored.
    expect(await stream.next(1)).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: {
          notifications: { toolsListChanged: true, resourceSubscriptions: ["note://a"] },
          _meta: { [SUBSCRIPTION]: "listen-1" },
        },
      },
    ]);
    mcp.change({ resources: { "note://c": note("note://c") } }); // not asked for
    mcp.updated("note://b"); // not subscribed
    mcp.change({ tools: { echo: undefined } });
    mcp.updated("note://a");
    expect(await stream.next(2)).toEqual([
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SUBSCRIPTION]: "listen-1" } } },
      {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: "note://a", _meta: { [SUBSCRIPTION]: "listen-1" } },
      },
    ]);
    leaving.abort();
    await stream.cancel();
  });

  test("the server's close ends each stream with its result; a filter honoring nothing ends at once", async () => {
    const mcp = serverOf();
    const handler = mcpHandler(mcp);
    const stream = messagesOf(
      await handler(modern("subscriptions/listen", { notifications: { toolsListChanged: true } }, 5)),
    );
    expect(await stream.next(1)).toHaveLength(1);
    mcp.close();
    expect(await stream.next(2)).toEqual([
      {
        jsonrpc: "2.0",
        result: { resultType: "complete", _meta: { [SUBSCRIPTION]: 5, ...SERVER_INFO } },
        id: 5,
      },
    ]);
    expect(stream.ended()).toBe(true);

    const nothing = messagesOf(
      await handler(modern("subscriptions/listen", { notifications: { promptsListChanged: true } }, 6)),
    );
    const all = await nothing.next(3);
    expect(all).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: {}, _meta: { [SUBSCRIPTION]: 6 } },
      },
      { jsonrpc: "2.0", result: { resultType: "complete", _meta: { [SUBSCRIPTION]: 6, ...SERVER_INFO } }, id: 6 },
    ]);
  });

  test("at most 1024 streams at once (-32603 past them); those whose clients left no longer count", async () => {
    const mcp = serverOf();
    const handler = mcpHandler(mcp);
    const leaving = new AbortController();
    // 1024 requests under one signal, each listening to it: what the test means, not a leak to warn of.
    setMaxListeners(0, leaving.signal);
    const open = await Promise.all(
      Array.from({ length: 1024 }, async (_, index) =>
        messagesOf(
          await handler(
            modern("subscriptions/listen", { notifications: { toolsListChanged: true } }, index, leaving.signal),
          ),
        ),
      ),
    );
    await Promise.all(open.map((stream) => stream.next(1)));
    const past = await handler(modern("subscriptions/listen", { notifications: { toolsListChanged: true } }, 9999));
    expect(await past.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32603, message: "Subscription limit reached" },
      id: 9999,
    });
    leaving.abort();
    await Promise.all(open.map((stream) => stream.cancel()));
    const again = messagesOf(
      await handler(modern("subscriptions/listen", { notifications: { toolsListChanged: true } }, "again")),
    );
    await again.next(1);
    mcp.change({ tools: { echo } });
    expect(await again.next(1)).toEqual([
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SUBSCRIPTION]: "again" } } },
    ]);
    mcp.close();
  });

  test("refused: without the 2026 envelope (-32601), to a client that takes no event stream (-32600), without a filter (-32602)", async () => {
    const handler = mcpHandler(serverOf());
    const old = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: '{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{}}}',
      }),
    );
    expect(((await old.json()) as { error: { code: number } }).error.code).toBe(-32601);
    const request = modern("subscriptions/listen", { notifications: { toolsListChanged: true } });
    const jsonOnly = new Request(request, {
      headers: { ...Object.fromEntries(request.headers), accept: "application/json" },
    });
    expect(((await (await handler(jsonOnly)).json()) as { error: { code: number } }).error.code).toBe(-32600);
    const unfiltered = await handler(modern("subscriptions/listen", {}));
    expect(((await unfiltered.json()) as { error: { code: number } }).error.code).toBe(-32602);
  });
});

describe("McpServer.change", () => {
  test("the lists change as told: added, replaced, removed; a removed tool is unknown", async () => {
    const mcp = serverOf();
    const handler = mcpHandler(mcp);
    const call = async (method: string, params: Record<string, unknown> = {}) =>
      (await (await handler(modern(method, params))).json()) as {
        result?: Record<string, unknown[]>;
        error?: { code: number; message: string };
      };
    mcp.change({
      tools: { echo: undefined, shout: tool({ description: "Shouts", run: () => E.right([text("HI")]) }) },
      resources: { "note://a": undefined },
      templates: { "note://{id}": { name: "notes", read: (uri) => E.right({ uri, text: `made ${uri}` }) } },
    });
    expect((await call("tools/list")).result?.["tools"]?.map((t) => (t as { name: string }).name)).toEqual([
      "chatty",
      "shout",
    ]);
    expect((await call("tools/call", { name: "echo", arguments: {} })).error?.message).toMatch(/Unknown tool: echo/);
    expect((await call("resources/list")).result?.["resources"]).toEqual([{ uri: "note://b", name: "note://b" }]);
    expect((await call("resources/read", { uri: "note://a" })).result?.["contents"]).toEqual([
      { uri: "note://a", text: "made note://a" },
    ]);
  });

  test("a feature the server did not declare cannot change, and the whole change is refused", async () => {
    const mcp = serverOf();
    expect(() => mcp.change({ tools: { echo: undefined }, prompts: { p: { get: () => E.right([]) } } })).toThrow(
      /declared no prompts/,
    );
    const listed = (await (await mcpHandler(mcp)(modern("tools/list", {}))).json()) as {
      result: { tools: Array<{ name: string }> };
    };
    expect(listed.result.tools.map((t) => t.name)).toEqual(["echo", "chatty"]);
  });

  test("onChange hears each change, once per list that changed", () => {
    const mcp = serverOf();
    const heard: unknown[] = [];
    const stop = mcp.onChange((change) => heard.push(change));
    mcp.change({ resources: { "note://c": note("note://c") }, templates: {}, tools: { echo } });
    mcp.updated("note://c");
    stop();
    mcp.updated("note://d");
    expect(heard).toEqual([{ list: "tools" }, { list: "resources" }, { updated: "note://c" }]);
  });

  test("a change a listener makes while it is told reaches every listener after the one it heard, in the order made", () => {
    const mcp = serverOf();
    const first: unknown[] = [];
    const second: unknown[] = [];
    // The first listener answers the tools' change with an update of its own, and the update with nothing.
    const stopFirst = mcp.onChange((change) => {
      first.push(change);
      if ("list" in change && change.list === "tools") mcp.updated("note://a");
    });
    const stopSecond = mcp.onChange((change) => second.push(change));
    mcp.change({ tools: { echo } });
    const order = [{ list: "tools" }, { updated: "note://a" }];
    // Told at once (recursion) it would reach the second listener before the change it answered.
    expect(first).toEqual(order);
    expect(second).toEqual(order);
    stopFirst();
    stopSecond();
  });

  test("a listener that throws is logged, and the others still hear that change and the next", () => {
    const mcp = serverOf();
    const heard: unknown[] = [];
    const lines: unknown[] = [];
    const previous = setLogger({
      error: (...args) => void lines.push(...args),
      warn: () => undefined,
      info: () => undefined,
    });
    try {
      const stopThrowing = mcp.onChange(() => {
        throw new Error("listener broke");
      });
      const stop = mcp.onChange((change) => heard.push(change));
      mcp.updated("note://a");
      mcp.updated("note://b");
      expect(heard).toEqual([{ updated: "note://a" }, { updated: "note://b" }]);
      expect(
        lines.map(String).filter((line) => line.includes("a listener of the server's changes threw")),
      ).toHaveLength(2);
      stopThrowing();
      stop();
    } finally {
      setLogger(previous);
    }
  });
});

describe("2025-11-25 sessions: each session's subscriptions and log level", () => {
  const initialize =
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}';
  const post = post2025;

  test("a resource's update reaches only the sessions subscribed to it; a list's change reaches every one", async () => {
    const mcp = serverOf();
    const handler = mcpHandler(mcp, { sessions: mcpSessions({ id: randomUUID }) });
    const begin = async () => (await handler(post(initialize))).headers.get("mcp-session-id") as string;
    const [a, b] = [await begin(), await begin()];
    const streams = await Promise.all(
      [a, b].map(async (session) =>
        messagesOf(
          await handler(
            new Request("http://localhost/mcp", {
              headers: { Accept: "text/event-stream", "Mcp-Session-Id": session },
            }),
          ),
        ),
      ),
    );
    const [streamA, streamB] = streams as [ReturnType<typeof messagesOf>, ReturnType<typeof messagesOf>];
    await handler(post('{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"note://a"}}', a));
    mcp.updated("note://a");
    mcp.change({ tools: { echo } });
    // Each stream's first event is its primer (an id, no data).
    expect(await streamA.next(2)).toEqual([
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "note://a" } },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} },
    ]);
    expect(await streamB.next(1)).toEqual([{ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} }]);
    await handler(post('{"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"note://a"}}', a));
    mcp.updated("note://a");
    mcp.change({ tools: { echo } });
    expect(await streamA.next(1)).toEqual([{ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} }]);
    await Promise.all([streamA.cancel(), streamB.cancel()]);
  });

  test("resources.subscribe is offered where an update can reach the client: with sessions, not over stateless HTTP", async () => {
    const capabilitiesOf = async (handler: (request: Request) => Promise<Response>) =>
      ((await (await handler(post(initialize))).json()) as { result: { capabilities: { resources: unknown } } }).result
        .capabilities.resources;
    expect(await capabilitiesOf(mcpHandler(serverOf()))).toEqual({ listChanged: true });
    expect(await capabilitiesOf(mcpHandler(serverOf(), { sessions: mcpSessions({ id: randomUUID }) }))).toEqual({
      subscribe: true,
      listChanged: true,
    });
  });

  test("logging/setLevel is the session's own: another session keeps the server's level", async () => {
    const handler = mcpHandler(serverOf(), { sessions: mcpSessions({ id: randomUUID }) });
    const begin = async () => (await handler(post(initialize))).headers.get("mcp-session-id") as string;
    const [quiet, loud] = [await begin(), await begin()];
    await handler(post('{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}', quiet));
    const logged = async (session: string) => {
      const answer = await handler(
        post('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"chatty","arguments":{}}}', session),
      );
      const all = await messagesOf(answer).next(10);
      return all.flatMap((message) => {
        const params = (message as { params?: { data?: unknown } }).params;
        return params?.data !== undefined ? [params.data] : [];
      });
    };
    expect(await logged(quiet)).toEqual(["an error line"]);
    expect(await logged(loud)).toEqual(["an info line", "an error line"]);
  });
});

describe("a connection's client (stdio)", () => {
  test("hears each list's change and the updates of what it subscribed to, and its log level is its own", async () => {
    const mcp = serverOf();
    const [serverEnd, clientEnd] = pair();
    const peer = connect(serverEnd, { methods: mcp.methods, stages: mcp.stages, context: {}, cancellation: "mcp" });
    const received: Array<{ method?: string; params?: unknown; id?: unknown }> = [];
    clientEnd.start({
      message: (message) => void received.push(JSON.parse(message) as (typeof received)[number]),
      oversize: () => undefined,
      drain: () => undefined,
      closed: () => undefined,
    });
    const until = async (count: number) => {
      for (let turn = 0; turn < 200 && received.length < count; turn += 1) await settle(1);
      return received.splice(0, received.length);
    };
    clientEnd.send(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}',
    );
    await until(1);
    clientEnd.send('{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"note://b"}}');
    await until(1);
    mcp.updated("note://a");
    mcp.updated("note://b");
    mcp.change({ tools: { echo } });
    expect(await until(2)).toEqual([
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "note://b" } },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} },
    ]);
    clientEnd.send('{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"error"}}');
    await until(1);
    clientEnd.send('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"chatty","arguments":{}}}');
    expect((await until(2)).map((message) => message.method ?? message.id)).toEqual(["notifications/message", 4]);
    peer.close();
    await peer.closed;
    mcp.change({ tools: { echo } }); // nothing to hear it: no throw, nothing sent
    expect(await until(0)).toEqual([]);
  });
});

describe("behind a relay to workers", () => {
  test("the front answers subscriptions/listen and resources/subscribe itself, and relays the rest", async () => {
    const mcp = serverOf();
    const relayed: string[] = [];
    const handler = mcpHandler(mcp, {
      relay: (body) => {
        relayed.push(new TextDecoder().decode(body));
        return Promise.resolve('{"jsonrpc":"2.0","result":{"tools":[]},"id":1}');
      },
    });
    const stream = messagesOf(
      await handler(modern("subscriptions/listen", { notifications: { toolsListChanged: true } }, "front")),
    );
    expect(await stream.next(1)).toHaveLength(1);
    mcp.change({ tools: { echo } });
    expect(await stream.next(1)).toEqual([
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SUBSCRIPTION]: "front" } } },
    ]);
    mcp.close();
    expect(await (await handler(modern("tools/list", {}))).json()).toEqual({
      jsonrpc: "2.0",
      result: { tools: [] },
      id: 1,
    });
    expect(relayed.map((body) => (JSON.parse(body) as { method: string }).method)).toEqual(["tools/list"]);
  });
});
