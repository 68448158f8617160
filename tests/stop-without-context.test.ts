/**
 * A server given no context, or a context that is not a plain object (so that it cannot gain a
 * `signal`), still stops a streaming method at its next `yield` when its client goes away or the
 * service stops (issue 32, item 1: "cancellations, disconnects and time-outs stop it at its next
 * yield, on every wire"). Found by a hostile peer on the built package: the development server as
 * `npx rpcserver methods.ts` starts it (no context) kept an endless generator running at 100% CPU
 * for ever after its client reset, half-closed or closed the connection of a plain JSON POST, or
 * of an event stream whose body held a notification; `serveNats` without a `context` function never
 * resolved `stop()` while such a method ran. The signal reached only a plain-object context: the
 * stream's end did not need it (a connection ends the stream itself, whatever its context).
 *
 * Real sockets, a real nats-server; each case waits for the method's `finally`, bounded by a
 * safety time that only a method never stopped reaches.
 */
import * as E from "fp-ts/Either";
import * as net from "node:net";
import { Success, type Call } from "../src";
import { connect as connectPeer, contentLength, byteChannel } from "../src/connection";
import { serveNats } from "../src/nats";
import { serve } from "../src/server";
import { connect, type TestConnection } from "./fixtures/nats.cjs";
import { startNatsServer, type NatsServer } from "./fixtures/nats-server.cjs";
import { bounded } from "./helpers/processes";
import { recordLogs } from "./support";

const SAFETY_MS = 10_000;

/**
 * Where the method ends by itself: reached only by one never stopped (a few seconds of values), so
 * that without the mend the case fails there rather than spin the test process for ever.
 */
const LIMIT = 20_000_000;

/** A method whose instances are counted as they start and as their `finally` runs. */
const probe = () => {
  let started = (): void => undefined;
  let finished = (_at: number): void => undefined;
  const run = {
    started: new Promise<void>((resolve) => (started = resolve)),
    /** How many values it had yielded when its `finally` ran. */
    finished: new Promise<number>((resolve) => (finished = resolve)),
  };
  const methods = {
    forever: async function* () {
      started();
      let i = 0;
      try {
        // Values already in memory: it never waits on I/O, and ends by itself only at LIMIT.
        while (i < LIMIT) yield i++;
      } finally {
        finished(i);
      }
      return Success("exhausted");
    },
    ping: () => Success("pong"),
  };
  return { run, methods };
};

/** A context of the user's own that is not a plain object: it cannot gain a `signal`. */
class Session {
  readonly user = "someone";
}

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => (logs = recordLogs()));
afterEach(() => logs.restore());

/** One POST on a raw socket, left by `leave` once the method runs. */
const postAndLeave = async (port: number, body: string, accept: string, leave: (socket: net.Socket) => void) => {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  socket.resume();
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  socket.write(
    `POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: ${accept}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  return () => leave(socket);
};

const FOREVER = JSON.stringify({ jsonrpc: "2.0", method: "forever", params: [], id: 1 });
const NOTIFIED = JSON.stringify([
  { jsonrpc: "2.0", method: "forever" },
  { jsonrpc: "2.0", method: "ping", id: 2 },
]);

describe.each([
  ["no context", undefined],
  ["a class instance as context", new Session()],
])("the development server with %s", (_name, context) => {
  test.each([
    ["a plain JSON POST, the client resets", FOREVER, "application/json", (s: net.Socket) => s.resetAndDestroy()],
    ["a plain JSON POST, the client closes", FOREVER, "application/json", (s: net.Socket) => s.destroy()],
    ["a plain JSON POST, the client half-closes", FOREVER, "application/json", (s: net.Socket) => s.end()],
    [
      "a notification in an event stream's body, the client resets",
      NOTIFIED,
      "text/event-stream",
      (s: net.Socket) => s.resetAndDestroy(),
    ],
  ])("%s: the endless stream stops (its finally runs)", async (_case, body, accept, leave) => {
    const { run, methods } = probe();
    const server = await serve("127.0.0.1", 0, {
      methods,
      inspector: false,
      ...(context === undefined ? {} : { context }),
    } as never);
    try {
      const left = await postAndLeave(server.port, body, accept, leave);
      await bounded(run.started, "the method to start", SAFETY_MS);
      left();
      expect(await bounded(run.finished, "the method's finally after its client left", SAFETY_MS)).toBeLessThan(LIMIT);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe("serveNats without a context function", () => {
  let natsServer: NatsServer;
  let serving: TestConnection;
  let calling: TestConnection;
  beforeAll(async () => {
    natsServer = await startNatsServer();
    [serving, calling] = await Promise.all([connect(natsServer.url), connect(natsServer.url)]);
  });
  afterAll(async () => {
    await Promise.all([serving.close(), calling.close()]);
    await natsServer.stop();
  });

  test("stop() stops a plain request's endless stream, answers it -32800 and resolves", async () => {
    const { run, methods } = probe();
    const service = await serveNats(serving, methods, { name: "bare", version: "1.0.0", subject: "rpc.bare" });
    const answer = calling.request("rpc.bare", FOREVER, { timeout: SAFETY_MS }).then((message) => message.string());
    await bounded(run.started, "the method to start", SAFETY_MS);
    await bounded(service.stop(), "stop() to resolve", SAFETY_MS);
    expect(await bounded(run.finished, "the method's finally", SAFETY_MS)).toBeLessThan(LIMIT);
    expect(JSON.parse(await answer)).toEqual({
      jsonrpc: "2.0",
      error: { code: -32800, message: "Request cancelled" },
      id: 1,
    });
  });
});

describe("a connection with no context and a stage that passes a new request object on", () => {
  test("a $/cancelRequest stops the endless stream (its end follows the new object, as a sink does)", async () => {
    const { run, methods } = probe();
    const copying = (call: Call) => E.right({ ...call, request: { ...call.request } });
    const server = net.createServer((socket) => {
      socket.on("error", () => undefined);
      connectPeer(byteChannel(socket, socket, contentLength()), { methods, cancellation: "lsp", stages: [copying] });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const socket = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
    socket.on("error", () => undefined);
    socket.resume();
    const send = (message: object): void => {
      const text = JSON.stringify(message);
      socket.write(`Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
    };
    try {
      send({ jsonrpc: "2.0", method: "forever", params: {}, id: 1 });
      await bounded(run.started, "the method to start", SAFETY_MS);
      send({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } });
      expect(await bounded(run.finished, "the method's finally after the cancel", SAFETY_MS)).toBeLessThan(LIMIT);
    } finally {
      socket.destroy();
      server.close();
    }
  });
});
