/**
 * The channels that ship, over the real things: a WebSocket (the `ws` package at both ends), a
 * MessageChannel's ports, and a TCP socket with each framing. Then the ways the real things end
 * that a channel must notice, none of them by crashing the host: a TCP peer that resets, a child
 * process that exits under a pipe still being written, a `Worker` that exits or throws, a socket
 * already closed before `connect`, and a standard WebSocket's binary frames (Blobs).
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { createServer, connect as tcp, type AddressInfo, type Server, type Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { Worker } from "node:worker_threads";
import { WebSocket, WebSocketServer } from "ws";
import { contract, implement } from "../src";
import { client, notify } from "../src/client";
import {
  connect,
  contentLength,
  messagePort,
  newlineDelimited,
  byteChannel,
  webSocket,
  type Connection,
  type WebSocketLike,
} from "../src/connection";
import { bounded } from "./helpers/processes";

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
    connect(byteChannel(socket, socket, framing()), { methods });
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  try {
    const socket = tcp((listener.address() as AddressInfo).port, "127.0.0.1");
    const peer = connect(byteChannel(socket, socket, framing()), { methods });
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

// ---------------------------------------------------------------------------------- ends

/** A TCP server on the loopback interface that hands each accepted socket to `accept`. */
const listening = async (accept: (socket: Socket) => void): Promise<[Server, number]> => {
  const server = createServer(accept);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return [server, (server.address() as AddressInfo).port];
};

/**
 * Waits for `close` (bounded). Not `events.once`, which listens for `error` too: the tests here
 * must see what happens to an error that nobody but the channel listens for.
 */
const closing = (
  stream: { readonly closed: boolean; once(event: "close", listener: () => void): unknown },
  what: string,
): Promise<void> =>
  bounded(new Promise<void>((resolve) => (stream.closed ? resolve() : stream.once("close", () => resolve()))), what);

/** What a socket's or pipe's error was, by its code. */
const code = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

