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
  /** A message of `bytes` bytes, over the limit of `max` bytes, skipped: the stream is still in step. */
  readonly oversize: (bytes: number, max: number) => void;
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

/*
 * Both decoders are linear in bytes, however the stream cuts them: each byte is scanned once (a
 * scan resumes where the last chunk's stopped), and a message is copied once, when its last byte
 * has come, from the list of chunks that hold it. A message whole within one chunk is not copied
 * at all: it is decoded where it lies. (Joining each chunk to the bytes pending, and scanning them
 * from the front again, made a 4 MiB message sent in 1 KiB chunks cost seconds where, sent at
 * once, it cost milliseconds.)
 */

/** The bytes of a message so far: chunks kept as they came, joined once the message is whole. */
class Parts {
  private chunks: Uint8Array[] = [];
  /** Bytes held. */
  length = 0;

  push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** The bytes held followed by `tail`, as one array (copied once), and nothing held after. */
  join(tail: Uint8Array): Uint8Array {
    const out = new Uint8Array(this.length + tail.length);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    out.set(tail, at);
    this.clear();
    return out;
  }

  /** The last byte held, if any. */
  last(): number | undefined {
    const chunk = this.chunks[this.chunks.length - 1];
    return chunk?.[chunk.length - 1];
  }

  clear(): void {
    this.chunks = [];
    this.length = 0;
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
      /** The start of the line being read, from earlier chunks (none of them holds a newline). */
      const parts = new Parts();
      /** Bytes of an oversize line skipped so far, or -1 when not skipping. */
      let skipped = -1;
      /** The last byte skipped: a CR before the newline is not part of the line's length. */
      let lastSkipped = 0;
      /** One line ends: its bytes are `parts` and then `tail` (its newline left out). */
      const line = (tail: Uint8Array): void => {
        if (skipped >= 0) {
          const last = tail.length > 0 ? tail[tail.length - 1] : lastSkipped;
          events.oversize(skipped + tail.length - (last === CR ? 1 : 0), maxBytes);
          skipped = -1;
          return;
        }
        const last = tail.length > 0 ? tail[tail.length - 1] : parts.last();
        const length = parts.length + tail.length - (last === CR ? 1 : 0);
        if (length > maxBytes || length === 0) {
          parts.clear();
          if (length > 0) events.oversize(length, maxBytes);
          return;
        }
        const bytes = parts.length === 0 ? tail : parts.join(tail);
        events.message(decoder.decode(length === bytes.length ? bytes : bytes.subarray(0, length)));
      };
      return (chunk) => {
        let from = 0;
        for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, from)) {
          line(chunk.subarray(from, end));
          from = end + 1;
        }
        if (from === chunk.length) return;
        const rest = from === 0 ? chunk : chunk.subarray(from);
        const last = rest[rest.length - 1] ?? 0;
        if (skipped >= 0) {
          skipped += rest.length;
          lastSkipped = last;
          return;
        }
        parts.push(rest);
        // Over the limit even if the next byte is the newline after a CR: skipped from here on, so
        // that an endless line is never held whole.
        if (parts.length > maxBytes + 1) {
          skipped = parts.length;
          lastSkipped = last;
          parts.clear();
        }
      };
    },
  };
};

/** The largest header block read before the framing is declared broken. */
const MAX_HEADER_BYTES = 8192;

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
      /** The header block or the body read so far, from earlier chunks. */
      const parts = new Parts();
      /** How much of a header block's end (`\r\n\r\n`) the header bytes scanned so far end with: 0 to 3. */
      let matched = 0;
      /** The body length awaited, or -1 while reading headers. */
      let awaiting = -1;
      /** Bytes of an oversize body still to skip. */
      let skipping = 0;
      let broken = false;
      const fail = (reason: string): void => {
        broken = true;
        parts.clear();
        events.broken(reason);
      };
      /** The index in `chunk` just past the header block's end, or -1; the scan goes on in the next chunk. */
      const headerEnd = (chunk: Uint8Array, from: number): number => {
        for (let at = from; at < chunk.length; at++) {
          if (matched === 0) {
            at = chunk.indexOf(CR, at);
            if (at === -1) return -1;
            // The usual case, the whole end within this chunk, without stepping through states.
            if (chunk[at + 1] === NEWLINE && chunk[at + 2] === CR && chunk[at + 3] === NEWLINE) return at + 4;
          }
          const byte = chunk[at];
          matched = byte === CR ? (matched === 2 ? 3 : 1) : byte === NEWLINE && (matched & 1) === 1 ? matched + 1 : 0;
          if (matched === 4) {
            matched = 0;
            return at + 1;
          }
        }
        return -1;
      };
      return (chunk) => {
        let from = 0;
        while (!broken && from < chunk.length) {
          if (skipping > 0) {
            const n = Math.min(skipping, chunk.length - from);
            skipping -= n;
            from += n;
            continue;
          }
          if (awaiting === -1) {
            const end = headerEnd(chunk, from);
            if (parts.length + (end === -1 ? chunk.length : end) - from > MAX_HEADER_BYTES) {
              return fail(`a header block longer than ${MAX_HEADER_BYTES} bytes`);
            }
            if (end === -1) return parts.push(from === 0 ? chunk : chunk.subarray(from));
            const block = chunk.subarray(from, end);
            const header = decoder.decode(parts.length === 0 ? block : parts.join(block));
            from = end;
            const length = /(?:^|\r\n)content-length[ \t]*:[ \t]*(\d+)[ \t]*(?:\r\n|$)/i.exec(header.slice(0, -4));
            if (length === null || length[1] === undefined || !Number.isSafeInteger(Number(length[1]))) {
              return fail(`a header block without a valid Content-Length: ${JSON.stringify(header.slice(0, 80))}`);
            }
            const bytes = Number(length[1]);
            if (bytes > maxBytes) {
              events.oversize(bytes, maxBytes);
              skipping = bytes;
              continue;
            }
            awaiting = bytes;
          }
          // The body (here even at the chunk's end: a body may be empty).
          const need = awaiting - parts.length;
          if (chunk.length - from < need) {
            if (from < chunk.length) parts.push(from === 0 ? chunk : chunk.subarray(from));
            return;
          }
          const tail = chunk.subarray(from, from + need);
          from += need;
          awaiting = -1;
          events.message(decoder.decode(parts.length === 0 ? tail : parts.join(tail)));
        }
      };
    },
  };
};
