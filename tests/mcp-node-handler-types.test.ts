/**
 * `nodeHandler(mcpHandler(server, { sessions }))` does not compile: `mcpHandler` given `sessions`
 * (or options whose `sessions` the compiler cannot tell off) returns a `SessionFetchHandler`, whose
 * mark `nodeHandler`'s parameter refuses; without sessions it is a plain `FetchHandler`, which
 * `nodeHandler` serves natively, and any fetch adapter takes either. The `@ts-expect-error` lines
 * are compiled by `tsc` (`npm run typecheck`): each fails the check if its call compiles. The calls
 * run too: the refused ones are still the TypeError a JavaScript caller gets.
 */
import { fetchHandler } from "../src/fetch";
import type { FetchHandler } from "../src/fetch";
import { mcpHandler, mcpServer, mcpSessions, type McpHandlerOptions, type SessionFetchHandler } from "../src/mcp";
import { nodeHandler } from "../src/server";

const server = mcpServer({ name: "types", version: "1.0.0" });
const refusal =
  /^nodeHandler: a function it was given is no fetch handler of rpcserver's \(fetchHandler, mcpHandler without sessions\)/;

/** What a fetch adapter takes: any fetch handler, one with sessions too. */
const adapted = (handler: FetchHandler): FetchHandler => handler;

describe("nodeHandler and mcpHandler's sessions, at compile time", () => {
  test("without sessions, mcpHandler's handler is served natively", () => {
    expect(typeof nodeHandler(mcpHandler(server))).toBe("function");
    expect(typeof nodeHandler(mcpHandler(server, {}))).toBe("function");
    expect(typeof nodeHandler(mcpHandler(server, { sessions: false }))).toBe("function");
    expect(typeof nodeHandler(mcpHandler(server, { maxBatchSize: 5, allowedHosts: ["example.com"] }))).toBe("function");
    expect(typeof nodeHandler(fetchHandler({}))).toBe("function");
  });

  test("with sessions, it does not compile, and is still a TypeError when run", () => {
    // @ts-expect-error: a sessions handle
    expect(() => nodeHandler(mcpHandler(server, { sessions: mcpSessions({ id: () => "id" }) }))).toThrow(refusal);
    const sessioned: SessionFetchHandler = mcpHandler(server, { sessions: mcpSessions({ id: () => "id" }) });
    // @ts-expect-error: held in a variable of its type
    expect(() => nodeHandler(sessioned)).toThrow(refusal);
    // Compiled, not run: `sessions: true` makes its ids with globalThis.crypto.randomUUID, which Node 18 lacks.
    const compiledOnly = (): unknown =>
      // @ts-expect-error: sessions: true
      nodeHandler(mcpHandler(server, { sessions: true }));
    expect(typeof compiledOnly).toBe("function");
  });

  test("options whose sessions the compiler cannot tell off are taken to have them", () => {
    const on = (flag: boolean): McpHandlerOptions => ({ sessions: flag ? mcpSessions({ id: () => "id" }) : false });
    // @ts-expect-error: sessions: McpHandlerOptions's
    expect(() => nodeHandler(mcpHandler(server, on(true)))).toThrow(refusal);
    // Off at run time, but refused all the same: its type says it may keep sessions.
    // @ts-expect-error: sessions: McpHandlerOptions's
    expect(typeof nodeHandler(mcpHandler(server, on(false)))).toBe("function");
  });

  test("a handler with sessions is a FetchHandler for any fetch adapter, and answers as one", async () => {
    const handler = adapted(mcpHandler(server, { sessions: mcpSessions({ id: () => "one" }) }));
    const answer = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
        }),
      }),
    );
    expect(answer.headers.get("Mcp-Session-Id")).toBe("one");
  });

  test("a function this package did not make still compiles, and is a TypeError when given", () => {
    const foreign = (request: Request): Promise<Response> => Promise.resolve(new Response(request.url));
    expect(() => nodeHandler(foreign)).toThrow(refusal);
  });
});
