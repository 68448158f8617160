/**
 * One body whose methods may stream values, answered on a wire that can carry them: an HTTP event
 * stream (./answer-http) or NATS messages (internal/nats). {@link StreamedCall} holds the body's
 * state (each request's tokens and how far it got, the handlers' signal) and hands each message to
 * the wire's {@link Outlet}; {@link streamStage} is the first stage of its dispatch, which gives
 * each request its sink and makes each response what the wire wants; {@link dispatchStreamed} runs
 * the body through it. The notifications are shaped by ./progress-wire, the same on every wire.
 *
 * @module
 */
import type { Kind, URIS } from "fp-ts/HKT";
import { Async, promised } from "./effect";
import { isPlainObject } from "./guards";
import type { Methods } from "./methods";
import type { JsonOptions } from "./options";
import { dispatcher } from "./pipeline/dispatcher";
import { toJson } from "./pipeline/output";
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
import { NOCONTEXT } from "./sentinels";
import { serialize } from "./serializer";
import { abortGuarded, follow, signalController } from "./signal";
import { isNotification, owned, type AnyStage, type Around, type Handler } from "./stages";
import { streamTo } from "./stream";

/**
 * Where a streamed call's messages go, in order: the values' notifications, then the answer. The
 * wire decides what each becomes (an HTTP event, a NATS message) and when a value is taken.
 */
export interface Outlet {
  /** A value's notification: resolves once the wire has taken it (back-pressure), rejects if it never will. */
  value(text: string): Promise<void> | undefined;
  /** Any other message about a value (LSP's work-done begin or end), in order, with no wait. */
  message(text: string): void;
  /** Dispatch answered: the last message (`""`: a body of notifications, which answers nothing). */
  finish(text: string): void;
  /** Dispatch itself failed (a bad option). */
  failed(thrown: unknown): void;
  /** The call is stopped (its client went away): a stream the wire opened ends, quietly (a client leaving is normal). */
  stop(): void;
}

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
  readonly call: StreamedCall;
  readonly context: unknown;
}

/** One body answered on a wire that carries values: each request's sink, fed to the wire's outlet. */
export class StreamedCall {
  private stopped = false;

  constructor(
    private readonly write: Write,
    private readonly controller: AbortController | undefined,
    private readonly outlet: Outlet,
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

  /** One value: its notification, handed to the wire. A value its serializer refuses is the method's exception. */
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
    if (!streamed.begun && streamed.workDone !== undefined) {
      streamed.begun = true;
      this.workDone(streamed, workDoneBegin(streamed.method));
    }
    return this.outlet.value(text);
  }

  /** LSP's work-done begin or end: sent as it comes (one its serializer cannot write is left out). */
  private workDone(streamed: Streamed, value: Record<string, unknown>): void {
    const text = workDoneNotification(this.write, streamed.workDone as string | number, value);
    if (text !== undefined) this.outlet.message(text);
  }

  /** The request is done, however it ended: its sink refuses from now on, and LSP's end follows its begin. */
  ended(streamed: Streamed): void {
    streamed.done = true;
    if (streamed.begun && !this.stopped) this.workDone(streamed, WORK_DONE_END);
  }

  /** The request's response, as the wire wants it (LSP's emptied result), once it is done. */
  close(streamed: Streamed, response: Response): Response {
    this.ended(streamed);
    return streamed.empties ? emptied(streamed, streamed.sent, response) : response;
  }

