/**
 * A client for websocket.mjs: calls, a batch, notifications both ways, over one connection.
 *
 *     npm run build && node examples/integrations/websocket-client.mjs [ws://127.0.0.1:3000/]
 *
 * Without a URL, it starts the server of websocket.mjs on a free port first (and stops it after).
 */
import { pathToFileURL } from "node:url";
import { WebSocket } from "ws";
import { startServer } from "./websocket.mjs";

/**
 * Opens a connection and resolves to `{ call, notify, batch, close }`. Messages from the server are
 * told apart by their shape: an array or an object with `id` and `result` or `error` answers a
 * call; an object with `method` and no `id` is a notification, handed to `onNotification`.
 */
export const connect = (url, { token, onNotification = () => {} } = {}) =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(url, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
    const pending = new Map();
    let nextId = 1;

    const settle = (response) => {
      const waiter = pending.get(response.id);
      if (waiter === undefined) return console.error("an answer nobody waits for:", response);
      pending.delete(response.id);
      if ("error" in response) waiter.reject(Object.assign(new Error(response.error.message), response.error));
      else waiter.resolve(response.result);
    };

    socket.on("message", (data) => {
      const message = JSON.parse(data.toString("utf8"));
      if (Array.isArray(message)) message.forEach(settle);
      else if ("method" in message) onNotification(message.method, message.params);
      else settle(message);
    });

    const request = (method, params) => {
      const id = nextId++;
      const promise = new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
      return { message: { jsonrpc: "2.0", method, params, id }, promise };
    };

    const client = {
      call: (method, ...params) => {
        const { message, promise } = request(method, params);
        socket.send(JSON.stringify(message));
        return promise;
      },
      notify: (method, ...params) => socket.send(JSON.stringify({ jsonrpc: "2.0", method, params })),
      /** `calls`: `[method, ...params]` lists; resolves to one settled result per call, in order. */
      batch: (calls) => {
        const requests = calls.map(([method, ...params]) => request(method, params));
        socket.send(JSON.stringify(requests.map((r) => r.message)));
        return Promise.allSettled(requests.map((r) => r.promise));
      },
      close: () => socket.close(),
    };
    socket.once("open", () => resolve(client));
    socket.once("error", reject);
  });

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const server = process.argv[2] === undefined ? await startServer({ host: "127.0.0.1", port: 0 }) : undefined;
  const url = process.argv[2] ?? `ws://127.0.0.1:${server.address().port}/`;

  let said;
  const heard = new Promise((resolve) => (said = resolve));
  const client = await connect(url, {
    token: "token-of-ada",
    onNotification: (method, params) => {
      console.log(`notification from the server: ${method} ${JSON.stringify(params)}`);
      if (method === "said") said();
    },
  });

  console.log("whoami ->", await client.call("whoami"));
  console.log("add(1, 2) ->", await client.call("add", 1, 2));
  await client
    .call("divide", 1, 0)
    .catch((error) => console.log(`divide(1, 0) -> error ${error.code}: ${error.message}`));
  const results = await client.batch([["add", 2, 3], ["divide", 6, 3], ["nope"]]);
  console.log(
    "batch ->",
    results.map((r) => (r.status === "fulfilled" ? r.value : `error ${r.reason.code}`)),
  );
  client.notify("say", "hello, everyone"); // no answer; the server sends `said` to every client
  await heard;
  client.close();
  server?.close();
}
