/**
 * Defects found by a hostile peer's review of rpcserver/mcp (sessions and the 2026-07-28 era), each a
 * test that fails until it is fixed. The server (tests/fixtures/mcp-peer-server.mjs, from dist) runs
 * in a child process, on real sockets.
 */
import { request, type IncomingMessage } from "node:http";
import { usingFixture } from "./helpers/processes";

const fixture = usingFixture("tests/fixtures/mcp-peer-server.mjs");
const BOTH = "application/json, text/event-stream";
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly session: string | undefined;
}

/** A POST to `path` on a socket of its own; `events` gets the body as it comes, chunk by chunk. */
const post = (
  body: string,
  headers: Record<string, string> = {},
  events?: (chunk: string) => void,
  path = "/mcp",
): Promise<Answer> =>
  new Promise((settle, fail) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: fixture.port(),
        path,
        method: "POST",
        agent: false,
        headers: { "Content-Type": "application/json", Accept: BOTH, ...headers },
      },
      (res: IncomingMessage) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
          events?.(text);
        });
        const session = res.headers["mcp-session-id"];
        res.on("end", () =>
          settle({
            status: res.statusCode ?? 0,
            body: text,
            session: typeof session === "string" ? session : undefined,
          }),
        );
      },
    );
    req.once("error", fail);
    req.end(body);
  });

/** A new session's id: an `initialize` (of a client that can answer elicitations) POSTed to `path`. */
const session = async (path = "/mcp"): Promise<string> => {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: {} },
      clientInfo: { name: "c", version: "1" },
    },
  };
  const { session: id } = await post(JSON.stringify(initialize), {}, undefined, path);
  if (id === undefined) throw new Error("initialize began no session");
  return id;
};

const regionCall = (id: unknown, region: string): Record<string, unknown> => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "region", arguments: { region }, _meta: META },
});

/**
 * The tool `ask` called in `session` (on `path`): the call's answer to come, and the id of the
 * elicitation it sends its client, once that is on the call's event stream.
 */
const asking = async (session: string, path = "/mcp"): Promise<{ call: Promise<Answer>; id: string }> => {
  let asked: (id: string) => void = () => undefined;
  const askedId = new Promise<string>((settle) => (asked = settle));
  const call = post(
    JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "ask", arguments: {} } }),
    { "Mcp-Session-Id": session },
    (text) => {
      const found = /"id":"(rpcserver-mcp-[0-9a-f]{32})"/.exec(text);
      if (found?.[1] !== undefined) asked(found[1]);
    },
    path,
  );
  return { call, id: await askedId };
};

describe("a hostile peer", () => {
  test("one session's answer to another session's elicitation is not taken, even with its id", async () => {
    const [alice, mallory] = await Promise.all([session(), session()]);
    const { call, id } = await asking(alice);
    // Mallory never saw Alice's stream; were the id a counter, she could have guessed it. Here she has it.
    await post(JSON.stringify({ jsonrpc: "2.0", id, result: { action: "accept", content: { name: "mallory" } } }), {
      "Mcp-Session-Id": mallory,
    });
    await post(JSON.stringify({ jsonrpc: "2.0", id, result: { action: "accept", content: { name: "alice" } } }), {
      "Mcp-Session-Id": alice,
    });
    const answered = await call;
    expect(answered.body).toContain("alice");
    expect(answered.body).not.toContain("mallory");
  });

  test('a 2026-07-28 request whose _meta keys are written with JSON\'s "\\/" escape is still checked against its headers', async () => {
    const plain = JSON.stringify(regionCall(1, "eu-west"));
    const escaped = plain.split("io.modelcontextprotocol/").join("io.modelcontextprotocol\\/");
    // Headers that contradict the body: no MCP-Protocol-Version (the body says 2026-07-28), another region.
    const lying = { "Mcp-Method": "tools/call", "Mcp-Name": "region", "Mcp-Param-Region": "us-east" };
    // Control: the same request written plainly is -32020.
    const refused = await post(plain, lying);
    expect([refused.status, JSON.parse(refused.body).error?.code]).toEqual([400, -32020]);
    const answer = await post(escaped, lying);
    expect([answer.status, JSON.parse(answer.body).error?.code]).toEqual([400, -32020]);
  });

  test("a batch whose second message is a 2026-07-28 request is refused, as a batch of that era is", async () => {
    const alice = await session();
    const batch = JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }, regionCall(2, "eu-west")]);
    // As a 2025-11-25 client of the session sends it; the 2026 request's own headers are not there.
    const answer = await post(batch, { "Mcp-Session-Id": alice, "MCP-Protocol-Version": "2025-11-25" });
    expect(answer.status).toBe(400);
    expect(answer.body).not.toContain("Region: eu-west");
  });

  test("a refusal before dispatch answers an id that is not a string, a number or null with id null", async () => {
    for (const id of [{ x: 1 }, [1], true]) {
      const answer = await post(JSON.stringify(regionCall(id, "eu-west")));
      expect(JSON.parse(answer.body).id).toBeNull();
    }
  });

  test("a session whose call is still under way (waiting for its client's answer) does not end as idle", async () => {
    const alice = await session("/brief");
    const { call, id } = await asking(alice, "/brief");
    // The user takes longer than the idle bound to answer: the call's event stream is open all along.
    await new Promise((settle) => setTimeout(settle, 800));
    const answer = await post(
      JSON.stringify({ jsonrpc: "2.0", id, result: { action: "accept", content: { name: "alice" } } }),
      { "Mcp-Session-Id": alice },
      undefined,
      "/brief",
    );
    expect(answer.status).toBe(202);
    expect((await call).body).toContain("alice");
  });
});
