/**
 * A WebSocket app's server: each page that connects gets its own connection, on which the server
 * serves `add` and `subscribe`, and pushes `news` notifications back to that page.
 *
 *     node examples/websocket/server.mjs     # listens on ws://localhost:5001 (PORT overrides)
 *
 * tests/runtime/browser-websocket.mjs opens a page in headless Chromium that calls it
 * (examples/websocket/page.mjs).
 */
import * as E from "fp-ts/lib/Either.js";
import { WebSocketServer } from "ws";
import { implement } from "rpcserver";
import { client, notify } from "rpcserver/client";
import { connect, webSocket } from "rpcserver/connection";
import { app, page } from "./api.mjs";

/** Serves one WebSocket server; resolves to it and its port. */
export const start = async (port = 0, host = "127.0.0.1") => {
  const wss = new WebSocketServer({ port, host });
  await new Promise((resolve) => wss.once("listening", resolve));
  wss.on("connection", (socket) => {
    const peer = connect(webSocket(socket), { methods: methodsFor(() => toPage) });
    const toPage = client(page, peer.transport);
  });
  return { wss, port: wss.address().port };
};

/** The methods of one connection: `subscribe` pushes to that connection's page. */
const methodsFor = (toPage) =>
  implement(app, {
    add: (a, b) => E.right(a + b),
    subscribe: ({ topic, count }) => {
      // After the answer: the page hears the news once it knows it is subscribed.
      setTimeout(async () => {
        for (let n = 1; n <= count; n++) await notify(toPage().news({ topic, n }))();
      });
      return E.right(null);
    },
  });

if (import.meta.url === `file://${process.argv[1]}`) {
  const { port } = await start(Number(process.env.PORT ?? 5001), "localhost");
  console.log(`WebSocket server on ws://localhost:${port}`);
}
