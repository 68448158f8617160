/**
 * `mcpHandler` as a fetch handler, request by request (web `Request`s, no socket): the version
 * negotiation, capabilities and methods from what is declared, the HTTP answers of a server with no
 * sessions, the DNS-rebinding guard, and a server-to-client request on a POST's event stream
 * answered by a POST of its own.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { mcpHandler, mcpServer, tool } from "../src/mcp";

const URL_ = "http://127.0.0.1:3000/mcp";
const BOTH = "application/json, text/event-stream";

const post = (body: unknown, accept = "application/json", headers: Record<string, string> = {}): Request =>
  new Request(URL_, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: accept, ...headers },
    body: JSON.stringify(body),
  });

const call = (id: number, method: string, params?: unknown): unknown => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

const tools = mcpServer({
  name: "tools-only",
  version: "1.0.0",
  tools: {
    add: tool({
      description: "Adds",
      input: t.type({ a: t.number, b: t.number }),
      run: ({ a, b }) => E.right(String(a + b)),
    }),
    logs: tool({
      description: "Logs, then answers",
      run: (_args, { log }) => {
        log("warning", "careful");
        return E.right("done");
      },
    }),
    steps: tool({
      description: "Logs and yields progress, in turn",
      run: async function* (_args, { log }) {
        log("info", "one");
        yield { progress: 1, total: 2 };
        log("info", "two");
        yield { progress: 2, total: 2 };
        return E.right("stepped");
      },
    }),
    ask: tool({
      description: "Asks the user",
      run: async (_args, { elicit }) =>
        E.map((answer: Record<string, unknown>) => `got ${JSON.stringify(answer)}`)(
          await elicit({ message: "name?", requestedSchema: { type: "object", properties: {} } })(),
        ),
    }),
  },
});
const handler = mcpHandler(tools);

const json = async (response: Response): Promise<unknown> => JSON.parse(await response.text()) as unknown;

/** The messages of an event stream's body, in order. */
const eventsOf = async (response: Response): Promise<unknown[]> =>
  (await response.text())
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)) as unknown);

