/**
 * The stages shipped with the library: `timeout` (answers a request whose method has not settled in
 * time, and aborts the signal it was handed) and `observe` (hands a callback each request's method,
 * id, duration and answer). Both are `Around` stages, total, so the pipeline need not check them.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Kind, URIS } from "fp-ts/HKT";
import { ERROR_TIMEOUT } from "./codes";
import type { AddsSignal, TypedAround, WithSignal } from "./context-marks";
import type { Effect } from "./effect";
import { JsonRpcError } from "./exceptions";
import { isPlainObject, isThenable } from "./guards";
import { logSafely } from "./logger";
import { follow, RequestAbort, requestAbortOf, signalIn, withRequestAbort } from "./signal";
import type { Id, Request } from "./request";
import { ErrorResponse, type Response } from "./response";
import { idOf, owned, type Around, type Handler } from "./stages";
import { endStream } from "./stream";
import { after, MAX_TIMER_MS } from "./timer";

/** What lets go of nothing. */
const letGo = (): void => undefined;

/**
 * The abort a `timeout` reaches, and the context its method gets. A context a wire made for the
 * request (a connection's, `answerHttp`'s, NATS', an outer `timeout`'s) carries the request's one
 * abort: the method keeps that context and signal, which the timer aborts too. Any other (the
 * caller's own, with or without a `signal`; another request's, which a method handed on to a
 * dispatch of its own) gets an abort of this stage's, which follows the signal the context
 * carries; a plain-object context gains its `signal` (or `options.context` places it).
 */
const abortFor = (
  request: Request,
  context: unknown,
  place: ((context: unknown, signal: AbortSignal) => unknown) | undefined,
): { readonly abort: RequestAbort; readonly context: unknown; readonly release: () => void } => {
  const owner = requestAbortOf(context, request);
  if (owner !== undefined) {
    return { abort: owner, context: place === undefined ? context : place(context, owner.signal), release: letGo };
  }
  const abort = new RequestAbort(request);
  const outer = signalIn(context);
  const release = follow(outer, () => abort.abort(outer?.reason));
  try {
    const given =
      place !== undefined
        ? place(context, abort.signal)
        : isPlainObject(context)
          ? withRequestAbort({ ...context }, abort)
          : context;
    return { abort, context: given, release };
  } catch (thrown) {
    // A `context` option that throws leaves no listener on the outer signal.
    release();
    throw thrown;
  }
};

/**
 * Options of {@link timeout}.
 *
 * @example
 * import { asyncDispatch, Success, timeout, type TimeoutOptions } from "rpcserver";
 * // The signal as the context itself, for methods written as (signal, ...params).
 * const options: TimeoutOptions = { context: (_context, signal) => signal };
 * const methods = { stopped: (signal: AbortSignal) => Success(signal.aborted) };
 * await asyncDispatch('{"jsonrpc":"2.0","method":"stopped","id":1}', methods, {
 *   context: {},
 *   stages: [timeout(1000, options)],
 * });
 * // '{"jsonrpc":"2.0","result":false,"id":1}'
 *
 * @since 5.0.10
 * @category stages
 */
export interface TimeoutOptions<C = unknown, Out = unknown> {
  /**
   * How the method is handed the signal: the context it receives, from the context it would have
   * received and the signal. Default: a plain-object context gets a `signal` member (`{ ...context,
   * signal }`); any other context, or none, is left as it is (the answer is still cut off in time).
   */
  readonly context?: (context: C, signal: AbortSignal) => Out;
}

/**
 * Answers a request with -32001 "Request timed out" (`data: { timeoutMs }`) when its method has not
 * settled `ms` milliseconds after the call, and aborts the `AbortSignal` the method was handed then.
 * The method's later outcome is dropped. A streaming method (an `async function*`) is stopped at its
 * next `yield` (its generator's `return()`: its `finally` runs), and its sink takes no more values.
 * A method that answers synchronously is never timed out.
 * The signal it hands also aborts when the one the context already carries does (a connection's
 * cancel or close, `answerHttp`'s client going away, the caller's own `signal`, an earlier
 * `timeout`'s): composing stages never cuts a source of abort off (docs/pipeline.md).
 * `ms` must be a positive number of at most 2^31 - 1 (2,147,483,647, about 24.8 days), the longest
 * delay a timer holds: anything else is a `RangeError` (a longer delay would fire at once). A
 * listener the method adds to its signal (`addEventListener`, `onabort`) that throws is logged,
 * not left to end the process.
 * For async dispatch only (sync dispatch cannot wait, so it refuses this stage with a TypeError).
 *
 * Why -32001: JSON-RPC 2.0 leaves -32000 to -32099 to the server for its own errors (-32000 is
 * rpcserver's "Server error"); LSP's -32800 means a cancellation asked for by the client, which a
 * time-out is not.
 *
 * @example
 * import { asyncDispatch, Success, timeout, type Result } from "rpcserver";
 * // A method that would take a second, and stops when its signal aborts.
 * const slow = (ctx: { signal: AbortSignal }) =>
 *   new Promise<Result<string>>((resolve) => {
 *     const timer = setTimeout(() => resolve(Success("done")), 1000);
 *     ctx.signal.addEventListener("abort", () => clearTimeout(timer));
 *   });
 * const methods = { slow };
 * await asyncDispatch('{"jsonrpc":"2.0","method":"slow","id":1}', methods, { context: {}, stages: [timeout(10)] });
 * // '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeoutMs":10}},"id":1}'
 *
 * @since 5.0.10
 * @category stages
 */
