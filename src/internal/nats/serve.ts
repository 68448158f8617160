/**
 * `serveNats`: a methods table put on NATS as a service of the NATS services framework
 * (`@nats-io/services`), one endpoint taking JSON-RPC bodies on a subject in a queue group (each
 * message goes to one member: N processes serving the same subject share the load), and one
 * answering the OpenRPC document. Each message runs the pipeline `asyncDispatch` runs; a streamed
 * call runs the one `answerHttp` runs for an event stream, its values sent by ./wire's outlet.
 *
 * @module
 */
import { Svcm, type Service } from "@nats-io/services";
import type { NoContext, Refused } from "../core/context-marks";
import type {
  ContextFits,
  DispatchContext,
  MethodsFor,
  StagesAsGiven,
  StagesTakeMade,
  TypedOptions,
} from "../core/dispatch-context";
import { logSafely } from "../core/logger";
import type { Methods } from "../core/methods";
import type { JsonOptions } from "../core/options";
import { serialize } from "../core/serializer";
import type { AnyStage } from "../core/stages";
import { dispatchStreamed, refusedContext, serveBody, type ServedBody } from "../core/served-body";
import { VERSION } from "../core/version";
import { openRpcDocument, withDiscovery } from "../documents/openrpc";
import type { OpenRpcInfo } from "../documents/openrpc-types";
import type { NatsConnection, NatsFigures, NatsMessage, NatsServiceInfo } from "./shapes";
import { answer, asksForValues, failed, NatsOutlet } from "./wire";

/**
 * What `serveNats` is told besides dispatch's options: the service's name and version, its subject
 * and queue group, and the methods' context made from each message.
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsServiceOptions<C> {
  /** The service's name, shared by every process that serves it (`[A-Za-z0-9_-]+`). */
  readonly name: string;
  /** The service's version (semver), as discovery reports it. */
  readonly version: string;
  /** The subject that takes JSON-RPC bodies, e.g. `rpc.examples`. The OpenRPC document answers on `<subject>.discover`. */
  readonly subject: string;
  /** The queue group: each message goes to one of the processes serving the subject in it. Default `"rpc"`. */
  readonly queue?: string | undefined;
  readonly description?: string | undefined;
  /** Added to the service's metadata (beside `rpcserver.version` and `openrpc`, the discover subject). */
  readonly metadata?: Readonly<Record<string, string>> | undefined;
  /**
   * The methods' context, made for each message (from its headers: a token, a trace id). A thrown
   * `JsonRpcError` is the answer, with id `null`; anything else thrown is the services framework's
   * error reply (`Nats-Service-Error-Code: 500`). Without it, methods get no context. A plain object
   * gains `signal` (as on HTTP and connections), which aborts when the service stops (`stop()`, or
   * the connection closing): any other context is left alone.
   */
  readonly context?: (message: NatsMessage) => C;
  /**
   * The OpenRPC document's info (default: the service's name and version). `false`: no discover
   * endpoint, and `rpc.discover` only if the table has it.
   */
  readonly openrpc?: Partial<OpenRpcInfo> | false | undefined;
  /**
   * The discover endpoint's subject. Default `<subject>.discover`; required for a subject with a
   * wildcard (`rpc.*.calc`, `rpc.>`: one service for many tenants), unless `openrpc` is `false`.
   */
  readonly discoverSubject?: string | undefined;
}

/**
 * The options of `serveNats`: the service's ({@link NatsServiceOptions}) and dispatch's
 * (`maxBatchSize`, `stages`, `serializer`, `debug`...).
 *
 * @since 5.0.10
 * @category nats
 */
export type NatsServeOptions<C, S> = Omit<TypedOptions<JsonOptions, C, S>, "context"> & NatsServiceOptions<C>;

/**
 * A running service: its identity, and how to stop it.
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsService {
  /** What `$SRV.INFO` answers for this process: its `id`, the endpoints, the metadata. */
  info(): NatsServiceInfo;
  /** rpcserver's figures for the JSON-RPC endpoint (also in its `data` in `$SRV.STATS`). */
  figures(): NatsFigures;
  /**
   * Stops taking messages (new ones go to the other members of the queue group), answers every
   * message already taken, and waits for the NATS server to have them. The methods in flight are
   * told: their `signal` aborts (reason: `JsonRpcError` -32800 "Request cancelled"), a streaming
   * method stops at its next `yield` and is answered with that error; a method that ignores its
   * signal is still waited for and answered. `stop({ abort: false })` drains without aborting (a
   * later `stop()` still aborts what is left). Does not close the connection:
   * `await service.stop(); await nc.drain();`.
   */
  stop(options?: NatsStopOptions): Promise<void>;
  /** Resolves once stopped, by `stop` or by the connection closing. */
  readonly stopped: Promise<void>;
}

