/**
 * Optional sessions of MCP's 2025-11-25 Streamable HTTP (`mcpHandler`'s `sessions`): the
 * `initialize` answer carries a fresh `Mcp-Session-Id`, every later request must name it (400
 * without, 404 for one unknown or ended), DELETE ends it, and a GET opens the session's own event
 * stream, for what the server sends outside any request ({@link McpSessions.notify}). Its events
 * carry ids, and a GET with `Last-Event-ID` replays what followed that event from a bounded buffer.
 * A POST's event stream is resumable too (./resumable): its client leaving does not cancel the call,
 * a GET with the `Last-Event-ID` of one of its events takes it up, and a `notifications/cancelled`
 * naming the call cancels it.
 *
 * Off by default: without sessions any process serves any request, so N processes behind any
 * balancer serve one client. With them, a session lives in the memory of the process that began it:
 * a client must come back to it (sticky routing). The 2026-07-28 era has no sessions: a request of
 * that era by its `MCP-Protocol-Version` (one not of the 2025 era), or without the session's header
 * by its `_meta` envelope, goes on statelessly (the era's own test: ./era's `modernVersion`,
 * `modernMessage`).
 *
 * No timers: a session idle too long ends when next looked at (its request, a new session, a
 * `notify`), so nothing here keeps a process alive. (A call whose client left waits `resumeMs` for
 * it on a timer of its own, unref'd: ./resumable.) No `node:` module.
 *
 * @module
 */
import { isRecord } from "../core/guards";
import { isId } from "../connection/messages";
import { fitsOneTimer } from "../core/timer";
import { acceptsEvents } from "../http/accept";
import { eventOf } from "../http/event-stream-writer";
import { answerIncoming, incomingOf, type FetchHandler } from "../http/fetch-handler";
import type { Service } from "../http/exchange";
import { Client, notificationOf, type McpChange } from "./changes";
import { modernMessage, modernVersion } from "./era";
import { messagesIn, SESSION_HEADER, textOf, type JsonObject } from "./protocol";
import { callEventOf, encode, lostEvent, ResumableCall } from "./resumable";

/**
 * The bounds of `mcpHandler`'s sessions: how many at once, how long one lives idle, and how many of
 * its stream's events each keeps for a `Last-Event-ID` replay, and how long a call whose stream
 * dropped waits for its client. Memory is bounded by `max` × `replay` events (each as long as its
 * message), and 2 × `replay` more for each call under way with an event stream, of which a session
 * has at most `maxCalls`.
 *
 * @example
 * import type { McpSessionsOptions } from "rpcserver/mcp";
 * const bounds: McpSessionsOptions = { max: 100, idleMs: 10 * 60_000, replay: 50, resumeMs: 30_000 };
 *
 * @since 5.0.10
 * @category mcp
 */
export interface McpSessionsOptions {
  /** The most sessions held at once: a new one past it ends the one idle the longest, or, all in use, is refused (503). Default 1000. */
  readonly max?: number | undefined;
  /**
   * How long a session lives with no request and no open stream, in milliseconds: then its id is
   * 404, and the client starts again with `initialize`. Default 30 minutes.
   */
  readonly idleMs?: number | undefined;
  /**
   * How many of its stream's latest events a session keeps, for a client that comes back with
   * `Last-Event-ID`; also how far behind a reader of the stream may fall before the stream is
   * closed on it (it comes back with `Last-Event-ID`, and loses nothing unless `replay` more came
   * meanwhile). Each call answered with an event stream keeps as many of its own, and with no
   * reader runs on until as many wait unread. Default 100.
   */
  readonly replay?: number | undefined;
  /**
   * How long a call whose event stream dropped waits for its client to come back (a GET with
   * `Last-Event-ID`) before it is cancelled, in milliseconds. Meanwhile it runs on until `replay`
   * of its events wait unread, then waits at its next one. Default 1 minute.
   */
  readonly resumeMs?: number | undefined;
  /**
   * The most calls one session may have under way: answered or not yet, a call whose client left
   * and may come back (`resumeMs`) included, each request of a batch counted. A POST whose requests
   * would pass it is refused, 429, and runs nothing; one of notifications or answers alone (a
   * `notifications/cancelled`, an elicitation's result) is always taken. Default 100.
   */
  readonly maxCalls?: number | undefined;
  /**
   * Makes a session's id: it must be unguessable (a session's id is all a request shows of it) and
   * of visible ASCII. Default `globalThis.crypto.randomUUID()`; Node 18 has no `globalThis.crypto`
   * (unless run with `--experimental-global-webcrypto`): there, give node:crypto's `randomUUID`.
   */
  readonly id?: (() => string) | undefined;
}

