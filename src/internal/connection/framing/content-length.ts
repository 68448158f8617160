/**
 * LSP's framing (`vscode-jsonrpc`'s): a `Content-Length` header block, then the body. The decoder
 * is a small record per stream and the functions that read a header block and a body into it.
 *
 * @module
 */
import { checkMax, CR, DEFAULT_MAX_BYTES, NEWLINE, type FrameEvents, type Framing } from "./framing";
import { Parts } from "./parts";
import { utf8Length } from "./utf8";

/** The largest header block read before the framing is declared broken. */
const MAX_HEADER_BYTES = 8192;

/** Where one stream's decoder stands: made once per stream. */
interface Reading {
  readonly events: FrameEvents;
  readonly maxBytes: number;
  /** A `TextDecoder` (typed by the one method used: Node's types declare only its value). */
  readonly decoder: { decode(bytes: Uint8Array): string };
  /** The header block or the body read so far, from earlier chunks. */
  readonly parts: Parts;
  /** How much of a header block's end (`\r\n\r\n`) the header bytes scanned so far end with: 0 to 3. */
  matched: number;
  /** The body length awaited, or -1 while reading headers. */
  awaiting: number;
  /** Bytes of an oversize body still to skip. */
  skipping: number;
  broken: boolean;
}

/** The stream is out of step: nothing more is read. */
const fail = (reading: Reading, reason: string): void => {
  reading.broken = true;
  reading.parts.clear();
  reading.events.broken(reason);
};

/** The index in `chunk` just past the header block's end, or -1; the scan goes on in the next chunk. */
const headerEnd = (reading: Reading, chunk: Uint8Array, from: number): number => {
  for (let at = from; at < chunk.length; at++) {
    if (reading.matched === 0) {
      at = chunk.indexOf(CR, at);
      if (at === -1) return -1;
      // The usual case, the whole end within this chunk, without stepping through states.
      if (chunk[at + 1] === NEWLINE && chunk[at + 2] === CR && chunk[at + 3] === NEWLINE) return at + 4;
    }
    const byte = chunk[at];
    const matched = reading.matched;
    reading.matched = byte === CR ? (matched === 2 ? 3 : 1) : byte === NEWLINE && (matched & 1) === 1 ? matched + 1 : 0;
    if (reading.matched === 4) {
      reading.matched = 0;
      return at + 1;
    }
  }
  return -1;
};

/** The length a header block's `Content-Length` gives, or undefined if it gives no valid one. */
const lengthIn = (header: string): number | undefined => {
  const length = /(?:^|\r\n)content-length[ \t]*:[ \t]*(\d+)[ \t]*(?:\r\n|$)/i.exec(header.slice(0, -4));
  if (length === null || length[1] === undefined || !Number.isSafeInteger(Number(length[1]))) return undefined;
  return Number(length[1]);
};

/**
 * Reads (the rest of) a header block from `from`: the index of its body, whose length is then
 * awaited (or skipped, past `maxBytes`), or -1 when the chunk ends first or the framing broke.
 */
const readHeader = (reading: Reading, chunk: Uint8Array, from: number): number => {
  const { parts } = reading;
  const end = headerEnd(reading, chunk, from);
  if (parts.length + (end === -1 ? chunk.length : end) - from > MAX_HEADER_BYTES) {
    fail(reading, `a header block longer than ${MAX_HEADER_BYTES} bytes`);
    return -1;
  }
  if (end === -1) {
    parts.push(from === 0 ? chunk : chunk.subarray(from));
    return -1;
  }
  const block = chunk.subarray(from, end);
  const header = reading.decoder.decode(parts.length === 0 ? block : parts.join(block));
  const bytes = lengthIn(header);
  if (bytes === undefined) {
    fail(reading, `a header block without a valid Content-Length: ${JSON.stringify(header.slice(0, 80))}`);
    return -1;
  }
  if (bytes > reading.maxBytes) {
    reading.events.oversize(bytes, reading.maxBytes);
    reading.skipping = bytes;
  } else reading.awaiting = bytes;
  return end;
};

/** Reads (the rest of) the awaited body from `from`: the index past it, once whole, or -1 when the chunk ends first. */
const readBody = (reading: Reading, chunk: Uint8Array, from: number): number => {
  const { parts } = reading;
  const need = reading.awaiting - parts.length;
  if (chunk.length - from < need) {
    if (from < chunk.length) parts.push(from === 0 ? chunk : chunk.subarray(from));
    return -1;
  }
  const tail = chunk.subarray(from, from + need);
  reading.awaiting = -1;
  reading.events.message(reading.decoder.decode(parts.length === 0 ? tail : parts.join(tail)));
  return from + need;
};

/** Reads one chunk: skipped bytes, header blocks and bodies, each whole message reported. */
const feed = (reading: Reading, chunk: Uint8Array): void => {
  let from = 0;
  while (!reading.broken && from < chunk.length) {
    if (reading.skipping > 0) {
      const n = Math.min(reading.skipping, chunk.length - from);
      reading.skipping -= n;
      from += n;
      continue;
    }
    if (reading.awaiting === -1) {
      from = readHeader(reading, chunk, from);
      if (from === -1) return;
      if (reading.awaiting === -1) continue; // an oversize body, to skip
    }
    // The body (here even at the chunk's end: a body may be empty).
    from = readBody(reading, chunk, from);
    if (from === -1) return;
  }
};

/**
 * LSP's framing: a header block (`Content-Length: N`, optionally `Content-Type`, each line ending
 * in `\r\n`, the block in an empty line) and then N bytes of UTF-8 JSON. A body longer than the
 * connection's `maxMessageLength` (in bytes) is skipped (its length is known) and reported as
 * `oversize` (`maxBytes`, deprecated: a bound of the framing's own instead). A header block that is
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
export const contentLength = (maxBytes?: number): Framing => {
  checkMax("contentLength", maxBytes);
  return {
    encode: (text) => `Content-Length: ${utf8Length(text)}\r\n\r\n${text}`,
    decoder: (events, given) => {
      const reading: Reading = {
        events,
        maxBytes: maxBytes ?? given ?? DEFAULT_MAX_BYTES,
        decoder: new TextDecoder(),
        parts: new Parts(),
        matched: 0,
        awaiting: -1,
        skipping: 0,
        broken: false,
      };
      return (chunk) => feed(reading, chunk);
    },
  };
};
