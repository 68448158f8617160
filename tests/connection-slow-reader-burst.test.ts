/**
 * Found by issue 33's hostile review on the timer-less flow control, which left this peer waiting
 * for ever; it holds with the stall watch (flow-control.ts's STALL_MS) and the 16 values held
 * before a pause (VALUES_HIGH_WATER), which are kept until a rule without a timer passes it.
 */
import { Success } from "../src";
import { connect, type Connection } from "../src/connection";
import { bounded, rawSocketEnd } from "./helpers/real-channels";

test("a slow reader's burst past maxWaitingLength: slowed (reading pauses), not closed; every request answered", async () => {
  const end = await rawSocketEnd("newline");
  let peer: Connection | undefined;
  try {
    peer = connect(end.channel, {
      methods: { big: () => Success("x".repeat(64 * 1024)) },
      maxWaitingLength: 256 * 1024,
    });
    // The peer reads only once this side has paused or closed (a slow reader, not a never-reading one).
    end.raw.pause();
    const closed = peer.closed.then((reason) => `closed: ${String(reason)}`);
    const pausedOrClosed = Promise.race([
      new Promise<string>((resolve) => end.socket.once("pause", () => resolve("paused"))),
      closed,
    ]);
    const count = 600;
    const pad = "p".repeat(1000);
    end.raw.write(
      Array.from(
        { length: count },
        (_, i) => JSON.stringify({ jsonrpc: "2.0", method: "big", params: [pad], id: i + 1 }) + "\n",
      ).join(""),
    );
    const first = await bounded(pausedOrClosed, "a pause or a close");
    end.raw.resume();
    expect(first).toBe("paused");
    await end.until((received) => received.length >= count, `${count} answers`, 30_000);
  } finally {
    peer?.close();
    await end.dispose();
  }
});
