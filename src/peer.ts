/**
 * A peer: one long-lived channel on which each side both serves and calls.
 *
 * `connect(channel, options)` makes a peer. Incoming requests, notifications and batches go
 * through the same pipeline as `asyncDispatch` (methods, stages, a context, every rule of the
 * specification), each answered as soon as it is done, so a slow request holds up no other.
 * Outgoing calls are a client's: `client(contract, peer.transport)` calls the other side, with
 * per-call signals and timeouts. Cancellation follows LSP (`$/cancelRequest`) or MCP
 * (`notifications/cancelled`); flow control bounds what is in flight in both directions.
 *
 * Flow control slows a peer, it does not drop it: past `maxInFlight`, incoming requests wait in
 * order (and a channel that can pause stops reading), and only a peer that fills the waiting room
 * past `maxWaitingLength` is closed. Answers to our own calls and cancellations are never made to
 * wait: while one of our calls awaits its answer, reading goes on, so a method that calls back to
 * the other side cannot deadlock the connection.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Kind, URIS } from "fp-ts/HKT";
import type { Channel } from "./channel";
import type { TransportError } from "./clienterror";
import type { ParsedAnswer, Transport, TransportOptions } from "./clienttransport";
import { ERROR_INVALID_REQUEST, ERROR_MESSAGE_TOO_LARGE, ERROR_REQUEST_CANCELLED } from "./codes";
import { Async } from "./effect";
import { NEVER } from "./calls";
import { isPlainObject, isThenable } from "./guards";
import { logSafely } from "./logger";
import type { Methods } from "./methods";
import { environment, type Env, type JsonOptions } from "./options";
import { dispatcher, type Answer } from "./pipeline";
import type { Id } from "./request";
import { ErrorResponse, type Response } from "./response";
import { NOCONTEXT, NODATA } from "./sentinels";
import { serialize, writeAll } from "./serializer";
import { abortGuarded, signalController } from "./signal";
import { owned, type AnyStage, type Around, type Handler } from "./stages";

/**
 * How a connection cancels requests, both ways:
 *
 * - `"lsp"` (the Language Server Protocol, 3.17): the notification `$/cancelRequest` with params
 *   `{ id }`. A cancelled request must still be answered: it is, at once, with -32800 "Request
 *   cancelled", and its method's signal aborts (its later answer is dropped).
 * - `"mcp"` (the Model Context Protocol): the notification `notifications/cancelled` with params
 *   `{ requestId, reason? }`. A cancelled request is not answered; its method's signal aborts.
 *
 * Cancelling an unknown or finished request is ignored, as both protocols say.
 *
 * @since 5.0.10
 * @category connection
 */
export type Cancellation = "lsp" | "mcp";

/**
 * Options of {@link connect}: what to serve (as `asyncDispatch` takes it), how to cancel, and the
 * bounds of flow control (docs/connections.md has a table of what happens past each).
 *
 * @example
 * import { connect, type ConnectOptions } from "rpcserver/connection";
 * const options: ConnectOptions = { cancellation: "mcp", maxInFlight: 16, maxOutgoing: 256 };
 *
 * @since 5.0.10
 * @category connection
 */
