/**
 * UTF-8 lengths: what a `Content-Length` header says, and what a peer's -32002 may report.
 *
 * @module
 */

/** A character past ASCII: the one kind whose UTF-8 bytes outnumber its UTF-16 units. */
// eslint-disable-next-line no-control-regex -- every character of ASCII, the control ones included
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The length of `text` in UTF-8 bytes, counted without encoding it. Every message a connection
 * sends is counted (a `Content-Length` header, a pending call's size): ASCII text, most JSON, is
 * told by the regular expression's native scan, several times cheaper than the loop below (58
 * characters: 0.7k instructions against 2k, cachegrind on Node 20).
 */
export const utf8Length = (text: string): number => {
  if (!NON_ASCII.test(text)) return text.length;
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
