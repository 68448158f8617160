/**
 * The Model Context Protocol's shapes that the kit reads and writes, the 2025-11-25 era: protocol
 * versions, content blocks, results, log levels. Only what the kit builds or checks is typed here;
 * the rest passes through as JSON.
 *
 * @module
 */

/** The protocol versions this server speaks, newest first: `initialize` answers the client's if listed, else the first. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/**
 * A JSON object, as MCP messages carry them.
 *
 * @since 5.0.10
 * @category mcp
 */
export type JsonObject = { readonly [key: string]: unknown };

/**
 * Who a content block is for, and how much it matters (MCP's annotations of content).
 *
 * @since 5.0.10
 * @category mcp
 */
export interface ContentAnnotations {
  readonly audience?: ReadonlyArray<"user" | "assistant">;
  readonly priority?: number;
  readonly lastModified?: string;
}

/**
 * A resource's contents: text, or a binary `blob` in base64.
 *
 * @since 5.0.10
 * @category mcp
 */
export type ResourceContents = {
  readonly uri: string;
  readonly mimeType?: string;
  readonly _meta?: JsonObject;
} & ({ readonly text: string } | { readonly blob: string });

/**
 * A content block of a tool's result or a prompt's message: text, an image, audio, an embedded
 * resource, or a link to one.
 *
 * @since 5.0.10
 * @category mcp
 */
export type Content =
  | { readonly type: "text"; readonly text: string; readonly annotations?: ContentAnnotations }
  | {
      readonly type: "image" | "audio";
      readonly data: string;
      readonly mimeType: string;
      readonly annotations?: ContentAnnotations;
    }
  | { readonly type: "resource"; readonly resource: ResourceContents; readonly annotations?: ContentAnnotations }
  | {
      readonly type: "resource_link";
      readonly uri: string;
      readonly name: string;
      readonly title?: string;
      readonly description?: string;
      readonly mimeType?: string;
      readonly annotations?: ContentAnnotations;
    };

/**
 * What `tools/call` answers: content blocks, optionally `structuredContent` (checked against the
 * tool's output schema), and `isError` for a tool that failed.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface ToolResult {
  readonly content: ReadonlyArray<Content>;
  readonly structuredContent?: JsonObject;
  readonly isError?: boolean;
  readonly _meta?: JsonObject;
}

/**
 * One message of a prompt.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface PromptMessage {
  readonly role: "user" | "assistant";
  readonly content: Content;
}

/**
 * A log level (`logging/setLevel`, `notifications/message`): syslog's.
 *
 * @since 5.0.10
 * @category mcp
 */
export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

/** MCP's log levels, least severe first. */
export const LOG_LEVELS: ReadonlyArray<LogLevel> = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/**
 * What failed, as a handler's Left: a message, or anything with one (an `Error`).
 *
 * @since 5.0.10
 * @category mcp
 */
export type Failure = string | { readonly message: string };

/** A failure's message. */
export const failureText = (failure: Failure): string => (typeof failure === "string" ? failure : failure.message);

/**
 * The header that names a session (the 2025-11-25 era, with sessions on), lower-case as
 * `Headers.get` and the HTTP path's `header` take it. Both give its value trimmed.
 */
export const SESSION_HEADER = "mcp-session-id";

/** MCP's error codes beyond JSON-RPC's own. */
export const RESOURCE_NOT_FOUND = -32002;

/** Made on first use: a module-level `new` would keep this module in bundles that never use it. */
let decoder: InstanceType<typeof TextDecoder> | undefined;

/** A body's text (UTF-8). */
export const textOf = (bytes: Uint8Array): string => (decoder ??= new TextDecoder()).decode(bytes);

/**
 * The messages of a body's text: one, or a batch's; `undefined` for text that is no JSON. What the
 * HTTP side looks into before dispatch (the client's answers, a handshake, a cancel) reads it so.
 */
export const messagesIn = (text: string): unknown[] | undefined => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return Array.isArray(parsed) ? (parsed as unknown[]) : [parsed];
};
