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
import type { GivenContext, MethodsFor, NoContext } from "./context";
import { ERROR_INVALID_REQUEST, ERROR_MESSAGE_TOO_LARGE, ERROR_REQUEST_CANCELLED } from "./codes";
import { Async } from "./effect";
import { NEVER } from "./calls";
import { isPlainObject, isThenable } from "./guards";
import { logSafely } from "./logger";
import type { Server } from "./implement";
import type { Methods } from "./methods";
import { environment, type Env, type JsonOptions } from "./options";
import { dispatcher, type Answer } from "./pipeline";
import type { Id } from "./request";
import { ErrorResponse, type Response } from "./response";
import { NOCONTEXT, NODATA } from "./sentinels";
import { serialize, writeAll } from "./serializer";
import { abortGuarded, signalController } from "./signal";
import { utf8Length } from "./framing";
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
   * A `server(...)` app to serve, as it is: its methods and stages (any `stages` given here run
   * after its own), and its context type, which `context` is checked against. Instead of `methods`.
   */
  readonly server?: AnyServer | undefined;
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
 * What a connection adds to a plain-object context, for every request: `peer`, the connection
 * itself (to call the other side back: `client(api, ctx.peer.transport)`), and `signal`, which
 * aborts when the request is cancelled (with the reason the other side gave) or the connection
 * closes. Declare it as a server's context; `connect`'s `context` then leaves both out.
 *
 * @example
 * import * as TE from "fp-ts/TaskEither";
 * import * as t from "io-ts";
 * import { contract, server } from "rpcserver";
 * import { client } from "rpcserver/client";
 * import { connect, messagePort, type ConnectionContext } from "rpcserver/connection";
 * const editor = contract({ config: { result: t.string } });
 * const api = contract({ configured: { result: t.string } });
 * const app = server(api)
 *   .context<ConnectionContext<{ user: string }>>()
 *   .implement({ configured: (ctx) => client(editor, ctx.peer.transport).config() });
 * connect(messagePort(new MessageChannel().port1), { server: app, context: { user: "ada" } });
 *
 * @since 5.0.10
 * @category connection
 */
export type ConnectionContext<C extends object = Record<never, never>> = C & {
  readonly peer: Connection;
  readonly signal: AbortSignal;
};

/** Any `server(...)` app: only its context type is read. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyServer = Server<any, any, any>;

/** The context a server's app is dispatched with. */
type InOf<S> = S extends Server<infer _M, infer In, infer _Cur> ? In : NoContext;

/**
 * What `connect`'s `context` must be for methods expecting `In`: `In` less what the connection
 * adds itself (`peer`, `signal`).
 */
type GivenFor<In> = In extends object ? { [K in keyof In as K extends "peer" | "signal" ? never : K]: In[K] } : In;

/** What the methods receive for a `context` option `C`: a plain object gains `peer` and `signal`. */
type Served<C> = WithPeer<GivenContext<C>>;
type WithPeer<G> = 0 extends 1 & G
  ? G
  : [G] extends [NoContext]
    ? NoContext
    : G extends object
      ? ConnectionContext<G>
      : G;

/** Names, in a compile error's first line, what `connect` was not given. */
interface MissingContext<C> {
  /** The context the served methods expect (less `peer` and `signal`, which the connection adds). */
  readonly context: C;
}

/** A server's context checked against the `context` option `C`: required when it takes one, and fitting. */
type ServerCheck<C, S> = [S] extends [never]
  ? unknown
  : [InOf<S>] extends [NoContext]
    ? unknown
    : [C] extends [NoContext]
      ? MissingContext<GivenFor<InOf<S>>>
      : { readonly context: GivenFor<InOf<S>> };

/**
 * `connect`'s options as it types them: `C` is the `context` given, `S` the server. Methods are
 * typed by the context they will receive, so a table whose methods take a context that was not
 * given (or another) does not compile; a server's context is checked the same way.
 *
 * @example
 * import type { ConnectOptionsFor } from "rpcserver/connection";
 * const options: ConnectOptionsFor<{ user: string }, never> = { context: { user: "ada" }, maxInFlight: 8 };
 *
 * @since 5.0.10
 * @category connection
 */
export type ConnectOptionsFor<C, S> = Omit<ConnectOptions, "methods" | "server" | "context"> & {
  readonly context?: C;
  readonly server?: S | undefined;
  readonly methods?: MethodsFor<Served<NoInfer<C>>> | undefined;
};

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

