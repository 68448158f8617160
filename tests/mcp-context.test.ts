/**
 * Where a call came from, in a tool's context (`McpContext`): over HTTP the request (its headers,
 * for auth), through `mcpHandler` as a fetch handler and on `nodeHandler` with a real socket; on a
 * connection the connection itself. Each wire sees its own and not the other's.
 */
import type { AddressInfo } from "node:net";
import { createServer } from "node:http";
import * as E from "fp-ts/Either";
import { connect } from "../src/connection";
import { mcpHandler, mcpServer, tool, type McpContext } from "../src/mcp";
import { nodeHandler } from "../src/server";
import { pair, settle } from "./helpers/channels";

const seen: McpContext[] = [];
const whoami = mcpServer({
  name: "whoami",
  version: "1.0.0",
  tools: {
    whoami: tool({
      description: "Who is calling: the X-User header over HTTP, or 'a connection'",
      run: (_args, ctx) => {
        seen.push(ctx);
        const user = ctx.httpRequest?.headers.get("x-user");
        return E.right(user ?? (ctx.peer !== undefined ? "a connection" : "nobody"));
      },
    }),
  },
});

const CALL = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}';
const ANSWER = (text: string): string =>
  JSON.stringify({ jsonrpc: "2.0", result: { content: [{ type: "text", text }] }, id: 1 });
const HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "X-User": "ada" };

beforeEach(() => {
  seen.length = 0;
});

test("over HTTP, through the fetch handler: the request, its headers; no peer", async () => {
  const response = await mcpHandler(whoami)(
    new Request("http://localhost/mcp", { method: "POST", headers: HEADERS, body: CALL }),
  );
  expect(await response.text()).toBe(ANSWER("ada"));
  expect(seen[0]?.peer).toBeUndefined();
  expect(seen[0]?.httpRequest?.url).toBe("http://localhost/mcp");
});

test("over HTTP on nodeHandler, on a real socket: the request's head, its headers", async () => {
  const handler = nodeHandler(mcpHandler(whoami));
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", headers: HEADERS, body: CALL });
    expect(await response.text()).toBe(ANSWER("ada"));
    expect(seen[0]?.httpRequest?.method).toBe("POST");
    expect(seen[0]?.peer).toBeUndefined();
  } finally {
    server.close();
    server.closeAllConnections();
  }
});

test("on a connection: the connection; no request", async () => {
  const [serverEnd, clientEnd] = pair();
  const peer = connect(serverEnd, { methods: whoami.methods, stages: whoami.stages, context: {}, cancellation: "mcp" });
  const received: string[] = [];
  clientEnd.start({
    message: (text) => void received.push(text),
    oversize: () => undefined,
    drain: () => undefined,
    closed: () => undefined,
  });
  clientEnd.send(CALL);
  for (let turn = 0; turn < 100 && received.length === 0; turn += 1) await settle(1);
  expect(received.map((text) => JSON.parse(text) as unknown)).toEqual([JSON.parse(ANSWER("a connection"))]);
  expect(seen[0]?.httpRequest).toBeUndefined();
  expect(seen[0]?.peer).toBe(peer);
  peer.close();
});