export interface ConnectOptions extends Omit<JsonOptions, "deserializer"> {
  /** What this side serves. Default: nothing (every request -32601): a connection that only calls. */
  readonly methods?: Methods | undefined;
  /**
   * The context of every incoming request (this connection's: who is on the other side). A
   * plain-object context gains the request's `signal`, which aborts when the request is cancelled
   * or the connection closes. Default: none.
   */
  readonly context?: unknown;
  /** The cancellation convention. Default `"lsp"`. */
  readonly cancellation?: Cancellation | undefined;
  /**
   * Incoming requests and notifications served at once (a batch counts each member). Past it,
   * messages wait their turn in order, and a channel that can pause stops reading while they do
   * (unless one of this side's calls awaits its answer: answers are always read). Default 64.
   */
  readonly maxInFlight?: number | undefined;
  /**
   * The total length (UTF-16 code units, as `maxMessageLength`; bytes, for ASCII JSON) of the
   * incoming messages waiting for a slot. Past it the peer is taken as hostile and the connection
   * closes, with a reason naming this bound. Default 64 Mi.
   */
  readonly maxWaitingLength?: number | undefined;
  /** Outgoing messages held while the channel is full; past it the peer is taken as not reading and the connection closes. Default 1024. */
  readonly maxQueued?: number | undefined;
  /**
   * This side's requests awaiting answers. A call past it fails at once with
   * `TransportError` `overloaded` (its `limit` is this), and nothing is sent. Default 1024.
   */
  readonly maxOutgoing?: number | undefined;
  /** The longest message taken, in UTF-16 code units of its text (byte-stream channels bound bytes in their framing too). A longer one is answered -32002 and skipped; the connection goes on. Default 16 MiB. */
  readonly maxMessageLength?: number | undefined;
  /** The largest batch served (past it: one -32600, nothing run). Default 1024 on a connection, where `asyncDispatch` has none. */
  readonly maxBatchSize?: number | null | undefined;
}

/**
 * A peer on a connection.
 *
 * @example
 * import { connect, messagePort, type Connection } from "rpcserver/connection";
 * const peer: Connection = connect(messagePort(new MessageChannel().port1));
 * peer.load(); // { incoming: 0, outgoing: 0, queued: 0 }
 * peer.close();
 *
 * @since 5.0.10
 * @category connection
 */
export interface Connection {
  /** The outgoing side, as a client transport: `client(contract, peer.transport)`. */
  readonly transport: Transport;
  /** Resolves, with the reason, once the connection has closed. */
  readonly closed: Promise<unknown>;
  /** Closes the connection: in-flight incoming requests' signals abort, outgoing calls fail with `closed`. */
  readonly close: (reason?: unknown) => void;
  /** What is in flight now: incoming requests being served or waiting, outgoing requests awaiting answers, messages queued to send. All zero once closed. */
  readonly load: () => { readonly incoming: number; readonly outgoing: number; readonly queued: number };
}

/** A message that is not JSON. */
const UNPARSED = Symbol("unparsed");

const DEFAULTS = {
  maxInFlight: 64,
  maxWaitingLength: 64 * 1024 * 1024,
  maxQueued: 1024,
  maxOutgoing: 1024,
  maxMessageLength: 16 * 1024 * 1024,
  maxBatchSize: 1024,
} as const;

const positive = (name: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0)
    throw new RangeError(`connect: ${name} must be a positive integer, got ${String(value)}`);
  return value;
};

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A response (to one of our calls): an object with an id and a result or an error, and no method. */
const isResponse = (value: unknown): value is Json =>
  isRecord(value) && !("method" in value) && "id" in value && ("result" in value || "error" in value);

const isId = (value: unknown): value is string | number => typeof value === "string" || typeof value === "number";

/** An outgoing message awaiting its answers: one call, or a batch. */
interface Outgoing {
  /** The length of its text, to tell which message a peer's -32002 (with the length it read) is about. */
  readonly length: number;
  /** Its members, for a batch (a peer's "the batch has N requests"); 0 for a single request. */
  readonly members: number;
  /** One response to one of its requests. */
  readonly answer: (id: string | number, response: Json) => void;
  /** One error for the whole message (the peer could not tell its ids): every call's answer. */
  readonly whole: (response: Json) => void;
  readonly fail: (error: TransportError) => void;
}

/** An incoming request being served. */
interface Serving {
  /** Made when the method first reads its signal: most never do, and an AbortController costs. */
  controller?: AbortController;
  /** Why it was cancelled, once it is (a signal made later starts aborted). */
  cancelled?: unknown;
  cancel?: (response: Response) => void;
}

