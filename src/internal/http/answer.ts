/**
 * `answerHttp`, the successor of `toHttp`: dispatches an HTTP request's body and answers it, as a
 * server-sent-event stream when its `Accept` asks for one and a method streams values, else as
 * `toHttp` answers. No `node:` module: a fetch handler returns the answer as a `Response`, and
 * Node writes it to its `res` (node/body-writer.ts).
 *
 * The wire, with `Accept: text/event-stream` (MCP's Streamable HTTP asks for it so; the call is
 * core/served-body.ts's, and this module its outlet):
 * - a body of notifications only: 202 Accepted, no body;
 * - the answer ready before any value: 200 `application/json`, exactly as without that `Accept`;
 * - once a first value is to be sent, or a request with an id has waited `heartbeatMs` (a comment
 *   then goes every `heartbeatMs` whenever nothing else waits to be sent): 200 `text/event-stream`,
 *   one event per message (the values' notifications, then the final answer), and the stream ends.
 *   Which notification carries a
 *   value is read request by request (core/progress-wire.ts): MCP's `_meta.progressToken`, LSP's
 *   `partialResultToken` / `workDoneToken`, else `$/progress` on the request's own id.
 *
 * A request's sink resolves only once the reader pulled its event (back-pressure), and rejects once
 * the client has cancelled the stream, which also aborts the handlers' `signal`.
 *
 * @module
 */
import type { NoContext, WithSignal } from "../core/context-marks";
import { render } from "../core/describe";
import type { DispatchContext, MethodsFor, TypedOptions } from "../core/dispatch-context";
import type { Methods } from "../core/methods";
import type { JsonOptions } from "../core/options";
import type { Relay } from "../core/relay";
import { follow, type Followed } from "../core/signal";
import type { AnyStage } from "../core/stages";
import { dispatchFollowing, dispatchStreamed, type BodyOutlet, type ServedBody } from "../core/served-body";
import { isRecord } from "../core/guards";
import { acceptsEvents, EVENT_STREAM } from "./accept";
import { EventQueue } from "./event-stream-writer";
import { serverErrorOf, toHttp, type HttpAnswer } from "./json-answer";

/**
 * The options of {@link answerHttp}: dispatch's (`context`, `maxBatchSize`, `stages`, `serializer`...)
 * and two of the HTTP request's own.
 *
 * @example
 * import type { AnswerHttpOptions } from "rpcserver";
 * const options: AnswerHttpOptions = { accept: "text/event-stream, application/json", maxBatchSize: 100 };
 *
 * @since 5.0.10
 * @category transport
 */
export interface AnswerHttpOptions extends JsonOptions {
  /**
   * The request's `Accept` header. When it names `text/event-stream`, values that methods stream
   * go out as server-sent events before the answer. Default: none (the answer is `toHttp`'s).
   */
  readonly accept?: string | null | undefined;
  /**
   * Aborts when the client has gone away (a fetch handler's `request.signal`; on Node, `res`
   * closing): the handlers' `signal` aborts, and an event stream ends. Default: none.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * With `text/event-stream` in `accept`: once a request with an id has waited this long for its
   * first value or its answer, the answer becomes an event stream (its head is sent), and a comment
   * (`:`) goes at the same interval whenever nothing else waits to be sent, so that neither the client nor a
   * proxy gives up on a method that works long before it answers (undici's `fetch` waits 300 s for
   * a head, nginx 60 s for a byte). `0`: never (the head waits for the first value or the answer).
   * Default: 15,000.
   */
  readonly heartbeatMs?: number | undefined;
}

/** The default of {@link AnswerHttpOptions.heartbeatMs}. */
const HEARTBEAT_MS = 15_000;

/** `heartbeatMs`, checked: a TypeError names `who` (the handler or function given it). */
export const heartbeatOf = (value: unknown, who: string): number => {
  if (value === undefined) return HEARTBEAT_MS;
  // A timer's delay past 2^31 - 1 ms is taken for 1 ms by Node and the browsers: a "never" would beat at once.
  if (typeof value !== "number" || !(value >= 0) || !(value <= 2_147_483_647)) {
    throw new TypeError(
      `${who}: heartbeatMs must be a number of milliseconds up to 2147483647 (0 for none), got ${typeof value === "number" ? String(value) : render(value)}`,
    );
  }
  return value;
};

