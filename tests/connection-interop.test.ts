/**
 * Connections proven with clients no one here wrote: the official MCP SDK client drives
 * examples/mcp/server.mjs over stdio (newline-delimited, `notifications/cancelled`), and
 * vscode-jsonrpc's MessageConnection drives examples/lsp/server.mjs (Content-Length framing,
 * `$/cancelRequest`, calls from the server back to the client). Each driver is a script (both
 * libraries are ESM-first) that prints what it saw; the built package must exist (`npm run build`).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { EXAMPLE_TOOLS } from "./helpers/mcp-example";

const ROOT = join(__dirname, "..");
const drive = (script: string): Record<string, unknown> => {
  if (!existsSync(join(ROOT, "dist/esm/connection.js"))) throw new Error("run `npm run build` first");
  const out = execFileSync(process.execPath, [join("tests/fixtures", script)], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 30_000,
  });
  return JSON.parse(out.trim().split("\n").pop() as string) as Record<string, unknown>;
};

describe("the MCP SDK's Client over stdio against examples/mcp/server.mjs", () => {
  const seen = drive("mcp-client.mjs");

  test("initialize: the server's name and capabilities", () => {
    expect(seen["server"]).toEqual({ name: "rpcserver-mcp-example", version: "1.0.0" });
    expect(seen["capabilities"]).toEqual({ logging: {}, tools: { listChanged: true } });
  });

  test("tools/list: input schemas from the io-ts codecs", () => {
    expect(seen["tools"]).toEqual(EXAMPLE_TOOLS);
  });

  test("tools/call: a result, a tool error, an unknown tool", () => {
    expect(seen["add"]).toEqual({ content: [{ type: "text", text: "5" }] });
    expect(seen["invalid"]).toEqual({
      content: [
        {
          type: "text",
          text: 'Invalid arguments: arguments.a: expected number, got "x"; arguments.b: expected number, got undefined',
        },
      ],
      isError: true,
    });
    expect(seen["unknown"]).toEqual({ code: -32602, message: "MCP error -32602: Unknown tool: nope" });
  });

  test("notifications/cancelled aborts the call's signal, and the connection goes on", () => {
    expect(seen["cancelled"]).toBe("McpError");
    expect(seen["stderr"]).toContain("sleep(10000) cancelled");
    expect(seen["after"]).toEqual({ content: [{ type: "text", text: "2" }] });
  });
});

describe("vscode-jsonrpc's MessageConnection against examples/lsp/server.mjs", () => {
  const seen = drive("lsp-client.mjs");

  test("initialize and a call back to the client before answering", () => {
    expect(seen["initialize"]).toEqual({
      capabilities: { hoverProvider: false },
      serverInfo: { name: "rpcserver-lsp-example", version: "1.0.0" },
    });
    expect(seen["configured"]).toBe("value of editor.tabSize");
    expect(seen["logged"]).toEqual([{ type: 3, message: "read editor.tabSize" }]);
  });

  test("$/cancelRequest: answered -32800 at once, the method's signal aborted", () => {
    expect(seen["slow"]).toEqual({ code: -32800, message: "Request cancelled" });
    expect(seen["stderr"]).toContain("example/slow(10000) cancelled");
    expect(seen["fast"]).toBe("slept 1 ms");
  });

  test("invalid params, then shutdown and exit with status 0", () => {
    expect(seen["invalid"]).toEqual({ code: -32602, message: "Invalid params" });
    expect(seen["exit"]).toBe(0);
  });
});
