/**
 * rpcserver/mcp under the official SDK's `Client`, over stdio (an rpcserver connection) and over
 * Streamable HTTP (`mcpHandler` under @hono/node-server, and on `nodeHandler`): the same server (tests/fixtures/mcp-kit.mjs)
 * and the same calls on each wire (tests/fixtures/mcp-kit-client.mjs, a script: the SDK is
 * ESM-first), which must answer alike. The built package must exist (`npm run build`).
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(__dirname, "..");
const drive = (wire: "stdio" | "http" | "node"): Record<string, unknown> => {
  if (!existsSync(join(ROOT, "dist/esm/mcp.js"))) throw new Error("run `npm run build` first");
  const out = execFileSync(process.execPath, ["tests/fixtures/mcp-kit-client.mjs", wire], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 30_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return JSON.parse(out.trim().split("\n").pop() as string) as Record<string, unknown>;
};

const textResult = (text: string, isError?: true): unknown => ({
  content: [{ type: "text", text }],
  ...(isError ? { isError } : {}),
});

describe.each(["stdio", "http", "node"] as const)("the SDK's Client over %s", (wire) => {
  const seen = drive(wire);

  test("initialize: who the server is, its instructions, capabilities from what it declares", () => {
    expect(seen["server"]).toEqual({ name: "kit", version: "0.1.0" });
    expect(seen["instructions"]).toBe("Test server");
    expect(seen["capabilities"]).toEqual({
      logging: {},
      completions: {},
      prompts: { listChanged: true },
      // Over stateless HTTP no update could reach a subscription: not offered there.
      resources: wire === "stdio" ? { subscribe: true, listChanged: true } : { listChanged: true },
      tools: { listChanged: true },
    });
  });

  test("tools/list: input schemas from io-ts and from zod (a Standard Schema), the output schema, title, annotations", () => {
    const tools = seen["tools"] as Array<Record<string, unknown>>;
    expect(tools.map((tool) => tool["name"])).toEqual([
      "add",
      "greet",
      "divide",
      "boom",
      "broken",
      "stats",
      "count",
      "chatty",
      "ask",
      "links",
    ]);
    expect(tools[0]).toEqual({
      name: "add",
      title: "Add",
      description: "Adds two numbers",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      annotations: { readOnlyHint: true },
    });
    expect(tools[1]?.["inputSchema"]).toEqual({
      type: "object",
      properties: { name: { type: "string", minLength: 1 } },
      required: ["name"],
    });
    expect(tools[3]?.["inputSchema"]).toEqual({ type: "object", properties: {} });
    expect(tools[5]?.["outputSchema"]).toEqual({
      type: "object",
      properties: { count: { type: "number" }, sum: { type: "number" } },
      required: ["count", "sum"],
    });
  });

  test("tools/call: arguments decoded before the handler; bad ones an isError result naming each failing path", () => {
    expect(seen["add"]).toEqual(textResult("5"));
    expect(seen["addInvalid"]).toEqual(
      textResult(
        'Invalid arguments: arguments.a: expected number, got "x"; arguments.b: expected number, got undefined',
        true,
      ),
    );
    expect(seen["greet"]).toEqual(textResult("hello ada"));
    expect(seen["greetInvalid"]).toEqual(expect.objectContaining({ isError: true }));
    expect(JSON.stringify(seen["greetInvalid"])).toContain("Invalid arguments: arguments.name: ");
  });

  test("a Left (of a TaskEither here) is an isError result with its message; a throw too, and an answer that is no Either, each with a log line", () => {
    expect(seen["divide"]).toEqual(textResult("division by zero", true));
    expect(seen["boom"]).toEqual(textResult("kaboom", true));
    expect(seen["broken"]).toEqual(textResult("the tool answered no Either", true));
    if (wire === "stdio") expect(seen["stderr"]).toContain("rpcserver/mcp: a tool threw");
  });

  test("structuredContent: checked against the output schema, its JSON as the text", () => {
    expect(seen["stats"]).toEqual({
      content: [{ type: "text", text: '{"count":3,"sum":6}' }],
      structuredContent: { count: 3, sum: 6 },
    });
    expect(seen["statsBad"]).toEqual(expect.objectContaining({ isError: true }));
    expect(JSON.stringify(seen["statsBad"])).toContain("Invalid result: structuredContent.count: expected number");
  });

  test("an unknown tool is -32602", () => {
    expect(seen["unknownTool"]).toEqual({ error: { code: -32602, message: "MCP error -32602: Unknown tool: nope" } });
  });

  test("an async function* tool: each value it yields is progress, on the call's token, before its answer", () => {
    expect(seen["count"]).toEqual(textResult("counted to 5"));
    // Over stdio the client script hands the SDK each message in its own macrotask (the SDK drops
    // progress read in one chunk with the answer otherwise: tests/fixtures/mcp-kit-client.mjs).
    expect(seen["progress"]).toEqual([1, 2, 3, 4, 5].map((progress) => ({ progress, total: 5 })));
  });

  test("logging: logging/setLevel answers {}; a tool's log messages at or above the level reach the client", () => {
    expect(seen["setLevel"]).toEqual({});
    expect(seen["chatty"]).toEqual(textResult("logged"));
    expect(seen["logs"]).toEqual([
      { level: "info", data: { step: "info" } },
      { level: "error", logger: "chatty", data: "an error line" },
    ]);
  });

  test("elicitation: a tool asks the client (a server-to-client request) and answers with what it said", () => {
    expect(seen["ask"]).toEqual(textResult('accept: {"name":"ada (asked: Your name?)"}'));
  });

  test("content helpers: image and resource link", () => {
    expect(seen["links"]).toEqual({
      content: [
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "resource_link", uri: "test://notes", name: "notes", mimeType: "text/plain" },
      ],
    });
  });

  test("resources: list, templates, read (static and by template), a Left or an unknown URI -32002, subscribe", () => {
    expect(seen["resources"]).toEqual({
      resources: [{ uri: "test://notes", name: "notes", description: "Notes", mimeType: "text/plain" }],
    });
    expect(seen["templates"]).toEqual({
      resourceTemplates: [{ uriTemplate: "test://users/{id}", name: "user", mimeType: "application/json" }],
    });
    expect(seen["readNotes"]).toEqual({ contents: [{ uri: "test://notes", text: "n" }] });
    expect(seen["readUser"]).toEqual({ contents: [{ uri: "test://users/7", text: '{"id":"7"}' }] });
    expect(seen["readUser0"]).toEqual({ error: { code: -32002, message: "MCP error -32002: no user 0" } });
    expect(seen["readMissing"]).toEqual({
      error: { code: -32002, message: "MCP error -32002: Resource not found: test://missing" },
    });
    expect(seen["subscribe"]).toEqual({});
  });

  test("prompts: list, get with arguments (a missing required one -32602), completion of prompt arguments and template variables", () => {
    expect(seen["prompts"]).toEqual({
      prompts: [
        {
          name: "review",
          description: "Reviews code",
          arguments: [{ name: "code", required: true }, { name: "style" }],
        },
      ],
    });
    expect(seen["review"]).toEqual({
      messages: [{ role: "user", content: { type: "text", text: "Review (terse): x = 1" } }],
    });
    expect(seen["reviewMissing"]).toEqual({
      error: { code: -32602, message: "MCP error -32602: Missing arguments: code" },
    });
    expect(seen["completePrompt"]).toEqual({ completion: { values: ["thorough"], total: 1, hasMore: false } });
    expect(seen["completeTemplate"]).toEqual({ completion: { values: ["1", "12"], total: 2, hasMore: false } });
    expect(seen["ping"]).toEqual({});
  });
});

describe("over stdio, as written", () => {
  test("a call with a progress token: each value its tool yields as notifications/progress, in order, then the answer", async () => {
    const child = spawn(process.execPath, ["tests/fixtures/mcp-kit-stdio.mjs"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"],
    });
    const lines: unknown[] = [];
    let rest = "";
    const answered = new Promise<void>((settle) => {
      child.stdout.on("data", (chunk: Buffer) => {
        const parts = (rest + chunk.toString("utf8")).split("\n");
        rest = parts.pop() ?? "";
        for (const part of parts) {
          const message = JSON.parse(part) as { id?: number };
          lines.push(message);
          if (message.id === 1) settle();
        }
      });
    });
    child.stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"to":3},"_meta":{"progressToken":"t"}}}\n',
    );
    await answered;
    child.stdin.end();
    await new Promise((settle) => child.once("exit", settle));
    expect(lines).toEqual([
      ...[1, 2, 3].map((progress) => ({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "t", progress, total: 3 },
      })),
      { jsonrpc: "2.0", result: { content: [{ type: "text", text: "counted to 3" }] }, id: 1 },
    ]);
  });
});