/**
 * The options of {@link answerHttp}, under their old name.
 *
 * @deprecated Use {@link AnswerHttpOptions}; removed in 6.0. `rpcserver/client` has an `HttpOptions` too
 * (the `http` transport's, now `HttpTransportOptions`): one name meant two things.
 *
 * @example
 * import type { AnswerHttpOptions, HttpOptions } from "rpcserver";
 * const options: HttpOptions = { maxBatchSize: 100 };
 * const same: AnswerHttpOptions = options;
 *
 * @since 5.0.10
 * @category transport
 */
export type HttpOptions = AnswerHttpOptions;

/**
 * What `answerHttp` answers: {@link HttpAnswer} (200 JSON, 204), 202 Accepted for a body of
 * notifications from a client that accepts events, or 200 with a server-sent-event stream. Every
 * form fits the Fetch API as is: `new Response(answer.body, answer)`.
 *
 * @since 5.0.10
 * @category transport
 */
export type HttpStreamAnswer =
  | HttpAnswer
  | {
      readonly status: 202;
      readonly headers: { readonly [name: string]: never };
      readonly body: null;
    }
  | {
      readonly status: 200;
      readonly headers: { readonly "Content-Type": "text/event-stream"; readonly "Cache-Control": "no-cache" };
      readonly body: ReadableStream<Uint8Array>;
    };

/** Shared by every 202 answer: it holds nothing, and nobody can add to it. */
const ACCEPTED: HttpStreamAnswer = Object.freeze({ status: 202, headers: Object.freeze({}), body: null });

const EVENT_HEADERS = Object.freeze({ "Content-Type": EVENT_STREAM, "Cache-Control": "no-cache" } as const);

/**
 * One POST's outlet: the answer is chosen at the first message (an event stream, which answers the
 * POST) or when dispatch answers first (JSON, or 202), and the stream is fed message by message.
 */
class HttpOutlet implements BodyOutlet {
  private queue: EventQueue | undefined;
  /** What the stream's reader cancelling stops: the body's call, or a relay's wait. */
  call: Pick<ServedBody, "stop"> | undefined;
  /** The next heartbeat, while the body is under way. */
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Answered, failed or stopped: no heartbeat from now on. */
  private done = false;

  constructor(
    private readonly settle: (answer: HttpStreamAnswer) => void,
    private readonly fail: (reason: unknown) => void,
    private readonly heartbeatMs = 0,
  ) {}

  /** A request with an id starts: the heartbeat begins (see {@link AnswerHttpOptions.heartbeatMs}). */
  opened(): void {
    if (this.heartbeatMs > 0 && this.timer === undefined && !this.done) this.arm();
  }

  private arm(): void {
    const timer = setTimeout(this.beat, this.heartbeatMs);
    // On Node, the heartbeat alone keeps no process alive: an answer nobody will read (its method
    // waiting forever, its body never taken) must not hold a process that is otherwise done.
    (timer as { unref?: () => void }).unref?.();
    this.timer = timer;
  }

  /** The first opens the event stream, whose head goes with its comment; each after keeps a silent stream alive. */
  private readonly beat = (): void => {
    if (this.done) return;
    this.events().comment();
    this.arm();
  };