export function timeout<C = unknown>(ms: number): TypedAround<C, WithSignal<C>> & AddsSignal;
export function timeout<C = unknown, Out = unknown>(
  ms: number,
  options: TimeoutOptions<C, Out>,
): TypedAround<C, unknown extends Out ? WithSignal<C> : Out>;
export function timeout(ms: number, options: TimeoutOptions = {}): Around {
  if (typeof ms !== "number" || !(ms > 0) || !Number.isFinite(ms)) {
    throw new RangeError(`timeout: ms must be a positive finite number, got ${String(ms)}`);
  }
  if (ms > MAX_TIMER_MS) {
    // The limit this stage documents (a client's `timeoutMs`, waited out in steps, has none).
    throw new RangeError(`timeout: ms must be at most ${MAX_TIMER_MS} (about 24.8 days, the longest timer), got ${ms}`);
  }
  const place = options.context as ((context: unknown, signal: AbortSignal) => unknown) | undefined;
  return owned({
    _tag: "Around",
    asyncOnly: true,
    around:
      <F extends URIS>(_F: Effect<F>) =>
      (next: Handler<F>): Handler<F> =>
      (call) => {
        // Read now: the timer runs detached, where a read that throws (a request a stage broke) would end the process.
        const request = call.request;
        const id = idOf(request);
        // Every source of abort (a cancel, a disconnect, the caller's signal, an outer `timeout`) and
        // this timer reach one abort: the method sees one signal.
        const { abort, context, release } = abortFor(request, call.context, place);
        let outcome: Kind<F, Response>;
        try {
          outcome = next({ request, context });
        } catch (thrown) {
          release();
          throw thrown;
        }
        if (!(outcome instanceof Promise)) {
          release();
          return outcome;
        }
        // A Promise here means async dispatch (sync dispatch refuses this stage), whose Later it is.
        const raced = new Promise<Response>((settle, fail) => {
          const cancelTimer = after(ms, () => {
            release();
            settle(E.left(ErrorResponse(ERROR_TIMEOUT, "Request timed out", { timeoutMs: ms }, id)));
            // A streaming method stops at its next yield, before the listeners below let it run on.
            endStream(request, new JsonRpcError(ERROR_TIMEOUT, "Request timed out", { timeoutMs: ms }));
            // After the answer: the signal's listeners run now, and what they throw is logged.
            abort.abort(new Error(`timed out after ${ms} ms`));
          });
          // The rest of the pipeline answers rather than rejects; a rejection (a request a stage
          // broke) still clears the timer and goes on to the request's own net.
          outcome.then(
            (response: Response) => {
              cancelTimer();
              release();
              settle(response);
            },
            (thrown: unknown) => {
              cancelTimer();
              release();
              // What the rest of the pipeline threw, passed on as it is, to the request's own net.
              // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
              fail(thrown);
            },
          );
        });
        return raced as Kind<F, Response>;
      },
  });
}

/**
 * What {@link observe} reports for each request that reached it.
 *
 * @example
 * import { dispatch, observe, Success, type Observation } from "rpcserver";
 * const log: Observation[] = [];
 * dispatch('{"jsonrpc":"2.0","method":"ping","id":7}', { ping: () => Success("pong") }, {
 *   stages: [observe((o) => log.push(o))],
 * });
 * log.map(({ method, id }) => [method, id]); // [["ping", 7]]
 *
 * @since 5.0.10
 * @category stages
 */
export interface Observation<C = unknown> {
  /** The method the request named. */
  readonly method: string;
  /** The request's id; `undefined` for a notification. */
  readonly id: Id | undefined;
  /** The context the request reached this stage with (who called, for an audit log), typed where the stage is placed. */
  readonly context: C;
  /** Milliseconds from reaching the stage to the answer (`performance.now()` differences). */
  readonly durationMs: number;
  /** The answer: `Right<SuccessResponse>` or `Left<ErrorResponse>` (also for a notification, which is not sent). */
  readonly response: Response;
}

const rejected = (thrown: unknown): void => logSafely("rpcserver: an observe callback rejected", thrown);

const clock: () => number =
  typeof performance === "object" && typeof performance.now === "function" ? () => performance.now() : Date.now;

/**
 * Hands `callback` the method name, id, duration and answer of every request that reaches it, for
 * metrics, tracing or an audit log. Put it first to see every validated request, refused ones
 * included. A callback that throws, or returns a Promise that rejects (an async callback), is logged
 * and ignored: it never costs a client its answer, nor the host its life. Works
 * in sync and async dispatch.
 *
 * @example
 * import { dispatch, observe, Success } from "rpcserver";
 * const seen: string[] = [];
 * dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => Success("pong") }, {
 *   stages: [observe((o) => seen.push(`${o.method} ${o.response._tag}`))],
 * });
 * seen; // ["ping Right"]
 *
 * @since 5.0.10
 * @category stages
 */
export function observe<C = unknown>(callback: (observation: Observation<C>) => void): TypedAround<C, C>;
export function observe(callback: (observation: Observation) => void): Around {
  if (typeof callback !== "function") throw new TypeError(`observe: expected a function, got ${typeof callback}`);
  return owned({
    _tag: "Around",
    asyncOnly: false,
    around: (F) => (next) => (call) => {
      const started = clock();
      return F.map(next(call), (response) => {
        try {
          const returned: unknown = callback({
            method: call.request.method,
            id: call.request.id,
            context: call.context,
            durationMs: clock() - started,
            response,
          });
          // An async callback (a metrics call) that rejects must not become an unhandled rejection.
          if (isThenable(returned)) Promise.resolve(returned).then(undefined, rejected);
        } catch (thrown) {
          logSafely("rpcserver: an observe callback threw", thrown);
        }
        return response;
      });
    },
  });
}