/**
 * The sessions of an `mcpHandler` (`mcpSessions()`, given as its `sessions` option): what the
 * server sends its clients outside any request goes through here, on each session's GET stream.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface McpSessions {
  /**
   * Sends a notification (`notifications/resources/updated`, `notifications/tools/list_changed`,
   * a log message) on every session's stream, kept for replay: a session with no stream open gets it
   * when its client comes back with `Last-Event-ID`.
   */
  readonly notify: (method: string, params?: JsonObject) => void;
  /** How many sessions are open (those idle too long no longer counted). */
  readonly size: () => number;
}

const DEFAULT_MAX = 1000;
const DEFAULT_IDLE_MS = 30 * 60_000;
const DEFAULT_REPLAY = 100;
const DEFAULT_MAX_CALLS = 100;
const DEFAULT_RESUME_MS = 60_000;

/** One event kept for replay: its id, and its bytes as written. */
interface Kept {
  readonly id: number;
  readonly bytes: Uint8Array;
}

/**
 * One session: when it was last used, its stream's events (the latest `replay` of them kept), and
 * the stream open on it now, if any. Only one at a time: a new GET closes the one before (a
 * connection dropped without the server knowing is the usual reason for a second).
 */
class Session {
  seen: number;
  /** What the server knows of its client between requests: the resources it subscribed to, its log level. */
  readonly client = new Client();
  private seq = 0;
  private readonly kept: Kept[] = [];
  /** The id of the latest event no longer kept (0: none dropped yet). */
  private dropped = 0;
  /** A stream was opened on it: before the first, whatever it kept is for that stream, asked for or not. */
  private opened = false;
  private live: ReadableStreamDefaultController<Uint8Array> | undefined;

  constructor(
    readonly id: string,
    private readonly replay: number,
    private readonly resumeMs: number,
    private readonly maxCalls: number,
    now: number,
  ) {
    this.seen = now;
  }

  /** What cancels each of its POSTs not answered yet (their answer, JSON or a stream, not chosen). */
  private readonly asking = new Set<() => void>();
  /** Its calls answered with an event stream, not over yet (read whole, or cancelled), by their number. */
  private readonly calls = new Map<number, ResumableCall>();
  /** The number of its latest such call. */
  private numbered = 0;
  /** Each call under way: what cancels it, and what a cancel names it by (read from its body at the first cancel). */
  private readonly under = new Set<Under>();
  /** Ended (DELETE, idle, pushed out): a call answered after is cancelled at once. */
  private ended = false;

  /** How many requests the calls under way hold (a batch's each counted): at most `maxCalls`. */
  private requestsUnder(): number {
    let sum = 0;
    for (const { asked } of this.under) sum += asked;
    return sum;
  }

  /** A stream is open, or a call is under way: the session is in use, however long since its last request. */
  get streaming(): boolean {
    return this.live !== undefined || this.asking.size > 0 || this.calls.size > 0;
  }

