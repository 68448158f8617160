/**
 * A server whose lists change, and a client of the 2026 era that listens to it, as the tests of
 * changes speak them (tests/mcp-changes.test.ts, tests/mcp-hostile-changes.test.ts): the envelope,
 * a POST of one method, and the messages of an event stream as they come.
 */
import * as E from "fp-ts/Either";
import { mcpServer, tool, type McpServer, type Resource } from "../../src/mcp";
import { postHeaders } from "./mcp-http";

export const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
};
export const SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

export const note = (uri: string): Resource => ({ name: uri, read: () => E.right({ uri, text: `the note ${uri}` }) });
export const echo = tool({ description: "Says hi", run: () => E.right("hi") });
export const chatty = tool({
  description: "Logs at info and at error",
  run: (_args, ctx) => {
    ctx.log("info", "an info line");
    ctx.log("error", "an error line");
    return E.right("logged");
  },
});

export const serverOf = (): McpServer =>
  mcpServer({
    name: "changing",
    version: "1.0.0",
    tools: { echo, chatty },
    resources: { "note://a": note("note://a"), "note://b": note("note://b") },
  });

/** A 2026 era POST of `method` (its headers as the era asks). */
export const modern = (
  method: string,
  params: Record<string, unknown>,
  id: number | string = 1,
  signal?: AbortSignal,
) =>
  new Request("http://localhost/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": method,
      ...(typeof (params["name"] ?? params["uri"]) === "string"
        ? { "Mcp-Name": String(params["name"] ?? params["uri"]) }
        : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta: META, ...params } }),
    ...(signal !== undefined ? { signal } : {}),
  });

/** Reads an event stream's messages as they come: `next(n)` waits for n more (or the end). */
export const messagesOf = (response: Response) => {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let done = false;
  const got: unknown[] = [];
  const next = async (count: number): Promise<unknown[]> => {
    const from = got.length;
    while (got.length < from + count && !done) {
      const step = await reader.read();
      if (step.done === true) {
        done = true;
        break;
      }
      buffer += decoder.decode(step.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trim())
          .join("\n");
        if (data !== "") got.push(JSON.parse(data));
      }
    }
    return got.slice(from);
  };
  return { next, cancel: () => reader.cancel(), ended: () => done };
};

/** A POST of the 2025 era, of the session `session` if one is named: `body` as is, or made JSON. */
export const post2025 = (body: unknown, session?: string | null): Request =>
  new Request("http://localhost/mcp", {
    method: "POST",
    headers: postHeaders(session ?? undefined),
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
