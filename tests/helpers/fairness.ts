/**
 * The wires of tests/streams-fairness.test.ts (issue 32, item 1): each serves a streaming method
 * that may never wait on I/O, on real sockets (the development server over HTTP, JSON and event
 * stream; connections on TCP under both conventions; `serveNats` on a real nats-server) or through
 * `local`, and a second client's `ping`. A {@link Probe} is the generator: it counts its values,
 * says when it has started and when its `finally` has run, and ends by itself at {@link LIMIT}
 * values, so that a loop that never gives the event loop a turn makes a test fail (the second
 * client answered only after LIMIT values) rather than hang the test process.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { answerHttp, contract, Success, timeout, type Result } from "../../src";
import { client, local, open, withOptions } from "../../src/client";
import { connect, byteChannel, type Cancellation, type Connection } from "../../src/connection";
import { MAX_STEPS } from "../../src/internal/core/turns";
import { natsTransport, serveNats, type NatsService } from "../../src/nats";
import { connect as natsConnect, type TestConnection } from "../fixtures/nats.cjs";
import { startNatsServer, type NatsServer } from "../fixtures/nats-server.cjs";
import { devServer, serveFetch } from "../fixtures/sse";
import { frame, frameReader, framingOf, type FramingName } from "./real-channels";

/**
 * Values a streaming method may yield between a second client's request being sent and its answer
 * being read. A fair drain turns every {@link MAX_STEPS} values at most, and a request is read and
 * answered within a few turns; but a wire through another process (nats-server, the kernel's
 * sockets) needs that process to be scheduled too, which a loaded machine (the suite runs on four
 * Nodes at once) can put off for hundreds of turns. So the bound is loose, a tenth of
 * {@link LIMIT}: a drain that never turns answers nobody before the probe ends at `LIMIT`, and the
 * count, never a clock, tells the two apart.
 */
export const BOUND = 2_000_000;

/** Where the property makes a generator throw: within the first values, a few turns' worth. */
export const THROW_WITHIN = 48 * MAX_STEPS;

/**
 * Values a probe yields before it ends by itself: far past {@link BOUND}, and past what the
 * cheapest generator yields (about 0.3 µs a value) before a {@link TIMEOUT_MS} time-out stops it;
 * reached only by a loop that never turns (where it costs seconds, not a hang).
 */
export const LIMIT = 20_000_000;

/** The time-out of the servers made with `timeoutMs`: their method is stopped by a `timeout` stage. */
export const TIMEOUT_MS = 150;

/** How a probe behaves between its values. */
export interface Behaviour {
  /** `never`: values already in memory; `sometimes`: a turn of the event loop now and then. */
  readonly wait: "never" | "sometimes";
  /** Throws instead of yielding its value number `throwAt` (never when undefined). */
  readonly throwAt: number | undefined;
  /** Returns once its signal has aborted, as a well-behaved method does; else ignores it. */
  readonly readsSignal: boolean;
}

export const NEVER_WAITS: Behaviour = { wait: "never", throwAt: undefined, readsSignal: false };

const signalIn = (args: readonly unknown[]): AbortSignal | undefined => {
  for (const arg of args) {
    const signal = (arg as { signal?: unknown } | null | undefined)?.signal;
    if (signal instanceof AbortSignal) return signal;
  }
  return undefined;
};

/** One run of the streaming method `forever`. */
export class Probe {
  count = 0;
  finallyRan = false;
  threw = false;
  readonly started: Promise<void>;
  readonly finished: Promise<void>;
  private start = (): void => undefined;
  private finish = (): void => undefined;

  constructor(private readonly behaviour: Behaviour) {
    this.started = new Promise((resolve) => (this.start = resolve));
    this.finished = new Promise((resolve) => (this.finish = resolve));
  }

