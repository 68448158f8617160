/**
 * A WebSocket app's server: each page that connects gets its own connection, on which the server
 * serves `add` and `subscribe`, and pushes `news` notifications back to that page.
 *
 *     node examples/websocket/server.mjs     # listens on ws://localhost:5001 (PORT overrides)
 *
 * tests/runtime/browser-websocket.mjs opens a page in headless Chromium that calls it
 * (examples/websocket/page.mjs).
 *
 * Any web page can open a WebSocket to localhost (browsers apply no same-origin rule to it), so the
 * upgrade is checked as the development server checks its requests (`browserGuard`): a page of
 * another site (its `Origin`), or one whose name was pointed at this machine (DNS rebinding: its
 * `Host`), gets 403 and no connection. Pages on localhost pass; list others in `allowedOrigins`.
 */
import * as E from "fp-ts/lib/Either.js";
import { WebSocketServer } from "ws";
import { implement } from "rpcserver";
import { browserGuard } from "rpcserver/server";
import { client, notify } from "rpcserver/client";
import { connect, webSocket } from "rpcserver/connection";
import { app, page } from "./api.mjs";

/**
 * Serves one WebSocket server; resolves to it and its port. `allowed`: more `allowedHosts` and
 * `allowedOrigins` to accept, as `serve` takes them.
 */
export const start = async (port = 0, host = "127.0.0.1", allowed = {}) => {
  const guard = browserGuard({ listening: host, ...allowed });
  const verifyClient = ({ req }, done) => {
    const refusal = guard(req.headers);
    if (refusal === undefined) done(true);
    else done(false, 403, refusal.message);
  };
  const wss = new WebSocketServer({ port, host, verifyClient });
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
