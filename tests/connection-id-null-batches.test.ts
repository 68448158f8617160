/**
 * An id-null -32600 (a batch over the peer's maxBatchSize) while three batches of ours (2, 3 and 4
 * requests) are pending, on a real TCP socket: `data.size` names the batch of 3 and settles it
 * alone; an old peer's text data, a size that is a string or 0 settles none (the batches wait for
 * their answers, timeouts or the close), and never the wrong one.
 */
import * as E from "fp-ts/Either";
import { connect, type Connection } from "../src/connection";
import { rawSocketEnd } from "./helpers/real-channels";

const batch = (from: number, n: number): string =>
  JSON.stringify(
    Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", method: "m", params: [], id: `b${from + i}` })),
  );

test.each([
  ["new-style data", { size: 3, max: 2 }, "settles the 3"],
  ["old-style text", "the batch has 3 requests; the limit is 2", "settles none"],
  ["size as a string", { size: "3", max: 2 }, "settles none"],
  ["size 0", { size: 0, max: 2 }, "settles none"],
])("id-null -32600 with %s, three batches pending", async (_name, data, expected) => {
  const end = await rawSocketEnd("newline");
  let peer: Connection | undefined;
  try {
    peer = connect(end.channel, { methods: {} });
    const signal = new AbortController().signal;
    const settled: Array<string | undefined> = [undefined, undefined, undefined];
    const calls = [batch(0, 2), batch(10, 3), batch(20, 4)].map((body, i) =>
      peer!
        .transport(body, { signal })()
        .then((r) => {
          settled[i] = E.isLeft(r) ? "left" : JSON.stringify(typeof r.right === "string" ? r.right : r.right.json);
        }),
    );
    await end.until((r) => r.length >= 3, "3 batches");
    end.raw.write(
      JSON.stringify({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request", data }, id: null }) + "\n",
    );
    // Something after it, so its handling is done: answer the 2-batch.
    end.raw.write(
      JSON.stringify([
        { jsonrpc: "2.0", result: 1, id: "b0" },
        { jsonrpc: "2.0", result: 1, id: "b1" },
      ]) + "\n",
    );
    await calls[0];
    await new Promise((r) => setImmediate(r));
    if (expected === "settles the 3") expect(settled[1]).toBeDefined();
    else expect(settled[1]).toBeUndefined();
    expect(settled[2]).toBeUndefined();
  } finally {
    peer?.close();
    await end.dispose();
  }
});