/**
 * How `NatsService.stop` ends the messages in flight.
 *
 * @example
 * // compile-only: it needs a NATS server (docs/scale-out.md runs one)
 * import type { NatsService } from "rpcserver/nats";
 * // Let the methods in flight run to their end, their signals not aborted:
 * const drain = (service: NatsService): Promise<void> => service.stop({ abort: false });
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsStopOptions {
  /**
   * Abort the methods' `signal` (the default, `true`): they stop early and are answered with their
   * error. `false`: let them run to their end (a drain), answered as usual.
   */
  readonly abort?: boolean | undefined;
}

const DEFAULT_QUEUE = "rpc";

/** The running count of a service's JSON-RPC endpoint, and its wait for the messages in flight. */
class Counts {
  messages = 0;
  inFlight = 0;
  failed = 0;
  processingNs = 0;
  /** Resolves the wait of {@link drained}, shared by every caller, once no message is in flight. */
  private idle: { readonly wait: Promise<void>; readonly done: () => void } | undefined;

  /** A message was answered (or its dispatch failed) `started` ms after it was taken. */
  readonly answered = (started: number): void => {
    this.inFlight -= 1;
    this.processingNs += Math.round((performance.now() - started) * 1e6);
    if (this.inFlight > 0 || this.idle === undefined) return;
    const { done } = this.idle;
    this.idle = undefined;
    done();
  };

  /** Resolves once no message is in flight. */
  drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    if (this.idle === undefined) {
      let done = (): void => undefined;
      const wait = new Promise<void>((resolve) => (done = resolve));
      this.idle = { wait, done };
    }
    return this.idle.wait;
  }

  figures(): NatsFigures {
    return { messages: this.messages, inFlight: this.inFlight, failed: this.failed, processingNs: this.processingNs };
  }
}

/** Aborted: what a message taken once the service stopped follows (made once, on first need). */
let stopped: AbortSignal | undefined;
const stoppedAlready = (): AbortSignal => (stopped ??= AbortSignal.abort());

/**
 * The JSON-RPC endpoint: what answering a message takes (the table, dispatch's options, the
 * context function), and the counts of what it took. `handle` is the services framework's handler.
 */
class Endpoint {
  readonly counts = new Counts();

  constructor(
    private readonly connection: NatsConnection,
    private readonly subject: string,
    private readonly methods: Methods,
    private readonly o: JsonOptions,
    private readonly context: ((message: NatsMessage) => unknown) | undefined,
  ) {}

  /**
   * The call of each message in flight, stopped when the service stops (its requests' signals
   * abort, their streams end): each call kept here, rather than a service-wide signal that every
   * message follows (past ten listeners on one signal, Node prints a listener-leak warning on the
   * host's stderr for a service merely busy).
   */
  private readonly inFlight = new Set<ServedBody>();
  private stopped = false;

