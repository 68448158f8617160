/**
 * The channel over a WebSocket: the `ws` package's on Node, the standard `WebSocket` in browsers,
 * Deno and Bun, typed by what it uses of them.
 *
 * @module
 */
import type { Channel, ChannelEvents } from "./channel";

/** A WebSocket, as the standard one and the `ws` package's are. */
export interface WebSocketLike {
  readonly readyState: number;
  readonly bufferedAmount?: number;
  /** How binary frames are delivered: the standard WebSocket's default, `"blob"`, is set to `"arraybuffer"`. */
  binaryType?: string;
  /** Sends one text frame. */
  send(data: string): void;
  /** Closes the socket. */
  close(code?: number, reason?: string): void;
  /** Delivers each message received (`data`: text, or bytes for a binary frame). */
  addEventListener(type: "message", listener: (event: { readonly data: unknown }) => void): void;
  /** Says the socket closed, with its close code and reason. */
  addEventListener(
    type: "close",
    listener: (event: { readonly code?: number; readonly reason?: string }) => void,
  ): void;
  /** Says the socket failed. */
  addEventListener(type: "error", listener: (event: unknown) => void): void;
  /** Says the socket is open. */
  addEventListener(type: "open", listener: () => void): void;
  /** The `ws` package's own listeners (absent from the standard WebSocket): each message's data. */
  on?(event: string, listener: (...args: never[]) => void): unknown;
  /** The `ws` package's flow control (absent from the standard WebSocket). */
  pause?(): void;
  /** The `ws` package's: reads again after `pause`. */
  resume?(): void;
}

/** How many bytes a WebSocket may hold unsent before `send` says it is full. */
const HIGH_WATER = 1024 * 1024;

const CONNECTING = 0;
const OPEN = 1;

/** Why the channel closes on data that is neither text nor bytes (dropping it would leave a call waiting for its answer forever). */
const unreadable = (data: unknown): Error => {
  const kind = Object.prototype.toString.call(data).slice(8, -1);
  return new Error(
    `the WebSocket delivered a message that is neither text nor bytes (${kind}): set binaryType to "arraybuffer"`,
  );
};

/** Hands each message to `deliver`: the `ws` package's own listeners skip the event object its addEventListener makes per message (a text frame arrives as bytes there). */
const onMessage = (socket: WebSocketLike, deliver: (data: unknown) => void): void => {
  if (typeof socket.on === "function") socket.on("message", deliver);
  else socket.addEventListener("message", (event) => deliver(event.data));
};

/** Ends the channel when the socket closes or fails, or at once if it is closed already. */
const onEnd = (socket: WebSocketLike, end: (reason: unknown) => void): void => {
  socket.addEventListener("close", (event) => {
    const { code, reason } = event;
    end(new Error(`the WebSocket closed (${String(code)}${reason ? `: ${reason}` : ""})`));
  });
  socket.addEventListener("error", (event) =>
    end((event as { error?: unknown }).error ?? new Error("WebSocket error")),
  );
  if (socket.readyState > OPEN) end(new Error("the WebSocket is closed"));
};

/** Flow control where the socket has it (`ws`'s `pause` and `resume`), else none. */
const pausing = (socket: WebSocketLike): Pick<Channel, "pause" | "resume"> =>
  typeof socket.pause === "function" && typeof socket.resume === "function"
    ? { pause: () => socket.pause?.(), resume: () => socket.resume?.() }
    : {};

/**
 * A channel over a WebSocket: the `ws` package's on Node, the standard `WebSocket` in browsers,
 * Deno and Bun. One text frame is one message (binary frames are read as UTF-8: the channel sets a
 * `binaryType` of `"blob"` to `"arraybuffer"`, since a Blob can only be read asynchronously, out of
 * order; data that is neither text nor bytes closes the channel with the reason). A socket still
 * connecting holds messages until it opens. `send` says "full" past 1 MiB buffered; since a
 * WebSocket has no drain event, the channel polls `bufferedAmount` while full. Reading pauses only
 * where the socket can (`ws`'s `pause`).
 *
 * @example
 * // compile-only: it needs a WebSocket server at ws://localhost:5000 (and Node 22's WebSocket, or `ws`'s)
 * import { connect, webSocket } from "rpcserver/connection";
 * const peer = connect(webSocket(new WebSocket("ws://localhost:5000")));
 *
 * @since 5.0.10
 * @category connection
 */
export const webSocket = (socket: WebSocketLike): Channel => {
  let ended = false;
  let events: ChannelEvents | undefined;
  const waiting: string[] = [];
  let polling: ReturnType<typeof setInterval> | undefined;
  const decoder = new TextDecoder();
  const end = (reason: unknown): void => {
    if (ended) return;
    ended = true;
    if (polling !== undefined) clearInterval(polling);
    events?.closed(reason);
  };
  const full = (): boolean => (socket.bufferedAmount ?? 0) > HIGH_WATER;
  const channel: Channel = {
    send: (message) => {
      if (ended) return false;
      if (socket.readyState === CONNECTING) {
        waiting.push(message);
        return true;
      }
      socket.send(message);
      if (!full()) return true;
      polling ??= setInterval(() => {
        if (full()) return;
        clearInterval(polling);
        polling = undefined;
        events?.drain();
      }, 10);
      return false;
    },
    start: (given) => {
      events = given;
      if (socket.binaryType === "blob") socket.binaryType = "arraybuffer";
      socket.addEventListener("open", () => {
        for (const message of waiting.splice(0)) socket.send(message);
      });
      onMessage(socket, (data) => {
        if (ended) return;
        if (typeof data === "string") given.message(data);
        else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
          given.message(decoder.decode(data as ArrayBuffer));
        } else channel.close(unreadable(data));
      });
      onEnd(socket, end);
    },
    ...pausing(socket),
    close: (reason) => {
      end(reason ?? new Error("closed"));
      if (socket.readyState <= OPEN) socket.close(1000);
    },
  };
  return channel;
};
