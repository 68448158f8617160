/**
 * Newline-delimited JSON (MCP's stdio transport, many tools): one message per line.
 *
 * @module
 */
import { checkMax, CR, DEFAULT_MAX_BYTES, NEWLINE, type Framing } from "./framing";
import { Parts } from "./parts";

/**
 * Newline-delimited JSON: each message is one line of UTF-8 JSON (JSON text holds no raw newline).
 * A `\r` before the newline and empty lines are ignored. A line longer than the connection's
 * `maxMessageLength` (in bytes) is skipped up to its newline and reported as `oversize`; reading
 * goes on. (`maxBytes`, deprecated: a bound of the framing's own instead; use `maxMessageLength`.)
 *
 * @example
 * import { newlineDelimited } from "rpcserver/connection";
 * newlineDelimited().encode('{"jsonrpc":"2.0","method":"ping"}'); // '{"jsonrpc":"2.0","method":"ping"}\n'
 *
 * @since 5.0.10
 * @category connection
 */
export const newlineDelimited = (maxBytes?: number): Framing => {
  checkMax("newlineDelimited", maxBytes);
  return {
    encode: (text) => `${text}\n`,
    decoder: (events, given) => {
      const max = maxBytes ?? given ?? DEFAULT_MAX_BYTES;
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
          events.oversize(skipped + tail.length - (last === CR ? 1 : 0), max);
          skipped = -1;
          return;
        }
        const last = tail.length > 0 ? tail[tail.length - 1] : parts.last();
        const length = parts.length + tail.length - (last === CR ? 1 : 0);
        if (length > max || length === 0) {
          parts.clear();
          if (length > 0) events.oversize(length, max);
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
        if (parts.length > max + 1) {
          skipped = parts.length;
          lastSkipped = last;
          parts.clear();
        }
      };
    },
  };
};