  /**
   * A POST of the session's, answered as `service` answers it but with a signal of the session's:
   * the client leaving cancels the call only until its answer is chosen (with no event yet, it has
   * no id to come back with). Answered with an event stream, the call is resumable
   * ({@link ResumableCall}): it goes on when its client leaves, until the session ends, a
   * `notifications/cancelled` names it, or no reader comes back within `resumeMs`. A
   * `notifications/cancelled` in the body cancels the call it names. The session is in use until
   * the call is over: a call waiting for its client (an elicitation a user takes long over) keeps
   * its session, as an open stream does. The body is read here once, and handed on read.
   */
  async during(request: Request, service: Service, cors: Readonly<Record<string, string>>): Promise<Response> {
    const incoming = incomingOf(request);
    const read = await incoming.read(service.limit);
    const sent = read instanceof Uint8Array ? read : undefined;
    // A cancel is rare: only a body that names one is parsed here (then those of the calls under way).
    if (sent !== undefined && textOf(sent).includes("notifications/cancelled")) this.cancelNamed(sent);
    // Calls whose clients left cost no socket: without a bound, one client could keep any number.
    // A batch counts each of its requests.
    const asked = sent === undefined ? 0 : requestsIn(sent);
    if (asked > 0 && this.requestsUnder() + asked > this.maxCalls) {
      return refused(
        429,
        -32000,
        `Too Many Requests: this session has ${this.maxCalls} calls under way; wait for one to end, or cancel one`,
        cors,
      );
    }
    const controller = new AbortController();
    const cancel = (): void => controller.abort();
    const under: Under = { body: sent, id: undefined, asked, cancel };
    this.under.add(under);
    const letGo = (): void => {
      this.under.delete(under);
      this.seen = Date.now();
    };
    const { signal } = incoming;
    if (signal.aborted) cancel();
    else signal.addEventListener("abort", cancel, { once: true });
    this.asking.add(cancel);
    // Ended while its body was read: answered as cancelled.
    if (this.ended) cancel();
    let response: Response;
    try {
      response = await answerIncoming(service, {
        ...incoming,
        read: () => Promise.resolve(read),
        signal: controller.signal,
      });
    } finally {
      this.asking.delete(cancel);
      signal.removeEventListener("abort", cancel);
    }
    const { body } = response;
    if (body === null || response.headers.get("content-type") !== "text/event-stream") {
      letGo();
      return response;
    }
    this.numbered += 1;
    const number = this.numbered;
    const call = new ResumableCall(
      (body as ReadableStream<Uint8Array>).getReader(),
      number,
      this.replay,
      this.resumeMs,
      cancel,
      () => {
        this.calls.delete(number);
        letGo();
      },
    );
    this.calls.set(number, call);
    if (this.ended) call.stop();
    return new Response(call.open(0, request.signal), { status: response.status, headers: response.headers });
  }

  /**
   * The calls named by the `notifications/cancelled` in `body` are cancelled: those of one request
   * whose id is the cancel's `requestId` (`1` and `"1"` are two). A batch's requests are not
   * cancelled by one of their ids: the others are not the cancel's.
   */
  private cancelNamed(body: Uint8Array): void {
    const named = new Set<string>();
    for (const message of messagesOf(body)) {
      const params = message["params"];
      // A request id is a string or a number: none (or null) names no call, not every call without one.
      if (message["method"] !== "notifications/cancelled" || !isRecord(params) || !isId(params["requestId"])) continue;
      named.add(JSON.stringify(params["requestId"]));
    }
    // Each call's body is read once, at the first cancel, whatever the cancels that come: a batch of
    // them against many calls under way costs their bodies once, not once per cancel.
    if (named.size === 0) return;
    for (const call of this.under) {
      const id = idOf(call);
      if (id !== undefined && named.has(id)) call.cancel();
    }
  }

  /**
   * The stream of the call whose event `lastEventId` names, from the event after it: `undefined`
   * for an id of no call's form (the session's GET stream's, or none), `null` for one of no call
   * held (over, cancelled, given up, or never begun) or past its latest event.
   */
  resume(lastEventId: string, signal: AbortSignal): ReadableStream<Uint8Array> | null | undefined {
    const named = callEventOf(lastEventId.trim());
    if (named === undefined) return undefined;
    const call = this.calls.get(named.call);
    return call === undefined || !call.holds(named.event) ? null : call.open(named.event, signal);
  }

  /** A message on the session's stream: kept, and written if a stream is open and its reader keeps up. */
  send(text: string): void {
    this.seq += 1;
    const event = { id: this.seq, bytes: encode(`id: ${this.seq}\n${eventOf(text)}`) };
    this.kept.push(event);
    if (this.kept.length > this.replay) this.dropped = this.kept.shift()?.id ?? this.dropped;
    const live = this.live;
    if (live === undefined) return;
    // Its reader is `replay` behind: closed (what is queued is still read); the client comes back for this one.
    if ((live.desiredSize ?? 0) <= 0) return this.close();
    live.enqueue(event.bytes);
  }