  /** The body is over, one way or another: no more heartbeats. */
  private over(): void {
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  value(text: string): Promise<void> | undefined {
    return this.events().value(text);
  }

  message(text: string): void {
    this.events().message(text);
  }

  /** The event stream, opened at the first event: that answers the POST. Its reader cancelling stops the call. */
  private events(): EventQueue {
    if (this.queue !== undefined) return this.queue;
    const queue = new EventQueue(() => this.call?.stop());
    this.queue = queue;
    this.settle({ status: 200, headers: EVENT_HEADERS, body: queue.stream });
    return queue;
  }

  finish(text: string): void {
    this.over();
    if (this.queue === undefined) this.settle(text === "" ? ACCEPTED : toHttp(text));
    else this.queue.end(text === "" ? undefined : text);
  }

  failed(thrown: unknown): void {
    this.over();
    if (this.queue === undefined) this.fail(thrown);
    else this.queue.fail(thrown);
  }

  stop(): void {
    this.over();
    this.queue?.leave();
  }
}

/** Without `text/event-stream` in `Accept`: `toHttp`'s answer, the handlers stopped when `signal` aborts. */
const answerJson = (
  body: string | Uint8Array,
  methods: Methods | undefined,
  o: AnswerHttpOptions,
): Promise<HttpAnswer> => dispatchFollowing(body, methods, o).then(toHttp);

/** With `text/event-stream` in `Accept`: the answer chosen lazily, the values as events. */
const answerEvents = (
  body: string | Uint8Array,
  methods: Methods | undefined,
  o: AnswerHttpOptions,
  heartbeatMs: number,
): Promise<HttpStreamAnswer> =>
  new Promise<HttpStreamAnswer>((settle, fail) => {
    const outlet = new HttpOutlet(settle, fail, heartbeatMs);
    outlet.call = dispatchStreamed(body, methods, o, outlet);
  });

/**
 * Dispatches an HTTP request's body and answers it on the wire MCP's Streamable HTTP uses, which
 * any JSON-RPC client reads: the successor of {@link toHttp}.
 *
 * When to use it: in any HTTP handler (a fetch handler, Express, Fastify, Koa, Hono), in the place
 * of `toHttp(await asyncDispatch(body, methods, options))`, with the request's `Accept` header and
 * a signal that aborts when the client goes away.
 *
 * Details:
 * - Without `text/event-stream` in `accept`, the answer is exactly `toHttp`'s: 200 with the JSON
 *   text, or 204 for a body of notifications; a method's streamed values are dropped.
 * - With it: a body of notifications only is 202 Accepted, no body. A call whose answer is ready
 *   before any value (and within `heartbeatMs`) is 200 JSON, as above. Once a method streams its
 *   first value, or a request with an id has waited `heartbeatMs` (a comment, `:`, then goes every
 *   `heartbeatMs` whenever nothing else waits to be sent), the answer is
 *   200 `text/event-stream` (`Cache-Control: no-cache`), and its body a `ReadableStream` of events
 *   `event: message` / `data: <json>`: each value as a notification (MCP's
 *   `notifications/progress` on `params._meta.progressToken`, LSP's `$/progress` on
 *   `partialResultToken` or `workDoneToken` with the result then emptied, else `$/progress {
 *   token: <the request's id>, value }`), then the final answer (a batch's array as one event).
 * - Back-pressure: a method waits at its `yield` until the reader has pulled its value's event.
 * - A plain-object `context` gains `signal`, which aborts when `signal` does or the client cancels
 *   the stream; the methods' sinks then refuse, which stops their generators (their `finally` runs).
 *   Any other context gets no signal, and its streaming methods stop at their next `yield` the same.
 *
 * Gotchas: set the body-size limit and `maxBatchSize` yourself. Rejects only as `asyncDispatch`
 * does (a bad option). Write the stream as it comes: a proxy or compression that buffers it holds
 * the values back.
 *
 * @example
 * import { answerHttp, Success } from "rpcserver";
 * const methods = {
 *   count: async function* (_context: object, to: number) {
 *     for (let i = 1; i <= to; i++) yield i;
 *     return Success(`counted to ${to}`);
 *   },
 * };
 * // In a fetch handler (Hono, Bun, Deno, Cloudflare Workers):
 * const handle = async (request: Request): Promise<Response> => {
 *   const body = new Uint8Array(await request.arrayBuffer());
 *   const answer = await answerHttp(body, methods, {
 *     context: {},
 *     accept: request.headers.get("Accept"),
 *     signal: request.signal,
 *   });
 *   return new Response(answer.body, answer);
 * };
 * const asked = (accept: string) =>
 *   handle(new Request("http://localhost/rpc", {
 *     method: "POST",
 *     headers: { Accept: accept },
 *     body: '{"jsonrpc":"2.0","method":"count","params":[2],"id":1}',
 *   }));
 * const events = await asked("text/event-stream, application/json");
 * events.headers.get("Content-Type"); // "text/event-stream"
 * await events.text();
 * // 'event: message\ndata: {"jsonrpc":"2.0","method":"$/progress","params":{"token":1,"value":1}}\n\nevent: message\ndata: {"jsonrpc":"2.0","method":"$/progress","params":{"token":1,"value":2}}\n\nevent: message\ndata: {"jsonrpc":"2.0","result":"counted to 2","id":1}\n\n'
 * const plain = await asked("application/json");
 * await plain.text(); // '{"jsonrpc":"2.0","result":"counted to 2","id":1}'
 *
 * @since 5.0.10
 * @category transport
 */
export const answerHttp = <C = NoContext, const S extends ReadonlyArray<AnyStage> = readonly []>(
  body: string | Uint8Array,
  methods?: MethodsFor<DispatchContext<WithSignal<NoInfer<C>>, NoInfer<S>>>,
  options?: TypedOptions<AnswerHttpOptions, C, S, WithSignal<NoInfer<C>>>,
): Promise<HttpStreamAnswer> => {
  const o = (options ?? {}) as AnswerHttpOptions;
  const table = methods as Methods | undefined;
  let heartbeatMs: number;
  try {
    // Checked whatever the Accept: a bad option is the caller's error on every request, not on some.
    heartbeatMs = heartbeatOf(o.heartbeatMs, "answerHttp");
  } catch (thrown) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    return Promise.reject(thrown);
  }
  return acceptsEvents(o.accept) ? answerEvents(body, table, o, heartbeatMs) : answerJson(body, table, o);
};

