/**
 * A client's streamed call on a real TCP socket, attacked (issue 33 item 3, after the stall timer
 * went): a consumer that waits, for a value, on something the server sends on the same connection
 * (here, a call back to the client) must get it, even while values are held for it.
 *
 * Found by issue 33's hostile review on the timer-less flow control, which left this peer waiting
 * for ever; it holds with the stall watch (flow-control.ts's STALL_MS) and the 16 values held
 * before a pause (VALUES_HIGH_WATER), which are kept until a rule without a timer passes it.
 *
 * No timing is asserted: the server calls back once the client's socket has read the second value,
 * so the call back always comes in a chunk read after a pause for it.
 */
import * as E from "fp-ts/Either";
import { Success } from "../src";
import { connect, type Connection } from "../src/connection";
import { bounded, tcpPair } from "./helpers/real-channels";

describe.each(["mcp", "lsp"] as const)("%s", (cancellation) => {
  test("a consumer that waits on the server's call back while its next value is held: no deadlock, every value in order", async () => {
    const real = await tcpPair(cancellation === "lsp" ? "contentLength" : "newline");
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let pinged: () => void = () => undefined;
    const ping = new Promise<void>((resolve) => (pinged = resolve));
    let server: Connection | undefined;
    let client: Connection | undefined;
    try {
      server = connect(real.channels[1], {
        cancellation,
        methods: {
          /** Two values, then (once the client has read them) a call back to the client, then a third. */
          feed: async function* () {
            yield ["first"];
            yield ["second"];
            await gate;
            const back = await (server as Connection).transport(
              JSON.stringify({ jsonrpc: "2.0", method: "ping", params: [], id: "back" }),
              { signal: new AbortController().signal },
            )();
            yield [E.isRight(back) ? "third" : "no answer"];
            return Success(null);
          },
        },
      });
      client = connect(real.channels[0], {
        cancellation,
        methods: {
          ping: () => {
            pinged();
            return Success("pong");
          },
        },
      });
      // Attached after the connection's own listener: when this sees the second value, the
      // connection has already been handed it (and held it, its consumer being busy).
      const socket = (real.sockets as NonNullable<typeof real.sockets>)[0];
      let seen = "";
      socket.on("data", (chunk: Buffer) => {
        seen += chunk.toString("latin1");
        if (seen.includes("second")) openGate();
      });
      const values: unknown[] = [];
      const answer = await bounded(
        client.transport(JSON.stringify({ jsonrpc: "2.0", method: "feed", params: {}, id: 1 }), {
          signal: new AbortController().signal,
          onValue: async (value) => {
            values.push(value);
            // The first value's consumer waits for the server to call back.
            if (values.length === 1) await ping;
          },
        })(),
        "the streamed call to settle",
      );
      expect(E.isRight(answer)).toBe(true);
      // LSP's partial results are the values as they are; MCP's progress carries them as its message.
      const words = values.map((value) => /first|second|third|no answer/.exec(JSON.stringify(value))?.[0]);
      expect(words).toEqual(["first", "second", "third"]);
    } finally {
      client?.close();
      server?.close();
      await real.dispose();
    }
  });
});