  /**
   * The session's stream, from now: the kept events after `after` (a `Last-Event-ID` of this
   * session's), then an event of an id and no data (so the client has an id to come back with, and
   * the head is sent at once), then each new one. When `after` cannot be resumed whole (older than
   * the oldest event kept, or no id of this stream's, with events sent before), an `EVENTS_LOST`
   * notification (./resumable) comes first, so that the client knows to re-sync. It ends when the client leaves
   * (`signal`), a newer stream opens, or the session ends.
   */
  open(after: string | undefined, signal: AbortSignal): ReadableStream<Uint8Array> {
    this.close();
    // The first stream of a session, opened without an id (its client can have none yet), gets all
    // that was sent since `initialize`: what came between is not lost to it.
    const asked = after?.trim() || (this.opened ? undefined : "0");
    this.opened = true;
    // An id of this stream's is a whole number (no sign, no exponent) it has issued; any other replays nothing.
    const from =
      asked !== undefined && /^\d{1,15}$/.test(asked) && Number(asked) <= this.seq ? Number(asked) : undefined;
    const newest = this.kept.at(-1)?.id ?? this.dropped;
    const lost =
      asked === undefined || newest === 0
        ? undefined
        : from === undefined
          ? { lastEventId: asked, through: newest, reason: "unknown" }
          : from < this.dropped
            ? { lastEventId: asked, through: this.dropped, reason: "evicted" }
            : undefined;
    let mine: ReadableStreamDefaultController<Uint8Array> | undefined;
    const letGo = (): void => {
      if (this.live !== mine) return;
      this.live = undefined;
      this.seen = Date.now();
    };
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          mine = controller;
          this.live = controller;
          // No id: the notice is no place to resume from.
          if (lost !== undefined) {
            controller.enqueue(lostEvent(lost));
          }
          if (from !== undefined) for (const event of this.kept) if (event.id > from) controller.enqueue(event.bytes);
          this.seq += 1;
          controller.enqueue(encode(`id: ${this.seq}\ndata: \n\n`));
        },
        cancel: letGo,
      },
      // The notice, the primer and a whole replay fit; a reader further behind is closed on (see `send`).
      { highWaterMark: this.replay + 1 + (lost === undefined ? 0 : 1) },
    );
    const leave = (): void => {
      if (this.live === mine) this.close();
    };
    if (signal.aborted) leave();
    else signal.addEventListener("abort", leave, { once: true });
    return stream;
  }

  /** The session ends: its stream closed, its calls cancelled (those not answered yet too). */
  end(): void {
    this.ended = true;
    this.close();
    for (const cancel of this.asking) cancel();
    for (const call of this.calls.values()) call.stop();
  }

  /**
   * The open stream, if any, ends (closed, not errored: the client comes back with `Last-Event-ID`).
   * The session counts as used until now: a client that listened for longer than `idleMs` finds it
   * still there when it comes back.
   */
  close(): void {
    const live = this.live;
    if (live === undefined) return;
    this.live = undefined;
    this.seen = Date.now();
    try {
      live.close();
    } catch {
      // Cancelled by its reader already: nothing to close.
    }
  }
}

/** The sessions of one handler, by id, the least recently used first (a use moves one to the end). */
export class Table implements McpSessions {
  private readonly all = new Map<string, Session>();
  private readonly max: number;
  private readonly idleMs: number;
  private readonly replay: number;
  private readonly resumeMs: number;
  private readonly maxCalls: number;
  private readonly id: () => string;

  constructor(options: McpSessionsOptions) {
    this.max = bound(options.max, DEFAULT_MAX, "max");
    this.idleMs = bound(options.idleMs, DEFAULT_IDLE_MS, "idleMs");
    this.replay = bound(options.replay, DEFAULT_REPLAY, "replay");
    this.resumeMs = bound(options.resumeMs, DEFAULT_RESUME_MS, "resumeMs");
    this.maxCalls = bound(options.maxCalls, DEFAULT_MAX_CALLS, "maxCalls");
    // A longer delay than one timer holds would fire at once.
    if (!fitsOneTimer(this.resumeMs)) throw new TypeError("mcpSessions: resumeMs must be at most 2^31 - 1");
    this.id = options.id ?? randomUuid();
  }

  readonly notify = (method: string, params?: JsonObject): void => this.send(method, params, () => true);

