/**
 * A relay: how an HTTP front hands a POST's body to a server in another process (a worker behind
 * NATS: `natsRelay` of rpcserver/nats) and gets back what that server sends, the messages before
 * its answer and then its answer, each as its JSON-RPC text. The front keeps the HTTP side (its
 * guard, body limit, checks of the body); the worker dispatches. A type only: the front
 * (`mcpHandler`'s `relay`) and the relays (rpcserver/nats) meet here, and neither imports the other.
 *
 * @module
 */

/**
 * What a relay is told with each body.
 *
 * @example
 * import type { RelayOptions } from "rpcserver/mcp";
 * const options: RelayOptions = { headers: { authorization: "Bearer t" }, signal: new AbortController().signal };
 *
 * @since 5.0.10
 * @category mcp
 */
export interface RelayOptions {
  /** The HTTP request's headers, by lower-case name, for the worker's context (a token, the protocol version). */
  readonly headers: Readonly<Record<string, string>>;
  /** Aborts when the HTTP client has gone away: the relay stops waiting (the worker is not told). */
  readonly signal: AbortSignal;
  /**
   * Set when the client takes messages before the answer (an event stream): each message the
   * server sends before its answer (progress, log messages), as its JSON-RPC text, in order. A
   * returned Promise is waited for before the next is handed on, so a slow client holds them back.
   * Without it the server is not asked for them.
   */
  readonly onMessage?: ((text: string) => void | Promise<void>) | undefined;
}

/**
 * Hands one JSON-RPC body to a server elsewhere: resolves to its answer's text (`""` for a body of
 * notifications), rejects when it could not be had (no server, a time-out, the connection closed;
 * the front answers -32000 and logs why).
 *
 * @example
 * import type { Relay } from "rpcserver/mcp";
 * // A relay that answers every request with the same error: for a test.
 * const down: Relay = async () => '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Down"},"id":null}';
 *
 * @since 5.0.10
 * @category mcp
 */
export type Relay = (body: Uint8Array, options: RelayOptions) => Promise<string>;
