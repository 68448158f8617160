/**
 * Outgoing calls: the client side of the connection. `transportOf` makes the connection's
 * `transport` (a client transport: `client(contract, peer.transport)`), which sends a call, a
 * notification or a batch and settles it by its answers; `answered` takes each response the other
 * side sends to the call it belongs to. A call whose signal aborts is cancelled on the other side
 * too; one made past `maxOutgoing`, or past `maxQueued` while the channel is full, fails at once
 * with `overloaded`, and nothing is sent. A call with `onValue` asks the other side for values
 * (./streamed-calls).
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { aborted, closed, network, overloaded, type TransportError } from "../client/errors";
import { NEVER, type ParsedAnswer, type Transport, type TransportOptions } from "../client/transport";
import { isRecord } from "../core/guards";
import { cancelOnPeer } from "./cancellation";
import { closedReason } from "./closing";
import { admit, flow, roomForOwn, send } from "./flow-control";
import { utf8Length } from "./framing/utf8";
import { aboutWhich } from "./id-null";
import { isId, type Json } from "./messages";
import type { Outgoing, PeerState, StreamedCall } from "./state";
import { finish, register, streamedCall, unregister } from "./streamed-calls";

type Settled = E.Either<TransportError, ParsedAnswer | string>;

/** A response from the other side: to the call it names, or (id null) to the pending message it is about, if told. */
export const answered = (state: PeerState, response: Json): void => {
  const id = response["id"];
  if (id === null && "error" in response) {
    const about = aboutWhich(new Set(state.outgoing.values()), response["error"], state.sent);
    return about?.whole(response);
  }
  if (!isId(id)) return;
  const waiting = state.outgoing.get(id);
  if (waiting === undefined) return; // an answer to a call that was cancelled, timed out, or never made
  state.outgoing.delete(id);
  waiting.answer(id, response);
};

/** The ids of the requests in an outgoing body: as the client says, or read from the body. */
const idsIn = (body: string, given: ReadonlyArray<number | undefined> | undefined): Array<string | number> => {
  if (given !== undefined) return given.filter((id): id is number => id !== undefined);
  const requests: unknown = JSON.parse(body);
  return (Array.isArray(requests) ? requests : [requests])
    .map((request: unknown) => (isRecord(request) ? request["id"] : undefined))
    .filter(isId);
};

/** Why a message with these ids cannot be sent now, or undefined. */
const refusal = (state: PeerState, ids: ReadonlyArray<string | number>): TransportError | undefined => {
  if (state.outgoing.size + ids.length > state.maxOutgoing) {
    return overloaded(state.maxOutgoing);
  }
  // A batch's own ids must differ too: a Set only for a batch (a call is one id, checked alone).
  const seen = ids.length > 1 ? new Set<string | number>() : undefined;
  for (const id of ids) {
    if (state.outgoing.has(id) || seen?.has(id) === true) {
      const cause = new Error(`id ${JSON.stringify(id)} is already awaiting an answer on this connection`);
      return network(cause);
    }
    seen?.add(id);
  }
  return undefined;
};

/**
 * Sends a call or a batch (with these ids) and awaits its answers: registered under each id, it
 * settles with its response (a batch: once every member's has come), with an id-null error about
 * it, or with a failure; a signal that aborts cancels what is still awaited on the other side. A
 * call that asks for values (`stream`) has its token registered too.
 */
