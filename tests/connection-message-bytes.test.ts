/**
 * maxMessageLength in bytes, in the framing (issue 33 item 5), on a real TCP socket with both
 * framings: messages of exactly the bound, one byte over and under, padded with two-byte UTF-8
 * (so units and bytes differ), coalesced in one write or split at every byte; and a 4 MiB message
 * under a 1000-byte bound, skipped (-32002 with its byte length) and the next one served.
 */
import { Success } from "../src";
import { connect, type Connection } from "../src/connection";
import { rawSocketEnd } from "./helpers/real-channels";

/** A request of exactly `bytes` UTF-8 bytes, padded with "é" (2 bytes, 1 unit) and "a". */
const sized = (bytes: number, id: number): string => {
  const base = JSON.stringify({ jsonrpc: "2.0", method: "echo", params: [""], id });
  let room = bytes - Buffer.byteLength(base);
  let pad = "";
  while (room >= 2) {
    pad += "é";
    room -= 2;
  }
  if (room === 1) pad += "a";
  const text = JSON.stringify({ jsonrpc: "2.0", method: "echo", params: [pad], id });
  expect(Buffer.byteLength(text)).toBe(bytes);
  return text;
};
type M = { id?: unknown; result?: unknown; error?: { code: number; data?: unknown } };

describe.each(["newline", "contentLength"] as const)("%s", (framing) => {
  const max = 300;
  for (const mode of ["burst", "split"] as const) {
    test(`at, under and over maxMessageLength in bytes (${mode})`, async () => {
      const end = await rawSocketEnd(framing);
      let peer: Connection | undefined;
      try {
        peer = connect(end.channel, { methods: { echo: (s: string) => Success(s.length) }, maxMessageLength: max });
        const texts = [sized(max, 1), sized(max + 1, 2), sized(max - 1, 3), sized(max + 2, 4), sized(max, 5)];
        await end[mode](texts);
        await end.until((r) => r.length >= 5, "5 answers");
        const got = end.received as M[];
        expect(
          got
            .filter((m) => m.id === 1 || m.id === 3 || m.id === 5)
            .map((m) => m.id)
            .sort(),
        ).toEqual([1, 3, 5]);
        expect(got.filter((m) => m.id === null).map((m) => m.error?.data)).toEqual([
          { length: max + 1, max },
          { length: max + 2, max },
        ]);
      } finally {
        peer?.close();
        await end.dispose();
      }
    });
  }

  test("a huge message (4 MiB, no end for a long while) is skipped with memory bounded, the next served", async () => {
    const end = await rawSocketEnd(framing);
    let peer: Connection | undefined;
    try {
      peer = connect(end.channel, { methods: { echo: (s: string) => Success(s.length) }, maxMessageLength: 1000 });
      const big = `{"jsonrpc":"2.0","method":"echo","params":["${"é".repeat(2 * 1024 * 1024)}"],"id":9}`;
      await end.burst([big, sized(500, 10)]);
      await end.until((r) => r.length >= 2, "2 answers");
      expect((end.received as M[]).map((m) => m.id)).toEqual([null, 10]);
      expect((end.received[0] as M).error?.data).toEqual({ length: Buffer.byteLength(big), max: 1000 });
    } finally {
      peer?.close();
      await end.dispose();
    }
  });
});
