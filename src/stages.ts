/**
 * Stages of your own: what a stage sees, what it may answer, and the stages shipped with the
 * library (`timeout`, `observe`).
 *
 * Rules (the pipeline enforces them; see `pipeline.ts` and docs/pipeline.md):
 * - stages run per request, after validation and before the method is looked up, in the order
 *   given; each sees the validated request and the context;
 * - a stage passes (`right(call)`, possibly with a new context for the method) or answers its
 *   request with an `ErrorResult` (`left(...)`); the rest of a batch runs either way, and a
 *   notification is still never answered;
 * - a stage that throws, or returns something other than an Either, answers its request with
 *   -32603 (logged; the message in `data` only under `debug`);
 * - sync dispatch takes sync stages only: an `async function` or a stage made for async dispatch
 *   (`timeout`) is a `TypeError` when dispatch is called; a Promise or `TaskEither` returned at run
 *   time is -32603 for that request.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Kind, URIS } from "fp-ts/HKT";
import type { TaskEither } from "fp-ts/TaskEither";
import { ERROR_TIMEOUT } from "./codes";
import type { AddsSignal, TypedAround, WithSignal } from "./context";
import type { Effect } from "./effect";
import { isPlainObject, isThenable } from "./guards";
import { logSafely } from "./logger";
import { abortGuarded, signalController } from "./signal";
import type { Id, Request } from "./request";
import { ErrorResponse, type Response } from "./response";
import type { ErrorResult } from "./result";

/**
 * One request on its way to its method: the validated request and the context the method will
 * receive (`NOCONTEXT` when dispatch has none). The response's `id` is always the id of the request
 * as it arrived, whatever a stage makes of `request`.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import type { Call, Stage } from "rpcserver";
 * const asGuest: Stage<{ user?: string }> = (call: Call<{ user?: string }>) =>
 *   E.right({ ...call, context: { user: call.context.user ?? "guest" } });
 *
 * @since 5.0.10
 * @category stages
 */
export interface Call<C = unknown> {
  readonly request: Request;
  readonly context: C;
}

/**
 * A sync stage: passes the call on, or answers its request with an error.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { Error, type Stage } from "rpcserver";
 * const adminsOnly: Stage<{ role: string }> = (call) =>
 *   call.request.method.startsWith("admin.") && call.context.role !== "admin"
 *     ? E.left({ code: 403, message: "Forbidden", data: call.request.method })
 *     : E.right(call);
 *
 * @since 5.0.10
 * @category stages
 */
export type Stage<C = unknown> = (call: Call<C>) => E.Either<ErrorResult, Call<C>>;

/**
 * An async stage: a `TaskEither` (or a Promise of an Either, or an Either) of the same. Accepted by
 * async dispatch only.
 *
 * @example
 * import * as TE from "fp-ts/TaskEither";
 * import type { AsyncStage } from "rpcserver";
 * const sessions = new Map([["t1", "ann"]]);
 * const withUser: AsyncStage<{ token: string }> = (call) =>
 *   sessions.has(call.context.token)
 *     ? TE.right(call)
 *     : TE.left({ code: 401, message: "Unauthorized", data: undefined });
 *
 * @since 5.0.10
 * @category stages
 */
export type AsyncStage<C = unknown> = (
  call: Call<C>,
) => TaskEither<ErrorResult, Call<C>> | PromiseLike<E.Either<ErrorResult, Call<C>>> | E.Either<ErrorResult, Call<C>>;

/**
 * The rest of the pipeline after a stage: later stages, the lookup and the call, to the Response.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { SuccessResponse } from "rpcserver";
 * import type { Handler } from "rpcserver/pipeline";
 * import type { URI } from "fp-ts/Identity";
 * const answerAll: Handler<URI> = (call) => E.right(SuccessResponse(call.request.method, 1));
 *
 * @since 5.0.10
 * @category stages
 */
export type Handler<F extends URIS> = (call: Call) => Kind<F, Response>;

/**
 * A stage that runs around the rest of the pipeline rather than before it, for what must see the
 * answer or race it (`timeout`, `observe`). Written once for both effects.
 *
 * @example
 * import { observe, timeout, type Around } from "rpcserver";
 * const stages: Around[] = [observe((o) => console.log(o.method, o.durationMs)), timeout(1000)];
 *
 * @since 5.0.10
 * @category stages
 */
export interface Around {
  readonly _tag: "Around";
  /** Refused by sync dispatch (it needs to wait). */
  readonly asyncOnly: boolean;
  /** The stage in effect `F`: the rest of the pipeline in, the rest with this stage around it out. */
  readonly around: <F extends URIS>(F: Effect<F>) => (next: Handler<F>) => Handler<F>;
}

