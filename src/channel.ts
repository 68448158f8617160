/**
 * Channels: a long-lived, two-way path for JSON-RPC messages (text), under a connection.
 *
 * A channel is a small interface, so that any transport can be one: it sends a message (saying when
 * it is full), delivers the messages it receives and says once when it has ended. Three ship here,
 * typed by what they use rather than by Node's or the DOM's types, so this module imports nothing:
 * byte streams with a framing (stdio, sockets, child processes), WebSockets (the `ws` package on
 * Node, the standard `WebSocket` in browsers, Deno and Bun), and message ports (`MessagePort`,
 * workers).
 *
 * @module
 */
import { newlineDelimited, type Framing } from "./framing";

/**
 * What a channel reports to its connection.
 *
 * @since 5.0.10
 * @category connection
 */
export interface ChannelEvents {
  /** One whole message received. */
  readonly message: (text: string) => void;
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

/**
 * A readable byte stream, as Node's streams (and `process.stdin`) are. The state members are
 * optional: where present, a stream already over when the channel starts ends the channel at once.
 */
export interface ReadableBytes {
  /** Delivers each chunk read. */
  on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown;
  /** Says the stream has ended. */
  on(event: "end" | "close", listener: () => void): unknown;
  /** Says the stream failed. */
  on(event: "error", listener: (error: unknown) => void): unknown;
  /**
   * Removes a listener (the channel removes its own when it ends, all but its error sink). Typed
   * event by event, as `on` is: `@types/node` 25 and later type `removeListener` by event map, and
   * a catch-all `(...args: never[])` listener no longer accepts theirs.
   */
  removeListener(event: "data", listener: (chunk: Uint8Array | string) => void): unknown;
  /** Removes an `end` or `close` listener. */
  removeListener(event: "end" | "close", listener: () => void): unknown;
  /** Stops delivering chunks (flow control). */
  pause(): unknown;
  /** Delivers chunks again. */
  resume(): unknown;
  /** Whether the stream is destroyed. */
  readonly destroyed?: boolean;
  /** Whether `end` has been emitted. */
  readonly readableEnded?: boolean;
  /** Whether `close` has been emitted. */
  readonly closed?: boolean;
  /** The error the stream failed with, if it did (`null` or absent if not). */
  readonly errored?: unknown;
}

/**
 * A writable byte stream, as Node's streams (and `process.stdout`) are. The state members are
 * optional: where present, a stream already over when the channel starts ends the channel at once.
 */
export interface WritableBytes {
  /** Writes text as UTF-8 (Node's streams' default encoding); `false` when its buffer is full. */
  write(chunk: string): boolean;
  /** Says the buffer has room again (`drain`), or the stream closed. */
  on(event: "drain" | "close", listener: () => void): unknown;
  /** Says the stream failed. */
  on(event: "error", listener: (error: unknown) => void): unknown;
  /** Removes a listener (the channel removes its own when it ends, all but its error sink); typed as `on` is. */
  removeListener(event: "drain" | "close", listener: () => void): unknown;
  /** Ends the stream. */
  end(): unknown;
  /** Whether the stream is destroyed. */
  readonly destroyed?: boolean;
  /** Whether `end()` has been called. */
  readonly writableEnded?: boolean;
  /** Whether `close` has been emitted. */
  readonly closed?: boolean;
  /** The error the stream failed with, if it did (`null` or absent if not). */
  readonly errored?: unknown;
}

/** Why a stream can carry nothing more, if so: its error, or that it is over. */
const over = (
  stream: { readonly destroyed?: boolean; readonly closed?: boolean; readonly errored?: unknown },
  ended: boolean | undefined,
): unknown => {
  if (stream.errored !== undefined && stream.errored !== null) return stream.errored;
  if (stream.destroyed === true || stream.closed === true || ended === true) {
    return new Error("the stream was already closed when the channel started");
  }
  return undefined;
};

const text = new TextEncoder();

/**
 * A channel over a pair of byte streams with a framing: stdio (`process.stdin`, `process.stdout`),
 * a socket (the same stream twice), a child process (`child.stdout`, `child.stdin`). Default
 * framing: newline-delimited JSON; LSP uses `contentLength()`. The channel ends when the readable
 * ends or either stream fails, or at once when it starts if either is already over (destroyed,
 * ended, closed or failed); closing it ends the writable (the readable is left to its owner:
 * `process.stdin` must not be destroyed).
 *
 * An error of either stream, at any time from this call on (before the connection starts, while
 * it runs, or after it has closed, as a reset socket or a pipe to a child that exited does), only
 * ends the channel with that error as the reason: it never becomes an uncaught exception.
 *
 * @example
 * import { contentLength, streams } from "rpcserver/connection";
 * const channel = streams(process.stdin, process.stdout, contentLength());
 *
 * @since 5.0.10
 * @category connection
 */
export const streams = (
  readable: ReadableBytes,
  writable: WritableBytes,
  framing: Framing = newlineDelimited(),
): Channel => {
  let ended = false;
  let events: ChannelEvents | undefined;
  /** The first error of either stream before `start`: the channel ends with it once started. */
  let failed: { readonly error: unknown } | undefined;
  // Node throws an `error` that no listener takes, and a stream outlives its channel (a socket
  // still open after the connection closed, a pipe to a child that flushes after it exits). So an
  // error sink is on both streams from now on, and never removed.
  const sink = (error: unknown): void => {
    if (events === undefined) failed ??= { error };
    else end(error);
  };
  readable.on("error", sink);
  if ((writable as unknown) !== readable) writable.on("error", sink);
  /** How to take off each listener the channel put on (all but the error sink). */
  const removals: Array<() => void> = [];
  const end = (reason: unknown): void => {
    if (ended) return;
    ended = true;
    for (const remove of removals) remove();
    events?.closed(reason);
  };
  return {
    send: (message) => (ended ? false : writable.write(framing.encode(message))),
    start: (given) => {
      events = given;
      const before = failed?.error ?? over(readable, readable.readableEnded) ?? over(writable, writable.writableEnded);
      if (before !== undefined) return end(before);
      const feed = framing.decoder({
        message: given.message,
        oversize: given.oversize,
        broken: (reason) => {
          end(new Error(`framing lost: ${reason}`));
          writable.end();
        },
      });
      const onData = (chunk: Uint8Array | string): void => feed(typeof chunk === "string" ? text.encode(chunk) : chunk);
      const onEnd = (): void => end(new Error("the stream ended"));
      const onClose = (): void => end(new Error("the stream closed"));
      const onDrain = (): void => given.drain();
      readable.on("data", onData);
      readable.on("end", onEnd);
      readable.on("close", onClose);
      writable.on("close", onClose);
      writable.on("drain", onDrain);
      removals.push(
        () => readable.removeListener("data", onData),
        () => readable.removeListener("end", onEnd),
        () => readable.removeListener("close", onClose),
        () => writable.removeListener("close", onClose),
        () => writable.removeListener("drain", onDrain),
      );
      readable.resume();
    },
    pause: () => void readable.pause(),
    resume: () => void readable.resume(),
    close: (reason) => {
      end(reason ?? new Error("closed"));
      writable.end();
    },
  };
};

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
 * import { connect, webSocket } from "rpcserver/connection";
 * const peer = connect(webSocket(new WebSocket("ws://localhost:5000")));
 *
 * @since 5.0.10
 * @category connection
 */
export const webSocket = (socket: WebSocketLike): Channel => {
  const CONNECTING = 0;
  const OPEN = 1;
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
      const deliver = (data: unknown): void => {
        if (ended) return;
        if (typeof data === "string") given.message(data);
        else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
          given.message(decoder.decode(data as ArrayBuffer));
        } else {
          // Dropping it would leave a call waiting for its answer forever.
          const kind = Object.prototype.toString.call(data).slice(8, -1);
          channel.close(
            new Error(
              `the WebSocket delivered a message that is neither text nor bytes (${kind}): set binaryType to "arraybuffer"`,
            ),
          );
        }
      };
      // The `ws` package's own listeners skip the event object its addEventListener makes per
      // message (a text frame arrives as bytes there).
      if (typeof socket.on === "function") socket.on("message", deliver as (...args: never[]) => void);
      else socket.addEventListener("message", (event) => deliver(event.data));
      socket.addEventListener("close", (event) => {
        const { code, reason } = event as { readonly code?: number; readonly reason?: string };
        end(new Error(`the WebSocket closed (${String(code)}${reason ? `: ${reason}` : ""})`));
      });
      socket.addEventListener("error", (event) =>
        end((event as { error?: unknown }).error ?? new Error("WebSocket error")),
      );
      if (socket.readyState > OPEN) end(new Error("the WebSocket is closed"));
    },
    ...(typeof socket.pause === "function" && typeof socket.resume === "function"
      ? { pause: () => socket.pause?.(), resume: () => socket.resume?.() }
      : {}),
    close: (reason) => {
      end(reason ?? new Error("closed"));
      if (socket.readyState <= OPEN) socket.close(1000);
    },
  };
  return channel;
};

