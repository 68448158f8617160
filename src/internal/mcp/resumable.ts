/**
 * A POST's event stream under a session, resumable (MCP 2025-11-25's Streamable HTTP, "Resumability
 * and Redelivery"): each event gets an id naming its call's stream (`<call>-<event>`, unique across
 * the session's streams, and never a whole number, which names an event of the session's GET
 * stream), the call keeps its latest events, and a connection that drops neither cancels the call
 * nor loses what it sends next: a GET with `Last-Event-ID` takes the stream up where the client
 * stopped, and ends after the call's answer, as the POST's would have.
 *
 * The call's reader sets its pace, as without sessions (the tool goes on only once the wire took its
 * value). With no reader, the call is read on until `replay` events wait unread, then pauses (the
 * tool waits at its `yield`); past `resumeMs` with no reader, it is cancelled. The one timer, for
 * that bound, is armed only while a call has no reader, and does not keep the process alive where
 * the runtime can say so (`unref`).
 *
 * @module
 */
import { eventOf, isCommentChunk } from "../http/event-stream-writer";

/** Made on first use: a module-level `new` would keep this module in bundles that never use it. */
let encoder: InstanceType<typeof TextEncoder> | undefined;
export const encode = (text: string): Uint8Array => (encoder ??= new TextEncoder()).encode(text);

/**
 * The notification that opens a resumed stream which cannot give the client all it missed (no id:
 * it is no place to resume from). Shared with the session's GET stream (./sessions).
 */
export const EVENTS_LOST = "notifications/rpcserver/events_lost";

/** The notice's event: its params say which events may be lost, and why. */
export const lostEvent = (params: Readonly<Record<string, unknown>>): Uint8Array =>
  encode(eventOf(JSON.stringify({ jsonrpc: "2.0", method: EVENTS_LOST, params })));

/** An event id of a call's stream: the call's number in its session, and the event's in its call. */
const CALL_EVENT = /^(\d{1,15})-(\d{1,15})$/;

/** The call and the event a `Last-Event-ID` names, if it has the form of a call's event id. */
export const callEventOf = (id: string): { readonly call: number; readonly event: number } | undefined => {
  const matched = CALL_EVENT.exec(id);
  return matched === null ? undefined : { call: Number(matched[1]), event: Number(matched[2]) };
};

/** One event kept: its number in its call, and its bytes as written (its id line first). */
interface Kept {
  readonly n: number;
  readonly bytes: Uint8Array;
}

/** `head`'s bytes, then `tail`'s. */
const joined = (head: Uint8Array, tail: Uint8Array): Uint8Array => {
  const bytes = new Uint8Array(head.byteLength + tail.byteLength);
  bytes.set(head);
  bytes.set(tail, head.byteLength);
  return bytes;
};

/**
 * One call's event stream (the inner handler's, each of whose chunks is one event: the event queue
 * enqueues them so), read at its reader's pace, its latest events kept, its reader replaceable.
 */
export class ResumableCall {
  /** Events read from the inner stream, oldest first, their numbers consecutive. */
  private readonly kept: Kept[] = [];
  /** The number of the latest event read (0: none yet). */
  private read = 0;
  /** The number of the next event to hand the reader: those before it were handed to one. */
  private cursor = 1;
  /** The inner stream ended (the call's answer, or its stop): once all is handed, the call is over. */
  private ended = false;
  /** The inner stream's next chunk, being read: one read at a time, whoever asked. */
  private reading: Promise<void> | undefined;
  /** The stream a client reads now, if any. */
  private live: ReadableStreamDefaultController<Uint8Array> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private over = false;
  /** Why the inner stream failed, if it did: the reader's stream errors with it, rather than end as if whole. */
  private failed: { readonly why: unknown } | undefined;

  /**
   * `inner`: the call's events; `number`: the call's in its session; `replay`: how many of its events
   * it keeps (and, with no reader, how many it reads ahead); `resumeMs`: how long it waits for a
   * reader; `cancel`: stops the call (its signal aborts); `gone`: the call is over and forgotten.
   */
  constructor(
    private readonly inner: ReadableStreamDefaultReader<Uint8Array>,
    readonly number: number,
    private readonly replay: number,
    private readonly resumeMs: number,
    private readonly cancel: () => void,
    private readonly gone: () => void,
  ) {}

