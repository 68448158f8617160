/**
 * The channels on the real things, at the channel level (no connection above them): TCP sockets
 * and a child process's pipes with both framings, `ws` WebSockets, and a `worker_threads` Worker.
 * Writes come coalesced into one burst (what a kernel delivers after a pause) and, on byte
 * streams, split at every byte (each byte read as its own chunk): every message arrives intact
 * and in order. WebSockets and ports carry whole messages, so only bursts apply to them.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { createServer, connect as tcp, type AddressInfo, type Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { Worker } from "node:worker_threads";
import { WebSocket, WebSocketServer } from "ws";
import {
  contentLength,
  messagePort,
  newlineDelimited,
  byteChannel,
  webSocket,
  type Channel,
  type Framing,
} from "../src/connection";
import { bounded } from "./helpers/processes";

/** Many small messages, multi-byte characters, and a few large ones that span many chunks. */
const burst: readonly string[] = [
  ...Array.from({ length: 2000 }, (_, i) => JSON.stringify({ jsonrpc: "2.0", method: "n", params: [i] })),
  JSON.stringify({ jsonrpc: "2.0", method: "héllo €𝄞", params: ["\u00e9\r\n", "\ud83d\ude00"], id: "u" }),
  ...Array.from({ length: 3 }, (_, i) => JSON.stringify({ jsonrpc: "2.0", result: `${i}`.repeat(300_000), id: i })),
  "[]",
];

/** A few messages, small enough to send one byte at a time. */
const few: readonly string[] = [
  '{"jsonrpc":"2.0","method":"a","id":1}',
  JSON.stringify({ jsonrpc: "2.0", method: "héllo €𝄞", params: ["\u00e9"], id: 2 }),
  "{}",
];

/** A started channel's messages, and its end. */
interface Received {
  readonly messages: string[];
  readonly closed: Promise<unknown>;
  /** Resolves once `count` messages have come (bounded). */
  readonly until: (count: number) => Promise<void>;
}

const receive = (channel: Channel): Received => {
  const messages: string[] = [];
  const waiting: Array<[number, () => void]> = [];
  let closedWith: (reason: unknown) => void = () => undefined;
  const closed = new Promise<unknown>((resolve) => (closedWith = resolve));
  channel.start({
    message: (text) => {
      messages.push(text);
      for (const [count, resolve] of waiting) if (messages.length >= count) resolve();
    },
    oversize: (bytes) => messages.push(`oversize ${bytes}`),
    drain: () => undefined,
    closed: (reason) => closedWith(reason),
  });
  const until = (count: number): Promise<void> =>
    bounded(
      Promise.race([
        new Promise<void>((resolve) => (messages.length >= count ? resolve() : waiting.push([count, resolve]))),
        closed.then((reason) => Promise.reject(new Error(`closed after ${messages.length}: ${String(reason)}`))),
      ]),
      `${count} messages (${messages.length} so far)`,
    );
  return { messages, closed, until };
};

/** Sends every message at once, in one synchronous loop: the writes coalesce. */
const sendAll = (channel: Channel, texts: readonly string[]): void => {
  for (const text of texts) channel.send(text);
};

/**
 * Writes `bytes` one at a time, each after the last has been read on the other side (`read(n)`
 * settles once n bytes have been read there), so that each is a chunk of its own.
 */
const trickle = async (
  write: (byte: Uint8Array) => void,
  read: (bytes: number) => Promise<void>,
  bytes: Uint8Array,
): Promise<void> => {
  for (let i = 0; i < bytes.length; i++) {
    write(bytes.subarray(i, i + 1));
    await bounded(read(i + 1), `byte ${i} to be read`);
  }
};

/** The frames of `texts` under `framing`, as the bytes a peer writes. */
const framed = (framing: Framing, texts: readonly string[]): Uint8Array =>
  new TextEncoder().encode(texts.map((text) => framing.encode(text)).join(""));

/** Counts the bytes a stream delivers (beside the channel, which reads them too): `read(n)` settles at n. */
const counted = (stream: Readable): ((bytes: number) => Promise<void>) => {
  let bytes = 0;
  let waiting: [number, () => void] | undefined;
  stream.on("data", (chunk: Uint8Array) => {
    bytes += chunk.length;
    if (waiting !== undefined && bytes >= waiting[0]) waiting[1]();
  });
  return (count) => new Promise<void>((resolve) => (bytes >= count ? resolve() : (waiting = [count, resolve])));
};

