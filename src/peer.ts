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
 * @module
 */
import * as E from "fp-ts/Either";
import { asyncDispatch } from "./async_main";
import type { Channel } from "./channel";
import { NEVER } from "./calls";
import type { TransportError } from "./clienterror";
import type { ParsedAnswer, Transport, TransportOptions } from "./clienttransport";
import { isPlainObject } from "./guards";
import { ERROR_MESSAGE_TOO_LARGE, ERROR_REQUEST_CANCELLED } from "./codes";
import { logSafely } from "./logger";
import type { Methods } from "./methods";
import type { JsonOptions } from "./options";
import type { Id } from "./request";
import { ErrorResponse, type Response } from "./response";
import { NOCONTEXT, NODATA } from "./sentinels";
import { serialize } from "./serializer";
import type { Kind, URIS } from "fp-ts/HKT";
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
 * bounds of flow control.
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
  /** Incoming messages being served at once; past it, reading pauses (or, where the channel cannot pause, waits in a queue of the same size; past that, the connection closes). Default 64. */
  readonly maxInFlight?: number | undefined;
  /** Outgoing messages held while the channel is full; past it the peer is taken as not reading and the connection closes. Default 1024. */
  readonly maxQueued?: number | undefined;
  /** The longest message taken, in UTF-16 code units of its text (byte-stream channels bound bytes in their framing too). A longer one is answered -32002 and skipped; the connection goes on. Default 16 MiB. */
  readonly maxMessageLength?: number | undefined;
}

/**
 * A peer on a connection.
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
  /** What is in flight now: incoming messages being served, outgoing requests awaiting answers, messages queued to send. */
  readonly load: () => { readonly incoming: number; readonly outgoing: number; readonly queued: number };
}

/** A message that is not JSON. */
const UNPARSED = Symbol("unparsed");

const DEFAULTS = { maxInFlight: 64, maxQueued: 1024, maxMessageLength: 16 * 1024 * 1024 } as const;

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