/**
 * A POST's body answered by `relay` (a server in another process) as `answerHttp` answers it here:
 * with `text/event-stream` in `accept`, the messages relayed before the answer as events (the
 * answer chosen at the first of them, 202 for a body of notifications), else the answer alone as
 * `toHttp` makes it. The relay's signal aborts when `signal` does (the client went away) or the
 * event stream's reader cancels, and its stream then ends quietly, as a local call's does; a relay
 * that fails otherwise rejects, or ends a stream begun with an error.
 */
export const relayHttp = (
  body: Uint8Array,
  relay: Relay,
  o: {
    readonly accept: string | undefined;
    readonly signal: Followed;
    readonly headers: Record<string, string>;
    /** The relay failed (no answer in time, a lost message, the broker gone): for the log. */
    readonly failed: (thrown: unknown) => void;
  },
): Promise<HttpStreamAnswer> =>
  new Promise<HttpStreamAnswer>((settle, fail) => {
    const outlet = new HttpOutlet(settle, fail);
    const abort = new AbortController();
    // The client went away, as a local call's stop: the relay's wait aborts and the stream ends quietly.
    const stop = (): void => {
      abort.abort(new Error("the client went away"));
      outlet.stop();
    };
    outlet.call = { stop };
    const release = follow(o.signal, stop);
    const events = acceptsEvents(o.accept);
    const onMessage = events ? { onMessage: (text: string) => outlet.value(text)?.catch(stop) } : {};
    let relayed: Promise<string>;
    try {
      relayed = relay(body, { headers: o.headers, signal: abort.signal, ...onMessage });
    } catch (thrown) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      relayed = Promise.reject(thrown);
    }
    relayed.then(
      (text) => {
        release();
        // Without the event stream, exactly answerJson's answer: 204 for a body of notifications.
        if (events) outlet.finish(text);
        else settle(toHttp(text));
      },
      (thrown: unknown) => {
        release();
        // A relay the client's leaving aborted has failed no one: nothing reads its answer.
        if (abort.signal.aborted) return outlet.finish("");
        // Each request is answered, with its id, as a call whose server failed: on the event stream
        // after what came, or as JSON. A client waits for its id; a stream that ended without it, or
        // an error with id null, would leave it waiting for its own time-out.
        o.failed(thrown);
        const text = relayFailure(body);
        if (events) outlet.finish(text);
        else settle(toHttp(text));
      },
    );
  });

/**
 * The answer to a relayed body whose relay failed: -32000 Server error for each request in it, with
 * its id (an id JSON-RPC does not allow, null, as -32600 would answer it); id null for a message that
 * is no request, or a body that is not JSON; nothing for notifications.
 */
const relayFailure = (body: Uint8Array): string => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return serverErrorOf(null);
  }
  const answers = (Array.isArray(parsed) ? parsed : [parsed]).flatMap((message: unknown) => {
    if (!isRecord(message) || !("method" in message)) return [serverErrorOf(null)];
    if (!("id" in message)) return [];
    const { id } = message;
    return [serverErrorOf(typeof id === "string" || typeof id === "number" ? id : null)];
  });
  return answers.length === 0 ? "" : Array.isArray(parsed) ? `[${answers.join(",")}]` : (answers[0] as string);
};
