/**
 * Stages of your own: what a stage sees, what it may answer, and how the pipeline tells the kinds
 * apart (the stages shipped with the library, `timeout` and `observe`, are in `library-stages.ts`).
 *
 * Rules (the pipeline enforces them; see `pipeline/handler.ts` and docs/pipeline.md):
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
import type * as E from "fp-ts/Either";
import type { Kind, URIS } from "fp-ts/HKT";
import type { TaskEither } from "fp-ts/TaskEither";
import type { Effect } from "./effect";
import type { Id, Request } from "./request";
import type { Response } from "./response";
import type { ErrorResult } from "./result";

/**
 * One request on its way to its method: the validated request and the context the method will
 * receive (`NOCONTEXT` when dispatch has none). The response's `id` is always the id of the request
 * as it arrived, whatever a stage makes of `request`.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { dispatch, Success, type Call, type Stage } from "rpcserver";
 * const asGuest: Stage<{ user?: string }> = (call: Call<{ user?: string }>) =>
 *   E.right({ ...call, context: { user: call.context.user ?? "guest" } });
 * const methods = { whoami: (ctx: { user?: string }) => Success(ctx.user) };
 * dispatch('{"jsonrpc":"2.0","method":"whoami","id":1}', methods, { context: {}, stages: [asGuest] });
 * // '{"jsonrpc":"2.0","result":"guest","id":1}'
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
 * import { dispatch, Success, type Stage } from "rpcserver";
 * const adminsOnly: Stage<{ role: string }> = (call) =>
 *   call.request.method.startsWith("admin.") && call.context.role !== "admin"
 *     ? E.left({ code: 403, message: "Forbidden", data: call.request.method })
 *     : E.right(call);
 * const methods = { "admin.reset": () => Success("done") };
 * dispatch('{"jsonrpc":"2.0","method":"admin.reset","id":1}', methods, {
 *   context: { role: "guest" },
 *   stages: [adminsOnly],
 * });
 * // '{"jsonrpc":"2.0","error":{"code":403,"message":"Forbidden","data":"admin.reset"},"id":1}'
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
 * // No such method: -32601.
 * await asyncDispatch('{"jsonrpc":"2.0","method":"ping","id":1}', {}, { stages });
 * // '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"ping"},"id":1}'
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

// Always called as hasOwn.call(object, key), never unbound.
// eslint-disable-next-line @typescript-eslint/unbound-method
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Only a request with an id is answered. `in` first: where no `id` is found at all (a
 * notification) the optimizing compiler answers it from the object's shape, without the call to
 * `hasOwnProperty` (a builtin call on every notification otherwise); an `id` found is then checked
 * to be the request's own, as before. @internal
 */
export const isNotification = (request: Request): boolean => !("id" in request) || !hasOwn.call(request, "id");

/** The id a request is answered with. @internal */
export const idOf = (request: Request): Id => (request.id === undefined ? null : request.id);
