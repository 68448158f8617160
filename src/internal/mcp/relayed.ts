/**
 * The context of a worker's calls: an MCP server served in another process than its HTTP front
 * (`serveNats` behind `mcpHandler`'s `relay`). Each call gets the HTTP request's headers, as the
 * relay carried them, as a `Request` (what `McpContext.httpRequest` is over HTTP: a token, the
 * protocol version), and is marked relayed: a tool's requests to the client in the 2025 era are
 * refused there, as the client's answers go to the front and cannot reach the worker.
 *
 * @module
 */

/**
 * A relayed message as the worker's context reads it: its headers, by name (nats-core's `Msg`, whose
 * headers list their names with `keys`).
 *
 * @example
 * import type { RelayedMessage } from "rpcserver/mcp";
 * const message: RelayedMessage = { headers: { get: () => "", keys: () => [] } };
 *
 * @since 5.0.10
 * @category mcp
 */
export interface RelayedMessage {
  /** Its headers: the HTTP request's, as the relay carried them. */
  readonly headers?: RelayedHeaders | undefined;
}

/**
 * A relayed message's headers: a header's value by its name, and their names.
 *
 * @example
 * import type { RelayedHeaders } from "rpcserver/mcp";
 * const none: RelayedHeaders = { get: () => "", keys: () => [] };
 *
 * @since 5.0.10
 * @category mcp
 */
export interface RelayedHeaders {
  /** The header's value, `""` when it is not there. */
  get(name: string): string;
  /** The headers' names (nats-core's headers have it; without it, none is read). */
  keys?(): string[];
}

/**
 * What each call of a worker gets: the HTTP request it came in (its headers; its URL is not carried),
 * and the mark that it was relayed.
 *
 * @example
 * import { relayedContext, type RelayedContext } from "rpcserver/mcp";
 * const context: RelayedContext = relayedContext({});
 * context.request.headers.get("authorization"); // null
 *
 * @since 5.0.10
 * @category mcp
 */
export interface RelayedContext {
  /** The HTTP request, made of the relayed headers (a tool reads it as `httpRequest`). */
  readonly request: Request;
  /** The call came through a relay: the 2025 era's requests to the client are refused. */
  readonly relayed: true;
}

/** The URL of a relayed request: the front's is not carried, only its headers. */
const RELAYED_URL = "http://relayed.invalid/";

/**
 * The context of an MCP server's calls on a worker: give it as `serveNats`' `context`, beside the
 * server's `methods` and `stages`. docs/mcp.md, "Workers over NATS".
 *
 * @example
 * import { relayedContext } from "rpcserver/mcp";
 * const headers = { get: (name: string) => (name === "authorization" ? "Bearer t" : ""), keys: () => ["authorization"] };
 * const { request, relayed } = relayedContext({ headers });
 * request.headers.get("Authorization"); // "Bearer t"
 * relayed; // true
 *
 * @since 5.0.10
 * @category mcp
 */
export const relayedContext = (message: RelayedMessage): RelayedContext => {
  const carried = message.headers;
  const headers = new Headers();
  for (const name of carried?.keys?.() ?? []) {
    try {
      headers.set(name, carried?.get(name) ?? "");
    } catch {
      // Not a header HTTP allows (a NATS header of another sender's): not the request's.
    }
  }
  return { request: new Request(RELAYED_URL, { method: "POST", headers }), relayed: true };
};
