/**
 * One body whose methods may stream values, answered on a wire that can carry them: an HTTP event
 * stream (http/answer.ts) or NATS messages (internal/nats). {@link ServedBody} holds the body's
 * state (each request's abort, whether its client went away) and is the wire its requests' sinks
 * (./streamed) send through, to the wire's {@link BodyOutlet}; {@link streamStage} is the first
 * stage of its dispatch, which gives each request its sink and makes each response what the wire
 * wants; {@link dispatchStreamed} runs the body through it.
 *
 * @module
 */
import type { Kind, URIS } from "fp-ts/HKT";
import { Async, promised } from "./effect";
import { isJsonRpcError } from "./exceptions";
import { isPlainObject } from "./guards";
import type { Methods } from "./methods";
import type { JsonOptions } from "./options";
import type { DispatchOptions } from "./pipeline/compose";
import { dispatcher, dispatchOptions } from "./pipeline/dispatcher";
import { toJson } from "./pipeline/output";
import { httpTokens, requestCancelled, type Write } from "./progress-wire";
import type { Request } from "./request";
import { ErrorResponse, toErrorDict, type Response } from "./response";
import { NOCONTEXT } from "./sentinels";
import { serialize } from "./serializer";
import { follow, RequestAbort, withRequestAbort, type Followed } from "./signal";
import { isNotification, owned, type AnyStage, type Around, type Handler } from "./stages";
import { endStream } from "./stream";
import { Streamed, type Outlet, type Wire } from "./streamed";

/** The outlet of a wire that answers one body (an HTTP POST, a NATS message): its values, then its answer. */
export interface BodyOutlet extends Outlet {
  /** Dispatch answered: the last message (`""`: a body of notifications, which answers nothing). */
  finish(text: string): void;
  /** Dispatch itself failed (a bad option). */
  failed(thrown: unknown): void;
  /** The body is stopped (its client went away): a stream the wire opened ends, quietly (a client leaving is normal). */
  stop(): void;
  /** A request that will be answered (one with an id) starts: an HTTP outlet then keeps its client waiting with a heartbeat. */
  opened?(): void;
}

/** What the context of the body's dispatch holds: the body served, and the context its methods get. */
export interface Envelope {
  readonly served: ServedBody;
  readonly context: unknown;
}

/**
 * One body answered on a wire: on one that carries values (an outlet), each request's sink, fed to
 * the wire's outlet; on one that carries none, the values are dropped. Each request under way has
 * its abort, which its plain-object context hands its method as `signal`; stopped, the body aborts
 * them and ends their streams, so that a streaming method stops at its next yield whatever its
 * context.
 */
export class ServedBody implements Wire {
  private halted = false;
  /** The requests under way, each with its abort: `stop` reaches them. */
  private readonly live = new Map<Request, RequestAbort>();

  constructor(
    readonly write: Write,
    readonly outlet: BodyOutlet | undefined,
  ) {}

  get stopped(): boolean {
    return this.halted;
  }

  /**
   * A request starts: the context its method gets (a plain object gains the request's `signal`),
   * the request kept until it ends. One that starts once the body is stopped starts aborted, its
   * stream ended before its method runs.
   */
  enter(request: Request, context: unknown): unknown {
    const abort = new RequestAbort(request);
    if (this.halted) {
      abort.abort(requestCancelled());
      endStream(request, requestCancelled());
    } else this.live.set(request, abort);
    return isPlainObject(context) ? withRequestAbort({ ...context }, abort) : context;
  }

  /** A request starts: one with an id gets a sink for its values (over HTTP, on its own id without a token); a notification's are dropped. */
  open(request: Request): Streamed | undefined {
    if (this.outlet === undefined || this.halted || isNotification(request)) return undefined;
    this.outlet.opened?.();
    return Streamed.open(this, request, httpTokens(request, request.id));
  }

  /** The request is done, however it ended: its sink refuses from now on, and LSP's end follows its begin. */
  ended(request: Request, streamed: Streamed | undefined): void {
    this.live.delete(request);
    streamed?.end();
  }

  /** The request's response, as the wire wants it (LSP's emptied result), once it is done. */
  close(request: Request, streamed: Streamed | undefined, response: Response): Response {
    this.ended(request, streamed);
    return streamed === undefined ? response : streamed.answer(response);
  }

  /**
   * The body is answered: every request is over, and a stop after (an event stream's reader
   * cancelling before it read the last event) aborts none of them (a notification's, which has no
   * sink to end it, was kept until now).
   */
  answered(): void {
    this.live.clear();
  }

  /** The client has gone: the handlers' signals abort, their streams end, their sinks refuse, and the wire's stream ends. */
  stop(): void {
    if (this.halted) return;
    this.halted = true;
    this.outlet?.stop();
    const reason = requestCancelled();
    for (const [request, abort] of this.live) {
      endStream(request, reason);
      abort.abort(reason);
    }
    this.live.clear();
  }
}