  /** A change of the server's, to each session whose client hears of it. */
  tell(change: McpChange): void {
    const { method, params } = notificationOf(change);
    this.send(method, params, (session) => session.client.hears(change));
  }

  /** The client of the session of `id`, if it is open (not marked used: the request is not in yet). */
  clientOf(id: string | null): Client | undefined {
    return id === null ? undefined : this.all.get(id)?.client;
  }

  private send(method: string, params: JsonObject | undefined, to: (session: Session) => boolean): void {
    const text = JSON.stringify({ jsonrpc: "2.0", method, ...(params !== undefined ? { params } : {}) });
    const now = Date.now();
    for (const session of this.all.values()) {
      if (this.idle(session, now)) this.end(session.id);
      else if (to(session)) session.send(text);
    }
  }

  readonly size = (): number => {
    this.sweep(Date.now());
    return this.all.size;
  };

  /** A new session: those idle too long end first, and past `max`, the least recently used. */
  begin(): Session | undefined {
    const now = Date.now();
    this.sweep(now);
    if (this.all.size >= this.max) {
      // The least recently used of those not in use: none of a client listening or waiting on a call.
      let idlest: Session | undefined;
      for (const session of this.all.values()) {
        if (session.streaming) continue;
        idlest = session;
        break;
      }
      if (idlest === undefined) return undefined;
      this.end(idlest.id);
    }
    const session = new Session(this.id(), this.replay, this.resumeMs, this.maxCalls, now);
    this.all.set(session.id, session);
    return session;
  }

  /** The session of `id` if it is open, marked used now; one idle too long ends here. */
  use(id: string): Session | undefined {
    const session = this.all.get(id);
    if (session === undefined) return undefined;
    const now = Date.now();
    if (this.idle(session, now)) {
      this.end(id);
      return undefined;
    }
    session.seen = now;
    this.all.delete(id);
    this.all.set(id, session);
    return session;
  }

  /** Ends the session of `id` (its stream closed): `false` if there was none. */
  end(id: string): boolean {
    const session = this.all.get(id);
    if (session === undefined) return false;
    this.all.delete(id);
    session.end();
    return true;
  }

  private idle(session: Session, now: number): boolean {
    return !session.streaming && now - session.seen > this.idleMs;
  }

  /**
   * Ends the sessions idle too long: all are looked at (at most `max`, on a new session or `size`),
   * since a stream's end marks its session used without moving it in the order of requests.
   */
  private sweep(now: number): void {
    for (const session of this.all.values()) if (this.idle(session, now)) this.end(session.id);
  }
}

/** The runtime's `crypto.randomUUID`, checked when sessions are made rather than when the first one begins. */
const randomUuid = (): (() => string) => {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  const make = crypto?.randomUUID;
  if (typeof make !== "function") {
    throw new TypeError(
      "mcpSessions: this runtime has no globalThis.crypto.randomUUID (Node 18 without --experimental-global-webcrypto): " +
        "give the ids' maker, mcpSessions({ id: randomUUID }), with node:crypto's randomUUID",
    );
  }
  return () => make.call(crypto);
};

/** A bound given as a whole number of at least 1 (0 for `idleMs`), or the default. */
const bound = (given: number | undefined, fallback: number, name: string): number => {
  if (given === undefined) return fallback;
  if (typeof given !== "number" || !(given >= (name === "idleMs" ? 0 : 1))) {
    throw new TypeError(`mcpSessions: ${name} must be a positive number`);
  }
  return given;
};

/**
 * Sessions for `mcpHandler` (its `sessions` option), bounded by `options`; keep it to send the
 * clients notifications outside any request (`notify`). `sessions: true` makes one with the
 * defaults.
 *
 * @example
 * import { mcpHandler, mcpServer, mcpSessions } from "rpcserver/mcp";
 * const sessions = mcpSessions({ max: 100, idleMs: 10 * 60_000 });
 * const handler = mcpHandler(mcpServer({ name: "news", version: "1.0.0" }), { sessions });
 * const response = await handler(new Request("http://localhost/mcp", {
 *   method: "POST",
 *   headers: { "Content-Type": "application/json" },
 *   body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}',
 * }));
 * response.headers.get("Mcp-Session-Id") !== null; // true
 * sessions.notify("notifications/resources/list_changed"); // on every session's GET stream
 *
 * @since 5.0.10
 * @category mcp
 */