/** Waiting text (UTF-16 units) past which reading pauses. */
const HIGH_WATER = 1024 * 1024;
/** How long a pause may see nothing served before it reads on (answers or cancellations may be behind). */
const STALL_MS = 1000;

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
  /** Its text, to tell which message a peer's -32002 (with the length it read) is about. */
  readonly body: string;
  /** The count of messages sent when it was: an error "about the only message pending" must not be about a later one. */
  readonly sentAt: number;
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
  readonly id?: Id | undefined;
  /** A waiting batch's request ids, by which a cancellation finds them. */
  readonly members?: ReadonlyArray<Id> | undefined;
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

/**
 * The context a method receives: a plain-object context gains the connection (`peer`, to call the
 * other side back) and the request's `signal` (made when read).
 */
const withPeer = (context: unknown, peer: Connection, entry: Serving): unknown =>
  isPlainObject(context)
    ? Object.defineProperty({ ...context, peer }, "signal", {
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

/** The ids of the requests in a batch. */
const requestIds = (batch: readonly unknown[]): Id[] => {
  const ids: Id[] = [];
  for (const member of batch) {
    if (isRecord(member) && "method" in member && isId(member["id"])) ids.push(member["id"]);
  }
  return ids;
};

/** "the batch has N requests; ..." (dispatch's answer to a batch over `maxBatchSize`): N. */
const batchSizeIn = (data: unknown): number | undefined => {
  const match = typeof data === "string" ? /^the batch has (\d+) requests/.exec(data) : null;
  return match === null ? undefined : Number(match[1]);
};

/**
 * The one pending message an error with `id: null` is about, when it can be told: a -32002 whose
 * `data.length` is exactly one pending message's length (in UTF-16 units, or UTF-8 bytes, as a
 * framing counts), a -32600 for a batch of N fitting one pending batch, or else the only message
 * pending when nothing was sent after it (the error could otherwise be about an answer or a
 * notification of ours). Otherwise none: the calls settle by their own answers, their timeouts or
 * the close.
 */
const aboutWhich = (pending: ReadonlySet<Outgoing>, error: unknown, sent: number): Outgoing | undefined => {
  const code = isRecord(error) ? error["code"] : undefined;
  const data = isRecord(error) ? error["data"] : undefined;
  const length = code === ERROR_MESSAGE_TOO_LARGE && isRecord(data) ? data["length"] : undefined;
  const members = code === ERROR_INVALID_REQUEST ? batchSizeIn(data) : undefined;
  const fits =
    typeof length === "number"
      ? (each: Outgoing) => each.body.length === length || utf8Length(each.body) === length
      : members !== undefined
        ? (each: Outgoing) => each.members === members
        : undefined;
  if (fits === undefined) {
    const only = pending.size === 1 ? pending.values().next().value : undefined;
    return only !== undefined && only.sentAt === sent ? only : undefined;
  }
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
export const connect = <C = NoContext, S extends AnyServer = never>(
  channel: Channel,
  // The check is written out here, not in the alias, so that a compile error's first line names it.
  options?: ServerCheck<C, S> & ConnectOptionsFor<C, S>,
): Connection => {
  const given = (options ?? {}) as ConnectOptions;
  if (given.server !== undefined && given.methods !== undefined) {
    throw new TypeError("connect: give `server` or `methods`, not both");
  }
  const {
    server: app,
    methods = app?.methods ?? {},
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
  } = given;
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
  /** What the method's `signal.reason` becomes: an Error with the reason the peer gave (MCP's `reason`), if any. */
  const cancelReason = (params: unknown): Error => {
    const given = isRecord(params) ? params["reason"] : undefined;
    return new Error(typeof given === "string" && given !== "" ? given : "Request cancelled");
  };

  let closed = false;
  let settleClosed: (reason: unknown) => void = () => undefined;
  const whenClosed = new Promise<unknown>((settle) => (settleClosed = settle));

  // ------------------------------------------------------------------------------- sending

  const queue = new Fifo<string>();
  let full = false;
  /** Messages sent (or queued to be), to tell which came last. */
  let sent = 0;
  /**
   * Answers are bounded by what is served (nothing more starts while the channel is full), and
   * this side's own messages by `maxQueued` (refused past it): a queue past both is a peer that
   * does not read, and the only case that closes.
   */
  const send = (text: string): void => {
    if (closed) return;
    sent += 1;
    if (full) {
      queue.push(text);
      if (queue.length > maxQueued + maxInFlight + maxOutgoing) {
        close(new Error(`the peer does not read: ${queue.length} messages queued`));
      }
      return;
    }
    full = !channel.send(text);
  };
  /** Whether this side may send a message of its own now (a call or notification): not past `maxQueued`. */
  const roomForOwn = (): boolean => !full || queue.length < maxQueued;
  const drain = (): void => {
    full = false;
    while (!full && queue.length > 0) full = !channel.send(queue.shift() as string);
    if (!full) admit();
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
  /** The ids of requests in waiting batches, for a cancellation to find. */
  const waitingInBatch = new Map<Id, Incoming>();
  /** Requests cancelled while they waited in a batch: answered -32800 (LSP) or left out (MCP) when the batch runs. */
  const precancelled = new Set<Id>();

  /** The first stage: registers each request, hands its signal on, and answers a cancellation. */
  const tracking: Around = owned({
    _tag: "Around",
    asyncOnly: true,
    around:
      <F extends URIS>() =>
      (next: Handler<F>): Handler<F> =>
      (call) => {
        const { request } = call;
        if (precancelled.size > 0 && isId(request.id) && precancelled.delete(request.id)) {
          return {
            _tag: "Left",
            left: ErrorResponse(ERROR_REQUEST_CANCELLED, "Request cancelled", NODATA, request.id),
          } as Kind<F, Response>;
        }
        const entry: Serving = {};
        // Made before the request is registered: a context getter that throws must leave nothing behind.
        const context = withPeer(call.context, connection, entry);
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
    stages: [tracking, ...(app?.stages ?? []), ...(stages as ReadonlyArray<AnyStage>)],
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

  const cancel = (params: unknown): void => {
    const id = cancelledId(params);
    if (!isId(id)) return;
    const entry = serving.get(id);
    if (entry === undefined) {
      // Not started yet: it never runs. LSP still answers it; MCP does not.
      const queued = waitingById.get(id);
      if (queued !== undefined) {
        waitingById.delete(id);
        queued.cancelled = true;
        if (cancellation === "lsp") answerCancelled(id);
        return;
      }
      // A member of a waiting batch: answered in the batch's answer when it runs (LSP), or left out (MCP).
      if (!waitingInBatch.delete(id)) return;
      precancelled.add(id);
      if (cancellation === "mcp") silenced.add(id);
      return;
    }
    serving.delete(id);
    if (cancellation === "mcp") silenced.add(id);
    abortServing(entry, cancelReason(params));
    entry.cancel?.({ _tag: "Left", left: ErrorResponse(ERROR_REQUEST_CANCELLED, "Request cancelled", NODATA, id) });
  };

  /** A message's answer is out (or there is none): its slots are free for the next. */
  const done = (weight: number, text: string): void => {
    if (closed) return;
    if (text !== "") send(text);
    inFlight -= weight;
    progressed = true;
    admit();
  };

  /** Serves one message (its text, its value or `UNPARSED`, the slots it takes): no object made for it. */
  const serve = (text: string, parsed: unknown, weight: number): void => {
    inFlight += weight;
    current = parsed;
    let answer: string | Promise<string>;
    try {
      answer = dispatchMessage(text, methods, parsedOptions);
    } catch (thrown) {
      // Dispatch throws only for a bad option, which `environment` refused already: still, the slot is freed.
      logSafely("rpcserver: a connection could not answer a message", thrown);
      answer = "";
    }
    current = UNPARSED;
    if (isThenable(answer)) void answer.then((written) => done(weight, written));
    else done(weight, answer);
  };

  /**
   * Whether a message of `weight` slots may start now: not while the channel is full (its answer
   * would only queue), and within the limit, to which each of this side's calls awaiting an answer
   * lends a slot (up to the limit again): a method waiting on the other side computes nothing, and
   * without the loan, methods calling back in both directions would hold every slot and wait on
   * each other. (One larger than the limit starts alone.)
   */
  const fits = (weight: number): boolean =>
    !full && (inFlight === 0 || inFlight + weight <= maxInFlight + Math.min(outgoing.size, maxInFlight));

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
      if (next.members !== undefined) {
        for (const id of next.members) if (waitingInBatch.get(id) === next) waitingInBatch.delete(id);
      }
      serve(next.text, next.parsed, next.weight);
    }
    admitting = false;
    // A stalled pause read on until what waited was served: once it is, pausing works again.
    if (waiting.length === 0) stuck = false;
    flow();
  };

  let paused = false;
  /** While paused: whether a message was served since the last look (see `stalled`). */
  let progressed = false;
  /** A pause that saw nothing served: reading goes on until what waits is served. */
  let stuck = false;
  let watch: ReturnType<typeof setTimeout> | undefined;
  /** Reading pauses at this much waiting text, and resumes at half of it. */
  const highWater = Math.min(HIGH_WATER, Math.floor(maxWaitingLength / 2));
  const look = (): void => {
    watch = setTimeout(stalled, STALL_MS);
    (watch as { unref?: () => void }).unref?.();
  };
  /**
   * Reading pauses while much waits (back-pressure: the other side's writes slow down), and goes on
   * once half of it is served. Answers to this side's calls and cancellations may be behind what
   * waits: a pause that sees nothing served for a while (every method in flight waiting on such a
   * message) reads on, up to `maxWaitingLength`, so that they are read.
   */
  const flow = (): void => {
    const pause = !closed && !stuck && waitingLength > (paused ? highWater / 2 : highWater);
    if (pause === paused) return;
    paused = pause;
    if (pause) {
      progressed = false;
      look();
      channel.pause?.();
    } else {
      if (watch !== undefined) clearTimeout(watch);
      watch = undefined;
      channel.resume?.();
    }
  };
  const stalled = (): void => {
    watch = undefined;
    if (!paused || closed) return;
    if (progressed) {
      progressed = false;
      return look();
    }
    stuck = true;
    flow();
  };

  const enqueue = (text: string, parsed: unknown): void => {
    const weight = Array.isArray(parsed) && parsed.length <= env.maxBatchSize ? Math.max(parsed.length, 1) : 1;
    if (waiting.length === 0 && fits(weight)) return serve(text, parsed, weight);
    const id = isRecord(parsed) && "method" in parsed && isId(parsed["id"]) ? parsed["id"] : undefined;
    const members = Array.isArray(parsed) ? requestIds(parsed) : undefined;
    const message: Incoming = { text, parsed: UNPARSED, weight, id, members };
    waiting.push(message);
    waitingLength += text.length;
    if (id !== undefined) waitingById.set(id, message);
    if (members !== undefined) for (const member of members) waitingInBatch.set(member, message);
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
      const about = aboutWhich(new Set(outgoing.values()), response["error"], sent);
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
    // A batch's own ids must differ too: a Set only for a batch (a call is one id, checked alone).
    const seen = ids.length > 1 ? new Set<string | number>() : undefined;
    for (const id of ids) {
      if (outgoing.has(id) || seen?.has(id) === true) {
        const cause = new Error(`id ${JSON.stringify(id)} is already awaiting an answer on this connection`);
        return { _tag: "TransportError", reason: "network", cause };
      }
      seen?.add(id);
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
        if (!roomForOwn()) return settle(E.left({ _tag: "TransportError", reason: "overloaded", limit: maxQueued }));
        if (ids.length === 0) {
          send(body);
          return settle(E.right(""));
        }
        const refused = refusal(ids);
        if (refused !== undefined) return settle(E.left(refused));
        const batch = body.charCodeAt(0) === 0x5b; // "["
        // Only a batch gathers its responses (a call settles with its one).
        const responses = batch ? new Map<string | number, Json>() : undefined;
        const release = (): void => {
          for (const id of ids) if (outgoing.get(id) === message) outgoing.delete(id);
          if (signal !== NEVER) signal.removeEventListener("abort", onAbort);
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
          body,
          sentAt: sent + 1,
          members: batch ? (given?.length ?? (JSON.parse(body) as unknown[]).length) : 0,
          answer: (id, response) => {
            if (!batch) {
              release();
              return settle(E.right({ json: response }));
            }
            const gathered = responses as Map<string | number, Json>;
            gathered.set(id, response);
            if (gathered.size < ids.length) return;
            release();
            settle(E.right({ json: ids.map((each) => gathered.get(each)) }));
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
        // A call that nothing can abort needs no listener (the shared NEVER signal).
        if (signal !== NEVER) signal.addEventListener("abort", onAbort, { once: true });
        send(body);
        // Its slot is lent to what waits (see `fits`).
        if (waiting.length > 0) admit();
      });

  // ------------------------------------------------------------------------------- receiving

  const tooLarge = (length: number, max: number = maxMessageLength): void =>
    send(
      serialize({
        jsonrpc: "2.0",
        error: { code: ERROR_MESSAGE_TOO_LARGE, message: "Message too large", data: { length, max } },
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
    if (isRecord(parsed) && parsed["method"] === cancelMethod && !("id" in parsed)) return cancel(parsed["params"]);
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
    waitingInBatch.clear();
    precancelled.clear();
    if (watch !== undefined) clearTimeout(watch);
    watch = undefined;
    waitingLength = 0;
    inFlight = 0;
    const pending = new Set(outgoing.values());
    outgoing.clear();
    for (const each of pending) each.fail({ _tag: "TransportError", reason: "closed", cause });
    settleClosed(reason);
  };

  const connection: Connection = {
    transport,
    closed: whenClosed,
    close,
    load: () => ({ incoming: inFlight + waiting.length, outgoing: outgoing.size, queued: queue.length }),
  };
  channel.start({ message: receive, oversize: tooLarge, drain, closed: ended });
  return connection;
};
