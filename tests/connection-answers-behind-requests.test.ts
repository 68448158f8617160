/**
 * Flow control attacked on a real TCP socket (issue 33 item 5, after the stall timer went): the
 * answer to one of this side's calls must be read even while the peer floods requests whose
 * methods all wait on that answer (a call made once and shared, not one call-back per method).
 *
 * Found by issue 33's hostile review on the timer-less flow control, which left this peer waiting
 * for ever; it holds with the stall watch (flow-control.ts's STALL_MS) and the 16 values held
 * before a pause (VALUES_HIGH_WATER), which are kept until a rule without a timer passes it.
 *
 * No timing is asserted: the peer's answer is written once the connection has paused or has read
 * the whole flood, whichever comes first, so it always lands in a chunk read after the pause.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { contract, server } from "../src";
import { client } from "../src/client";
import { connect, type Connection } from "../src/connection";
import { bounded, frame, rawSocketEnd } from "./helpers/real-channels";

const api = contract({
  fetchConfig: { params: t.tuple([t.number]), result: t.number },
  work: { params: t.tuple([t.number, t.string]), result: t.number },
});

type Message = { readonly id?: unknown; readonly method?: string; readonly result?: unknown };

describe.each(["newline", "contentLength"] as const)("%s", (framing) => {
  test("methods that wait on one shared call of ours: its answer is read behind a flood of their requests", async () => {
    const end = await rawSocketEnd(framing);
    let peer: Connection | undefined;
    try {
      // One call of ours (say, a configuration fetched once) that every `work` waits on.
      let given: (answer: number) => void = () => undefined;
      const config = new Promise<number>((resolve) => (given = resolve));
      const methods = server(api)
        .context<object>()
        .implement({
          fetchConfig: () => E.right(0),
          work: (_ctx, n) => () => config.then((c) => E.right(n + c)),
        }).methods;
      peer = connect(end.channel, { methods, context: {}, maxInFlight: 2, maxWaitingLength: 1024 * 1024 });
      const remote = client(api, peer.transport);
      void remote
        .fetchConfig(0)()
        .then((answer) => given(E.isRight(answer) ? answer.right : -1000));
      await end.until((received) => received.some((m) => (m as Message).method === "fetchConfig"), "our call");
      const callId = (end.received.find((m) => (m as Message).method === "fetchConfig") as Message).id;

      // About 900 KiB of requests: past the pause's high water (512 Ki), under maxWaitingLength.
      const padding = "x".repeat(8000);
      const count = 112;
      const flood = Buffer.concat(
        Array.from({ length: count }, (_, i) =>
          frame(framing, JSON.stringify({ jsonrpc: "2.0", method: "work", params: [i, padding], id: i + 1 })),
        ),
      );
      let read = 0;
      const readOrPaused = new Promise<void>((resolve) => {
        end.socket.on("pause", () => resolve());
        end.socket.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read >= flood.length) resolve();
        });
      });
      end.raw.write(flood);
      await bounded(readOrPaused, "the flood read or the connection paused");
      end.raw.write(frame(framing, JSON.stringify({ jsonrpc: "2.0", result: 7, id: callId })));

      await end.until(
        (received) => received.filter((m) => typeof (m as Message).result === "number").length >= count,
        `${count} answers`,
      );
      expect(end.received.filter((m) => (m as Message).method === undefined)).toEqual(
        expect.arrayContaining(Array.from({ length: count }, (_, i) => ({ jsonrpc: "2.0", result: i + 7, id: i + 1 }))),
      );
    } finally {
      peer?.close();
      await end.dispose();
    }
  });
});
