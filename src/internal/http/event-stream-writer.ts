/**
 * Server-sent events written for JSON-RPC over HTTP: one message as one event, and
 * {@link EventQueue}, the web `ReadableStream` of an answer's events that hands each on only when
 * its reader pulls it. No `node:` module: a fetch handler returns the stream as a `Response` body,
 * and Node writes it to its `res` (node/body-writer.ts). Read by ./event-stream-reader.
 *
 * @module
 */
import { requestCancelled } from "../core/progress-wire";

/** SSE's line terminators: CRLF, CR and LF all end a line, so each must start a new `data:` line. */
const LINE_BREAK = /\r\n|\r|\n/;

/**
 * One JSON-RPC message (its text) as one event: `event: message`, a `data:` line per line of the
 * text (a pretty-printing serializer's text has many), and the blank line that ends the event.
 */
export const eventOf = (text: string): string =>
  text.includes("\n") || text.includes("\r")
    ? `event: message\n${text
        .split(LINE_BREAK)
        .map((line) => `data: ${line}\n`)
        .join("")}\n`
    : `event: message\ndata: ${text}\n\n`;

/**
 * A comment alone (`:` and a blank line, which every reader skips): the heartbeat's chunk, made
 * new each time (a host may keep or detach the bytes it was handed).
 */
const commentChunk = (): Uint8Array => Uint8Array.of(0x3a, 0x0a, 0x0a);

/** Is `chunk` one {@link commentChunk}, as this queue hands them on (alone)? */
export const isCommentChunk = (chunk: Uint8Array): boolean =>
  chunk.length === 3 && chunk[0] === 0x3a && chunk[1] === 0x0a && chunk[2] === 0x0a;

/** An event not yet pulled: its bytes, and for a value, the wait of the method that sent it. */
interface Pending {
  readonly bytes: Uint8Array;
  readonly taken: (() => void) | undefined;
  readonly refused: ((reason: unknown) => void) | undefined;
}

/** Made on first use: a module-level `new` would keep this module in bundles that never use it. */
let encoder: InstanceType<typeof TextEncoder> | undefined;

/**
 * The events of one answer, as a `ReadableStream<Uint8Array>` whose reader sets the pace: an event
 * is handed on when the reader pulls (the stream holds none of its own, `highWaterMark` 0), and a
 * value's {@link value} resolves then, so a method waiting at its `yield` goes on only once the client
 * reads. The client cancelling the stream calls `onCancel`, and every value still waiting is refused.
 */
export class EventQueue {
  readonly stream: ReadableStream<Uint8Array>;
  private readonly pending: Pending[] = [];
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** A pull waiting for an event: the reader is reading, and the next event goes to it at once. */
  private waiter: (() => void) | undefined;
  /** The last event is queued: the stream closes once it is pulled. */
  private ending = false;
  /** Closed, cancelled or failed: nothing more is taken. */
  private over = false;

  constructor(onCancel: (reason: unknown) => void) {
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => this.pull(),
        cancel: (reason) => {
          this.stop();
          onCancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
  }

  /**
   * Queues a value's event: resolves once the reader has pulled it (`undefined`: it went to a waiting
   * reader at once), and rejects if the stream ends first.
   */
  value(text: string): Promise<void> | undefined {
    if (this.over || this.ending) return Promise.reject(requestCancelled());
    const bytes = (encoder ??= new TextEncoder()).encode(eventOf(text));
    if (this.handed(bytes)) return undefined;
    return new Promise<void>((taken, refused) => this.pending.push({ bytes, taken, refused }));
  }

  /** Queues any other message's event (LSP's work-done begin or end, the final answer), in order. */
  message(text: string): void {
    if (this.over || this.ending) return;
    const bytes = (encoder ??= new TextEncoder()).encode(eventOf(text));
    if (!this.handed(bytes)) this.pending.push({ bytes, taken: undefined, refused: undefined });
  }

  /**
   * A comment (`:` and a blank line, which every reader skips): what keeps a silent stream's client
   * and the proxies on its way from giving up on it. Queued only when nothing else is, so that a
   * reader that does not read holds one comment at most.
   */
  comment(): void {
    if (this.over || this.ending || this.pending.length > 0) return;
    const bytes = commentChunk();
    if (!this.handed(bytes)) this.pending.push({ bytes, taken: undefined, refused: undefined });
  }

  /** Hands `bytes` to a reader waiting for them, if one is (nothing is queued then). */
  private handed(bytes: Uint8Array): boolean {
    const waiter = this.waiter;
    if (waiter === undefined || this.pending.length > 0) return false;
    this.waiter = undefined;
    this.controller?.enqueue(bytes);
    waiter();
    return true;
  }

  /**
   * The answer is made: `last` (the final response's text, if there is one) goes after what is
   * queued, and the stream closes once it is pulled. A value still waiting belongs to a request
   * answered already (by a `timeout` stage, say): it is refused, as nothing of a request may follow
   * its response.
   */
  end(last: string | undefined): void {
    if (this.over || this.ending) return;
    for (let i = this.pending.length - 1; i >= 0; i--) {
      const refused = this.pending[i]?.refused;
      if (refused === undefined) continue;
      this.pending.splice(i, 1);
      refused(requestCancelled());
    }
    if (last !== undefined) this.message(last);
    this.ending = true;
    if (this.pending.length === 0) this.close();
  }

  /**
   * The client went away: every value waiting is refused, and the stream ends closed, not errored.
   * A client leaving is normal, and a host logs a body stream that errors as a failure of its own
   * (@hono/node-server prints the reason with its stack): nothing reads this end any more anyway.
   */
  leave(): void {
    if (this.over) return;
    this.stop();
    this.controller?.close();
  }

  /** The stream fails (dispatch itself failed): every value waiting is refused. */
  fail(reason: unknown): void {
    if (this.over) return;
    this.stop();
    this.controller?.error(reason);
  }

  private pull(): Promise<void> | undefined {
    const next = this.pending.shift();
    if (next === undefined) {
      if (this.over) return undefined;
      return new Promise<void>((resolve) => (this.waiter = resolve));
    }
    this.controller?.enqueue(next.bytes);
    next.taken?.();
    if (this.ending && this.pending.length === 0) this.close();
    return undefined;
  }

  private close(): void {
    this.over = true;
    this.controller?.close();
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  /** Nothing more is taken: the values waiting are refused, and a waiting pull let go. */
  private stop(): void {
    this.over = true;
    const pending = this.pending.splice(0);
    for (const event of pending) event.refused?.(requestCancelled());
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}
