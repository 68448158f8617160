/**
 * Framing: where one JSON-RPC message ends and the next begins in a byte stream (stdio, a socket,
 * a child process's pipes). Two framings are in use: newline-delimited JSON (MCP's stdio transport,
 * many tools) and LSP's `Content-Length` headers (`vscode-jsonrpc`). Both are pure functions of
 * the bytes, with no I/O and no Node import, and both are bounded: a message longer than
 * `maxBytes` is skipped and reported, never buffered whole.
 *
 * @module
 */

/**
 * What a decoder reports as it reads: each whole message, a message skipped for its size (the
 * stream is still in step: the connection survives), and a framing it cannot follow (the stream is
 * out of step: the connection must close).
 *
 * @since 5.0.10
 * @category connection
 */
export interface FrameEvents {
  /** One whole message, as text. */
  readonly message: (text: string) => void;
  /** A message of `bytes` bytes, over the limit, skipped: the stream is still in step. */
  readonly oversize: (bytes: number) => void;
  /** The stream is out of step (why): nothing more is read. */
  readonly broken: (reason: string) => void;
}

/**
 * A framing: a decoder (bytes in, events out) and an encoder (one message's text to the text of
 * its frame, written as UTF-8: a stream converts text in native code, faster than a TextEncoder).
 *
 * @example
 * import { newlineDelimited } from "rpcserver/connection";
 * const texts: string[] = [];
 * const feed = newlineDelimited().decoder({ message: (t) => texts.push(t), oversize: () => {}, broken: () => {} });
 * feed(new TextEncoder().encode('{"a":1}\n{"b"'));
 * feed(new TextEncoder().encode(':2}\n'));
 * texts; // ['{"a":1}', '{"b":2}']
 *
 * @since 5.0.10
 * @category connection
 */
export interface Framing {
  /** A reader of one stream: feed it the chunks as they come; it reports through `events`. */
  readonly decoder: (events: FrameEvents) => (chunk: Uint8Array) => void;
  /** One message's frame, as text to write as UTF-8. */
  readonly encode: (text: string) => string;
}

/** The largest message a framing passes on by default: 16 MiB. */
export const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const CR = 0x0d;

/** Bytes read but not yet framed: appended to, and consumed from the front. */
class Pending {
  private bytes: Uint8Array = new Uint8Array(0);
  private start = 0;

  get length(): number {
    return this.bytes.length - this.start;
  }

  append(chunk: Uint8Array): void {
    if (this.length === 0) {
      this.bytes = chunk;
      this.start = 0;
      return;
    }
    const joined = new Uint8Array(this.length + chunk.length);
    joined.set(this.bytes.subarray(this.start), 0);
    joined.set(chunk, this.length);
    this.bytes = joined;
    this.start = 0;
  }

  /** The index (from the front) of `byte` at or after `from`, or -1. */
  indexOf(byte: number, from = 0): number {
    const at = this.bytes.indexOf(byte, this.start + from);
    return at === -1 ? -1 : at - this.start;
  }

  /** The byte at index `i` from the front. */
  byteAt(i: number): number | undefined {
    return this.bytes[this.start + i];
  }

  /** Takes `n` bytes off the front. */
  take(n: number): Uint8Array {
    const out = this.bytes.subarray(this.start, this.start + n);
    this.start += n;
    return out;
  }

  clear(): void {
    this.bytes = new Uint8Array(0);
    this.start = 0;
  }
}

/** The length of `text` in UTF-8 bytes, counted without encoding it. */
export const utf8Length = (text: string): number => {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      // A surrogate pair: 2 code units, 4 bytes. A lone surrogate becomes U+FFFD: 3 bytes.
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2;
        i += 1;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
};

const checkMax = (who: string, maxBytes: number): void => {
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) {
    throw new RangeError(`${who}: maxBytes must be a positive integer, got ${String(maxBytes)}`);
  }
};

/**
 * Newline-delimited JSON: each message is one line of UTF-8 JSON (JSON text holds no raw newline).
 * A `\r` before the newline and empty lines are ignored. A line longer than `maxBytes` is skipped
 * up to its newline and reported as `oversize`; reading goes on.
 *
 * @example
 * import { newlineDelimited } from "rpcserver/connection";
 * newlineDelimited().encode('{"jsonrpc":"2.0","method":"ping"}'); // '{"jsonrpc":"2.0","method":"ping"}\n'
 *
 * @since 5.0.10
 * @category connection
 */