/** An incoming message to serve. */
interface Incoming {
  readonly text: string;
  /**
   * Its value, or `UNPARSED` for the pipeline to parse (and answer -32700 if it is not JSON). A
   * message that waits keeps only its text, so that the waiting room holds what `maxWaitingLength`
   * says, not the larger parsed value.
   */
  readonly parsed: unknown;
  /** The slots it takes: one, or a batch's members. */
  readonly weight: number;
  /** A waiting single request's id, by which a cancellation finds it. */
  readonly id?: Id;
  /** Cancelled while it waited: it is skipped, never run. */
  cancelled?: boolean;
}

/** Cancels a request being served: its signal (if it has one yet) aborts, its listeners guarded. */
const abortServing = (entry: Serving, reason: unknown): void => {
  entry.cancelled = reason;
  if (entry.controller !== undefined && !entry.controller.signal.aborted) abortGuarded(entry.controller, reason);
};

/** The signal of a request being served, made on first read. */
const signalOf = (entry: Serving): AbortSignal => {
  if (entry.controller === undefined) {
    entry.controller = signalController();
    if (entry.cancelled !== undefined) entry.controller.abort(entry.cancelled);
  }
  return entry.controller.signal;
};

/** The context a method receives: a plain-object context gains the request's `signal` (made when read). */
const withLazySignal = (context: unknown, entry: Serving): unknown =>
  isPlainObject(context)
    ? Object.defineProperty({ ...context }, "signal", {
        get: () => signalOf(entry),
        enumerable: true,
        configurable: true,
      })
    : context;

/** A connection closed: its reason, for the peers' errors and logs. */
const closedReason = (reason: unknown): Error =>
  reason instanceof Error ? reason : new Error(String(reason ?? "closed"));

/** The id a response carries. */
const idOf = (response: Response): Id | null => (response._tag === "Right" ? response.right.id : response.left.id);