  /** Aborts the signals of the messages in flight, and of every message taken from now on. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const call of this.inFlight) call.stop();
    this.inFlight.clear();
  }

  /**
   * One message taken: answered, and counted until it is. Nothing here may throw out of the
   * handler: a message whose headers nats-core cannot read throws at `message.headers`, and a throw
   * would leave it counted in flight for ever (and `stop()` waiting on it).
   */
  readonly handle = (error: Error | null, message: NatsMessage): void => {
    if (error !== null) return logSafely(`rpcserver/nats: the endpoint on ${this.subject} failed`, error);
    const { counts } = this;
    counts.messages += 1;
    counts.inFlight += 1;
    const started = performance.now();
    let call: ServedBody | undefined;
    let answered: Promise<void>;
    try {
      const taken = this.answer(message);
      call = taken.call;
      answered = taken.answered;
      // Stopped while its dispatch started (a method that stops the service).
      if (this.stopped) call?.stop();
      else if (call !== undefined) this.inFlight.add(call);
    } catch (thrown) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      answered = Promise.reject(thrown);
    }
    answered.then(
      () => {
        if (call !== undefined) this.inFlight.delete(call);
        counts.answered(started);
      },
      (thrown: unknown) => {
        if (call !== undefined) this.inFlight.delete(call);
        counts.failed += 1;
        failed(message, thrown);
        counts.answered(started);
      },
    );
  };

  /**
   * Dispatched as `asyncDispatch` does, or streamed when the message asks for values. A context
   * function that throws a `JsonRpcError` is answered with it, id null; anything else it throws
   * rejects (the services framework's error reply).
   */
  private answer(message: NatsMessage): { readonly call?: ServedBody | undefined; readonly answered: Promise<void> } {
    const { o, context } = this;
    // Taken once the service stopped (a message already on its way): its call is stopped before its
    // methods run (dispatch starts them before this returns), so that they start aborted.
    let options: JsonOptions & { readonly signal?: AbortSignal } = this.stopped
      ? { ...o, signal: stoppedAlready() }
      : o;
    if (context !== undefined) {
      try {
        options = { ...options, context: context(message) };
      } catch (thrown) {
        const refusal = refusedContext(thrown, o.serializer);
        if (refusal === undefined) throw thrown;
        answer(message, refusal);
        return { answered: Promise.resolve() };
      }
    }
    if (!asksForValues(message)) {
      const { call, answered } = serveBody(message.data, this.methods, options, undefined);
      return { call, answered: answered.then((text) => answer(message, text)) };
    }
    let call: ServedBody | undefined;
    const answered = new Promise<void>((done, fail) => {
      call = dispatchStreamed(
        message.data,
        this.methods,
        options,
        new NatsOutlet(this.connection, message, done, fail),
      );
    });
    return { call, answered };
  }
}

/** The table dispatched to: with `rpc.discover` answering the service's document, unless `openrpc` is `false`. */
const discoverable = (methods: Methods, info: (() => OpenRpcInfo) | undefined): Methods =>
  info === undefined ? methods : withDiscovery(methods, info);

/**
 * Serves `methods` on NATS as the service `options.name`: JSON-RPC bodies (single requests and
 * batches) on `options.subject`, in the queue group `options.queue`, answered by the pipeline
 * `asyncDispatch` runs, with every dispatch option. Resolves once the endpoints are subscribed
 * and the NATS server has the subscriptions.
 *
 * - Discovery: the service answers the services framework's `$SRV.PING`, `$SRV.INFO` and
 *   `$SRV.STATS` (`@nats-io/services`' client, or `nats micro`). The OpenRPC document answers on
 *   the endpoint `discover`, subject `<subject>.discover` (or `discoverSubject`), and
 *   `rpc.discover` on the JSON-RPC endpoint; the metadata names the discover subject (`openrpc`),
 *   not the document.
 * - A subject with a wildcard serves many subjects (one per tenant, say): the context function
 *   reads the one a message came on (`message.subject`).
 * - Answers: each JSON-RPC body gets one message, its answer's text; a body of notifications gets
 *   an empty message when sent as a request, nothing when published.
 * - Streams: a request with the header `Rpc-Stream: values` gets its method's values first, each a
 *   message numbered by the header `Rpc-Value` (1, 2, 3...: the notification an HTTP event stream
 *   carries), and the answer counts them (`Rpc-Value-Count`): a caller sees a lost one.
 * - Stopping: `stop()` answers the messages already taken, new ones go to the others; the methods
 *   in flight see their `signal` abort first (a plain-object context gains it), unless
 *   `stop({ abort: false })`. Call it before `nc.drain()`: draining the connection first loses the
 *   answers in flight (logged), and aborts the signals too.
 *
 * @example
 * // compile-only: it needs a NATS server (docs/scale-out.md runs one)
 * import { Success } from "rpcserver";
 * import { serveNats, type NatsConnection } from "rpcserver/nats";
 * // `nc` from `connect` of @nats-io/transport-node:
 * const start = async (nc: NatsConnection & { drain(): Promise<void> }) => {
 *   const service = await serveNats(nc, { add: (a: number, b: number) => Success(a + b) }, {
 *     name: "examples",
 *     version: "1.0.0",
 *     subject: "rpc.examples",
 *   });
 *   process.once("SIGTERM", () => void service.stop().then(() => nc.drain()));
 * };
 *
 * @since 5.0.10
 * @category nats
 */