export const mcpSessions = (options: McpSessionsOptions = {}): McpSessions => new Table(options);

/** A JSON-RPC error answered with an HTTP status, id `null`, as MCP's SDKs answer session errors. */
const refused = (
  status: 400 | 404 | 429 | 503,
  code: number,
  message: string,
  cors: Readonly<Record<string, string>>,
): Response =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { ...cors, "Content-Type": "application/json" },
  });

const missing = (cors: Readonly<Record<string, string>>): Response =>
  refused(400, -32000, "Bad Request: Mcp-Session-Id header is required", cors);
const unknown = (cors: Readonly<Record<string, string>>): Response => refused(404, -32001, "Session not found", cors);
/**
 * A `Last-Event-ID` of a call's stream that is no longer held: 400, as the SDK's server answers an
 * id it cannot resume. Not a stream that says so and ends: a client (the SDK's) would come back
 * again, without an id, and its GET would close the session's own stream.
 */
const over = (cors: Readonly<Record<string, string>>): Response =>
  refused(
    400,
    -32000,
    "Bad Request: the stream of that Last-Event-ID is over (its call answered, cancelled or given up)",
    cors,
  );

/**
 * A call under way, as a cancel finds it: what cancels it, and its request's id (`JSON.stringify`'d;
 * `undefined` for none or several), read from its body when a cancel first asks (the body let go then).
 */
interface Under {
  body: Uint8Array | undefined;
  id: string | undefined;
  /** How many requests its body holds. */
  readonly asked: number;
  readonly cancel: () => void;
}

/** What a cancel names `call` by: its body read the first time, its id kept. */
const idOf = (call: Under): string | undefined => {
  if (call.body !== undefined) {
    call.id = requestIdOf(call.body);
    call.body = undefined;
  }
  return call.id;
};

/** The objects among a body's messages. */
const messagesOf = (bytes: Uint8Array): Array<Record<string, unknown>> =>
  (messagesIn(textOf(bytes)) ?? []).filter(isRecord);

/** A request, of a body's messages: a method and an id (not a notification, nor a client's answer). */
const isRequest = (message: Record<string, unknown>): boolean =>
  typeof message["method"] === "string" && "id" in message;

/** How many requests a body holds: a client's answers (which a server's request waits for) and notifications are none. */
const requestsIn = (bytes: Uint8Array): number => messagesOf(bytes).filter(isRequest).length;

/** The id of the one request in a body (`JSON.stringify`'d), `undefined` for none or several. */
const requestIdOf = (bytes: Uint8Array): string | undefined => {
  const asked = messagesOf(bytes).filter(isRequest);
  return asked.length === 1 ? JSON.stringify(asked[0]?.["id"]) : undefined;
};

/**
 * What a POST without a session's header is: the handshake (with the capabilities the client
 * declares in it), a request of the stateless era, or neither.
 */
const kindOf = (bytes: Uint8Array): JsonObject | "stateless" | "other" => {
  const all = messagesIn(textOf(bytes));
  if (all === undefined) return "other";
  const handshake = all.find((one) => isRecord(one) && one["method"] === "initialize") as JsonObject | undefined;
  if (handshake !== undefined) {
    const { params } = handshake;
    return isRecord(params) && isRecord(params["capabilities"]) ? params["capabilities"] : {};
  }
  return all.length > 0 && all.every(modernMessage) ? "stateless" : "other";
};

/**
 * The fetch handler of `inner` (the stateless `mcpHandler`) with `sessions`: the guard of `service`
 * first, as `inner` has it (a request it refuses goes to `inner`, which answers 403), then the
 * session's checks, then `inner` for a POST. A POST without the header is read here (a copy of its
 * body: it is `initialize`, or of the stateless era, or refused 400); one with it costs a lookup,
 * and is read here and answered by `service` (the one `inner` answers with) with a signal of its
 * session's ({@link Session.during}).
 */