/** What an outgoing request waits on: its answer's text, or the failure of them all. */
interface Waiting {
  readonly answer: (id: string | number, response: Json) => void;
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

/** Cancels a request being served: its signal (if it has one yet) aborts. */
const abortServing = (entry: Serving, reason: unknown): void => {
  entry.cancelled = reason;
  entry.controller?.abort(reason);
};

/** The signal of a request being served, made on first read. */
const signalOf = (entry: Serving): AbortSignal => {
  if (entry.controller === undefined) {
    entry.controller = new AbortController();
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
    maxQueued: givenQueued,
    maxMessageLength: givenLength,
    stages = [],
    context = NOCONTEXT,
    ...rest
  } = options;
  const maxInFlight = positive("maxInFlight", givenInFlight, DEFAULTS.maxInFlight);
  const maxQueued = positive("maxQueued", givenQueued, DEFAULTS.maxQueued);
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

  const queue: string[] = [];
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
  let inFlight = 0;
  const waitingIn: string[] = [];

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
        const id = request.id;
        const answered = Object.prototype.hasOwnProperty.call(request, "id") && isId(id);
        live.add(entry);
        if (answered) serving.set(id, entry);
        const finish = (): void => {
          live.delete(entry);
          if (answered && serving.get(id) === entry) serving.delete(id);
        };
        const outcome = next({ request, context: withLazySignal(call.context, entry) });
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

  const base: JsonOptions = { ...rest, context, stages: [tracking, ...(stages as ReadonlyArray<AnyStage>)] };
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

  const cancel = (id: unknown): void => {
    if (!isId(id)) return;
    const entry = serving.get(id);
    if (entry === undefined) return;
    serving.delete(id);
    if (cancellation === "mcp") silenced.add(id);
    abortServing(entry, new Error("Request cancelled"));
    entry.cancel?.({ _tag: "Left", left: ErrorResponse(ERROR_REQUEST_CANCELLED, "Request cancelled", NODATA, id) });
  };

  /** The answer as sent: without the members cancelled MCP-style. */
  const withoutSilenced = (answer: string): string => {
    if (silenced.size === 0 || answer === "") return answer;
    const parsed: unknown = JSON.parse(answer);
    const kept = (Array.isArray(parsed) ? parsed : [parsed]).filter((response: unknown) => {
      const id = isRecord(response) ? response["id"] : undefined;
      return !(isId(id) && silenced.delete(id));
    });
    return kept.length === 0 ? "" : Array.isArray(parsed) ? serialize(kept) : answer;
  };

  /** Serves one message: `parsed` is its value, or `UNPARSED` when it is not JSON (the pipeline answers -32700). */
  const serve = (text: string, parsed: unknown): void => {
    inFlight += 1;
    if (inFlight === maxInFlight) channel.pause?.();
    current = parsed;
    const answer = asyncDispatch(text, methods as never, parsedOptions as never);
    current = UNPARSED;
    answer
      .then(
        (answer) => {
          const sent = withoutSilenced(answer);
          if (sent !== "") send(sent);
        },
        (thrown: unknown) => logSafely("rpcserver: a connection could not answer a message", thrown),
      )
      .finally(() => {
        inFlight -= 1;
        const next = waitingIn.shift();
        if (next !== undefined) receive(next);
        else if (inFlight === maxInFlight - 1) channel.resume?.();
      });
  };

  // ------------------------------------------------------------------------------- calling

  const outgoing = new Map<string | number, Waiting>();
  let lastId = 0;
  const nextId = (): number => (lastId = lastId >= Number.MAX_SAFE_INTEGER ? 1 : lastId + 1);

  const answered = (response: Json): void => {
    const id = response["id"];
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

  const transport: Transport = Object.assign(
    (body: string, { signal, ids: given }: TransportOptions) =>
      () =>
        new Promise<E.Either<TransportError, ParsedAnswer | string>>((settle) => {
          if (closed)
            return settle(E.left({ _tag: "TransportError", reason: "closed", cause: closedReason(undefined) }));
          const batch = body.charCodeAt(0) === 0x5b; // "["
          const ids = idsIn(body, given);
          send(body);
          if (ids.length === 0) return settle(E.right(""));
          const responses = new Map<string | number, Json>();
          const onAbort = (): void => {
            for (const id of ids) {
              if (outgoing.get(id) !== waiting) continue;
              outgoing.delete(id);
              send(serialize({ jsonrpc: "2.0", method: cancelMethod, params: cancelParams(id) }));
            }
            settle(E.left({ _tag: "TransportError", reason: "aborted", cause: signal.reason }));
          };
          const waiting: Waiting = {
            answer: (id, response) => {
              if (!batch) {
                signal.removeEventListener("abort", onAbort);
                return settle(E.right({ json: response }));
              }
              responses.set(id, response);
              if (responses.size < ids.length) return;
              signal.removeEventListener("abort", onAbort);
              settle(E.right({ json: ids.map((each) => responses.get(each)) }));
            },
            fail: (error) => {
              signal.removeEventListener("abort", onAbort);
              settle(E.left(error));
            },
          };
          for (const id of ids) outgoing.set(id, waiting);
          // A call that nothing can abort needs no listener (the shared NEVER signal).
          if (signal !== NEVER) signal.addEventListener("abort", onAbort, { once: true });
        }),
    { nextId },
  );

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
    if (inFlight >= maxInFlight) {
      // A channel that cannot pause: the message waits its turn, in a queue as long as the limit.
      if (waitingIn.length >= maxInFlight)
        return close(new Error(`the peer sends past the in-flight limit (${maxInFlight})`));
      waitingIn.push(text);
      return;
    }
    serve(text, parsed);
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
    queue.length = 0;
    waitingIn.length = 0;
    const waiting = new Set(outgoing.values());
    outgoing.clear();
    for (const each of waiting) each.fail({ _tag: "TransportError", reason: "closed", cause });
    settleClosed(reason);
  };

  channel.start({ message: receive, oversize: tooLarge, drain, closed: ended });

  return {
    transport,
    closed: whenClosed,
    close,
    load: () => ({ incoming: inFlight + waitingIn.length, outgoing: outgoing.size, queued: queue.length }),
  };
};