export const serveNats = async <C = NoContext, X = NoContext, const S extends ReadonlyArray<AnyStage> = readonly []>(
  connection: NatsConnection,
  methods: MethodsFor<C>,
  // Stages checked on `context`, not `stages`: see StagesTakeMade.
  options: StagesAsGiven<NatsServeOptions<X, S>, S> &
    NoInfer<
      ContextFits<C, DispatchContext<X, S>, (message: NatsMessage) => C> &
        StagesTakeMade<DispatchContext<X, S>, (message: NatsMessage) => Refused<X>>
    >,
): Promise<NatsService> => {
  const {
    name,
    version,
    subject,
    queue = DEFAULT_QUEUE,
    description,
    metadata,
    context,
    openrpc,
    ...rest
  } = options as NatsServeOptions<unknown, unknown>;
  const { discoverSubject: discoverOption, ...dispatch } = rest;
  // The services framework would put an empty subject on the endpoint's name ("rpc"), unasked.
  if (typeof subject !== "string" || subject.trim() === "") {
    throw new TypeError("serveNats: subject must be a non-empty NATS subject, e.g. rpc.calc");
  }
  const info = openrpc === false ? undefined : (): OpenRpcInfo => ({ title: name, version, ...(openrpc ?? {}) });
  const discoverSubject = info === undefined ? undefined : subjectOfDiscover(subject, discoverOption);
  const o = dispatch as JsonOptions;
  const endpoint = new Endpoint(connection, subject, discoverable(methods, info), o, context);
  const { counts } = endpoint;
  const service: Service = await new Svcm(connection).add({
    name,
    version,
    queue,
    ...(description === undefined ? {} : { description }),
    metadata: {
      ...metadata,
      "rpcserver.version": VERSION,
      ...(discoverSubject === undefined ? {} : { openrpc: discoverSubject }),
    },
    statsHandler: (described) => Promise.resolve(described.subject === subject ? counts.figures() : null),
  });
  service.addEndpoint("rpc", { subject, handler: endpoint.handle });
  if (info !== undefined && discoverSubject !== undefined) {
    const write = o.serializer ?? serialize;
    const described = { context: context !== undefined };
    service.addEndpoint("discover", {
      subject: discoverSubject,
      handler: (error, message) => {
        if (error === null) answer(message, write(openRpcDocument(methods, info(), described)));
      },
    });
  }
  await connection.flush();
  warnOnLoss(connection, counts);
  return running(connection, service, endpoint);
};

/** The discover endpoint's subject: the one given, or `<subject>.discover` for a subject with no wildcard. */
const subjectOfDiscover = (subject: string, given: string | undefined): string => {
  if (typeof given === "string" && given.trim() === "")
    throw new TypeError("serveNats: discoverSubject must not be empty");
  if (given !== undefined) return given;
  if (subject.split(".").some((token) => token === "*" || token === ">")) {
    throw new TypeError(`serveNats: the subject "${subject}" has a wildcard: give discoverSubject (or openrpc: false)`);
  }
  return `${subject}.discover`;
};

/**
 * Says so when the connection closes with answers still to send: `nc.drain()` or `nc.close()`
 * without `service.stop()` first loses them, and nothing else would tell.
 */
const warnOnLoss = (connection: NatsConnection, counts: Counts): void => {
  void connection.closed().then(() => {
    if (counts.inFlight > 0) {
      logSafely(
        `rpcserver/nats: the connection closed with ${counts.inFlight} message(s) not yet answered: their answers are lost (await service.stop() before nc.drain())`,
      );
    }
  });
};

/**
 * The running service. `stop()` never rejects and never waits for ever on the connection: nats.js's
 * drain of a subscription does not settle if the connection closes under it, so the closing ends
 * the wait too; a failure (the NATS server gone) is logged. Stopping (unless told not to) and the
 * connection closing abort the signals of the messages in flight: their answers are still sent, or
 * (closed) cannot be, and a method should not run on for nothing.
 */
const running = (connection: NatsConnection, service: Service, endpoint: Endpoint): NatsService => {
  const { counts } = endpoint;
  const closed = connection.closed().then(() => {
    endpoint.stop();
  });
  let stopping: Promise<void> | undefined;
  const stop = (options?: NatsStopOptions): Promise<void> => {
    if (options?.abort !== false) endpoint.stop();
    return (stopping ??= Promise.race([service.stop(), closed])
      .then(() => counts.drained())
      .then(() => (connection.isClosed() ? undefined : connection.flush()))
      .catch((thrown: unknown) => logSafely("rpcserver/nats: stopping the service failed", thrown)));
  };
  return {
    info: () => service.info(),
    figures: () => counts.figures(),
    stop,
    stopped: Promise.race([service.stopped, closed]).then(() => counts.drained()),
  };
};