export const sessionHandler = (sessions: McpSessions, service: Service, inner: FetchHandler): FetchHandler => {
  const table = sessions as Table;
  const { gate, limit } = service;
  return async (request) => {
    const incoming = incomingOf(request);
    const origin = incoming.header("origin");
    if (gate.guard({ host: incoming.header("host"), origin }) !== undefined) return inner(request);
    const cors: Record<string, string> =
      gate.cors && origin !== undefined ? { "Access-Control-Allow-Origin": origin, Vary: "Origin" } : {};
    const id = request.headers.get(SESSION_HEADER);
    const { method } = request;
    // A request of the 2026 era by its header has no session, whatever else it sends (an `Mcp-Session-Id` too).
    if (method === "POST" && modernVersion(request.headers.get("mcp-protocol-version") ?? undefined)) {
      return inner(request);
    }
    if (method === "POST") {
      if (id !== null) {
        const session = table.use(id);
        return session === undefined ? unknown(cors) : session.during(request, service, cors);
      }
      const body = await incomingOf(request.clone()).read(limit);
      // Too large, read before, broken: `inner` answers it as it answers any such body.
      if (!(body instanceof Uint8Array)) return inner(request);
      const kind = kindOf(body);
      if (kind === "stateless") return inner(request);
      if (kind === "other") {
        incoming.discard();
        return missing(cors);
      }
      return begun(table, await inner(jsonOnly(request)), cors, kind);
    }
    if (method === "DELETE") {
      incoming.discard();
      if (id === null) return missing(cors);
      return table.end(id) ? new Response(null, { status: 204, headers: cors }) : unknown(cors);
    }
    if (method === "GET" && acceptsEvents(request.headers.get("accept"))) {
      if (id === null) return missing(cors);
      const session = table.use(id);
      if (session === undefined) return unknown(cors);
      const after = request.headers.get("last-event-id") ?? undefined;
      const resumed = after === undefined ? undefined : session.resume(after, request.signal);
      if (resumed === null) return over(cors);
      return new Response(resumed ?? session.open(after, request.signal), {
        status: 200,
        headers: { ...cors, "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "Mcp-Session-Id": id },
      });
    }
    // A preflight from an allowed origin: with sessions, a page may also GET the stream and DELETE.
    if (method === "OPTIONS") return withSessionMethods(await inner(request));
    return inner(request);
  };
};

/**
 * `initialize`'s POST as one that accepts JSON alone: a session begins only of a JSON answer, and
 * the handshake streams nothing, but an answer that waited `heartbeatMs` would become an event
 * stream (its session never begun, and nothing would say why).
 */
const jsonOnly = (request: Request): Request => {
  const headers = new Headers(request.headers);
  headers.set("Accept", "application/json");
  return new Request(request, { headers });
};

/** A preflight's answer, its methods those of a server with sessions. */
const withSessionMethods = (answer: Response): Response => {
  if (!answer.headers.has("access-control-allow-methods")) return answer;
  const headers = new Headers(answer.headers);
  headers.set("Access-Control-Allow-Methods", "GET, POST, DELETE");
  return new Response(answer.body, { status: answer.status, headers });
};

/**
 * The answer to `initialize`, with a new session's id if it succeeded (a JSON answer with a
 * `result`: the handshake answers JSON, having no values to stream); the session's client is asked
 * only what its `capabilities` declare.
 */
/** Does an answer (one, or a batch's) hold `initialize`'s result: a protocol version and the server's identity? */
const handshaken = (text: string): boolean => {
  if (!text.includes('"protocolVersion"')) return false;
  return (messagesIn(text) ?? []).some(
    (one) =>
      isRecord(one) &&
      isRecord(one["result"]) &&
      typeof one["result"]["protocolVersion"] === "string" &&
      isRecord(one["result"]["serverInfo"]),
  );
};

const begun = async (
  table: Table,
  answer: Response,
  cors: Record<string, string>,
  capabilities: JsonObject,
): Promise<Response> => {
  if (answer.status !== 200 || answer.headers.get("content-type") !== "application/json") return answer;
  const text = await answer.text();
  const headers = new Headers(answer.headers);
  if (handshaken(text)) {
    const session = table.begin();
    if (session === undefined) {
      return refused(503, -32000, "Service Unavailable: every session is in use; try again later", cors);
    }
    session.client.capabilities = capabilities;
    headers.set("Mcp-Session-Id", session.id);
    if (cors["Access-Control-Allow-Origin"] !== undefined)
      headers.set("Access-Control-Expose-Headers", "Mcp-Session-Id");
  }
  return new Response(text, { status: answer.status, headers });
};
