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
 * @since 5.0.10
 * @category mcp
 */
export interface RelayedMessage {
  readonly headers?: { get(name: string): string; keys?(): string[] } | undefined;
}

/**
 * What each call of a worker gets: the HTTP request it came in (its headers; its URL is not carried),
 * and the mark that it was relayed.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface RelayedContext {
  readonly request: Request;
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
