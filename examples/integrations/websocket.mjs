/**
 * WebSocket (`ws`): one connection carries many JSON-RPC messages, both ways.
 *
 *     npm run build && node examples/integrations/websocket.mjs          # serves on ws://127.0.0.1:3000/
 *     npm run build && node examples/integrations/websocket-client.mjs   # starts one on a free port and talks to it
 *
 * - Client to server: requests, notifications and batches, each message dispatched as it comes,
 *   concurrently; an answer is sent when ready (the client matches answers by id), and nothing is
 *   sent for a notification or a batch of notifications.
 * - Server to client: notifications. On connecting, the client gets `welcome`; the `say`
 *   notification makes the server send `said` to every connected client.
 * - The caller is worked out once per connection, from the upgrade request's `Authorization: Bearer
 *   <token>` header, and reaches every method as the context. (Browsers cannot set headers on a
 *   WebSocket: there, send the token in a cookie or as the first message.)
 * - `maxPayload` refuses a message over 1 MiB by closing the connection (code 1009), and batches
 *   hold at most 100 requests.
 * - The upgrade is refused (403) when it comes from a web page of another site (`Origin`) or is
 *   addressed to a name that is not this machine's (`Host`, DNS rebinding), with the development
 *   server's own check (`browserGuard`): browsers apply no same-origin rule to WebSockets, so any
 *   page a developer visits could otherwise connect. `allowedOrigins` lists the pages allowed
 *   beyond those on localhost.
 */
import { pathToFileURL } from "node:url";
import { asyncDispatch, Success } from "rpcserver";
import { browserGuard } from "rpcserver/server";
import { WebSocket, WebSocketServer } from "ws";
import { BODY_LIMIT, listenOn, MAX_BATCH_SIZE, methods, userFromAuthorization } from "./methods.mjs";

/** A server-to-client notification: no id, so the client must not answer it. */
const notification = (method, params) => JSON.stringify({ jsonrpc: "2.0", method, params });

/** Starts a WebSocket JSON-RPC server; resolves, once listening, to the `WebSocketServer`. */
export const startServer = ({ host, port, allowedHosts, allowedOrigins }) =>
  new Promise((resolve, reject) => {
    const guard = browserGuard({ listening: host ?? "", allowedHosts, allowedOrigins });
    const verifyClient = ({ req }, done) => {
      const refusal = guard(req.headers);
      if (refusal === undefined) done(true);
      else done(false, 403, refusal.message);
    };
    const wss = new WebSocketServer({ host, port, maxPayload: BODY_LIMIT, verifyClient });

    const broadcast = (text) => {
      for (const client of wss.clients) if (client.readyState === WebSocket.OPEN) client.send(text);
    };

    const wsMethods = {
      ...methods,
      /** Meant as a notification: tells every connected client, who said what. */
      say: (context, text) => {
        broadcast(notification("said", { from: context.user.name, text: String(text) }));
        return Success();
      },
    };

    wss.on("connection", (socket, request) => {
      const context = { user: userFromAuthorization(request.headers.authorization) };
      socket.on("error", (error) => console.error(`websocket: ${error.message}`));
      socket.on("message", async (data) => {
        // `data` is a Buffer (the bytes of a text or binary message): dispatch decodes it as UTF-8.
        const text = await asyncDispatch(data, wsMethods, { context, maxBatchSize: MAX_BATCH_SIZE });
        if (text !== "" && socket.readyState === WebSocket.OPEN) socket.send(text);
      });
      socket.send(notification("welcome", { user: context.user.name }));
    });
    wss.once("listening", () => resolve(wss));
    wss.once("error", reject);
  });

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { host, port } = listenOn(process.env);
  const wss = await startServer({ host, port });
  console.log(`listening on ws://${host}:${wss.address().port}/`);
}
