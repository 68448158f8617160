/**
 * A client's streamed call on a real TCP socket, ended while reading is paused for the values held
 * for its busy consumer (issue 33 item 3): aborted, its consumer rejecting, or the server's method
 * failing mid-stream. The call settles, and the connection reads on: a later call is answered.
 * No timing is asserted: each end waits for the socket's own `pause` event.
 */
import * as E from "fp-ts/Either";
import { Success } from "../src";
import { connect, type Connection } from "../src/connection";
import { bounded, tcpPair } from "./helpers/real-channels";

describe.each(["mcp", "lsp"] as const)("%s", (cancellation) => {
  for (const how of ["abort", "consumer throws", "server cancels"] as const) {
    test(`a streamed call ended (${how}) while reading is paused for its held values: the connection reads on`, async () => {
      const real = await tcpPair(cancellation === "lsp" ? "contentLength" : "newline");
      let server: Connection | undefined;
      let client: Connection | undefined;
      let stopServer: () => void = () => undefined;
      const serverStop = new Promise<void>((r) => (stopServer = r));
      try {
        server = connect(real.channels[1], {
          cancellation,
          methods: {
            feed: async function* () {
              let n = 0;
              let stop = false;
              void serverStop.then(() => (stop = true));
              for (;;) {
                if (stop) throw new Error("the server gave up");
                n += 1;
                yield [n];
                if (n % 8 === 0) await new Promise((r) => setImmediate(r));
              }
            },
            plain: () => Success("fine"),
          },
        });
        client = connect(real.channels[0], { cancellation, methods: {} });
        const socket = real.sockets![0];
        const paused = new Promise<void>((r) => socket.once("pause", () => r()));
        const controller = new AbortController();
        let release: (v?: unknown) => void = () => undefined;
        let released = false;
        const call = client.transport(JSON.stringify({ jsonrpc: "2.0", method: "feed", params: {}, id: 1 }), {
          signal: controller.signal,
          onValue: () =>
            released
              ? Promise.resolve()
              : new Promise<void>((resolve, reject) => {
                  release = how === "consumer throws" ? () => reject(new Error("consumer gave up")) : () => resolve();
                }),
        })();
        await bounded(paused, "reading to pause");
        if (how === "abort") controller.abort();
        if (how === "consumer throws") release();
        if (how === "server cancels") {
          stopServer();
          released = true;
          release();
        }
        const settled = await bounded(call, "the streamed call to settle");
        if (how === "abort") expect(settled).toMatchObject(E.left({ _tag: "TransportError", reason: "aborted" }));
        if (how === "consumer throws")
          expect(settled).toMatchObject(E.left({ _tag: "TransportError", reason: "network" }));
        if (how === "server cancels") expect(settled).toMatchObject(E.right({ json: { error: { code: -32603 } } }));
        const next = await bounded(
          client.transport(JSON.stringify({ jsonrpc: "2.0", method: "plain", params: [], id: 2 }), {
            signal: new AbortController().signal,
          })(),
          "a later call",
        );
        expect(E.isRight(next)).toBe(true);
      } finally {
        client?.close();
        server?.close();
        await real.dispose();
      }
    });
  }
});