  async *run(args: readonly unknown[]): AsyncGenerator<number, Result<string>> {
    const { wait, throwAt, readsSignal } = this.behaviour;
    const signal = signalIn(args);
    this.start();
    try {
      for (;;) {
        if (readsSignal && signal?.aborted === true) return Success("stopped");
        if (this.count === LIMIT) return Success("exhausted");
        if (this.count === throwAt) {
          this.threw = true;
          throw new Error("the probe threw");
        }
        if (wait === "sometimes" && this.count % 97 === 96) await new Promise((resolve) => setImmediate(resolve));
        yield ++this.count;
      }
    } finally {
      this.finallyRan = true;
      this.finish();
    }
  }
}

/** The probe the servers' `forever` runs: set by each case before it calls. */
let current = new Probe(NEVER_WAITS);
export const useProbe = (behaviour: Behaviour): Probe => (current = new Probe(behaviour));

/** The methods every wire serves: `forever` (the current probe) and `ping`. Each takes whatever it is given. */
export const methods = {
  forever: (...args: unknown[]) => current.run(args),
  ping: (..._args: unknown[]) => Success("pong"),
};

export const api = contract({
  forever: { params: t.type({}), stream: t.number, result: t.string },
  ping: { params: t.type({}), result: t.string },
});

const stagesOf = (timeoutMs: number | undefined) => (timeoutMs === undefined ? [] : [timeout(timeoutMs)]);

/** How a started call is stopped from the client's side: a disconnect, or a cancel where the wire has one. */
export type Stop = "disconnect" | "cancel";

/** A `forever` call under way. */
export interface Started {
  /** Stops it from the client's side. */
  readonly stop: (how: Stop) => void;
  /** The call's answer, as text (or why none came), once it ends; never rejects. */
  readonly answered: Promise<string>;
}

export interface Wire {
  readonly name: string;
  /** The stops this wire has (NATS has none: only a `timeout` stage stops a call there). */
  readonly stops: readonly Stop[];
  /** Calls `forever`; resolves once the call is sent. */
  readonly start: () => Promise<Started>;
  /** A second client's `ping`: resolves once its answer is read. */
  readonly ping: () => Promise<void>;
  readonly close: () => Promise<void>;
}

const body = (method: string, id: number): string => JSON.stringify({ jsonrpc: "2.0", method, params: [], id });

/** One POST on a new connection (no keep-alive): its answer's text, or why none came. */
const post = (
  port: number,
  text: string,
  accept: string,
): { readonly request: http.ClientRequest; readonly answered: Promise<string> } => {
  const agent = new http.Agent({ keepAlive: false });
  const request = http.request({
    host: "127.0.0.1",
    port,
    method: "POST",
    agent,
    headers: { "content-type": "application/json", accept },
  });
  const answered = new Promise<string>((resolve) => {
    request.on("error", (error) => resolve(`error: ${error.message}`));
    request.on("response", (res) => {
      let got = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        // An event stream's values are read and dropped: the reader keeps up, only the end is kept.
        got = (got + chunk).slice(-4096);
      });
      res.on("end", () => resolve(got));
      res.on("error", (error) => resolve(`error: ${error.message}`));
      res.on("aborted", () => resolve("aborted"));
    });
  });
  request.end(text);
  return { request, answered };
};

/**
 * HTTP, each call a POST: plain JSON, or an event stream (`sse`). The development server (`serve`);
 * with a time-out, `answerHttp` with a `timeout` stage in a `node:http` server (`serve` takes no stages).
 */
export const httpWire = async (sse: boolean, timeoutMs?: number): Promise<Wire> => {
  const server =
    timeoutMs === undefined
      ? await devServer(methods)
      : await serveFetch(async (request) => {
          const answer = await answerHttp(new Uint8Array(await request.arrayBuffer()), methods, {
            context: {},
            stages: stagesOf(timeoutMs),
            accept: request.headers.get("Accept"),
            signal: request.signal,
          });
          return new Response(answer.body, answer);
        });
  const port = Number(new URL(server.url).port);
  const accept = sse ? "text/event-stream, application/json" : "application/json";
  return {
    name: sse ? "HTTP event stream" : "HTTP JSON",
    // The client destroys its socket (a FIN): the development server reads a FIN while an answer
    // is pending as the client gone, and aborts the method's signal (src/internal/node/request-handler.ts).
    stops: ["disconnect"],
    start: async () => {
      const { request, answered } = post(port, body("forever", 1), accept);
      return { stop: () => request.destroy(), answered };
    },
    ping: async () => {
      const answer = await post(port, body("ping", 2), "application/json").answered;
      if (!answer.includes("pong")) throw new Error(`ping: ${answer}`);
    },
    close: () => server.close(),
  };
};

