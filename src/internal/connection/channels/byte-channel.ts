/**
 * The channel over a pair of byte streams with a framing (stdio, a socket, a child process's
 * pipes), typed by what it uses of Node's streams rather than by Node's types.
 *
 * @module
 */
import type { Framing } from "../framing/framing";
import { newlineDelimited } from "../framing/newline-delimited";
import type { Channel, ChannelEvents } from "./channel";

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
 * Puts the channel's listeners on the started streams (each chunk to the framing's decoder, the
 * end of either stream to `end`, `drain` on), and the way to take each off in `removals`.
 */
const listen = (
  readable: ReadableBytes,
  writable: WritableBytes,
  framing: Framing,
  given: ChannelEvents,
  end: (reason: unknown) => void,
  removals: Array<() => void>,
): void => {
  const feed = framing.decoder(
    {
      message: given.message,
      oversize: given.oversize,
      broken: (reason) => {
        end(new Error(`framing lost: ${reason}`));
        writable.end();
      },
    },
    given.maxMessageLength,
  );
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
};

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
 * import { byteChannel, contentLength } from "rpcserver/connection";
 * const channel = byteChannel(process.stdin, process.stdout, contentLength());
 *
 * @since 5.0.10
 * @category connection
 */
export const byteChannel = (
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
      listen(readable, writable, framing, given, end, removals);
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

/**
 * {@link byteChannel} under its old name: the same function.
 *
 * @deprecated Use {@link byteChannel}; removed in 6.0. "Stream" is a call's values everywhere else
 * in rpcserver (`RpcStream`, a method's `stream`), and this is a channel over bytes.
 *
 * @example
 * import { byteChannel, streams } from "rpcserver/connection";
 * streams === byteChannel; // true
 *
 * @since 5.0.10
 * @category connection
 */
export const streams = byteChannel;