  /** The client has gone: the handlers' signal aborts, their sinks refuse, and the wire's stream ends. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.outlet.stop();
    if (this.controller !== undefined && !this.controller.signal.aborted)
      abortGuarded(this.controller, requestCancelled());
  }
}

const isEnvelope = (context: unknown): context is Envelope =>
  typeof context === "object" && context !== null && (context as Partial<Envelope>).call instanceof StreamedCall;

let stage: Around | undefined;

/**
 * The first stage of a streamed call: each request gets its sink and the methods' own context, and
 * its response is made what the wire wants (LSP's emptied result) once it is settled. Made once on
 * first use: a module-level call would keep this module in bundles that never use it.
 */
export const streamStage = (): Around =>
  (stage ??= owned({
    _tag: "Around",
    asyncOnly: true,
    around:
      <F extends URIS>() =>
      (next: Handler<F>): Handler<F> =>
      (handled) => {
        if (!isEnvelope(handled.context)) return next(handled);
        const { call, context } = handled.context;
        const { request } = handled;
        const streamed = call.open(request);
        if (streamed === undefined) return next({ request, context });
        let outcome: Kind<F, Response>;
        try {
          outcome = next({ request, context });
        } catch (thrown) {
          call.ended(streamed);
          throw thrown;
        }
        if (!(outcome instanceof Promise)) return call.close(streamed, outcome as Response) as Kind<F, Response>;
        return outcome.then(
          (response: Response) => call.close(streamed, response),
          (thrown: unknown) => {
            call.ended(streamed);
            throw thrown;
          },
        ) as Kind<F, Response>;
      },
  }));

/** The stages of a streamed call: this module's first. A `stages` that is not an array is left to dispatch to refuse. */
const withStreamStage = (stages: unknown): unknown =>
  stages === undefined ? [streamStage()] : Array.isArray(stages) ? [streamStage(), ...(stages as AnyStage[])] : stages;

/** The methods' context: a plain object gains `signal`, as `timeout` and a connection give it; any other is left alone. */
export const withSignal = (context: unknown, controller: AbortController | undefined): unknown =>
  controller === undefined ? context : { ...(context as object), signal: controller.signal };

type Dispatch = ReturnType<typeof makeDispatch>;
const makeDispatch = () => promised(dispatcher(Async, toJson));
/** Made on the first call, for the reason {@link streamStage} is. */
let streamed: Dispatch | undefined;
let json: Dispatch | undefined;

/**
 * Dispatches `body` to JSON text as `asyncDispatch` does, on a wire that streams nothing (an HTTP
 * JSON answer, a plain NATS request). A plain-object context gains `signal`, which aborts (-32800,
 * "Request cancelled") when `signal` does: the client went away, the service is stopping. The
 * listener on `signal` is let go once answered, so that a long-lived one (a service's) keeps none.
 */
export const dispatchFollowing = (
  body: string | Uint8Array,
  methods: Methods | undefined,
  o: JsonOptions & { readonly signal?: AbortSignal | undefined },
): Promise<string> => {
  const dispatch = (json ??= makeDispatch());
  if (!isPlainObject(o.context)) return dispatch(body, methods, o);
  const controller = signalController();
  const release = follow(o.signal, () => abortGuarded(controller, requestCancelled()));
  return dispatch(body, methods, { ...o, context: withSignal(o.context, controller) }).then(
    (text) => {
      release();
      return text;
    },
    (thrown: unknown) => {
      release();
      throw thrown;
    },
  );
};

/**
 * Dispatches `body` with its values sent through `outlet` before its answer. A plain-object context
 * gains `signal`, which aborts when `signal` does (the wire's client went away) or the call is stopped.
 * Returns the call, which the wire stops when its reader cancels.
 */
export const dispatchStreamed = (
  body: string | Uint8Array,
  methods: Methods | undefined,
  o: JsonOptions & { readonly signal?: AbortSignal | undefined },
  outlet: Outlet,
): StreamedCall => {
  const controller = isPlainObject(o.context) ? signalController() : undefined;
  const call = new StreamedCall(o.serializer ?? serialize, controller, outlet);
  const release = follow(o.signal, () => call.stop());
  const envelope: Envelope = {
    call,
    context: o.context === undefined ? NOCONTEXT : withSignal(o.context, controller),
  };
  const options = { ...o, context: envelope, stages: withStreamStage(o.stages) } as JsonOptions;
  (streamed ??= makeDispatch())(body, methods, options).then(
    (text) => {
      release();
      outlet.finish(text);
    },
    (thrown: unknown) => {
      release();
      outlet.failed(thrown);
    },
  );
  return call;
};