/** A message port, as `MessagePort`, a `Worker` and a worker's `self` (or Node's `parentPort`) are. */
export interface PortLike {
  /** Posts one message to the other side. */
  postMessage(message: unknown): void;
  /** The listener receives a `MessageEvent` (typed `object` here so that every realm's event types fit). */
  addEventListener?(type: "message", listener: (event: object) => void): void;
  /** Node's ports: delivers each message's data. */
  on?(event: "message", listener: (data: unknown) => void): unknown;
  /** Node's ports: says the port closed. */
  on?(event: "close", listener: () => void): unknown;
  /** Node's `worker_threads` `Worker`: says the worker ended (it emits no `close`). */
  on?(event: "exit", listener: (code: number) => void): unknown;
  /** Node's `worker_threads` `Worker`: says the worker threw (`exit` follows). */
  on?(event: "error", listener: (error: unknown) => void): unknown;
  /** A `MessagePort` delivers messages once started. */
  start?(): void;
  /** Closes the port. */
  close?(): void;
  /** A `Worker`'s way to end. */
  terminate?(): unknown;
}

/**
 * A channel over a message port: a `MessagePort` (from a `MessageChannel`), a `Worker`, a
 * worker's `self`, or Node's `worker_threads` ports and `Worker`s. One posted string is one
 * message. On Node the channel ends when the port closes, or when the `Worker` exits or throws. A
 * port has no flow control and (on the web) no close event: close the connection yourself when
 * done.
 *
 * @example
 * import { connect, messagePort } from "rpcserver/connection";
 * const { port1 } = new MessageChannel();
 * const peer = connect(messagePort(port1));
 * peer.close();
 *
 * @since 5.0.10
 * @category connection
 */
export const messagePort = (port: PortLike): Channel => {
  let ended = false;
  let events: ChannelEvents | undefined;
  const end = (reason: unknown): void => {
    if (ended) return;
    ended = true;
    events?.closed(reason);
  };
  return {
    send: (message) => {
      if (!ended) port.postMessage(message);
      return !ended;
    },
    start: (given) => {
      events = given;
      const deliver = (data: unknown): void => {
        if (!ended && typeof data === "string") given.message(data);
      };
      // Node's ports deliver through `on` (the data itself); the web's through events.
      if (typeof port.on === "function") {
        port.on("message", deliver);
        port.on("close", () => end(new Error("the port closed")));
        // A `Worker` ends by `exit` (after `error` if it threw), never by `close`.
        port.on("exit", (code: number) => end(new Error(`the worker exited (${String(code)})`)));
        port.on("error", (error: unknown) => end(error));
      } else {
        port.addEventListener?.("message", (event) => deliver((event as { readonly data?: unknown }).data));
      }
      port.start?.();
    },
    close: (reason) => {
      end(reason ?? new Error("closed"));
      // A Worker has no `close`: it ends by `terminate` (else it, and the process, live on).
      if (typeof port.close === "function") port.close();
      else void port.terminate?.();
    },
  };
};
