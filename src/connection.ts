/**
 * rpcserver/connection: serve and call over one long-lived, two-way channel (stdio, sockets,
 * child processes, WebSockets, message ports), with cancellation and flow control.
 *
 * @example
 * import { connect, contentLength, streams } from "rpcserver/connection";
 * const peer = connect(streams(process.stdin, process.stdout, contentLength()), { methods: {}, cancellation: "lsp" });
 *
 * @module
 */
export {
  messagePort,
  streams,
  webSocket,
  type Channel,
  type ChannelEvents,
  type PortLike,
  type ReadableBytes,
  type WebSocketLike,
  type WritableBytes,
} from "./channel";
export { contentLength, newlineDelimited, type FrameEvents, type Framing } from "./framing";
export { connect, type Cancellation, type ConnectOptions, type Connection, type ConnectionContext } from "./peer";