/**
 * What the `stages` option takes: a {@link Stage} or an {@link AsyncStage} for any context type, or
 * an {@link Around} stage. (`Stage<never>` would refuse a `Stage<User>`, whose result is a
 * `Call<User>`; what a stage returns is checked when it runs.)
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { asyncDispatch, timeout, type AnyStage } from "rpcserver";
 * const stages: AnyStage[] = [(call) => E.right(call), timeout(5000)];
 * await asyncDispatch('{"jsonrpc":"2.0","method":"ping","id":1}', {}, { stages }); // -32601: no such method
 *
 * @since 5.0.10
 * @category stages
 */
export type AnyStage = ((call: Call<never>) => unknown) | Around;

/** Is `stage` an around stage (the library's or yours)? @internal */
export const isAround = (stage: unknown): stage is Around =>
  typeof stage === "object" && stage !== null && (stage as { _tag?: unknown })._tag === "Around";

/** The library's own around stages: total (they never throw, reject or answer other than a Response), so the pipeline need not check them. */
const own = new WeakSet<Around>();

/** Is `stage` one of the library's own around stages? @internal */
export const isOwnAround = (stage: Around): boolean => own.has(stage);

/** Marks one of the library's own around stages (total, so unchecked): `timeout`, `observe`, a connection's. @internal */
export const owned = (stage: Around): Around => {
  own.add(stage);
  return stage;
};

const hasOwn = Object.prototype.hasOwnProperty;

/** Only a request with an id is answered. @internal */
export const isNotification = (request: Request): boolean => !hasOwn.call(request, "id");

/** The id a request is answered with. @internal */
export const idOf = (request: Request): Id => (request.id === undefined ? null : request.id);

/** The default of `timeout`'s `context` option: a plain-object context gains `signal`; any other is left alone. */
const withSignal = (context: unknown, signal: AbortSignal): unknown =>
  isPlainObject(context) ? { ...context, signal } : context;

/**
 * Options of {@link timeout}.
 *
 * @example
 * import { timeout, type TimeoutOptions } from "rpcserver";
 * // The signal as the context itself, for methods written as (signal, ...params).
 * const options: TimeoutOptions = { context: (_context, signal) => signal };
 * timeout(1000, options);
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

/** The longest delay `setTimeout` holds: 2^31 - 1 ms (about 24.8 days). */
const MAX_DELAY = 2_147_483_647;

/**
 * Answers a request with -32001 "Request timed out" (`data: { timeoutMs }`) when its method has not
 * settled `ms` milliseconds after the call, and aborts the `AbortSignal` the method was handed then.
 * The method's later outcome is dropped. A method that answers synchronously is never timed out.
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
 * import { asyncDispatch, Success, timeout } from "rpcserver";
 * const methods = { slow: async (ctx: { signal: AbortSignal }) => { await new Promise((r) => setTimeout(r, 50)); return Success(ctx.signal.aborted); } };
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
  if (ms > MAX_DELAY) {
    // Timers hold a signed 32-bit delay: a longer one fires at once (Node warns, browsers do not).
    throw new RangeError(`timeout: ms must be at most ${MAX_DELAY} (about 24.8 days, the longest timer), got ${ms}`);
  }
  const attach = (options.context as ((context: unknown, signal: AbortSignal) => unknown) | undefined) ?? withSignal;
  return owned({
    _tag: "Around",
    asyncOnly: true,
    around:
      <F extends URIS>(_F: Effect<F>) =>
      (next: Handler<F>): Handler<F> =>
      (call) => {
        // Read now: the timer runs detached, where a read that throws (a request a stage broke) would end the process.
        const id = idOf(call.request);
        const controller = signalController();
        const outcome = next({ request: call.request, context: attach(call.context, controller.signal) });
        if (!(outcome instanceof Promise)) return outcome;
        // A Promise here means async dispatch (sync dispatch refuses this stage), whose Later it is.
        const raced = new Promise<Response>((settle, fail) => {
          const timer = setTimeout(() => {
            settle(E.left(ErrorResponse(ERROR_TIMEOUT, "Request timed out", { timeoutMs: ms }, id)));
            // After the answer: the signal's listeners run now, and what they throw is logged.
            abortGuarded(controller, new Error(`timed out after ${ms} ms`));
          }, ms);
          // The rest of the pipeline answers rather than rejects; a rejection (a request a stage
          // broke) still clears the timer and goes on to the request's own net.
          outcome.then(
            (response: Response) => {
              clearTimeout(timer);
              settle(response);
            },
            (thrown: unknown) => {
              clearTimeout(timer);
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
 * import { observe, type Observation } from "rpcserver";
 * const log: Observation[] = [];
 * observe((o) => log.push(o));
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
