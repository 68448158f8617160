/**
 * rpcserver/connection: serve and call over one long-lived, two-way channel (stdio, sockets,
 * child processes, WebSockets, message ports), with cancellation and flow control.
 *
 * @example
 * // compile-only: it serves the process's own stdin and stdout, as a language server does
 * import { byteChannel, connect, contentLength } from "rpcserver/connection";
 * const peer = connect(byteChannel(process.stdin, process.stdout, contentLength()), { methods: {}, cancellation: "lsp" });
 *
 * @module
 */
export { type Channel, type ChannelEvents } from "./internal/connection/channels/channel";
export { messagePort, type PortLike } from "./internal/connection/channels/message-port";
export {
  byteChannel,
  streams,
  type ReadableBytes,
  type WritableBytes,
} from "./internal/connection/channels/byte-channel";
export { webSocket, type WebSocketLike } from "./internal/connection/channels/web-socket";
export { type FrameEvents, type Framing } from "./internal/connection/framing/framing";
export { contentLength } from "./internal/connection/framing/content-length";
export { newlineDelimited } from "./internal/connection/framing/newline-delimited";
export { connect } from "./internal/connection/connect";
export {
  type Cancellation,
  type ConnectOptions,
  type ConnectOptionsFor,
  type Connection,
  type ConnectionContext,
} from "./internal/connection/options";
