/**
 * A streamed `WireMessage` goes out as the message it holds, whatever the request's convention
 * (core/progress-wire.ts): how rpcserver/mcp sends a tool's log messages and requests on a call's
 * stream. Any other value stays progress.
 */
import { valueNotification, WireMessage, type Tokens } from "../src/internal/core/progress-wire";

const write = (value: unknown): string => JSON.stringify(value);
const message = { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } };

describe("valueNotification", () => {
  test.each<[string, Tokens]>([
    ["MCP's", { convention: "mcp", token: "p", workDone: undefined, empties: false }],
    ["LSP's partial results", { convention: "lsp", token: 7, workDone: undefined, empties: true }],
    ["LSP's work-done", { convention: "lsp", token: undefined, workDone: "w", empties: false }],
  ])("on %s tokens, a WireMessage is its message as written", (_name, tokens) => {
    expect(valueNotification(write, tokens, 1, new WireMessage(message))).toBe(JSON.stringify(message));
  });

  test("a plain value is still progress", () => {
    const tokens: Tokens = { convention: "mcp", token: "p", workDone: undefined, empties: false };
    expect(JSON.parse(valueNotification(write, tokens, 2, { progress: 5, total: 10 }))).toEqual({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p", progress: 5, total: 10 },
    });
  });
});
