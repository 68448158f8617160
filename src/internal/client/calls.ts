/**
 * Sending one call: the call of a request (`makeCall`), run to send it and read its answer, and
 * the free functions that send it otherwise: `withOptions` (other options) and `notify` (as a
 * notification).
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { CALL, type CallOptions, type RpcCall, type RpcNotification, type Spec } from "./call";
import { guarded } from "./deadline";
import type { ClientError } from "./errors";
import { directOf, exchange } from "./exchange";
import { answerOf } from "./read-answer";
import { requestOf } from "./request-body";
import type { ParsedAnswer } from "./transport";

const sentNotification = (): E.Either<ClientError, void> => E.right(undefined);

/** Sends one call or notification (`id` undefined) and reads its answer with `readText`. */
const send = <A>(
  spec: Spec<unknown>,
  id: number | undefined,
  readText: (text: string | ParsedAnswer) => E.Either<ClientError, A>,
): Promise<E.Either<ClientError, A>> => {
  const direct = directOf(spec.transport);
  let body: unknown;
  try {
    body = requestOf(spec, id, direct);
  } catch (cause) {
    return Promise.resolve(E.left({ _tag: "InvalidCall", method: spec.method, cause }));
  }
  return guarded(spec.options, (signal) => exchange(spec, body, { signal, ids: [id] }, readText, direct));
};

const run = <A>(spec: Spec<A>): Promise<E.Either<ClientError, A>> => {
  const id = spec.nextId();
  return send(spec as Spec<unknown>, id, (text) => answerOf(spec, id, text));
};

const runNotification = (spec: Spec<unknown>): Promise<E.Either<ClientError, void>> =>
  send(spec, undefined, sentNotification);

/** A call or notification under construction: its function, its members not yet set. */
type Building<T> = (() => Promise<unknown>) & { -readonly [K in keyof T]?: T[K] };

/** The call of `spec`, sent when run. (Its members set one by one: `Object.assign` cost twice as much.) @internal */
export const makeCall = <A>(spec: Spec<A>): RpcCall<A> => {
  const call: Building<RpcCall<A>> = () => run(spec);
  call[CALL] = spec;
  call.notification = false;
  return call as RpcCall<A>;
};

/**
 * A call with other options (a signal, a timeout), pipeable: the client's options are kept where
 * these say nothing.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { pipe } from "fp-ts/function";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, local, withOptions } from "rpcserver/client";
 * const api = contract({ slow: { result: t.string } });
 * const { slow } = client(api, local(implement(api, { slow: () => E.right("done") })));
 * await pipe(slow(), withOptions({ timeoutMs: 500 }))(); // { _tag: "Right", right: "done" }
 * // No time left: it fails at once, unsent.
 * await pipe(slow(), withOptions({ timeoutMs: 0 }))();
 * // { _tag: "Left", left: { _tag: "TransportError", reason: "timeout", timeoutMs: 0 } }
 *
 * @since 5.0.10
 * @category client
 */
export const withOptions =
  (options: CallOptions) =>
  <C extends RpcCall<unknown> | RpcNotification>(call: C): C => {
    const spec = { ...call[CALL], options: { ...call[CALL].options, ...defined(options) } };
    return (call.notification ? toNotification(spec) : makeCall(spec)) as C;
  };

/** The options that are set (an explicit `undefined` keeps the client's). @internal */
export const defined = (options: CallOptions): CallOptions => {
  const out: { signal?: AbortSignal; timeoutMs?: number } = {};
  if (options.signal !== undefined) out.signal = options.signal;
  if (options.timeoutMs !== undefined) out.timeoutMs = options.timeoutMs;
  return out;
};

const toNotification = (spec: Spec<unknown>): RpcNotification => {
  const call: Building<RpcNotification> = () => runNotification(spec);
  call[CALL] = spec;
  call.notification = true;
  return call as RpcNotification;
};

/**
 * The same request sent as a notification: no id, no answer awaited (Right `undefined` once the
 * transport has sent it); only sending can fail.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, local, notify } from "rpcserver/client";
 * const api = contract({ log: { params: t.tuple([t.string]) } });
 * const { log } = client(api, local(implement(api, { log: () => E.right(null) })));
 * await notify(log("started"))(); // { _tag: "Right", right: undefined }
 *
 * @since 5.0.10
 * @category client
 */
export const notify = (call: RpcCall<unknown>): RpcNotification => toNotification(call[CALL]);