/** A raw client of a connection on TCP: writes framed messages, collects what it reads. */
const rawClient = async (port: number, framing: FramingName) => {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.on("error", () => undefined);
  const answers = new Map<unknown, (text: string) => void>();
  socket.on(
    "data",
    frameReader(framing, (text) => {
      const message = JSON.parse(text) as { id?: unknown; method?: unknown };
      if (message.method === undefined && message.id !== undefined) answers.get(message.id)?.(text);
    }),
  );
  const closed = new Promise<string>((resolve) => socket.once("close", () => resolve("closed")));
  const send = (message: object): void => void socket.write(frame(framing, JSON.stringify(message)));
  const request = (message: { readonly id: number; readonly [key: string]: unknown }): Promise<string> => {
    const answered = new Promise<string>((resolve) => answers.set(message.id, resolve));
    send(message);
    return Promise.race([answered, closed]);
  };
  return { socket, send, request };
};

/**
 * Connections on TCP under `cancellation`'s convention (LSP: Content-Length framing; MCP: newline
 * framing), `forever` asked for its values with a progress token (`withToken`) or not.
 */
export const connectionWire = async (
  cancellation: Cancellation,
  withToken: boolean,
  timeoutMs?: number,
): Promise<Wire> => {
  const framing: FramingName = cancellation === "lsp" ? "contentLength" : "newline";
  const peers = new Set<Connection>();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    peers.add(
      connect(byteChannel(socket, socket, framingOf(framing)), { methods, cancellation, stages: stagesOf(timeoutMs) }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const token = cancellation === "lsp" ? { partialResultToken: "values" } : { _meta: { progressToken: "values" } };
  return {
    name: `connection (${cancellation}, ${withToken ? "values sent" : "no token"})`,
    stops: ["disconnect", "cancel"],
    start: async () => {
      const peer = await rawClient(port, framing);
      let unanswered = (): void => undefined;
      // MCP answers no request it was told is cancelled: its answer is then that none is due.
      const none = new Promise<string>((resolve) => (unanswered = () => resolve("cancelled: no answer is due")));
      const answered = peer.request({ jsonrpc: "2.0", method: "forever", params: withToken ? token : {}, id: 1 });
      const stop = (how: Stop): void => {
        if (how === "disconnect") peer.socket.destroy();
        else if (cancellation === "lsp") peer.send({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } });
        else {
          peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
          unanswered();
        }
      };
      return { stop, answered: Promise.race([answered, none]).finally(() => peer.socket.destroy()) };
    },
    ping: async () => {
      const peer = await rawClient(port, framing);
      const answer = await peer.request({ jsonrpc: "2.0", method: "ping", params: {}, id: 2 });
      peer.socket.destroy();
      if (!answer.includes("pong")) throw new Error(`ping: ${answer}`);
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      for (const peer of peers) peer.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/** A nats-server of its own, shared by the NATS wires of one test file: started on first use. */
let nats: Promise<{ server: NatsServer; serving: TestConnection; calling: TestConnection }> | undefined;
const natsSetup = () =>
  (nats ??= (async () => {
    const server = await startNatsServer();
    const [serving, calling] = await Promise.all([natsConnect(server.url), natsConnect(server.url)]);
    return { server, serving, calling };
  })());
let subjects = 0;

/** `serveNats` on a real nats-server: `forever` by a plain request, or streamed (`natsTransport`'s `open`). */
export const natsWire = async (streamed: boolean, timeoutMs: number): Promise<Wire> => {
  const { serving, calling } = await natsSetup();
  const subject = `rpc.fair.${++subjects}`;
  const service: NatsService = await serveNats(serving, methods, {
    name: "fair",
    version: "1.0.0",
    subject,
    stages: stagesOf(timeoutMs),
  });
  const rpc = client(api, natsTransport(calling, subject));
  return {
    name: streamed ? "NATS streamed" : "NATS plain",
    stops: [],
    start: async () => {
      const answered = streamed
        ? (async () => {
            const run = open(rpc.forever({}));
            for await (const _ of run) void _;
            return JSON.stringify(await run.result);
          })()
        : calling.request(subject, body("forever", 1), { timeout: 10_000 }).then(
            (message) => message.string(),
            (error: unknown) => `error: ${String(error)}`,
          );
      return { stop: () => undefined, answered };
    },
    ping: async () => {
      const answer = (await calling.request(subject, body("ping", 2), { timeout: 10_000 })).string();
      if (!answer.includes("pong")) throw new Error(`ping: ${answer}`);
    },
    close: () => service.stop(),
  };
};

/** Ends the shared nats-server, once every NATS wire is closed. */
export const closeNats = async (): Promise<void> => {
  if (nats === undefined) return;
  const { server, serving, calling } = await nats;
  nats = undefined;
  await Promise.all([serving.close(), calling.close()]);
  await server.stop();
};

/**
 * `local`: `forever` opened (its values handed over as yielded) and stopped by `return()` (a
 * cancel) or by the caller's time-out. The second client is a timer firing, then a `ping` through
 * another `local` client: with no socket, the event loop's turn is what must come.
 */
export const localWire = (timeoutMs?: number): Wire => {
  const options = timeoutMs === undefined ? {} : { stages: stagesOf(timeoutMs) };
  const rpc = client(api, local(methods, options));
  const other = client(api, local(methods));
  return {
    name: "local",
    stops: ["cancel"],
    start: async () => {
      const run = open(rpc.forever({}));
      const answered = (async () => {
        for await (const _ of run) void _;
        return JSON.stringify(await run.result);
      })();
      return { stop: () => void run.return(), answered };
    },
    ping: async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      const answer = await other.ping({})();
      if (E.isLeft(answer)) throw new Error(`ping: ${JSON.stringify(answer.left)}`);
    },
    close: async () => undefined,
  };
};

/**
 * `local` again, with plain calls (no `open`): the caller stops one with a signal of its own
 * ("cancel"), and the time-out is the caller's `timeoutMs`, not a stage: a plain call through
 * `local` must stop its method when the call ends, as the aborted request of a server elsewhere does.
 */
export const localPlainWire = (timeoutMs?: number): Wire => {
  const rpc = client(api, local(methods));
  return {
    name: "local, plain call",
    stops: ["cancel"],
    start: () => {
      const controller = new AbortController();
      const options = timeoutMs === undefined ? { signal: controller.signal } : { timeoutMs };
      const answered = withOptions(options)(rpc.forever({}))().then((answer) => JSON.stringify(answer));
      return Promise.resolve({ stop: () => controller.abort(), answered });
    },
    ping: async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      const answer = await rpc.ping({})();
      if (E.isLeft(answer)) throw new Error(`ping: ${JSON.stringify(answer.left)}`);
    },
    close: async () => undefined,
  };
};

/**
 * The case every wire must pass: `forever` runs; a second client's `ping` is answered before it
 * has yielded {@link BOUND} more values; then stopped by `stop` (or by the wire's `timeout` stage
 * when undefined), it ends (its `finally` runs) before {@link LIMIT}. Returns what was seen.
 */
export const fairCase = async (
  wire: Wire,
  behaviour: Behaviour,
  stop: Stop | undefined,
): Promise<{ probe: Probe; pingedWithin: number; answer: string }> => {
  const probe = useProbe(behaviour);
  const started = await wire.start();
  await Promise.race([probe.started, probe.finished]);
  const sentAt = probe.count;
  await wire.ping();
  const pingedWithin = probe.count - sentAt;
  if (stop !== undefined) started.stop(stop);
  await probe.finished;
  const answer = await started.answered;
  return { probe, pingedWithin, answer };
};
