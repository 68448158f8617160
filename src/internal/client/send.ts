/**
 * The one way a call is sent: its request body written, sent through its transport under its
 * signal and timeout, and its answer read. A plain call, a notification and a streamed call (the
 * same call with `onValue`) all go this way; a batch shares the exchange and the deadline.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { CallOptions, Spec } from "./call";
import { guarded } from "./deadline";
import type { ClientError } from "./errors";
import { directOf, exchange } from "./exchange";
import { answerOf } from "./read-answer";
import { requestOf } from "./request-body";
import type { ParsedAnswer, TransportOptions } from "./transport";

/**
 * Sends one call or notification (`id` undefined) under `options` and reads its answer with
 * `readText`; with `onValue`, the transport is asked for the values the method streams.
 *
 * @internal
 */
export const send = <A>(
  spec: Spec<unknown>,
  id: number | undefined,
  readText: (text: string | ParsedAnswer) => E.Either<ClientError, A>,
  options: CallOptions = spec.options,
  onValue?: TransportOptions["onValue"],
): Promise<E.Either<ClientError, A>> => {
  const direct = directOf(spec.transport);
  let body: unknown;
  try {
    body = requestOf(spec, id, direct);
  } catch (cause) {
    return Promise.resolve(E.left({ _tag: "InvalidCall", method: spec.method, cause }));
  }
  return guarded(options, (signal) =>
    exchange(
      spec,
      body,
      onValue === undefined ? { signal, ids: [id] } : { signal, ids: [id], onValue },
      readText,
      direct,
    ),
  );
};

/**
 * Sends a call (with a fresh id) and reads its answer: under the call's own options, or (a
 * streamed call) under `options` with its values handed to `onValue`.
 *
 * @internal
 */
export const run = <A>(
  spec: Spec<A>,
  options?: CallOptions,
  onValue?: TransportOptions["onValue"],
): Promise<E.Either<ClientError, A>> => {
  const id = spec.nextId();
  return send(spec as Spec<unknown>, id, (text) => answerOf(spec, id, text), options, onValue);
};
