/**
 * Server-sent events read: whether a response is an event stream (its `Content-Type`), and its
 * events as they arrive: text in, in chunks cut anywhere, and complete events out, one at a time,
 * by the parsing rules of the HTML standard's `EventSource` (lines ended by CRLF, LF or CR; `data:`
 * lines joined with a line feed; `event:` names the type; a line that starts with a colon is a
 * comment; a blank line ends an event; an event without data is none). What reconnection needs
 * (`id:`, `retry:`) is not kept: the stream of one request is read once. Pure and browser-safe.
 * Written by ./event-stream-writer.
 *
 * @internal
 * @module
 */

/** Is `contentType` (a response's `content-type`) an event stream, to read with {@link EventStream}? @internal */
export const isEventStream = (contentType: string | null | undefined): boolean =>
  typeof contentType === "string" && contentType.trimStart().toLowerCase().startsWith("text/event-stream");

/** One event: its type (`message` when it names none) and its data, its lines joined with `\n`. @internal */
export interface ServerEvent {
  readonly type: string;
  readonly data: string;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

/**
 * A parser of one event stream: `push` each chunk of text as it is decoded, then take the events it
 * completed with `next` until that answers `undefined`. Lazy: an event is parsed only when asked
 * for, so that a reader that waits between events holds the rest of a chunk as text, not as events.
 *
 * @internal
 */
export class EventStream {
  /** The chunk being read, and where its unread text starts. */
  private text = "";
  private at = 0;
  /** Chunks pushed while the one being read still held text: read after it, in order. */
  private readonly queued: string[] = [];
  /** Their length, and that of `partial`, in UTF-16 units (for `held`). */
  private queuedLength = 0;
  /**
   * The line being read, in pieces: the tails of chunks that ended inside it. Joined once, when its
   * ending comes, so that an event cut into many chunks costs time in proportion to its size (a
   * string rebuilt at each chunk would cost its square).
   */
  private readonly partial: string[] = [];
  private partialLength = 0;
  /** A CR ended the last chunk: a LF that starts the next one belongs to it. */
  private crEnded = false;
  private type = "";
  private data = "";
  private hasData = false;

  /** Adds text (the next chunk, decoded). */
  push(chunk: string): void {
    if (chunk === "") return;
    if (this.at >= this.text.length && this.queued.length === 0) {
      this.text = chunk;
      this.at = 0;
    } else {
      this.queued.push(chunk);
      this.queuedLength += chunk.length;
    }
  }

  /** What is held of the event being read, in UTF-16 units: its data so far and the unread text. */
  get held(): number {
    return this.data.length + this.partialLength + this.text.length - this.at + this.queuedLength;
  }

  /** The next complete event, or `undefined` until more text comes. */
  next(): ServerEvent | undefined {
    for (let line = this.line(); line !== undefined; line = this.line()) {
      if (line === "") {
        const event = this.hasData ? { type: this.type === "" ? "message" : this.type, data: this.data } : undefined;
        this.type = "";
        this.data = "";
        this.hasData = false;
        if (event !== undefined) return event;
      } else this.field(line);
    }
    return undefined;
  }

  /** The next complete line, its ending taken off, or `undefined` when the text holds none. */
  private line(): string | undefined {
    for (;;) {
      const line = this.lineInChunk();
      if (line !== undefined) return line;
      const next = this.queued.shift();
      if (next === undefined) return undefined;
      this.queuedLength -= next.length;
      this.text = next;
      this.at = 0;
    }
  }

  /** The next line ending in the chunk being read; its tail kept in `partial` when there is none. */
  private lineInChunk(): string | undefined {
    const { text } = this;
    if (this.crEnded && this.at < text.length) {
      this.crEnded = false;
      if (text.charCodeAt(this.at) === LF) this.at++;
    }
    const start = this.at;
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== LF && code !== CR) continue;
      let end = i + 1;
      if (code === CR) {
        if (end === text.length) this.crEnded = true;
        else if (text.charCodeAt(end) === LF) end++;
      }
      this.at = end;
      const tail = text.slice(start, i);
      if (this.partial.length === 0) return tail;
      this.partial.push(tail);
      const line = this.partial.join("");
      this.partial.length = 0;
      this.partialLength = 0;
      return line;
    }
    if (start < text.length) {
      this.partial.push(start === 0 ? text : text.slice(start));
      this.partialLength += text.length - start;
    }
    this.text = "";
    this.at = 0;
    return undefined;
  }

  /** One field line: `data` and `event` are kept; a comment, `id`, `retry` and other names are not. */
  private field(line: string): void {
    if (line.charCodeAt(0) === COLON) return;
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === SPACE) value = value.slice(1);
    if (name === "data") {
      this.data = this.hasData ? `${this.data}\n${value}` : value;
      this.hasData = true;
    } else if (name === "event") this.type = value;
  }
}