describe("byteChannel: a stream error at any time only closes the connection", () => {
  test("a TCP client resets while the server's connection is open: closed resolves with ECONNRESET", async () => {
    let accepted: Socket | undefined;
    let server: Connection | undefined;
    const [listener, port] = await listening((socket) => {
      accepted = socket;
      server = connect(byteChannel(socket, socket), { methods });
    });
    try {
      const socket = tcp(port, "127.0.0.1");
      socket.write('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}\n');
      await bounded(once(socket, "data"), "the answer");
      socket.resetAndDestroy();
      const reason = await bounded(server?.closed ?? Promise.reject(new Error("no connection")), "the close");
      expect(code(reason)).toBe("ECONNRESET");
    } finally {
      accepted?.destroy();
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  test("a TCP client resets after the server's connection closed: no uncaught exception", async () => {
    let accepted: Socket | undefined;
    let server: Connection | undefined;
    const [listener, port] = await listening((socket) => {
      accepted = socket;
      server = connect(byteChannel(socket, socket), { methods });
    });
    try {
      // Half-open, so that it does not answer the server's end with its own before it resets.
      const socket = tcp({ port, host: "127.0.0.1", allowHalfOpen: true });
      socket.write('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}\n');
      await bounded(once(socket, "data"), "the answer");
      socket.on("end", () => socket.resetAndDestroy());
      server?.close(new Error("the server is done"));
      await expect(server?.closed).resolves.toEqual(new Error("the server is done"));
      // The reset reaches the socket the connection no longer uses: its error goes to the sink.
      await closing(accepted as Socket, "the server's socket to close");
      expect(code(accepted?.errored)).toBe("ECONNRESET");
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  test("an error before the connection starts is kept: the connection closes with it at once", async () => {
    const [listener, port] = await listening(() => undefined);
    await new Promise((resolve) => listener.close(resolve)); // nothing listens on `port` now
    const socket = tcp(port, "127.0.0.1");
    const channel = byteChannel(socket, socket);
    await closing(socket, "the refused socket to close");
    const peer = connect(channel, { methods });
    expect(code(await bounded(peer.closed, "the close"))).toBe("ECONNREFUSED");
    expect(await client(api, peer.transport).add(1, 2)()).toEqual(
      E.left(expect.objectContaining({ _tag: "TransportError", reason: "closed" })),
    );
  });

  const children: ChildProcessByStdio<Writable, Readable, Readable>[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });

  /**
   * A child process that never reads its stdin, and closes it (its stdout stays open) at once, or
   * when sent SIGUSR2; resolves once it is ready.
   */
  const deaf = async (closeAt: "start" | "SIGUSR2") => {
    const close = "require('node:fs').closeSync(0)";
    const child = spawn(
      process.execPath,
      [
        "-e",
        `${closeAt === "start" ? close : `process.on('SIGUSR2', () => ${close})`}; process.stderr.write('ready'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    children.push(child);
    await bounded(once(child.stderr, "data"), "the child to start");
    return child;
  };

  /** Sends 400 KiB of notifications: more than a pipe and the stream's buffer hold, so writes are pending. */
  const flood = (peer: Connection): void => {
    const calls = client(api, peer.transport);
    for (let i = 0; i < 100; i++) void notify(calls.pushed("x".repeat(4096)))();
  };

  test("a child process stops reading its stdin while the parent writes: the connection closes with EPIPE", async () => {
    const child = await deaf("start");
    const peer = connect(byteChannel(child.stdout, child.stdin), { methods });
    flood(peer);
    expect(code(await bounded(peer.closed, "the close"))).toBe("EPIPE");
  });

  test("a child's stdin fails after the connection closed, with writes still pending: no uncaught exception", async () => {
    const child = await deaf("SIGUSR2");
    const peer = connect(byteChannel(child.stdout, child.stdin), { methods });
    flood(peer);
    peer.close(new Error("done with the child"));
    await expect(peer.closed).resolves.toEqual(new Error("done with the child"));
    child.kill("SIGUSR2");
    await closing(child.stdin, "the child's stdin to close");
    expect(code(child.stdin.errored)).toBe("EPIPE");
  });

  test("a child process exits while the parent writes to its stdin: the connection closes, nothing else", async () => {
    const child = spawn(
      process.execPath,
      ["-e", "process.stdin.once('data', () => process.exit(0)); setInterval(() => {}, 1000)"],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    const peer = connect(byteChannel(child.stdout, child.stdin), { methods });
    flood(peer);
    // EPIPE, or the end of its stdout: whichever Node sees first.
    expect(await bounded(peer.closed, "the close")).toBeInstanceOf(Error);
    await closing(child.stdin, "the child's stdin to close");
  });
});

describe("channels that are over before or without a close event", () => {
  test("a socket destroyed before connect: the connection closes at once, calls fail closed", async () => {
    const [listener, port] = await listening((socket) => socket.destroy());
    try {
      const socket = tcp(port, "127.0.0.1");
      socket.destroy();
      await closing(socket, "the socket to close");
      const peer = connect(byteChannel(socket, socket), { methods });
      expect(await bounded(peer.closed, "the close")).toEqual(
        new Error("the stream was already closed when the channel started"),
      );
      expect(await client(api, peer.transport).add(1, 2)()).toEqual(
        E.left(expect.objectContaining({ _tag: "TransportError", reason: "closed" })),
      );
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  test("a child process that has exited before connect: the connection closes at once", async () => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: ["pipe", "pipe", "inherit"] });
    await bounded(once(child, "close"), "the child to exit");
    await closing(child.stdin, "the child's stdin to close"); // Node destroys it on exit
    const peer = connect(byteChannel(child.stdout, child.stdin), { methods });
    expect(await bounded(peer.closed, "the close")).toBeInstanceOf(Error);
  });

  test("a Worker that exits ends the connection; the call it took fails closed", async () => {
    const worker = new Worker("require('node:worker_threads').parentPort.once('message', () => process.exit(3));", {
      eval: true,
    });
    const peer = connect(messagePort(worker), { methods });
    const answer = await bounded(client(api, peer.transport).add(1, 2)(), "the call to settle");
    expect(answer).toEqual(E.left(expect.objectContaining({ _tag: "TransportError", reason: "closed" })));
    expect(await bounded(peer.closed, "the close")).toEqual(new Error("the worker exited (3)"));
  });

  test("a Worker that throws ends the connection with its error, and the host does not crash", async () => {
    const worker = new Worker("throw new Error('the worker broke')", { eval: true });
    // Listened for before anything is awaited: the worker may exit before `closed` is seen to settle.
    // Not `events.once`, which would reject with the worker's `error` that comes first.
    const exited = new Promise<number>((resolve) => worker.once("exit", resolve));
    const peer = connect(messagePort(worker), { methods });
    const reason = await bounded(peer.closed, "the close");
    expect((reason as Error).message).toBe("the worker broke");
    await bounded(exited, "the worker to exit");
  });
});

describe("a standard WebSocket's binary frames", () => {
  /**
   * The `ws` client as the standard WebSocket shows itself: only the standard members, Blobs for
   * binary frames by default; `fixed` keeps `binaryType` at "blob" whatever is set.
   */
  const standard = (socket: WebSocket, fixed = false): WebSocketLike => {
    const typed = socket as { binaryType: string }; // @types/ws lacks "blob", which ws 8.18 added
    typed.binaryType = "blob";
    return {
      get readyState() {
        return socket.readyState;
      },
      get bufferedAmount() {
        return socket.bufferedAmount;
      },
      get binaryType() {
        return typed.binaryType;
      },
      set binaryType(type: string) {
        if (!fixed) typed.binaryType = type;
      },
      send: (data) => socket.send(data),
      close: (code, reason) => socket.close(code, reason),
      addEventListener: (type: string, listener: (event: never) => void) =>
        socket.addEventListener(type as "message", listener as () => void),
    };
  };

  /** A `ws` server that answers each request with `add`'s sum, in a binary frame. */
  const binaryServer = async (): Promise<[WebSocketServer, string]> => {
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await once(wss, "listening");
    wss.on("connection", (socket) =>
      socket.on("message", (data: Buffer) => {
        const { id, params } = JSON.parse(data.toString("utf8")) as { id: number; params: [number, number] };
        socket.send(Buffer.from(JSON.stringify({ jsonrpc: "2.0", result: params[0] + params[1], id })), {
          binary: true,
        });
      }),
    );
    return [wss, `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`];
  };

  /** Closes the server and every client it has (which `close` alone waits for). */
  const shut = (wss: WebSocketServer): Promise<unknown> => {
    for (const socket of wss.clients) socket.terminate();
    return new Promise((resolve) => wss.close(resolve));
  };

  test("an answer in a binary frame settles the call (the channel reads bytes, not Blobs)", async () => {
    const [wss, url] = await binaryServer();
    try {
      const peer = connect(webSocket(standard(new WebSocket(url))), { methods });
      expect(await bounded(client(api, peer.transport).add(2, 3)(), "the answer")).toEqual(E.right(5));
      peer.close();
    } finally {
      await shut(wss);
    }
  });

  test("data that is neither text nor bytes closes the channel with the reason; the call fails closed", async () => {
    const [wss, url] = await binaryServer();
    try {
      const peer = connect(webSocket(standard(new WebSocket(url), true)), { methods });
      const answer = await bounded(client(api, peer.transport).add(2, 3)(), "the call to settle");
      expect(answer).toEqual(E.left(expect.objectContaining({ _tag: "TransportError", reason: "closed" })));
      expect(String(await peer.closed)).toMatch(/neither text nor bytes \(Blob\)/);
    } finally {
      await shut(wss);
    }
  });
});