describe("mcpHandler", () => {
  test("initialize: the client's version when spoken, else the newest; capabilities from what is declared", async () => {
    const older = await json(await handler(post(call(1, "initialize", { protocolVersion: "2025-03-26" }))));
    expect(older).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: "2025-03-26",
        capabilities: { logging: {}, tools: { listChanged: true } },
        serverInfo: { name: "tools-only", version: "1.0.0" },
      },
    });
    const unknown = await json(await handler(post(call(2, "initialize", { protocolVersion: "1999-01-01" }))));
    expect(unknown).toEqual(
      expect.objectContaining({ result: expect.objectContaining({ protocolVersion: "2025-11-25" }) }),
    );
  });

  test("a feature not declared has no methods: -32601", async () => {
    const answer = await json(await handler(post(call(3, "prompts/list"))));
    expect(answer).toEqual({ jsonrpc: "2.0", id: 3, error: expect.objectContaining({ code: -32601 }) });
  });

  test("notifications/initialized is 202 for a client that accepts an event stream; ping answers {}", async () => {
    const initialized = await handler(post({ jsonrpc: "2.0", method: "notifications/initialized" }, BOTH));
    expect(initialized.status).toBe(202);
    expect(await json(await handler(post(call(4, "ping"))))).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
  });

  test("GET and DELETE are 405 (no sessions, no stream of its own)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await handler(new Request(URL_, { method, headers: { Accept: "text/event-stream" } }));
      expect(response.status).toBe(405);
    }
  });

  test("the DNS-rebinding guard: a foreign Host or Origin is 403", async () => {
    expect((await handler(post(call(5, "ping"), "application/json", { Host: "evil.example" }))).status).toBe(403);
    expect((await handler(post(call(6, "ping"), "application/json", { Origin: "http://evil.example" }))).status).toBe(
      403,
    );
  });

  test("a POST of answers is guarded too: from a foreign Origin, 403 before it is read", async () => {
    const forged = post({ jsonrpc: "2.0", id: "rpcserver-mcp-1", result: {} }, "application/json", {
      Origin: "http://evil.example",
    });
    expect((await handler(forged)).status).toBe(403);
  });

  test("a POST of answers to nothing the server asked is 202, and changes nothing", async () => {
    const response = await handler(post({ jsonrpc: "2.0", id: "rpcserver-mcp-999999", result: {} }));
    expect(response.status).toBe(202);
    expect(await json(await handler(post(call(7, "tools/call", { name: "add", arguments: { a: 1, b: 2 } }))))).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { content: [{ type: "text", text: "3" }] },
    });
  });

  test("a client that accepts only JSON gets the answer alone (a tool's log messages have nowhere to go)", async () => {
    expect(await json(await handler(post(call(8, "tools/call", { name: "logs" }))))).toEqual({
      jsonrpc: "2.0",
      id: 8,
      result: { content: [{ type: "text", text: "done" }] },
    });
  });

  test("with an event stream: the log message, then the answer", async () => {
    const body = await (await handler(post(call(9, "tools/call", { name: "logs" }), BOTH))).text();
    const events = body
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as unknown);
    expect(events).toEqual([
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "warning", data: "careful" } },
      { jsonrpc: "2.0", id: 9, result: { content: [{ type: "text", text: "done" }] } },
    ]);
  });

  test("an async function* tool: its log messages and progress in the order it sent them, then the answer; without a progress token, no progress", async () => {
    const log = (data: string): unknown => ({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data },
    });
    const progress = (n: number): unknown => ({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p", progress: n, total: 2 },
    });
    const answer = (id: number): unknown => ({
      jsonrpc: "2.0",
      id,
      result: { content: [{ type: "text", text: "stepped" }] },
    });
    const withToken = call(11, "tools/call", { name: "steps", _meta: { progressToken: "p" } });
    expect(await eventsOf(await handler(post(withToken, BOTH)))).toEqual([
      log("one"),
      progress(1),
      log("two"),
      progress(2),
      answer(11),
    ]);
    const without = call(12, "tools/call", { name: "steps" });
    expect(await eventsOf(await handler(post(without, BOTH)))).toEqual([log("one"), log("two"), answer(12)]);
  });

  test("elicitation: the request on the POST's event stream, the client's answer in a POST of its own (202), then the result", async () => {
    const response = await handler(post(call(10, "tools/call", { name: "ask" }), BOTH));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text_ = "";
    const nextEvent = async (): Promise<Record<string, unknown>> => {
      for (;;) {
        const found = /data: (.*)\n/.exec(text_);
        if (found !== null) {
          text_ = text_.slice((found.index ?? 0) + found[0].length);
          return JSON.parse(found[1] ?? "") as Record<string, unknown>;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended");
        text_ += decoder.decode(value, { stream: true });
      }
    };
    const asked = await nextEvent();
    expect(asked).toEqual({
      jsonrpc: "2.0",
      id: expect.stringMatching(/^rpcserver-mcp-[0-9a-f]{32}$/) as string,
      method: "elicitation/create",
      params: { message: "name?", requestedSchema: { type: "object", properties: {} } },
    });
    const answered = await handler(
      post({ jsonrpc: "2.0", id: asked["id"], result: { action: "accept", content: { n: 1 } } }),
    );
    expect(answered.status).toBe(202);
    expect(await nextEvent()).toEqual({
      jsonrpc: "2.0",
      id: 10,
      result: { content: [{ type: "text", text: 'got {"action":"accept","content":{"n":1}}' }] },
    });
  });
});

test("mcpHandler's relay must be a function of a body: anything else is a TypeError when the handler is made", () => {
  // @ts-expect-error: a relay is a function
  expect(() => mcpHandler(tools, { relay: "nats://localhost" })).toThrow(
    new TypeError("mcpHandler: relay must be a function of a body (natsRelay of rpcserver/nats)"),
  );
  expect(typeof mcpHandler(tools, { relay: () => Promise.resolve("") })).toBe("function");
});
