/**
 * Framing of byte streams: newline-delimited JSON and LSP's Content-Length headers, fed in every
 * way a stream may cut them (byte by byte, many messages per chunk), and every way a peer may
 * break them (garbage, truncated frames, oversize messages, a Content-Length that lies).
 */
import fc from "fast-check";
import { contentLength, newlineDelimited, type Framing } from "../src/connection";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

interface Seen {
  messages: string[];
  oversize: number[];
  broken: string[];
}

const reader = (framing: Framing): [(chunk: Uint8Array) => void, Seen] => {
  const seen: Seen = { messages: [], oversize: [], broken: [] };
  const feed = framing.decoder({
    message: (text) => seen.messages.push(text),
    oversize: (n) => seen.oversize.push(n),
    broken: (reason) => seen.broken.push(reason),
  });
  return [feed, seen];
};

/** Feeds `data` cut at the given points. */
const feedCut = (feed: (chunk: Uint8Array) => void, data: Uint8Array, cuts: number[]): void => {
  const points = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const point of [...points, data.length]) {
    if (point > from) feed(data.subarray(from, point));
    from = Math.max(from, point);
  }
};

const messages = fc.array(
  fc.jsonValue().map((value) => JSON.stringify({ jsonrpc: "2.0", method: "m", params: [value], id: 1 })),
  { maxLength: 8 },
);

describe.each([
  ["newlineDelimited", newlineDelimited],
  ["contentLength", contentLength],
] as const)("%s", (_name, make) => {
  test("any messages, cut anywhere, come out whole and in order (property)", () => {
    fc.assert(
      fc.property(messages, fc.array(fc.nat(), { maxLength: 20 }), (texts, cuts) => {
        const framing = make();
        const encoded = texts.map((text) => bytes(framing.encode(text)));
        const all = new Uint8Array(encoded.reduce((n, e) => n + e.length, 0));
        let at = 0;
        for (const e of encoded) {
          all.set(e, at);
          at += e.length;
        }
        const [feed, seen] = reader(framing);
        feedCut(feed, all, cuts);
        expect(seen.messages).toEqual(texts);
        expect(seen.broken).toEqual([]);
      }),
      { numRuns: 300, seed: 20261123 },
    );
  });

  test("multi-byte characters split across chunks", () => {
    const framing = make();
    const text = JSON.stringify({ jsonrpc: "2.0", method: "héllo €𝄞", id: 1 });
    const [feed, seen] = reader(framing);
    for (const byte of bytes(framing.encode(text))) feed(Uint8Array.of(byte));
    expect(seen.messages).toEqual([text]);
  });

  test("an oversize message is skipped and reported; the next one is read", () => {
    const framing = make(64);
    const big = JSON.stringify({ jsonrpc: "2.0", method: "x".repeat(200), id: 1 });
    const small = '{"jsonrpc":"2.0","method":"ok","id":2}';
    const [feed, seen] = reader(framing);
    feed(bytes(framing.encode(big)));
    feed(bytes(framing.encode(small)));
    expect(seen.oversize).toEqual([new TextEncoder().encode(big).length]);
    expect(seen.messages).toEqual([small]);
    expect(seen.broken).toEqual([]);
  });

  test("a bad maxBytes is a RangeError", () => {
    expect(() => make(0)).toThrow(RangeError);
    expect(() => make(1.5)).toThrow(RangeError);
  });
});

describe("newlineDelimited", () => {
  test("garbage lines are passed on as they are (dispatch answers them -32700); CRLF and blank lines are fine", () => {
    const [feed, seen] = reader(newlineDelimited());
    feed(bytes('not json\r\n\n{"a":1}\r\n'));
    expect(seen.messages).toEqual(["not json", '{"a":1}']);
  });

  test("an oversize line arriving in pieces is never buffered whole", () => {
    const framing = newlineDelimited(16);
    const [feed, seen] = reader(framing);
    for (let i = 0; i < 1000; i++) feed(bytes("x".repeat(100)));
    feed(bytes("\n{}\n"));
    expect(seen.oversize).toEqual([100_000]);
    expect(seen.messages).toEqual(["{}"]);
  });

  test("a truncated last line waits for the rest", () => {
    const [feed, seen] = reader(newlineDelimited());
    feed(bytes('{"a":'));
    expect(seen.messages).toEqual([]);
    feed(bytes("1}\n"));
    expect(seen.messages).toEqual(['{"a":1}']);
  });
});

describe("contentLength", () => {
  test("Content-Length counts UTF-8 bytes: ASCII, 2-, 3- and 4-byte characters, a lone surrogate", () => {
    for (const text of ["{}", '"é"', '"€"', '"𝄞"', '"\ud800"', '"a\udc00b"']) {
      const header = /^Content-Length: (\d+)\r\n\r\n/.exec(contentLength().encode(text));
      expect(Number(header?.[1])).toBe(new TextEncoder().encode(text).length);
    }
  });

  test("Content-Type and other headers, any case, are allowed", () => {
    const [feed, seen] = reader(contentLength());
    feed(bytes("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}"));
    expect(seen.messages).toEqual(["{}"]);
  });

  test("a header block without Content-Length breaks the framing, once", () => {
    const [feed, seen] = reader(contentLength());
    feed(bytes("Hello: there\r\n\r\n{}"));
    feed(bytes("Content-Length: 2\r\n\r\n{}"));
    expect(seen.broken).toHaveLength(1);
    expect(seen.broken[0]).toMatch(/without a valid Content-Length/);
    expect(seen.messages).toEqual([]);
  });

  test("a Content-Length that lies short: the rest is no header block, the framing breaks", () => {
    const [feed, seen] = reader(contentLength());
    feed(bytes('Content-Length: 5\r\n\r\n{"jsonrpc":"2.0","method":"m"}'));
    feed(bytes("Content-Length: 2\r\n\r\n{}"));
    expect(seen.messages).toEqual(['{"jso']);
    expect(seen.broken).toHaveLength(1);
  });

  test("a Content-Length that lies long waits for bytes that belong to the next message, which then breaks", () => {
    const [feed, seen] = reader(contentLength());
    feed(bytes("Content-Length: 30\r\n\r\n{}"));
    feed(bytes("Content-Length: 2\r\n\r\n{}"));
    feed(bytes("Content-Length: 2\r\n\r\n{}"));
    expect(seen.messages).toEqual(["{}Content-Length: 2\r\n\r\n{}Conte"]);
    expect(seen.broken).toHaveLength(1);
  });

  test("endless header bytes break the framing past 8 KiB instead of growing", () => {
    const [feed, seen] = reader(contentLength());
    for (let i = 0; i < 100; i++) feed(bytes("X".repeat(100)));
    expect(seen.broken).toHaveLength(1);
    expect(seen.broken[0]).toMatch(/header block longer than 8192/);
  });
});