const isEnvelope = (context: unknown): context is Envelope =>
  typeof context === "object" && context !== null && (context as Partial<Envelope>).served instanceof ServedBody;

let stage: Around | undefined;

/**
 * The first stage of a served body: each request gets its sink and the methods' own context, and
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
        const { served } = handled.context;
        const { request } = handled;
        const context = served.enter(request, handled.context.context);
        const streamed = served.open(request);
        // Without a sink, nothing is owed at its end: the request stays under way until the body
        // is answered (a stop then aborts a signal its method let go of), with no extra turn.
        if (streamed === undefined) return next({ request, context });
        let outcome: Kind<F, Response>;
        try {
          outcome = next({ request, context });
        } catch (thrown) {
          served.ended(request, streamed);
          throw thrown;
        }
        if (!(outcome instanceof Promise))
          return served.close(request, streamed, outcome as Response) as Kind<F, Response>;
        return outcome.then(
          (response: Response) => served.close(request, streamed, response),
          (thrown: unknown) => {
            served.ended(request, streamed);
            throw thrown;
          },
        ) as Kind<F, Response>;
      },
  }));

/** The stages of a served body: this module's first. A `stages` that is not an array is left to dispatch to refuse. */
const withStreamStage = (stages: unknown): unknown =>
  stages === undefined ? [streamStage()] : Array.isArray(stages) ? [streamStage(), ...(stages as AnyStage[])] : stages;

/**
 * The answer to a body whose context a wire's context function refused before dispatch (a
 * `JsonRpcError` it threw): that error, id `null`, written by the body's serializer; `undefined`
 * for anything else thrown, which is the wire's own failure. serveNats and fetchHandler both answer so.
 */
export const refusedContext = (thrown: unknown, serializer: JsonOptions["serializer"]): string | undefined =>
  isJsonRpcError(thrown)
    ? (serializer ?? serialize)(toErrorDict(ErrorResponse(thrown.code, thrown.message, thrown.data, null)))
    : undefined;

/** Made on the first call, for the reason {@link streamStage} is. */
let dispatch: ((body: unknown, methods: Methods | undefined, o: DispatchOptions) => Promise<string>) | undefined;

/**
 * Runs `body` as one call: each request's plain-object context gains its `signal`, and the call's
 * `stop` (or `signal` aborting: the wire's client went away) aborts them and ends their streams;
 * its values go to `outlet`, or are dropped without one. Returns the call, which the wire stops
 * when its reader cancels or it is stopping, and its answer. The listener on `signal` is let go
 * once answered, so that a long-lived one (a caller's) keeps none.
 */
export const serveBody = (
  body: string | Uint8Array,
  methods: Methods | undefined,
  o: JsonOptions & { readonly signal?: Followed | undefined },
  outlet: BodyOutlet | undefined,
): { readonly call: ServedBody; readonly answered: Promise<string> } => {
  const call = new ServedBody(o.serializer ?? serialize, outlet);
  const release = follow(o.signal, () => call.stop());
  const envelope: Envelope = { served: call, context: o.context === undefined ? NOCONTEXT : o.context };
  const answered = (dispatch ??= promised(dispatcher(Async, toJson)))(
    body,
    methods,
    dispatchOptions(o, envelope, withStreamStage(o.stages)),
  );
  const over = (): void => {
    release();
    call.answered();
  };
  answered.then(over, over);
  return { call, answered };
};

/**
 * Dispatches `body` to JSON text as `asyncDispatch` does, on a wire that streams nothing (an HTTP
 * JSON answer): when `signal` aborts (the client went away), each request's `signal` (a
 * plain-object context's) aborts (-32800, "Request cancelled") and a streaming method stops at its
 * next yield.
 */
export const dispatchFollowing = (
  body: string | Uint8Array,
  methods: Methods | undefined,
  o: JsonOptions & { readonly signal?: Followed | undefined },
): Promise<string> => serveBody(body, methods, o, undefined).answered;

/**
 * Dispatches `body` with its values sent through `outlet` before its answer: {@link serveBody},
 * its answer handed to the outlet. Returns the call, which the wire stops when its reader cancels.
 */
export const dispatchStreamed = (
  body: string | Uint8Array,
  methods: Methods | undefined,
  o: JsonOptions & { readonly signal?: Followed | undefined },
  outlet: BodyOutlet,
): ServedBody => {
  const { call, answered } = serveBody(body, methods, o, outlet);
  answered.then(
    (text) => outlet.finish(text),
    (thrown: unknown) => outlet.failed(thrown),
  );
  return call;
};