const framings = [
  ["newline-delimited", newlineDelimited],
  ["Content-Length", contentLength],
] as const;

describe.each(framings)("TCP sockets, %s", (_name, framing) => {
  let server: ReturnType<typeof createServer>;
  let accepted: Promise<Socket>;
  let sockets: Socket[] = [];

  beforeEach(async () => {
    sockets = [];
    server = createServer();
    accepted = new Promise((resolve) =>
      server.once("connection", (socket: Socket) => {
        sockets.push(socket);
        resolve(socket);
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });

  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const dial = (): Socket => {
    const socket = tcp((server.address() as AddressInfo).port, "127.0.0.1").setNoDelay(true);
    sockets.push(socket);
    return socket;
  };

  test("a burst each way arrives whole and in order", async () => {
    const near = dial();
    const nearChannel = byteChannel(near, near, framing());
    const nearSeen = receive(nearChannel);
    sendAll(nearChannel, burst); // before the socket has even connected
    const far = await bounded(accepted, "the connection");
    const farChannel = byteChannel(far, far, framing());
    const farSeen = receive(farChannel);
    sendAll(farChannel, burst);
    await Promise.all([nearSeen.until(burst.length), farSeen.until(burst.length)]);
    expect(farSeen.messages).toEqual(burst);
    expect(nearSeen.messages).toEqual(burst);
  });

  test("messages written one byte at a time arrive whole and in order", async () => {
    const near = dial();
    const far = await bounded(accepted, "the connection");
    const read = counted(far);
    const seen = receive(byteChannel(far, far, framing()));
    await trickle((byte) => near.write(byte), read, framed(framing(), few));
    await seen.until(few.length);
    expect(seen.messages).toEqual(few);
  });
});

describe.each(framings)("a child process's pipes, %s", (_name, framing) => {
  let child: ChildProcessByStdio<Writable, Readable, null>;

  beforeEach(() => {
    // The child echoes its stdin to its stdout as it reads it.
    child = spawn(process.execPath, ["-e", "process.stdin.pipe(process.stdout)"], {
      stdio: ["pipe", "pipe", "inherit"],
    });
  });

  afterEach(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await bounded(once(child, "exit"), "the child to exit");
    }
  });

  test("a burst arrives whole and in order (through the child and back)", async () => {
    const channel = byteChannel(child.stdout, child.stdin, framing());
    const seen = receive(channel);
    sendAll(channel, burst);
    await seen.until(burst.length);
    expect(seen.messages).toEqual(burst);
  });

  test("messages written one byte at a time arrive whole and in order", async () => {
    const read = counted(child.stdout);
    const seen = receive(byteChannel(child.stdout, child.stdin, framing()));
    await trickle((byte) => child.stdin.write(byte), read, framed(framing(), few));
    await seen.until(few.length);
    expect(seen.messages).toEqual(few);
  });
});

test("WebSockets (ws): a burst each way, text and binary frames, arrives whole and in order", async () => {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await bounded(once(wss, "listening"), "the server to listen");
  const accepted = bounded(once(wss, "connection"), "the connection") as Promise<[WebSocket]>;
  const near = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  try {
    const nearChannel = webSocket(near);
    const nearSeen = receive(nearChannel);
    sendAll(nearChannel, burst); // held until the socket opens
    const [far] = await accepted;
    const farSeen = receive(webSocket(far));
    // Binary frames too: read as UTF-8.
    for (const text of burst) far.send(Buffer.from(text), { binary: true });
    await Promise.all([nearSeen.until(burst.length), farSeen.until(burst.length)]);
    expect(farSeen.messages).toEqual(burst);
    expect(nearSeen.messages).toEqual(burst);
  } finally {
    for (const socket of wss.clients) socket.terminate();
    near.terminate();
    await new Promise((resolve) => wss.close(resolve));
  }
});

test("a worker_threads Worker: a burst arrives whole and in order (through the worker and back)", async () => {
  const worker = new Worker(
    "const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => parentPort.postMessage(m));",
    { eval: true },
  );
  try {
    const channel = messagePort(worker);
    const seen = receive(channel);
    sendAll(channel, burst);
    await seen.until(burst.length);
    expect(seen.messages).toEqual(burst);
  } finally {
    await worker.terminate();
  }
});