export const newlineDelimited = (maxBytes: number = DEFAULT_MAX_BYTES): Framing => {
  checkMax("newlineDelimited", maxBytes);
  return {
    encode: (text) => `${text}\n`,
    decoder: (events) => {
      const decoder = new TextDecoder();
      const pending = new Pending();
      /** Bytes of an oversize line skipped so far, or -1 when not skipping. */
      let skipped = -1;
      return (chunk) => {
        pending.append(chunk);
        for (;;) {
          const end = pending.indexOf(NEWLINE);
          if (end === -1) {
            if (skipped >= 0) {
              skipped += pending.length;
              pending.clear();
            } else if (pending.length > maxBytes) {
              skipped = pending.length;
              pending.clear();
            }
            return;
          }
          const line = pending.take(end + 1);
          if (skipped >= 0) {
            events.oversize(skipped + line.length - 1);
            skipped = -1;
            continue;
          }
          let length = line.length - 1;
          if (length > 0 && line[length - 1] === CR) length -= 1;
          if (length > maxBytes) {
            events.oversize(length);
            continue;
          }
          if (length === 0) continue;
          events.message(decoder.decode(line.subarray(0, length)));
        }
      };
    },
  };
};

/** The largest header block read before the framing is declared broken. */
const MAX_HEADER_BYTES = 8192;

/** The index of the end of the header block (the `\r` of its `\r\n\r\n`), or -1. */
const headerEnd = (pending: Pending): number => {
  for (let at = pending.indexOf(CR); at !== -1 && at + 4 <= pending.length; at = pending.indexOf(CR, at + 1)) {
    if (pending.byteAt(at + 1) === NEWLINE && pending.byteAt(at + 2) === CR && pending.byteAt(at + 3) === NEWLINE) {
      return at;
    }
  }
  return -1;
};

/**
 * LSP's framing: a header block (`Content-Length: N`, optionally `Content-Type`, each line ending
 * in `\r\n`, the block in an empty line) and then N bytes of UTF-8 JSON. A body longer than
 * `maxBytes` is skipped (its length is known) and reported as `oversize`. A header block that is
 * not one (no `Content-Length`, a length that is not a number, a block over 8 KiB) means the
 * stream is out of step, which no reader can recover from: `broken`, and the connection closes.
 * A `Content-Length` that lies shows as the next header block not being one.
 *
 * @example
 * import { contentLength } from "rpcserver/connection";
 * contentLength().encode("{}"); // "Content-Length: 2\r\n\r\n{}"
 *
 * @since 5.0.10
 * @category connection
 */
export const contentLength = (maxBytes: number = DEFAULT_MAX_BYTES): Framing => {
  checkMax("contentLength", maxBytes);
  return {
    encode: (text) => `Content-Length: ${utf8Length(text)}\r\n\r\n${text}`,
    decoder: (events) => {
      const decoder = new TextDecoder();
      const pending = new Pending();
      /** The body length awaited, or -1 while reading headers. */
      let awaiting = -1;
      /** Bytes of an oversize body still to skip. */
      let skipping = 0;
      let broken = false;
      return (chunk) => {
        if (broken) return;
        pending.append(chunk);
        for (;;) {
          if (skipping > 0) {
            const n = Math.min(skipping, pending.length);
            pending.take(n);
            skipping -= n;
            if (skipping > 0) return;
            continue;
          }
          if (awaiting === -1) {
            const end = headerEnd(pending);
            if (end === -1) {
              if (pending.length > MAX_HEADER_BYTES) {
                broken = true;
                pending.clear();
                events.broken(`a header block longer than ${MAX_HEADER_BYTES} bytes`);
              }
              return;
            }
            const header = decoder.decode(pending.take(end + 4));
            const length = /(?:^|\r\n)content-length[ \t]*:[ \t]*(\d+)[ \t]*(?:\r\n|$)/i.exec(header.slice(0, -4));
            if (length === null || length[1] === undefined || !Number.isSafeInteger(Number(length[1]))) {
              broken = true;
              pending.clear();
              events.broken(`a header block without a valid Content-Length: ${JSON.stringify(header.slice(0, 80))}`);
              return;
            }
            const bytes = Number(length[1]);
            if (bytes > maxBytes) {
              events.oversize(bytes);
              skipping = bytes;
              continue;
            }
            awaiting = bytes;
          }
          if (pending.length < awaiting) return;
          const body = pending.take(awaiting);
          awaiting = -1;
          events.message(decoder.decode(body));
        }
      };
    },
  };
};
