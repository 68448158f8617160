/**
 * When the server may ask its client something (2025-11-25 era: `elicitation/create`,
 * `sampling/createMessage`, `roots/list`): only a client that declared the capability, and, over
 * HTTP, only one that takes an event stream (nothing else carries the request). Any other ask is a
 * Left at once, never sent and never waited for. And a browser page of another origin may open a
 * session's stream and end it: with sessions, a preflight allows GET and DELETE too.
 */
import { randomUUID } from "node:crypto";
import * as E from "fp-ts/Either";
import { connect } from "../src/connection";
import { mcpHandler, mcpServer, mcpSessions, text, tool } from "../src/mcp";
import { pair, settle } from "./helpers/channels";

const FORM = { message: "Name?", requestedSchema: { type: "object", properties: {} } };

/** A tool that asks its client and says what came of it: the answer, or why it could not ask. */
const server = () =>
  mcpServer({
    name: "asking",
    version: "1.0.0",
    tools: {
      ask: tool({
        description: "Elicits, then says how it went",
        run: async (_args, ctx) => {
          const answer = await ctx.elicit(FORM)();
          return E.right([text(E.isRight(answer) ? `answered ${JSON.stringify(answer.right)}` : answer.left.message)]);
        },
      }),
    },
  });

const CALL = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}';
const initialize = (capabilities: object) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "c", version: "1" } },
  });
const said = (answer: unknown): unknown =>
  (answer as { result?: { content?: Array<{ text?: string }> } }).result?.content?.[0]?.text;

describe("over HTTP", () => {
  const post = (body: string, accept: string, session?: string) =>
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: accept,
        ...(session !== undefined ? { "Mcp-Session-Id": session } : {}),
      },
      body,
    });

  test("a client that takes JSON only is not asked: the tool's ask is a Left at once, saying why", async () => {
    const answer = await mcpHandler(server())(post(CALL, "application/json"));
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(said(await answer.json())).toBe(
      "the client takes no event stream (Accept: text/event-stream): nothing can carry a request to it",
    );
  });

  test("a session's client is asked only what it declared in its initialize", async () => {
    const handler = mcpHandler(server(), { sessions: mcpSessions({ id: randomUUID }) });
    const begin = async (capabilities: object) =>
      (await handler(post(initialize(capabilities), "application/json, text/event-stream"))).headers.get(
        "mcp-session-id",
      ) as string;
    const without = await begin({ sampling: {} });
    const refused = await handler(post(CALL, "application/json, text/event-stream", without));
    expect(refused.headers.get("content-type")).toBe("application/json");
    expect(said(await refused.json())).toBe("the client did not declare the elicitation capability");

    const able = await begin({ elicitation: {} });
    const asked = await handler(post(CALL, "application/json, text/event-stream", able));
    expect(asked.headers.get("content-type")).toBe("text/event-stream");
    const reader = (asked.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const request = JSON.parse(/data: (.*)/.exec(first)?.[1] ?? "null") as { id: string; method: string };
    expect(request.method).toBe("elicitation/create");
    await handler(
      post(
        JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { action: "decline" } }),
        "application/json, text/event-stream",
        able,
      ),
    );
    let rest = "";
    for (let step = await reader.read(); step.done !== true; step = await reader.read()) {
      rest += new TextDecoder().decode(step.value);
    }
    expect(rest).toContain('answered {\\"action\\":\\"decline\\"}');
  });

  test("a preflight from an allowed origin: POST alone without sessions; GET, POST and DELETE with them", async () => {
    const origin = "https://app.example";
    const preflight = new Request("http://localhost/mcp", {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "DELETE" },
    });
    const stateless = await mcpHandler(server(), { cors: { origins: [origin] } })(preflight.clone());
    expect([stateless.status, stateless.headers.get("access-control-allow-methods")]).toEqual([204, "POST"]);
    const withSessions = await mcpHandler(server(), {
      cors: { origins: [origin] },
      sessions: mcpSessions({ id: randomUUID }),
    })(preflight.clone());
    expect([
      withSessions.status,
      withSessions.headers.get("access-control-allow-methods"),
      withSessions.headers.get("access-control-allow-origin"),
    ]).toEqual([204, "GET, POST, DELETE", origin]);
  });
});

test("on a connection: a client that declared no elicitation is not asked; one that did is", async () => {
  const run = async (capabilities: object) => {
    const mcp = server();
    const [serverEnd, clientEnd] = pair();
    const peer = connect(serverEnd, { methods: mcp.methods, stages: mcp.stages, context: {}, cancellation: "mcp" });
    const received: Array<{ id?: unknown; method?: string; result?: unknown }> = [];
    clientEnd.start({
      message: (message) => {
        const parsed = JSON.parse(message) as (typeof received)[number];
        received.push(parsed);
        if (parsed.method === "elicitation/create") {
          clientEnd.send(JSON.stringify({ jsonrpc: "2.0", id: parsed.id, result: { action: "cancel" } }));
        }
      },
      oversize: () => undefined,
      drain: () => undefined,
      closed: () => undefined,
    });
    clientEnd.send(initialize(capabilities));
    clientEnd.send(CALL);
    for (let turn = 0; turn < 200 && !received.some((m) => m.id === 2); turn += 1) await settle(1);
    peer.close();
    return {
      asked: received.some((m) => m.method === "elicitation/create"),
      said: said(received.find((m) => m.id === 2)),
    };
  };
  expect(await run({})).toEqual({ asked: false, said: "the client did not declare the elicitation capability" });
  expect(await run({ elicitation: {} })).toEqual({ asked: true, said: 'answered {"action":"cancel"}' });
});
