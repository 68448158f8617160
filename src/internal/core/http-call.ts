/**
 * One POST answered on the agreed wire by `answerHttp` (./answer-http), with `text/event-stream` in
 * its `Accept`: {@link HttpCall}, the call's state (its answer, chosen at the first value or when
 * dispatch answers first; its event stream; the handlers' signal), and {@link httpStage}, the
 * first stage of its dispatch, which gives each request its sink and makes each response what the
 * wire wants. The notifications are shaped by ./progress-wire, the events by ./event-stream.
 *
 * @module
 */
import type { Kind, URIS } from "fp-ts/HKT";
import { EventQueue } from "./event-stream";
import {
  answeredAlready,
  emptied,
  httpTokens,
  valueNotification,
  WORK_DONE_END,
  requestCancelled,
  workDoneBegin,
  workDoneNotification,
  type HttpTokens,
  type Write,
} from "./progress-wire";
import type { Request } from "./request";
import type { Response } from "./response";
import { abortGuarded } from "./signal";
import { isNotification, owned, type Around, type Handler } from "./stages";
import { streamTo } from "./stream";
import { toHttp, type HttpStreamAnswer } from "./to-http";

/** Shared by every 202 answer: it holds nothing, and nobody can add to it. */
const ACCEPTED: HttpStreamAnswer = Object.freeze({ status: 202, headers: Object.freeze({}), body: null });

const EVENT_HEADERS = Object.freeze({ "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } as const);

/** One request of the call that can stream: where its values go, and how far it got. */
interface Streamed extends HttpTokens {
  readonly method: string;
  sent: number;
  /** LSP's work-done `begin` went out (with the first value: nothing goes out before one). */
  begun: boolean;
  /** Its response is made: its sink refuses what comes after. */
  done: boolean;
}

/** What the context of the call's dispatch holds: this call, and the context its methods get. */
export interface Envelope {
  readonly http: HttpCall;
  readonly context: unknown;
}

/**
 * One POST answered on the agreed wire: the answer is chosen at the first value (an event stream)
 * or when dispatch answers first (JSON, or 202), and the stream is fed request by request.
 */
export class HttpCall {
  private queue: EventQueue | undefined;
  private stopped = false;
  settle: (answer: HttpStreamAnswer) => void = () => undefined;
  fail: (reason: unknown) => void = () => undefined;

  constructor(
    private readonly write: Write,
    private readonly controller: AbortController | undefined,
  ) {}

  /** A request starts: one with an id gets a sink for its values; a notification's are dropped. */
  open(request: Request): Streamed | undefined {
    if (this.stopped || isNotification(request)) return undefined;
    const tokens = httpTokens(request, request.id);
    if (tokens === undefined) return undefined;
    const streamed: Streamed = { ...tokens, method: request.method, sent: 0, begun: false, done: false };
    streamTo(request, (value) => this.push(streamed, value));
    return streamed;
  }

  /** One value: its event, taken when the reader pulls it. A value its serializer refuses is the method's exception. */
  private push(streamed: Streamed, value: unknown): Promise<void> | undefined {
    if (this.stopped || streamed.done) {
      return Promise.reject(this.stopped ? requestCancelled() : answeredAlready());
    }
    let text: string;
    try {
      text = valueNotification(this.write, streamed.convention, streamed, streamed.sent + 1, value);
    } catch (thrown) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(thrown);
    }
    streamed.sent += 1;
    const queue = this.events();
    if (!streamed.begun && streamed.workDone !== undefined) {
      streamed.begun = true;
      this.workDone(queue, streamed, workDoneBegin(streamed.method));
    }
    return queue.value(text);
  }

  /** LSP's work-done begin or end: queued as it comes (one its serializer cannot write is left out). */
  private workDone(queue: EventQueue, streamed: Streamed, value: Record<string, unknown>): void {
    const text = workDoneNotification(this.write, streamed.workDone as string | number, value);
    if (text !== undefined) queue.message(text);
  }

  /** The request is done, however it ended: its sink refuses from now on, and LSP's end follows its begin. */
  ended(streamed: Streamed): void {
    streamed.done = true;
    if (streamed.begun && this.queue !== undefined) this.workDone(this.queue, streamed, WORK_DONE_END);
  }

  /** The request's response, as the wire wants it (LSP's emptied result), once it is done. */
  close(streamed: Streamed, response: Response): Response {
    this.ended(streamed);
    return streamed.empties ? emptied(streamed, streamed.sent, response) : response;
  }

  /** The event stream, opened at the first event: that answers the POST. */
  private events(): EventQueue {
    if (this.queue !== undefined) return this.queue;
    const queue = new EventQueue(() => this.stop());
    this.queue = queue;
    this.settle({ status: 200, headers: EVENT_HEADERS, body: queue.stream });
    return queue;
  }

  /** Dispatch answered: as JSON (or 202) if nothing was streamed, else as the stream's last event. */
  finish(text: string): void {
    if (this.queue === undefined) this.settle(text === "" ? ACCEPTED : toHttp(text));
    else this.queue.end(text === "" ? undefined : text);
  }

  /** Dispatch itself failed (a bad option): the POST's answer rejects, or its stream fails. */
  failed(thrown: unknown): void {
    if (this.queue === undefined) this.fail(thrown);
    else this.queue.fail(thrown);
  }

  /** The client has gone: the handlers' signal aborts, their sinks refuse, and the stream ends. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const reason = requestCancelled();
    this.queue?.fail(reason);
    if (this.controller !== undefined && !this.controller.signal.aborted) abortGuarded(this.controller, reason);
  }
}

const isEnvelope = (context: unknown): context is Envelope =>
  typeof context === "object" && context !== null && (context as Partial<Envelope>).http instanceof HttpCall;

/**
 * The first stage of a streamed call: each request gets its sink and the methods' own context, and
 * its response is made what the wire wants (LSP's emptied result) once it is settled.
 */
let stage: Around | undefined;

/** The stage, made once on first use (a module-level call would keep this module in bundles that never use it). */
export const httpStage = (): Around =>
  (stage ??= owned({
    _tag: "Around",
    asyncOnly: true,
    around:
      <F extends URIS>() =>
      (next: Handler<F>): Handler<F> =>
      (call) => {
        if (!isEnvelope(call.context)) return next(call);
        const { http, context } = call.context;
        const { request } = call;
        const streamed = http.open(request);
        if (streamed === undefined) return next({ request, context });
        let outcome: Kind<F, Response>;
        try {
          outcome = next({ request, context });
        } catch (thrown) {
          http.ended(streamed);
          throw thrown;
        }
        if (!(outcome instanceof Promise)) return http.close(streamed, outcome as Response) as Kind<F, Response>;
        return outcome.then(
          (response: Response) => http.close(streamed, response),
          (thrown: unknown) => {
            http.ended(streamed);
            throw thrown;
          },
        ) as Kind<F, Response>;
      },
  }));