const call = (
  state: PeerState,
  body: string,
  given: ReadonlyArray<number | undefined> | undefined,
  ids: ReadonlyArray<string | number>,
  signal: AbortSignal,
  settle: (settled: Settled) => void,
  stream: StreamedCall | undefined,
): void => {
  const batch = body.charCodeAt(0) === 0x5b; // "["
  // Only a batch gathers its responses (a call settles with its one).
  const responses = batch ? new Map<string | number, Json>() : undefined;
  const release = (): void => {
    for (const id of ids) if (state.outgoing.get(id) === message) state.outgoing.delete(id);
    if (signal !== NEVER) signal.removeEventListener("abort", onAbort);
    if (stream !== undefined) unregister(state, stream);
  };
  const onAbort = (): void => {
    for (const id of ids) if (state.outgoing.get(id) === message) cancelOnPeer(state, id);
    release();
    settle(E.left(aborted(signal.reason)));
  };
  const message: Outgoing = {
    length: body.length,
    bytes: utf8Length(body),
    sentAt: state.sent + 1,
    members: batch ? (given?.length ?? (JSON.parse(body) as unknown[]).length) : 0,
    answer: (id, response) => {
      if (!batch) {
        release();
        return settle(E.right({ json: response }));
      }
      const gathered = responses as Map<string | number, Json>;
      gathered.set(id, response);
      if (gathered.size < ids.length) return;
      release();
      settle(E.right({ json: ids.map((each) => gathered.get(each)) }));
    },
    whole: (response) => {
      release();
      settle(E.right({ json: response }));
    },
    fail: (error) => {
      release();
      settle(E.left(error));
    },
  };
  // Registered before it is sent: sending may close the connection (a peer that does not
  // read), and the close must find this call to fail it.
  for (const id of ids) state.outgoing.set(id, message);
  if (stream !== undefined) register(state, stream, message);
  // A call that nothing can abort needs no listener (the shared NEVER signal).
  if (signal !== NEVER) signal.addEventListener("abort", onAbort, { once: true });
  send(state, body);
  // Its slot is lent to what waits (see `fits` in ./flow-control), and its answer must be read: a
  // pause ends (see `flow`).
  if (state.waiting.length > 0) admit(state);
  else if (state.paused) flow(state);
};

/** Sends a message (with these ids, as the client says them, if it does) once it is known it may be. */
const sendOwn = (
  state: PeerState,
  body: string,
  given: ReadonlyArray<number | undefined> | undefined,
  ids: Array<string | number>,
  signal: AbortSignal,
  settle: (settled: Settled) => void,
  stream?: StreamedCall,
): void => {
  if (!roomForOwn(state)) {
    return settle(E.left(overloaded(state.maxQueued)));
  }
  if (ids.length === 0) {
    send(state, body);
    return settle(E.right(""));
  }
  const refused = refusal(state, ids);
  if (refused !== undefined) return settle(E.left(refused));
  call(state, body, given, ids, signal, settle, stream);
};

/**
 * A call that asks for values: sent with its token, and settled through its stream (its answer
 * after its values); a notification or a batch is sent as it is, and a call with no place for a
 * token fails unsent.
 */
const streamed = (
  state: PeerState,
  body: string,
  given: ReadonlyArray<number | undefined> | undefined,
  signal: AbortSignal,
  onValue: NonNullable<TransportOptions["onValue"]>,
  settle: (settled: Settled) => void,
): void => {
  const made = streamedCall(state, body, onValue, settle);
  if (made === undefined) return plain(state, body, given, signal, settle);
  if (E.isLeft(made)) return settle(made);
  const stream = made.right;
  sendOwn(state, stream.body, given, [stream.id], signal, (settled) => finish(stream, settled), stream);
};

/** A call, a notification or a batch, sent as it is. */
const plain = (
  state: PeerState,
  body: string,
  given: ReadonlyArray<number | undefined> | undefined,
  signal: AbortSignal,
  settle: (settled: Settled) => void,
): void => {
  let ids: Array<string | number>;
  try {
    ids = idsIn(body, given);
  } catch (cause) {
    return settle(E.left(network(cause)));
  }
  sendOwn(state, body, given, ids, signal, settle);
};

/** The connection's outgoing side, as a client transport: made once per connection. */
export const transportOf =
  (state: PeerState): Transport =>
  (body: string, { signal, ids: given, onValue }: TransportOptions) =>
  () =>
    new Promise<Settled>((settle) => {
      if (state.closed) {
        return settle(E.left(closed(closedReason(undefined))));
      }
      if (signal.aborted) return settle(E.left(aborted(signal.reason)));
      if (onValue === undefined) plain(state, body, given, signal, settle);
      else streamed(state, body, given, signal, onValue, settle);
    });
