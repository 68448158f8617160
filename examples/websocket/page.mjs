/* global WebSocket */
/**
 * The page of the WebSocket example (bundled for the browser by tests/runtime/browser-websocket.mjs):
 * it connects with the standard WebSocket, calls the server, subscribes, and serves the `news`
 * the server pushes.
 */
import * as E from "fp-ts/lib/Either.js";
import { implement } from "rpcserver";
import { client } from "rpcserver/client";
import { connect, webSocket } from "rpcserver/connection";
import { app, page } from "./api.mjs";

/** Runs the page against the server at `url`; resolves to what it saw. */
export const run = async (url) => {
  const heard = [];
  let allHeard;
  const done = new Promise((resolve) => (allHeard = resolve));
  const methods = implement(page, {
    news: (item) => {
      heard.push(item);
      if (heard.length === 3) allHeard();
      return E.right(null);
    },
  });
  const peer = connect(webSocket(new WebSocket(url)), { methods });
  const server = client(app, peer.transport);
  const sum = await server.add(2, 3)();
  const subscribed = await server.subscribe({ topic: "weather", count: 3 })();
  await done;
  peer.close();
  await peer.closed;
  return { sum, subscribed, heard, hasProcess: typeof globalThis.process !== "undefined" };
};
