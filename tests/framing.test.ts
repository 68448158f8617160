/**
 * Framing of byte streams: newline-delimited JSON and LSP's Content-Length headers, fed in every
 * way a stream may cut them (byte by byte, many messages per chunk), and every way a peer may
 * break them (garbage, truncated frames, oversize messages, a Content-Length that lies).
 */
import { utf8Length } from "../src/internal/connection/framing/utf8";
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

/** `data` cut into chunks of `size` bytes. */
const slices = (data: Uint8Array, size: number): Uint8Array[] => {
  const out: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += size) out.push(data.subarray(at, at + size));
  return out;
};

/**
 * The bytes that `run` scans, copies and decodes: what `indexOf` passes over, what `set` and
 * `slice` copy, what a TextDecoder reads. Counted by wrapping those methods for the run (nothing
 * is kept of the arrays, so a quadratic run costs time, not memory).
 */
const work = (run: () => void): number => {
  let touched = 0;
  const own = Uint8Array.prototype as unknown as Record<string, unknown>;
  const typed = Object.getPrototypeOf(Uint8Array.prototype) as Uint8Array;
  const { indexOf, set, slice } = typed;
  const { decode } = TextDecoder.prototype;
  own["indexOf"] = function (this: Uint8Array, value: number, from = 0): number {
    const at = indexOf.call(this, value, from);
    touched += (at === -1 ? this.length : at + 1) - (from < 0 ? Math.max(0, this.length + from) : from);
    return at;
  };
  own["set"] = function (this: Uint8Array, source: ArrayLike<number>, offset?: number): void {
    touched += source.length;
    set.call(this, source, offset);
  };
  own["slice"] = function (this: Uint8Array, start?: number, end?: number): Uint8Array {
    const out = slice.call(this, start, end);
    touched += out.length;
    return out;
  };
  TextDecoder.prototype.decode = function (this: unknown, ...args: Parameters<typeof decode>): string {
    touched += args[0]?.byteLength ?? 0;
    return decode.apply(this, args);
  };
  try {
    run();
  } finally {
    delete own["indexOf"];
    delete own["set"];
    delete own["slice"];
    TextDecoder.prototype.decode = decode;
  }
  return touched;
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

  test("several messages split at every byte boundary, byte by byte, and coalesced in one chunk come out whole", () => {
    const framing = make();
    const texts = [
      '{"jsonrpc":"2.0","method":"a","id":1}',
      JSON.stringify({ jsonrpc: "2.0", method: "héllo €𝄞", params: ["\u00e9\r\n"], id: 2 }),
      "[]",
      JSON.stringify({ jsonrpc: "2.0", result: "x".repeat(40), id: "three" }),
    ];
    const all = bytes(texts.map((text) => framing.encode(text)).join(""));
    const read = (chunks: Uint8Array[]): Seen => {
      const [feed, seen] = reader(framing);
      for (const chunk of chunks) feed(chunk);
      return seen;
    };
    const whole: Seen = { messages: texts, oversize: [], broken: [] };
    expect(read([all])).toEqual(whole);
    expect(read([...all].map((byte) => Uint8Array.of(byte)))).toEqual(whole);
    for (let i = 0; i <= all.length; i++) {
      expect(read([all.subarray(0, i), all.subarray(i)])).toEqual(whole);
      for (let j = i; j <= all.length; j += 7) {
        expect(read([all.subarray(0, i), all.subarray(i, j), all.subarray(j)])).toEqual(whole);
      }
    }
  });

  test("linear in bytes: a 4 MiB message in 1 KiB chunks costs about what it costs at once", () => {
    const framing = make();
    const text = JSON.stringify({ jsonrpc: "2.0", method: "m", params: ["x".repeat(4 * 1024 * 1024)] });
    const all = bytes(framing.encode(text));
    const cost = (chunks: Uint8Array[]): number =>
      work(() => {
        const [feed, seen] = reader(framing);
        for (const chunk of chunks) feed(chunk);
        expect(seen.messages).toHaveLength(1);
        expect(seen.messages[0]?.length).toBe(text.length);
      });
    const atOnce = cost([all]);
    const trickled = cost(slices(all, 1024));
    // The instruments see the work (the message is at least decoded), and a trickle costs at most
    // a scan, a copy and a decode of each byte, where joining each chunk to the bytes pending and
    // scanning them again cost about 2,000 times that.
    expect(atOnce).toBeGreaterThanOrEqual(all.length);
    expect(trickled).toBeLessThan(4 * all.length);
    expect(trickled).toBeLessThanOrEqual(2 * atOnce);
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

  test("an oversize line's length leaves out its CR, trickled or at once", () => {
    const line = bytes(`${"x".repeat(100)}\r\n{}\n`);
    const [feed, seen] = reader(newlineDelimited(16));
    feed(line);
    for (const chunk of slices(line, 10)) feed(chunk);
    expect(seen.oversize).toEqual([100, 100]);
    expect(seen.messages).toEqual(["{}", "{}"]);
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

  test("a header block over 8 KiB breaks the framing, in one chunk as in many", () => {
    const block = bytes(`Content-Length: 2\r\n${"X-Pad: 0123456789\r\n".repeat(500)}\r\n{}`);
    const [feed, seen] = reader(contentLength());
    feed(block);
    expect(seen.messages).toEqual([]);
    expect(seen.broken).toEqual([expect.stringMatching(/header block longer than 8192/)]);
  });

  test("linear in bytes: a header block of nearly 8 KiB sent byte by byte is scanned once", () => {
    const framing = contentLength();
    const block = bytes(`Content-Length: 2\r\n${"X-Pad: 0123456789\r\n".repeat(400)}\r\n{}`);
    expect(block.length).toBeLessThan(8192);
    let seen: Seen | undefined;
    const touched = work(() => {
      const [feed, got] = reader(framing);
      for (const byte of block) feed(Uint8Array.of(byte));
      seen = got;
    });
    expect(seen?.messages).toEqual(["{}"]);
    expect(touched).toBeLessThan(4 * block.length);
  });

  test("endless header bytes break the framing past 8 KiB instead of growing", () => {
    const [feed, seen] = reader(contentLength());
    for (let i = 0; i < 100; i++) feed(bytes("X".repeat(100)));
    expect(seen.broken).toHaveLength(1);
    expect(seen.broken[0]).toMatch(/header block longer than 8192/);
  });
});

describe("utf8Length", () => {
  test("is the length TextEncoder encodes, for ASCII (control characters included) and for text past it", () => {
    const texts = [
      "",
      '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}',
      "\u0000\u0001\t\n\u001f\u007f",
      "caf\u00e9",
      "\u20ac and \u{1f600}",
      "lone \ud800 high, lone \udc00 low, at the end \ud83d",
      "\u007f\u0080\u07ff\u0800\uffff",
    ];
    const encoder = new TextEncoder();
    expect(texts.map(utf8Length)).toEqual(texts.map((text) => encoder.encode(text).length));
  });
});
