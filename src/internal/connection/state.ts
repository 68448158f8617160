/**
 * The state of one connection: a plain record made once per connection, which the pieces of the
 * peer (incoming, outgoing, cancellation, flow control, closing) read and change through
 * module-level functions, so that nothing is allocated per message to share it. Also the records
 * of what is in flight: an outgoing call awaiting its answers, an incoming request being served,
 * an incoming message waiting for a slot.
 *
 * @module
 */
import type * as E from "fp-ts/Either";
import type { TransportError } from "../client/errors";
import type { HeldValues } from "../client/held-values";
import type { ParsedAnswer } from "../client/transport";
import type { Later } from "../core/effect";
import type { Methods } from "../core/methods";
import type { Env, JsonOptions } from "../core/options";
import type { Id, Request } from "../core/request";
import type { Response } from "../core/response";
import type { Streamed, Wire } from "../core/streamed";
import type { RequestAbort } from "../core/signal";
import type { Channel } from "./channels/channel";
import { dialectOf, type Dialect } from "./dialect";
import { Fifo } from "../core/fifo";
import type { Json } from "./messages";
import type { Connection, Settings } from "./options";

/** An outgoing message awaiting its answers: one call, or a batch. */
export interface Outgoing {
  /** Its length in UTF-16 units and UTF-8 bytes: a peer's -32002 says one of them (as its framing counts). */
  readonly length: number;
  readonly bytes: number;
  /** The count of messages sent when it was: an error "about the only message pending" must not be about a later one. */
  readonly sentAt: number;
  /** Its members, for a batch (a peer's -32600 `data.size`); 0 for a single request. */
  readonly members: number;
  /** One response to one of its requests. */
  readonly answer: (id: string | number, response: Json) => void;
  /** One error for the whole message (the peer could not tell its ids): every call's answer. */
  readonly whole: (response: Json) => void;
  readonly fail: (error: TransportError) => void;
}

/**
 * One of this side's calls that asked for values (./streamed-calls): its token, where its values
 * go, and those that came while its consumer was still taking an earlier one. Made only for such a
 * call.
 */
export interface StreamedCall {
  /** The call's id. */
  readonly id: string | number;
  /** Its token: the progress notifications that carry it are its values. */
  readonly token: string | number;
  /** Its request, with the token in it. */
  readonly body: string;
  /** How the call settles, once its values are all taken. */
  readonly settle: (settled: E.Either<TransportError, ParsedAnswer | string>) => void;
  /** Its record among the calls awaiting answers, once sent (to cancel it). */
  message: Outgoing | undefined;
  /** Still awaiting its answer (registered under its id). */
  awaiting: boolean;
  /** Its values on their way to `onValue`: those that came while its consumer was busy, each with its text's length. */
  readonly values: HeldValues<unknown>;
  /** It has settled (answered and every value taken, failed, aborted): nothing more is handed on. */
  done: boolean;
}

/** An incoming request being served. */
export interface Serving {
  /** The request as the call stage holds it: what a cancel or a close stops when it streams. */
  readonly request?: Request;
  /** Its one abort, which a cancel and the connection closing reach, and a `timeout` stage too. */
  readonly abort: RequestAbort;
  cancel?: (response: Response) => void;
  /** Its sink, for a request that carries a progress token (core/streamed.ts). */
  streamed?: Streamed;
}

/** An incoming message to serve. */
export interface Incoming {
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

/** Waiting text (UTF-16 units) past which reading pauses. */
const HIGH_WATER = 1024 * 1024;

/** One connection's state: its bounds, what is in flight each way, and where flow control stands. */
export interface PeerState {
  readonly channel: Channel;
  /** What the cancellation convention makes of the wire: its cancel and progress notifications, its tokens (./dialect). */
  readonly dialect: Dialect;
  readonly maxInFlight: number;
  readonly maxWaitingLength: number;
  readonly maxQueued: number;
  readonly maxOutgoing: number;
  readonly maxMessageLength: number;
  /** Reading pauses at this much waiting text, and resumes at half of it. */
  readonly highWater: number;
  closed: boolean;
  /** Resolves, with the reason, once the connection has closed. */
  readonly whenClosed: Promise<unknown>;
  readonly settleClosed: (reason: unknown) => void;
  /** The connection itself, which every request's context carries as `peer`. */
  connection: Connection;

  // Sending.
  /** Messages held while the channel is full. */
  readonly queue: Fifo<string>;
  full: boolean;
  /** Messages sent (or queued to be), to tell which came last. */
  sent: number;

