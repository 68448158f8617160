/**
 * Channels: a long-lived, two-way path for JSON-RPC messages (text), under a connection.
 *
 * A channel is a small interface, so that any transport can be one: it sends a message (saying when
 * it is full), delivers the messages it receives and says once when it has ended. Three ship here,
 * typed by what they use rather than by Node's or the DOM's types, so these modules import nothing:
 * byte streams with a framing (stdio, sockets, child processes), WebSockets (the `ws` package on
 * Node, the standard `WebSocket` in browsers, Deno and Bun), and message ports (`MessagePort`,
 * workers).
 *
 * This file holds the interface and what a channel reports; each channel is in a file of its own
 * (./byte-channel, ./web-socket, ./message-port).
 *
 * @module
 */

/**
 * What a channel reports to its connection.
 *
 * @since 5.0.10
 * @category connection
 */
export interface ChannelEvents {
  /** One whole message received. */
  readonly message: (text: string) => void;
  /**
   * The connection's `maxMessageLength`: a channel that reads bytes bounds each message by it (in
   * bytes) before text is made, and reports a longer one as `oversize`.
   */
  readonly maxMessageLength?: number;
  /** A message skipped for its size, and the limit it passed (a framing's own), if the channel has one (the channel goes on). */
  readonly oversize: (bytes: number, max?: number) => void;
  /** The channel can take more after `send` said it was full. */
  readonly drain: () => void;
  /** The channel has ended (closed by either side, or failed); called once. */
  readonly closed: (reason: unknown) => void;
}

/**
 * A two-way channel of JSON-RPC messages.
 *
 * @example
 * import type { Channel } from "rpcserver/connection";
 * // A pair of channels joined in memory (what tests use).
 * const pair = (): [Channel, Channel] => {
 *   const ends: Array<{ events?: import("rpcserver/connection").ChannelEvents }> = [{}, {}];
 *   const end = (me: number): Channel => ({
 *     send: (text) => (queueMicrotask(() => ends[1 - me]?.events?.message(text)), true),
 *     start: (events) => void (ends[me]!.events = events),
 *     close: (reason) => ends.forEach((e) => e.events?.closed(reason)),
 *   });
 *   return [end(0), end(1)];
 * };
 *
 * @since 5.0.10
 * @category connection
 */
export interface Channel {
  /** Sends one message. `false`: the channel is full (the message is taken; `drain` follows). */
  readonly send: (text: string) => boolean;
  /** Starts delivering events. Called once, by the connection. */
  readonly start: (events: ChannelEvents) => void;
  /** Stops reading (flow control), if the channel can. */
  readonly pause?: () => void;
  /** Reads again after `pause`. */
  readonly resume?: () => void;
  /** Ends the channel; `closed` follows. */
  readonly close: (reason?: unknown) => void;
}
