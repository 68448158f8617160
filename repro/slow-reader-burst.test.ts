/**
 * REPRO (hostile3): a peer that reads slowly (here: only once this side has paused or closed) and
 * bursts past maxWaitingLength of requests whose answers fill the channel. On df9369e and after,
 * the connection closes it ("the peer sends past the in-flight limit"): nothing starts while the
 * channel is full, so inFlight is 0, `flow`'s `inFlight > awaited` is false, reading never pauses.
 * On 284182a (the stall timer) it paused and served all 600. Pausing also while the channel is
 * full (`|| state.full`) mends this one but lets two flooding peers, both full and both over the
 * high water, pause each other for good: without a timer, the choice is the lead's.
 * Run: npx jest --roots='<rootDir>/repro' --testPathPattern repro/slow-reader-burst
 */
import { Success } from "../src";
import { connect, type Connection } from "../src/connection";
import { bounded, rawSocketEnd } from "../tests/helpers/real-channels";

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
