/**
 * Client transports: how a client's request body reaches a server and its answer comes back.
 *
 * A transport is one function: the request body (JSON text) and an `AbortSignal` in, a
 * `TaskEither` of the answer body out (`""` when there is none, as for notifications). It never
 * rejects: a failure is a `TransportError`. Two ship in `transports/`: `http` on the standard
 * `fetch`, and `local`, which dispatches in-process. Write your own for anything else. This file
 * holds the types and the two constants the calls and the transports share ({@link NEVER},
 * {@link DIRECT}), so that neither imports the other.
 *
 * @module
 */
import type * as E from "fp-ts/Either";
import type { TaskEither } from "fp-ts/TaskEither";
import { isMembers } from "../core/guards";
import type { TransportError } from "./errors";

/**
 * Sends one request body and answers the response body (`""` when the server sends none). Must
 * stop when `signal` aborts (answering `aborted`), and never reject.
 *
 * @example
 * import * as TE from "fp-ts/TaskEither";
 * import * as t from "io-ts";
 * import { contract } from "rpcserver";
 * import { client, type Transport } from "rpcserver/client";
 * // A transport that answers every call with the same error: for a test.
 * const down: Transport = () => TE.right('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Down"},"id":null}');
 * await client(contract({ ping: { result: t.string } }), down).ping()();
 * // { _tag: "Left", left: { _tag: "ServerError", code: -32000, message: "Down" } }
 *
 * @since 5.0.10
 * @category client
 */
export type Transport = ((
  body: string,
  options: TransportOptions,
) => TaskEither<TransportError, string | ParsedAnswer>) & {
  /**
   * The ids for calls through this transport, when it wants ids of its own. Default: one counter
   * for the whole process, shared by every client and `batch`, so that clients sharing a channel
   * (through a wrapper of a connection's transport, which does not keep this member) never send
   * the same id.
   */
  readonly nextId?: () => number;
};

/**
 * What a transport is told with each body: the call's signal, the ids of the requests in the body,
 * in order (`undefined` for a notification), for a transport that matches answers by id, and for a
 * streamed call where its values go (`onValue`).
 *
 * @since 5.0.10
 * @category client
 */
export interface TransportOptions {
  readonly signal: AbortSignal;
  readonly ids?: ReadonlyArray<number | undefined>;
  /**
   * Set for a streamed call (one request, never a batch): where the values its method streams go,
   * each as received, before the answer. A transport that can carry them asks the server for them
   * (`http`: `Accept: text/event-stream`; a connection: a progress token; `local`: a sink) and
   * waits for a returned Promise before it reads on, so a slow consumer slows the server (one that
   * does not wait makes the call hold every value its consumer has not taken). A transport that
   * cannot carry values ignores it: the call then gets its answer alone. The library's transports
   * route the values by the call's id: `ids[0]`, or without `ids` the id of the request in the body.
   * It never throws nor rejects. When the call is over before its answer (its consumer left, a
   * value was refused, it timed out), `signal` aborts first, and a waiting Promise then resolves:
   * stop there, as for any abort (later values are dropped).
   */
  readonly onValue?: (value: unknown) => void | Promise<void>;
}

/**
 * An answer a transport has parsed already (a connection reads every message to route it), handed
 * on as the value rather than as text to be parsed again.
 *
 * @since 5.0.10
 * @category client
 */
export interface ParsedAnswer {
  readonly json: unknown;
}

/**
 * The signal of a call that nothing can abort: one for all of them. Transports need not listen to
 * it; `http` does not hand it to `fetch`, whose undici adds a listener to it at each request and
 * removes it only once the request is garbage-collected (hundreds of them at a time, measured).
 * @internal
 */
export const NEVER: AbortSignal = new AbortController().signal;

/**
 * What a transport that runs in-process (`local`) offers beside its text path: the request as the
 * value its text would parse to, the answer as the values its text would parse to (a
 * {@link ParsedAnswer}, or `""` for none, or text when it took the text path after all), now or
 * later. Never throws nor rejects. The client takes it when the transport has it, under
 * {@link DIRECT}; a wrapper of the transport does not keep it, and sends text.
 *
 * @internal
 */
export type Direct = (
  request: unknown,
  options: TransportOptions,
) => E.Either<TransportError, string | ParsedAnswer> | Promise<E.Either<TransportError, string | ParsedAnswer>>;

/** Where a transport keeps its {@link Direct} path. @internal */
export const DIRECT = Symbol("rpcserver.direct");

/**
 * The id a streamed call's values are routed by: `ids[0]`, as the client gives it; or, for a body
 * a caller sent by hand with `onValue` and no `ids`, the id of the one request in it (its text, or
 * its value on `local`'s direct path), read only then: without it every value would be skipped,
 * and the call would end `Right` with none. A string id counts too.
 *
 * @internal
 */
export const streamedId = (request: unknown, { ids, onValue }: TransportOptions): unknown => {
  if (ids !== undefined || onValue === undefined) return ids?.[0];
  let value = request;
  if (typeof request === "string") {
    try {
      value = JSON.parse(request);
    } catch {
      return undefined;
    }
  }
  const id = isMembers(value) ? value["id"] : undefined;
  return typeof id === "number" || typeof id === "string" ? id : undefined;
};
