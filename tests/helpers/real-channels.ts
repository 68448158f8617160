/**
 * Real channels for connection tests, in this process: two ends joined by a TCP socket on the
 * loopback interface (newline-delimited or Content-Length framing), by a `ws` WebSocket, or by a
 * `worker_threads` MessageChannel. Unlike the in-memory pair (tests/helpers/channels.ts), these
 * pause the way Node does: a chunk already read is delivered whole, and what the kernel held
 * arrives as one chunk on resume.
 *
 * Also: a raw socket to one connection (the test writes frames itself, coalesced into one burst
 * or split at every byte, and reads the frames that come back), and a frame reader written here,
 * independent of src/framing.ts, to watch the wire.
 *
 * Every wait is bounded; every socket, server and port made here is closed by `dispose`.
 */
import { once } from "node:events";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { WebSocket, WebSocketServer } from "ws";
import {
  contentLength,
  messagePort,
  newlineDelimited,
  byteChannel,
  webSocket,
  type Channel,
  type Framing,
} from "../../src/connection";

/** The loopback address every socket here uses. */
export const HOST = "127.0.0.1";

/** Upper bound of a single wait here (a socket connecting or closing). */
const WAIT_MS = 10_000;

/** The kinds of real channel. */
export type Kind = "tcp-newline" | "tcp-content-length" | "ws" | "ports";
export const KINDS: readonly Kind[] = ["tcp-newline", "tcp-content-length", "ws", "ports"];

/** A framing on a byte stream, by name. */
export type FramingName = "newline" | "contentLength";

export const framingOf = (name: FramingName): Framing => (name === "newline" ? newlineDelimited() : contentLength());

/** One message's frame, as bytes (written here, not by src/framing.ts). */
export const frame = (name: FramingName, text: string): Buffer => {
  const body = Buffer.from(text, "utf8");
  return name === "newline"
    ? Buffer.concat([body, Buffer.from("\n")])
    : Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]);
};

/** Rejects after `ms` with `what` in the message, unless `promise` settles first. */
export const bounded = <T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
};

/**
 * A reader of frames from raw bytes (newline-delimited or Content-Length), independent of the
 * library's framing: feed it chunks, it calls `message` with each whole message's text.
 */
export const frameReader = (name: FramingName, message: (text: string) => void): ((chunk: Buffer) => void) => {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (name === "newline") {
        const at = pending.indexOf(0x0a);
        if (at === -1) return;
        const line = pending.subarray(0, at).toString("utf8").replace(/\r$/, "");
        pending = pending.subarray(at + 1);
        if (line.trim() !== "") message(line);
      } else {
        const end = pending.indexOf("\r\n\r\n");
        if (end === -1) return;
        const head = pending.subarray(0, end).toString("ascii");
        const length = /content-length:\s*(\d+)/i.exec(head);
        if (length === null) throw new Error(`a frame without Content-Length: ${JSON.stringify(head)}`);
        const size = Number(length[1]);
        if (pending.length < end + 4 + size) return;
        message(pending.subarray(end + 4, end + 4 + size).toString("utf8"));
        pending = pending.subarray(end + 4 + size);
      }
    }
  };
};

/** Two ends of a real channel, each for one `connect`. */
export interface RealPair {
  readonly kind: Kind;
  readonly channels: readonly [Channel, Channel];
  /** The sockets under the TCP kinds (index as `channels`), to tap or to end, reset or pause. */
  readonly sockets?: readonly [net.Socket, net.Socket];
  /** What is under `channels[1]` (the `ws` client, the second port), for a test that drives it raw. */
  readonly raw?: unknown;
  /** Closes everything under the pair (sockets, server, ports) and waits for it to be closed. */
  readonly dispose: () => Promise<void>;
}

/** A connected pair of TCP sockets on the loopback interface (the listening server is closed). */
export const socketPair = async (): Promise<[net.Socket, net.Socket]> => {
  const server = net.createServer();
  server.listen(0, HOST);
  await bounded(once(server, "listening"), "a server to listen");
  const { port } = server.address() as AddressInfo;
  const accepted = bounded(once(server, "connection"), "a connection to be accepted") as Promise<[net.Socket]>;
  const near = net.connect(port, HOST);
  await bounded(once(near, "connect"), "a socket to connect");
  const [far] = await accepted;
  // Stops listening now (its callback would wait for the connections to end).
  server.close();
  for (const socket of [near, far]) socket.setNoDelay(true);
  return [near, far];
};

/** Destroys a socket and waits for its `close` (bounded). */
export const destroySocket = async (socket: net.Socket): Promise<void> => {
  if (socket.closed) return;
  const closed = once(socket, "close");
  socket.destroy();
  await bounded(closed, "a socket to close");
};

