/**
 * The channels that ship, over the real things: a WebSocket (the `ws` package at both ends), a
 * MessageChannel's ports, and a TCP socket with each framing.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { createServer, connect as tcp, type AddressInfo, type Socket } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { contract, implement } from "../src";
import { client, notify } from "../src/client";
import {
  connect,
  contentLength,
  messagePort,
  newlineDelimited,
  streams,
  webSocket,
  type Connection,
} from "../src/connection";

const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  pushed: { params: t.tuple([t.string]) },
});
const heard: string[] = [];
const methods = implement(api, {
  add: (a, b) => E.right(a + b),
  pushed: (text) => {
    heard.push(text);
    return E.right(null);
  },
});

afterEach(() => {
  heard.length = 0;
});

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
};

test("WebSocket (ws): the client calls, the server pushes a notification, closing reaches both", async () => {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((resolve) => wss.once("listening", resolve));
  const serverPeers: Connection[] = [];
  wss.on("connection", (socket) => serverPeers.push(connect(webSocket(socket), { methods })));
  try {
    const socket = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
    const peer = connect(webSocket(socket), { methods }); // sends before the socket opens: held until it does
    expect(await client(api, peer.transport).add(2, 3)()).toEqual(E.right(5));
    const server = serverPeers[0] as Connection;
    expect(await notify(client(api, server.transport).pushed("hello"))()).toEqual(E.right(undefined));
    await until(() => heard.length > 0);
    expect(heard).toEqual(["hello"]);
    peer.close();
    await expect(server.closed).resolves.toBeInstanceOf(Error);
  } finally {
    await new Promise((resolve) => wss.close(resolve));
  }
});

test("MessageChannel ports: calls both ways, close ends both", async () => {
  const { port1, port2 } = new MessageChannel();
  const left = connect(messagePort(port1), { methods });
  const right = connect(messagePort(port2), { methods });
  expect(await client(api, left.transport).add(1, 2)()).toEqual(E.right(3));
  expect(await client(api, right.transport).add(5, 5)()).toEqual(E.right(10));
  left.close();
  await right.closed;
});

test.each([
  ["newline-delimited", newlineDelimited],
  ["Content-Length", contentLength],
] as const)("a TCP socket with %s framing", async (_name, framing) => {
  const sockets: Socket[] = [];
  const listener = createServer((socket) => {
    sockets.push(socket);
    connect(streams(socket, socket, framing()), { methods });
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  try {
    const socket = tcp((listener.address() as AddressInfo).port, "127.0.0.1");
    const peer = connect(streams(socket, socket, framing()), { methods });
    const calc = client(api, peer.transport);
    expect(await Promise.all([calc.add(1, 1)(), calc.add(2, 2)(), calc.add(3, 3)()])).toEqual([
      E.right(2),
      E.right(4),
      E.right(6),
    ]);
    socket.destroy();
    await peer.closed;
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => listener.close(resolve));
  }
});