  /**
   * A stream of the call for a client, from the event after number `after` (0: from its first): the
   * kept events after it, then each new one at the reader's pace, and it ends after the call's
   * answer. When events after `after` are no longer kept, an {@link EVENTS_LOST} notice comes first
   * (`reason: "evicted"`, `through`: the id of the latest lost). A newer reader replaces this one
   * (closed); the client leaving (`signal`, or cancelling the stream) leaves the call to wait for it.
   */
  open(after: number, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
    // Cancelled before its stream was handed out (its session ended meanwhile): nothing comes.
    if (this.over) return new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
    // The reader before (if any) is let go, and the call has one again at once: it waits for none,
    // and reads nothing ahead for the time between.
    this.letGo();
    this.stopWaiting();
    const oldest = this.kept[0]?.n ?? this.read + 1;
    const lost = after + 1 < oldest ? `${this.number}-${oldest - 1}` : undefined;
    this.cursor = Math.max(after + 1, oldest);
    let mine: ReadableStreamDefaultController<Uint8Array> | undefined;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          mine = controller;
          this.live = controller;
          if (lost !== undefined) {
            controller.enqueue(lostEvent({ lastEventId: `${this.number}-${after}`, through: lost, reason: "evicted" }));
          }
        },
        pull: (controller) => this.serve(controller),
        cancel: () => {
          if (this.live === mine) this.leave();
        },
      },
      // Pulled one event at a time: the call goes on at its reader's pace.
      { highWaterMark: 0 },
    );
    if (signal?.aborted === true) this.leave();
    else signal?.addEventListener("abort", () => this.live === mine && this.leave(), { once: true });
    return stream;
  }

  /** Whether event number `n` is one the call sent (0: before its first). */
  holds(n: number): boolean {
    return n <= this.read;
  }

  /** The session ends, or the call waited too long for a reader: it is cancelled, its reader's stream closed. */
  stop(): void {
    if (this.over) return;
    this.forget();
    this.cancel();
    this.inner.cancel().catch(() => undefined);
  }

  /** The reader asks for the next event: a kept one it has not had, else the inner stream's next. */
  private async serve(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    for (;;) {
      if (this.live !== controller) return;
      const next = this.kept[this.cursor - (this.kept[0]?.n ?? this.cursor)];
      if (next !== undefined && next.n === this.cursor) {
        this.cursor += 1;
        controller.enqueue(next.bytes);
        this.trim();
        if (this.ended && this.cursor > this.read) this.finish();
        return;
      }
      if (this.ended) return this.finish();
      await this.next();
    }
  }

  /** Reads the inner stream's next event into `kept`, or its end. */
  private next(): Promise<void> {
    this.reading ??= this.inner.read().then(
      (step) => {
        this.reading = undefined;
        if (step.done === true) {
          this.ended = true;
          // Stopped (cancelled) with no reader, and all it sent was handed: nothing is left to come back for.
          if (this.live === undefined && this.cursor > this.read) this.forget();
        } else if (isCommentChunk(step.value)) {
          // A heartbeat (../http/answer): nothing to come back for, so never numbered nor kept (it
          // would take a replay slot, and a reader skips its id); handed to a reader that has had
          // every event, as it keeps that reader's connection alive.
          if (this.live !== undefined && this.cursor > this.read) this.live.enqueue(step.value);
        } else {
          this.read += 1;
          this.kept.push({ n: this.read, bytes: joined(encode(`id: ${this.number}-${this.read}\n`), step.value) });
        }
      },
      (why: unknown) => {
        // The call's stream failed (its dispatch did): what was read is handed, then the reader's stream errors.
        this.reading = undefined;
        this.ended = true;
        this.failed = { why };
      },
    );
    return this.reading;
  }

  /** Events handed to a reader are let go past the latest `replay`; those not handed yet are all kept. */
  private trim(): void {
    while (this.kept.length > this.replay && (this.kept[0]?.n ?? this.cursor) < this.cursor) this.kept.shift();
  }

  /** All is handed, the answer last: the reader's stream ends, and the call is forgotten. */
  private finish(): void {
    this.forget();
  }

  /**
   * The reader left (its connection dropped, or it cancelled its stream): the call reads ahead until
   * `replay` events wait unread, and waits `resumeMs` for a reader before it is cancelled.
   */
  private leave(): void {
    if (!this.letGo()) return;
    this.timer = setTimeout(() => this.stop(), this.resumeMs);
    (this.timer as { unref?: () => void }).unref?.();
    void this.readAhead();
  }

  /** The reader's stream closed and forgotten: whether the call had one. */
  private letGo(): boolean {
    const live = this.live;
    if (live === undefined || this.over) return false;
    this.live = undefined;
    try {
      live.close();
    } catch {
      // Cancelled by its reader already: nothing to close.
    }
    return true;
  }

  private async readAhead(): Promise<void> {
    while (this.live === undefined && !this.over && !this.ended && this.read - this.cursor + 1 < this.replay) {
      await this.next();
    }
  }

  private stopWaiting(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Over: no timer, the reader's stream closed (errored, when the call's stream failed), the session lets the call go. */
  private forget(): void {
    if (this.over) return;
    this.over = true;
    this.stopWaiting();
    const live = this.live;
    this.live = undefined;
    try {
      if (this.failed === undefined) live?.close();
      else live?.error(this.failed.why);
    } catch {
      // Cancelled by its reader already.
    }
    this.kept.length = 0;
    this.gone();
  }
}