  // Serving.
  readonly serving: Map<Id, Serving>;
  /** Every incoming request and notification being served, to end them all when the connection closes. */
  readonly live: Set<Serving>;
  /** Ids of requests cancelled MCP-style: their answers are not sent. */
  readonly silenced: Set<Id>;
  /** Slots taken: requests and notifications being served. */
  inFlight: number;
  readonly waiting: Fifo<Incoming>;
  waitingLength: number;
  /** The waiting single requests by id, for a cancellation to find. */
  readonly waitingById: Map<Id, Incoming>;
  /** The ids of requests in waiting batches, for a cancellation to find. */
  readonly waitingInBatch: Map<Id, Incoming>;
  /** Requests cancelled while they waited in a batch: answered -32800 (LSP) or left out (MCP) when the batch runs. */
  readonly precancelled: Set<Id>;
  /** The connection as its methods' streamed values see it (./outlet). */
  wire: Wire;
  /** What values sent while the channel was full wait for (./outlet): `drain` resumes them. */
  drained: { readonly promise: Promise<void>; readonly resume: () => void } | undefined;

  // The pipeline every incoming message goes through.
  readonly methods: Methods;
  options: JsonOptions;
  env: Env;
  /** Runs a message `receiver` has parsed (to route it) as that value: it is not parsed again. */
  dispatch: (value: unknown, methods: Methods | undefined, options: JsonOptions) => Later<string>;
  /** Runs a message kept as its text: one that waited for a slot, or one that is not JSON (-32700). */
  dispatchText: (text: string, methods: Methods | undefined, options: JsonOptions) => Later<string>;

  // Flow control.
  /** Whether `admit` is running (it loops; it does not recurse). */
  admitting: boolean;
  paused: boolean;

  // Calling.
  readonly outgoing: Map<string | number, Outgoing>;

  // Streamed calls (./streamed-calls).
  /** This side's calls that asked for values, by token. */
  readonly streams: Map<string | number, StreamedCall>;
  /** Tokens of streamed calls that have ended, the latest few: values still coming for them are dropped. */
  readonly endedTokens: Set<string | number>;
  /** The text's length of the values held for consumers still taking earlier ones, all calls together. */
  heldLength: number;
  /** Calls awaiting their answers that hold values: while every call awaiting one does, reading may pause. */
  holdingCalls: number;
  /** How many values are held for consumers still taking earlier ones, all calls together. */
  valuesHeld: number;

  // Pausing (./flow-control).
  /** Something was served (or a value taken) since the pause's watch last looked. */
  progressed: boolean;
  /** A pause saw nothing served for a while: reading goes on until what waits is served. */
  stuck: boolean;
  /** The pause's watch. */
  watch: ReturnType<typeof setTimeout> | undefined;
}

/** What a field holds until `connect` sets it, just after the record is made (the connection and the pipeline need the record). */
const unset: unknown = undefined;

/** The state of a new connection on `channel`: made once, with every field (so its shape never changes). */
export const createState = (channel: Channel, settings: Settings): PeerState => {
  let settleClosed: (reason: unknown) => void = () => undefined;
  const whenClosed = new Promise<unknown>((settle) => (settleClosed = settle));
  return {
    channel,
    dialect: dialectOf(settings.cancellation),
    maxInFlight: settings.maxInFlight,
    maxWaitingLength: settings.maxWaitingLength,
    maxQueued: settings.maxQueued,
    maxOutgoing: settings.maxOutgoing,
    maxMessageLength: settings.maxMessageLength,
    highWater: Math.min(HIGH_WATER, Math.floor(settings.maxWaitingLength / 2)),
    closed: false,
    whenClosed,
    settleClosed,
    connection: unset as Connection,
    queue: new Fifo<string>(),
    full: false,
    sent: 0,
    serving: new Map<Id, Serving>(),
    live: new Set<Serving>(),
    silenced: new Set<Id>(),
    inFlight: 0,
    waiting: new Fifo<Incoming>(),
    waitingLength: 0,
    waitingById: new Map<Id, Incoming>(),
    waitingInBatch: new Map<Id, Incoming>(),
    precancelled: new Set<Id>(),
    wire: unset as Wire,
    drained: undefined,
    methods: settings.methods,
    options: unset as JsonOptions,
    env: unset as Env,
    dispatch: unset as PeerState["dispatch"],
    dispatchText: unset as PeerState["dispatchText"],
    admitting: false,
    paused: false,
    outgoing: new Map<string | number, Outgoing>(),
    streams: new Map<string | number, StreamedCall>(),
    endedTokens: new Set<string | number>(),
    heldLength: 0,
    holdingCalls: 0,
    valuesHeld: 0,
    progressed: false,
    stuck: false,
    watch: undefined,
  };
};