/** A first-in, first-out queue that takes from the front without moving the rest (`shift` does). */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): T | undefined {
    const item = this.items[this.head];
    if (item === undefined) return undefined;
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

/** "the batch has N requests; ..." (dispatch's answer to a batch over `maxBatchSize`): N. */
const batchSizeIn = (data: unknown): number | undefined => {
  const match = typeof data === "string" ? /^the batch has (\d+) requests/.exec(data) : null;
  return match === null ? undefined : Number(match[1]);
};

/**
 * The one pending message an error with `id: null` is about, when it can be told: a -32002 whose
 * `data.length` (the peer's count, in bytes or UTF-16 units) fits one message's size, a -32600 for
 * a batch of N fitting one batch, or else the only message pending. Otherwise none: the calls
 * settle by their own answers, their timeouts or the close.
 */
const aboutWhich = (pending: ReadonlySet<Outgoing>, error: unknown): Outgoing | undefined => {
  const code = isRecord(error) ? error["code"] : undefined;
  const data = isRecord(error) ? error["data"] : undefined;
  const length = code === ERROR_MESSAGE_TOO_LARGE && isRecord(data) ? data["length"] : undefined;
  const members = code === ERROR_INVALID_REQUEST ? batchSizeIn(data) : undefined;
  // UTF-8 takes 1 to 3 bytes per UTF-16 unit.
  const fits =
    typeof length === "number"
      ? (each: Outgoing) => each.length <= length && length <= 3 * each.length
      : members !== undefined
        ? (each: Outgoing) => each.members === members
        : undefined;
  if (fits === undefined) return pending.size === 1 ? pending.values().next().value : undefined;
  let found: Outgoing | undefined;
  for (const each of pending) {
    if (!fits(each)) continue;
    if (found !== undefined) return undefined;
    found = each;
  }
  return found;
};

/**
 * Makes a peer on `channel`: it serves incoming requests with `options.methods` through the
 * dispatch pipeline, and calls the other side through `transport`.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client } from "rpcserver/client";
 * import { connect, streams } from "rpcserver/connection";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * const peer = connect(streams(process.stdin, process.stdout), { methods: implement(api, { add: (a, b) => E.right(a + b) }) });
 * const other = client(api, peer.transport); // calls the other side's `add`
 *
 * @since 5.0.10
 * @category connection
 */
export const connect = (channel: Channel, options: ConnectOptions = {}): Connection => {
  const {
    methods = {},
    cancellation = "lsp",
    maxInFlight: givenInFlight,
    maxWaitingLength: givenWaiting,
    maxQueued: givenQueued,
    maxOutgoing: givenOutgoing,
    maxMessageLength: givenLength,
    maxBatchSize = DEFAULTS.maxBatchSize,
    stages = [],
    context = NOCONTEXT,
    ...rest
  } = options;
  const maxInFlight = positive("maxInFlight", givenInFlight, DEFAULTS.maxInFlight);
  const maxWaitingLength = positive("maxWaitingLength", givenWaiting, DEFAULTS.maxWaitingLength);
  const maxQueued = positive("maxQueued", givenQueued, DEFAULTS.maxQueued);
  const maxOutgoing = positive("maxOutgoing", givenOutgoing, DEFAULTS.maxOutgoing);
  const maxMessageLength = positive("maxMessageLength", givenLength, DEFAULTS.maxMessageLength);
  if (cancellation !== "lsp" && cancellation !== "mcp") {
    throw new TypeError(`connect: cancellation must be "lsp" or "mcp", got ${String(cancellation)}`);
  }
  const cancelMethod = cancellation === "lsp" ? "$/cancelRequest" : "notifications/cancelled";
  const cancelParams = cancellation === "lsp" ? (id: Id) => ({ id }) : (id: Id) => ({ requestId: id });
  const cancelledId = (params: unknown): unknown =>
    isRecord(params) ? (cancellation === "lsp" ? params["id"] : params["requestId"]) : undefined;

  let closed = false;
  let settleClosed: (reason: unknown) => void = () => undefined;
  const whenClosed = new Promise<unknown>((settle) => (settleClosed = settle));

  // ------------------------------------------------------------------------------- sending

  const queue = new Fifo<string>();
  let full = false;
  const send = (text: string): void => {
    if (closed) return;
    if (full) {
      queue.push(text);
      if (queue.length > maxQueued) close(new Error(`the peer does not read: ${queue.length} messages queued`));
      return;
    }
    full = !channel.send(text);
  };
  const drain = (): void => {
    full = false;
    while (!full && queue.length > 0) full = !channel.send(queue.shift() as string);
  };

  // ------------------------------------------------------------------------------- serving

  const serving = new Map<Id, Serving>();
  /** Every incoming request and notification being served, to end them all when the connection closes. */
  const live = new Set<Serving>();
  /** Ids of requests cancelled MCP-style: their answers are not sent. */
  const silenced = new Set<Id>();
  /** Slots taken: requests and notifications being served. */
  let inFlight = 0;
  const waiting = new Fifo<Incoming>();
  let waitingLength = 0;
  /** The waiting single requests by id, for a cancellation to find. */
  const waitingById = new Map<Id, Incoming>();

  /** The first stage: registers each request, hands its signal on, and answers a cancellation. */
  const tracking: Around = owned({
    _tag: "Around",
    asyncOnly: true,
    around:
      <F extends URIS>() =>
      (next: Handler<F>): Handler<F> =>
      (call) => {
        const { request } = call;
        const entry: Serving = {};
        // Made before the request is registered: a context getter that throws must leave nothing behind.
        const context = withLazySignal(call.context, entry);
        const id = request.id;
        const answered = Object.prototype.hasOwnProperty.call(request, "id") && isId(id);
        live.add(entry);
        if (answered) serving.set(id, entry);
        const finish = (): void => {
          live.delete(entry);
          if (answered && serving.get(id) === entry) serving.delete(id);
        };
        let outcome: Kind<F, Response>;
        try {
          outcome = next({ request, context });
        } catch (thrown) {
          finish();
          throw thrown;
        }
        if (!(outcome instanceof Promise)) {
          finish();
          return outcome;
        }
        return new Promise<Response>((settle, fail) => {
          entry.cancel = (response) => {
            finish();
            settle(response);
          };
          (outcome as Promise<Response>).then(
            (response) => {
              finish();
              settle(response);
            },
            (thrown: unknown) => {
              finish();
              fail(thrown);
            },
          );
        }) as Kind<F, Response>;
      },
  });

  const base: JsonOptions = {
    ...rest,
    maxBatchSize,
    context,
    stages: [tracking, ...(stages as ReadonlyArray<AnyStage>)],
  };
  /**
   * A message `receive` has parsed (to route it) is handed to the pipeline as it is, through one
   * options object (the pipeline prepares each options object once): dispatch calls the
   * deserializer before it returns, so the value is set just before the call and cleared after.
   */
  let current: unknown = UNPARSED;
  const parsedOptions: JsonOptions = {
    ...base,
    deserializer: (text) => {
      const value = current;
      current = UNPARSED;
      return value === UNPARSED ? (JSON.parse(text) as unknown) : value;
    },
  };
  // Checked now, so that a bad option is the caller's exception rather than every message's failure.
  const env: Env = environment(methods, parsedOptions, true);

  /** The answers as sent: without those cancelled MCP-style, written by the connection's serializer. */
  const written =
    (given: Env) =>
    (answer: Answer): string => {
      if (silenced.size === 0 || answer === undefined) return writeAll(given.serializer, given.debug, answer);
      if (!Array.isArray(answer)) {
        return silenced.delete(idOf(answer) as Id) ? "" : writeAll(given.serializer, given.debug, answer);
      }
      const kept = answer.filter((response) => !silenced.delete(idOf(response) as Id));
      return kept.length === 0 ? "" : writeAll(given.serializer, given.debug, kept);
    };
  const dispatchMessage = dispatcher(Async, written);

  const answerCancelled = (id: Id): void =>
    send(
      writeAll(env.serializer, env.debug, {
        _tag: "Left",
        left: ErrorResponse(ERROR_REQUEST_CANCELLED, "Request cancelled", NODATA, id),
      }),
    );

  const cancel = (id: unknown): void => {
    if (!isId(id)) return;
    const entry = serving.get(id);
    if (entry === undefined) {
      // Not started yet: it never runs. LSP still answers it; MCP does not.
      const queued = waitingById.get(id);
      if (queued === undefined) return;
      waitingById.delete(id);
      queued.cancelled = true;
      if (cancellation === "lsp") answerCancelled(id);
      return;
    }
    serving.delete(id);
    if (cancellation === "mcp") silenced.add(id);
    abortServing(entry, new Error("Request cancelled"));
    entry.cancel?.({ _tag: "Left", left: ErrorResponse(ERROR_REQUEST_CANCELLED, "Request cancelled", NODATA, id) });
  };

  /** A message's answer is out (or there is none): its slots are free for the next. */
  const done = (weight: number, text: string): void => {
    if (closed) return;
    if (text !== "") send(text);
    inFlight -= weight;
    admit();
  };

  const serve = (message: Incoming): void => {
    inFlight += message.weight;
    current = message.parsed;
    let answer: string | Promise<string>;
    try {
      answer = dispatchMessage(message.text, methods, parsedOptions);
    } catch (thrown) {
      // Dispatch throws only for a bad option, which `environment` refused already: still, the slot is freed.
      logSafely("rpcserver: a connection could not answer a message", thrown);
      answer = "";
    }
    current = UNPARSED;
    if (isThenable(answer)) void answer.then((text) => done(message.weight, text));
    else done(message.weight, answer);
  };

  /** Whether a message of `weight` slots may start now (one larger than the limit starts alone). */
  const fits = (weight: number): boolean => inFlight === 0 || inFlight + weight <= maxInFlight;

  let admitting = false;
  /** Starts waiting messages while slots allow (a loop, not a recursion: a long queue of quick methods). */
  const admit = (): void => {
    if (admitting) return;
    admitting = true;
    for (let next = waiting.peek(); next !== undefined && !closed; next = waiting.peek()) {
      if (next.cancelled !== true && !fits(next.weight)) break;
      waiting.shift();
      waitingLength -= next.text.length;
      if (next.cancelled === true) continue;
      if (next.id !== undefined && waitingById.get(next.id) === next) waitingById.delete(next.id);
      serve(next);
    }
    admitting = false;
    flow();
  };

  let paused = false;
  /**
   * Reading pauses while messages wait, unless one of this side's calls awaits its answer: its
   * answer, and any cancellation, must be read whatever the incoming requests are doing.
   */
  const flow = (): void => {
    const pause = !closed && waiting.length > 0 && outgoing.size === 0;
    if (pause === paused) return;
    paused = pause;
    if (pause) channel.pause?.();
    else channel.resume?.();
  };

  const enqueue = (text: string, parsed: unknown): void => {
    const weight = Array.isArray(parsed) && parsed.length <= env.maxBatchSize ? Math.max(parsed.length, 1) : 1;
    if (waiting.length === 0 && fits(weight)) return serve({ text, parsed, weight });
    const id = isRecord(parsed) && "method" in parsed && isId(parsed["id"]) ? parsed["id"] : undefined;
    const message: Incoming =
      id === undefined ? { text, parsed: UNPARSED, weight } : { text, parsed: UNPARSED, weight, id };
    waiting.push(message);
    waitingLength += text.length;
    if (id !== undefined) waitingById.set(id, message);
    if (waitingLength > maxWaitingLength) {
      return close(
        new Error(
          `the peer sends past the in-flight limit: ${waitingLength} units of messages wait, over maxWaitingLength (${maxWaitingLength})`,
        ),
      );
    }
    flow();
  };

  // ------------------------------------------------------------------------------- calling

  const outgoing = new Map<string | number, Outgoing>();

  const answered = (response: Json): void => {
    const id = response["id"];
    if (id === null && "error" in response) {
      const about = aboutWhich(new Set(outgoing.values()), response["error"]);
      return about?.whole(response);
    }
    if (!isId(id)) return;
    const waiting = outgoing.get(id);
    if (waiting === undefined) return; // an answer to a call that was cancelled, timed out, or never made
    outgoing.delete(id);
    waiting.answer(id, response);
  };

  /** The ids of the requests in an outgoing body: as the client says, or read from the body. */
  const idsIn = (body: string, given: ReadonlyArray<number | undefined> | undefined): Array<string | number> => {
    if (given !== undefined) return given.filter((id): id is number => id !== undefined);
    const requests: unknown = JSON.parse(body);
    return (Array.isArray(requests) ? requests : [requests])
      .map((request: unknown) => (isRecord(request) ? request["id"] : undefined))
      .filter(isId);
  };

  /** Why a message with these ids cannot be sent now, or undefined. */
  const refusal = (ids: ReadonlyArray<string | number>): TransportError | undefined => {
    if (outgoing.size + ids.length > maxOutgoing) {
      return { _tag: "TransportError", reason: "overloaded", limit: maxOutgoing };
    }
    const seen = new Set<string | number>();
    for (const id of ids) {
      if (outgoing.has(id) || seen.has(id)) {
        const cause = new Error(`id ${JSON.stringify(id)} is already awaiting an answer on this connection`);
        return { _tag: "TransportError", reason: "network", cause };
      }
      seen.add(id);
    }
    return undefined;
  };

  const transport: Transport =
    (body: string, { signal, ids: given }: TransportOptions) =>
    () =>
      new Promise<E.Either<TransportError, ParsedAnswer | string>>((settle) => {
        if (closed) return settle(E.left({ _tag: "TransportError", reason: "closed", cause: closedReason(undefined) }));
        if (signal.aborted) return settle(E.left({ _tag: "TransportError", reason: "aborted", cause: signal.reason }));
        let ids: Array<string | number>;
        try {
          ids = idsIn(body, given);
        } catch (cause) {
          return settle(E.left({ _tag: "TransportError", reason: "network", cause }));
        }
        if (ids.length === 0) {
          send(body);
          return settle(E.right(""));
        }
        const refused = refusal(ids);
        if (refused !== undefined) return settle(E.left(refused));
        const batch = body.charCodeAt(0) === 0x5b; // "["
        const responses = new Map<string | number, Json>();
        const release = (): void => {
          for (const id of ids) if (outgoing.get(id) === message) outgoing.delete(id);
          if (signal !== NEVER) signal.removeEventListener("abort", onAbort);
          flow();
        };
        const onAbort = (): void => {
          for (const id of ids) {
            if (outgoing.get(id) !== message) continue;
            send(serialize({ jsonrpc: "2.0", method: cancelMethod, params: cancelParams(id) }));
          }
          release();
          settle(E.left({ _tag: "TransportError", reason: "aborted", cause: signal.reason }));
        };
        const message: Outgoing = {
          length: body.length,
          members: batch ? (given?.length ?? (JSON.parse(body) as unknown[]).length) : 0,
          answer: (id, response) => {
            if (!batch) {
              release();
              return settle(E.right({ json: response }));
            }
            responses.set(id, response);
            if (responses.size < ids.length) return;
            release();
            settle(E.right({ json: ids.map((each) => responses.get(each)) }));
          },
          whole: (response) => {
            release();
            settle(E.right({ json: response }));
          },
          fail: (error) => {
            release();
            settle(E.left(error));
          },
        };
        // Registered before it is sent: sending may close the connection (a peer that does not
        // read), and the close must find this call to fail it.
        for (const id of ids) outgoing.set(id, message);
        flow();
        // A call that nothing can abort needs no listener (the shared NEVER signal).
        if (signal !== NEVER) signal.addEventListener("abort", onAbort, { once: true });
        send(body);
      });

  // ------------------------------------------------------------------------------- receiving

  const tooLarge = (length: number): void =>
    send(
      serialize({
        jsonrpc: "2.0",
        error: { code: ERROR_MESSAGE_TOO_LARGE, message: "Message too large", data: { length, max: maxMessageLength } },
        id: null,
      }),
    );

  const receive = (text: string): void => {
    if (closed) return;
    if (text.length > maxMessageLength) return tooLarge(text.length);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = UNPARSED;
    }
    if (isResponse(parsed)) return answered(parsed);
    if (Array.isArray(parsed) && parsed.length > 0 && parsed.every(isResponse)) {
      for (const response of parsed) answered(response);
      return;
    }
    if (isRecord(parsed) && parsed["method"] === cancelMethod && !("id" in parsed))
      return cancel(cancelledId(parsed["params"]));
    enqueue(text, parsed);
  };

  // ------------------------------------------------------------------------------- closing

  const close = (reason?: unknown): void => {
    if (closed) return;
    channel.close(reason ?? new Error("closed"));
    ended(reason ?? new Error("closed"));
  };

  const ended = (reason: unknown): void => {
    if (closed) return;
    closed = true;
    const cause = closedReason(reason);
    // Each is aborted and settled now (its answer goes nowhere), so that a method that ignores its
    // signal holds no slot or memory of this connection.
    const gone = {
      _tag: "Left",
      left: ErrorResponse(ERROR_REQUEST_CANCELLED, "Request cancelled", NODATA, null),
    } as const;
    for (const entry of [...live]) {
      abortServing(entry, cause);
      entry.cancel?.(gone);
    }
    live.clear();
    serving.clear();
    silenced.clear();
    queue.clear();
    waiting.clear();
    waitingById.clear();
    waitingLength = 0;
    inFlight = 0;
    const pending = new Set(outgoing.values());
    outgoing.clear();
    for (const each of pending) each.fail({ _tag: "TransportError", reason: "closed", cause });
    settleClosed(reason);
  };

  channel.start({ message: receive, oversize: tooLarge, drain, closed: ended });

  return {
    transport,
    closed: whenClosed,
    close,
    load: () => ({ incoming: inFlight + waiting.length, outgoing: outgoing.size, queued: queue.length }),
  };
};