/** Two connection ends over one TCP connection on 127.0.0.1, with the named framing on both. */
export const tcpPair = async (name: FramingName): Promise<RealPair> => {
  const sockets = await socketPair();
  const [near, far] = sockets;
  return {
    kind: name === "newline" ? "tcp-newline" : "tcp-content-length",
    channels: [byteChannel(near, near, framingOf(name)), byteChannel(far, far, framingOf(name))],
    sockets,
    dispose: async () => {
      await Promise.all(sockets.map(destroySocket));
    },
  };
};

/** Two connection ends over one `ws` WebSocket on 127.0.0.1 (server end first). */
export const wsPair = async (): Promise<RealPair> => {
  const server = new WebSocketServer({ host: HOST, port: 0 });
  await bounded(once(server, "listening"), "a WebSocket server to listen");
  const { port } = server.address() as AddressInfo;
  const accepted = bounded(once(server, "connection"), "a WebSocket to be accepted") as Promise<[WebSocket]>;
  const near = new WebSocket(`ws://${HOST}:${port}`);
  await bounded(once(near, "open"), "a WebSocket to open");
  const [far] = await accepted;
  const closeOne = async (socket: WebSocket): Promise<void> => {
    if (socket.readyState === WebSocket.CLOSED) return;
    const closed = once(socket, "close");
    socket.terminate();
    await bounded(closed, "a WebSocket to close");
  };
  return {
    kind: "ws",
    channels: [webSocket(far as never), webSocket(near as never)],
    raw: near,
    dispose: async () => {
      await Promise.all([closeOne(near), closeOne(far)]);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/** Two connection ends over a `worker_threads` MessageChannel (in this thread). */
export const portsPair = (): Promise<RealPair> => {
  const { port1, port2 } = new MessageChannel();
  // Closing either port closes both; each says `close` once (listened for now, whoever closes).
  const closed = Promise.all([once(port1, "close"), once(port2, "close")]);
  return Promise.resolve({
    kind: "ports",
    channels: [messagePort(port1), messagePort(port2)],
    raw: port2,
    dispose: async () => {
      port1.close();
      await bounded(closed, "the ports to close");
    },
  });
};

/** A pair of the given kind. */
export const realPair = (kind: Kind): Promise<RealPair> =>
  kind === "tcp-newline"
    ? tcpPair("newline")
    : kind === "tcp-content-length"
      ? tcpPair("contentLength")
      : kind === "ws"
        ? wsPair()
        : portsPair();

/**
 * One connection end (`channel`, for `connect`) whose other end the test drives raw: it sends
 * messages itself (`burst`: as coalesced as the kind allows: one write on a socket, frames sent in
 * one tick on a WebSocket or a port; `split`, on sockets only: one byte per write) and reads the
 * messages that come back (`received`, `until`).
 */
export interface RawEnd {
  readonly kind: Kind;
  /** The channel for `connect`. */
  readonly channel: Channel;
  /** Every message the connection sent to the raw end, parsed, in order. */
  readonly received: unknown[];
  /** Sends these messages all at once. */
  readonly burst: (texts: readonly string[]) => Promise<void>;
  /** Whether the raw end has seen its channel close. */
  readonly isClosed: () => boolean;
  /** Waits until `received` satisfies `done` (bounded; the raw end closing first rejects). */
  readonly until: (done: (received: unknown[]) => boolean, what: string, ms?: number) => Promise<void>;
  readonly dispose: () => Promise<void>;
}

/** A raw end on a socket: it can also write split at every byte. */
export interface RawSocketEnd extends RawEnd {
  /** The connection's own socket. */
  readonly socket: net.Socket;
  /** The test's socket. */
  readonly raw: net.Socket;
  /** Writes these messages as frames, one byte per write (each write waited for). */
  readonly split: (texts: readonly string[]) => Promise<void>;
}

/** What every raw end shares: the received list, its waiters and `until`. */
const receiver = (
  isClosed: () => boolean,
): {
  readonly received: unknown[];
  readonly push: (text: string) => void;
  readonly wake: () => void;
  readonly until: RawEnd["until"];
} => {
  const received: unknown[] = [];
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const waiter of [...waiters]) waiter();
  };
  return {
    received,
    push: (text) => {
      received.push(JSON.parse(text) as unknown);
      wake();
    },
    wake,
    until: (done, what, ms = WAIT_MS) => {
      let check: () => void = () => undefined;
      return bounded(
        new Promise<void>((resolve, reject) => {
          check = (): void => {
            if (done(received)) resolve();
            else if (isClosed()) reject(new Error(`the channel closed before ${what} (${received.length} received)`));
          };
          waiters.add(check);
          check();
        }),
        `${what} (${received.length} received so far)`,
        ms,
      ).finally(() => waiters.delete(check));
    },
  };
};

/** A raw writer to any byte stream: one frame per message, coalesced or split at every byte. */
export const rawWriter = (
  name: FramingName,
  writable: { write: (bytes: Buffer, done: (error?: Error | null) => void) => boolean },
): {
  readonly burst: (texts: readonly string[]) => Promise<void>;
  readonly split: (texts: readonly string[]) => Promise<void>;
} => {
  const put = (bytes: Buffer): Promise<void> =>
    new Promise((resolve, reject) => writable.write(bytes, (error) => (error ? reject(error) : resolve())));
  return {
    burst: (texts) => put(Buffer.concat(texts.map((text) => frame(name, text)))),
    split: async (texts) => {
      const bytes = Buffer.concat(texts.map((text) => frame(name, text)));
      for (let i = 0; i < bytes.length; i++) await put(bytes.subarray(i, i + 1));
    },
  };
};

/** A connection end on a TCP socket, the other end a raw socket. */
export const rawSocketEnd = async (name: FramingName): Promise<RawSocketEnd> => {
  const [socket, raw] = await socketPair();
  let closed = false;
  const { received, push, wake, until } = receiver(() => closed);
  raw.on("data", frameReader(name, push));
  raw.on("end", () => ((closed = true), wake()));
  raw.on("close", () => ((closed = true), wake()));
  // The raw end's own errors (a reset by the connection) are the test's, not the library's.
  raw.on("error", () => undefined);
  const writer = rawWriter(name, { write: (bytes, done) => raw.write(bytes, done) });
  return {
    kind: name === "newline" ? "tcp-newline" : "tcp-content-length",
    channel: byteChannel(socket, socket, framingOf(name)),
    socket,
    raw,
    received,
    burst: writer.burst,
    split: writer.split,
    isClosed: () => closed,
    until,
    dispose: async () => {
      await Promise.all([destroySocket(socket), destroySocket(raw)]);
    },
  };
};

/** A connection end on a `ws` WebSocket (the server's), the other end a raw `ws` client. */
export const rawWebSocketEnd = async (): Promise<RawEnd> => {
  const pair = await wsPair();
  const raw = pair.raw as WebSocket;
  let closed = false;
  const { received, push, wake, until } = receiver(() => closed);
  raw.on("message", (data: Buffer) => push(data.toString("utf8")));
  raw.on("close", () => ((closed = true), wake()));
  return {
    kind: "ws",
    channel: pair.channels[0],
    received,
    burst: (texts) => {
      for (const text of texts) raw.send(text);
      return Promise.resolve();
    },
    isClosed: () => closed,
    until,
    dispose: pair.dispose,
  };
};

/** A connection end on a `worker_threads` port, the other end the raw port. */
export const rawPortEnd = async (): Promise<RawEnd> => {
  const pair = await portsPair();
  const raw = pair.raw as MessagePort;
  let closed = false;
  const { received, push, wake, until } = receiver(() => closed);
  raw.on("message", (data: unknown) => push(String(data)));
  raw.on("close", () => ((closed = true), wake()));
  return {
    kind: "ports",
    channel: pair.channels[0],
    received,
    burst: (texts) => {
      for (const text of texts) raw.postMessage(text);
      return Promise.resolve();
    },
    isClosed: () => closed,
    until,
    dispose: pair.dispose,
  };
};

/** A raw end of the given kind. */
export const rawEnd = (kind: Kind): Promise<RawEnd> =>
  kind === "tcp-newline"
    ? rawSocketEnd("newline")
    : kind === "tcp-content-length"
      ? rawSocketEnd("contentLength")
      : kind === "ws"
        ? rawWebSocketEnd()
        : rawPortEnd();

/** Counts of this process's active resources (handles and requests), by type. */
export const resources = (): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const name of process.getActiveResourcesInfo()) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
};

/** Resource types that jest and the tty hold and that come and go on their own. */
const IGNORED = new Set(["TTYWrap", "FSReqCallback", "FSReqPromise", "PipeWrap", "ProcessWrap", "SignalWrap"]);

/** The resources in `after` beyond those in `before` (ignoring jest's own), as "type: +n". */
export const leftOver = (before: Map<string, number>, after: Map<string, number>): string[] =>
  [...after]
    .filter(([name, count]) => !IGNORED.has(name) && count > (before.get(name) ?? 0))
    .map(([name, count]) => `${name}: +${count - (before.get(name) ?? 0)}`);

/** Waits a macrotask (and the microtasks before it). */
export const tick = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
