/**
 * rpcserver/mcp: Model Context Protocol servers declared in the contract style: tools (their
 * arguments decoded by io-ts codecs or any Standard Schema), resources and templates, prompts,
 * completion and logging, served over stdio or any connection (`connect`) and Streamable HTTP
 * (`mcpHandler`, on the one HTTP path of `fetchHandler`), in both protocol eras at once: the
 * 2025-11-25 handshake and the stateless 2026-07-28 (`server/discover`, the `_meta` envelope,
 * `input_required` with a signed `requestState`), chosen per request. It loads no MCP package.
 * docs/mcp.md.
 *
 * @example
 * import * as E from "fp-ts/lib/Either.js";
 * import * as t from "io-ts";
 * import { mcpHandler, mcpServer, text, tool } from "rpcserver/mcp";
 * const handler = mcpHandler(mcpServer({
 *   name: "calculator",
 *   version: "1.0.0",
 *   tools: {
 *     add: tool({ description: "Adds two numbers", input: t.type({ a: t.number, b: t.number }), run: ({ a, b }) => E.right([text(String(a + b))]) }),
 *   },
 * }));
 * const response = await handler(new Request("http://localhost/mcp", {
 *   method: "POST",
 *   headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
 *   body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}',
 * }));
 * await response.text(); // '{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"3"}]},"id":1}'
 *
 * @packageDocumentation
 */
export { audio, embedded, image, resourceLink, text } from "./internal/mcp/content";
export { mcpHandler, type McpHandlerOptions } from "./internal/mcp/http";
export type { SessionFetchHandler } from "./internal/http/fetch-handler";
export type { McpChange } from "./internal/mcp/changes";
export { mcpServer, type McpChanges, type McpServer, type McpServerSpec } from "./internal/mcp/server";
export type { CacheHints, StateOwner } from "./internal/mcp/stateless";
export { mcpSessions, type McpSessions, type McpSessionsOptions } from "./internal/mcp/sessions";
export {
  tool,
  type McpContext,
  type Progress,
  type Tool,
  type ToolAnnotations,
  type ToolAnswer,
  type ToolHandler,
  type ToolSpec,
} from "./internal/mcp/tools";
export type {
  Answer,
  Completer,
  Contents,
  Prompt,
  PromptArgument,
  Resource,
  ResourceInfo,
  ResourceTemplate,
} from "./internal/mcp/catalog";
export type { McpSchema } from "./internal/mcp/schema";
export type {
  Content,
  ContentAnnotations,
  Failure,
  JsonObject,
  LogLevel,
  PromptMessage,
  ResourceContents,
  ToolResult,
} from "./internal/mcp/protocol";
export type { Relay, RelayOptions } from "./internal/core/relay";
export { relayedContext, type RelayedContext, type RelayedHeaders, type RelayedMessage } from "./internal/mcp/relayed";
