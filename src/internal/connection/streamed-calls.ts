/**
 * Streamed calls: the client side of streams on a connection. A call made through the
 * connection's `transport` with `onValue` asks the other side for values: a call whose params are
 * by name gets a progress token, its own id, where the connection's convention puts it (LSP
 * `params.partialResultToken`, MCP `params._meta.progressToken`; one the caller put there is kept
 * and used), and each progress notification received on that token (`$/progress`, or
 * `notifications/progress`) is one of its values, handed to `onValue` in order, before its answer.
 * Params by position (or none) have no place for a token on these wires: such a call fails with
 * `TransportError` `network` (a TypeError that says so), and nothing is sent.
 *
 * Back-pressure: a value that comes while the consumer is still taking an earlier one (the Promise
 * `onValue` returned has not settled) is held (../client/held-values, as NATS holds them). While
 * every call awaiting its answer holds values, reading pauses (./flow-control), so that the other
 * side's writes, and then its method, wait; held text past `maxWaitingLength`, all calls together,
 * fails the call that would hold more (`tooLarge`), which is cancelled on the other side. Values for a call that has
 * ended are dropped.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { network, tooLarge, type TransportError } from "../client/errors";
import type { ParsedAnswer, TransportOptions } from "../client/transport";
import { HeldValues } from "../client/held-values";
import { isRecord } from "../core/guards";
import type { ProgressToken as Token } from "../core/progress-wire";
import type { Request } from "../core/request";
import { cancelOnPeer } from "./cancellation";
import type { Dialect } from "./dialect";
import { flow } from "./flow-control";
import { isId, type Json } from "./messages";
import type { Outgoing, PeerState, StreamedCall } from "./state";

type Settled = E.Either<TransportError, ParsedAnswer | string>;

/** How many ended calls' tokens are remembered, to drop the values still coming for them. */
const ENDED_KEPT = 64;

/**
 * The request's params with a token where the convention puts it, and the token: one the caller put
 * there is kept (read as a server reads it); `undefined` when there is no place for one (MCP's
 * `_meta` that is not an object).
 */
const withToken = (
  dialect: Dialect,
  request: Request,
  params: Json,
  id: Token,
): { params: Json; token: Token } | undefined => {
  const given = dialect.tokens(request)?.token;
  if (given !== undefined) return { params, token: given };
  const placed = dialect.withToken(params, id);
  return placed === undefined ? undefined : { params: placed, token: id };
};

const UNSTREAMABLE =
  "a streamed call on a connection needs its params by name (an object): params by position, or " +
  "none, have no place for a progress token under LSP or MCP, and its values would be lost; give the " +
  "contract entry params by name, or run the call as a plain TaskEither for its result alone";

/**
 * A call that asks for values (`onValue`), made ready to send: its request with a token, and its
 * record; `undefined` for a notification or a batch, sent as it is (values are asked only by a
 * call); a Left for a body that is not JSON, a call that has no place for a token (params by
 * position, none, an MCP `_meta` that is no object), or a token already in use.
 */
export const streamedCall = (
  state: PeerState,
  body: string,
  onValue: NonNullable<TransportOptions["onValue"]>,
  settle: (settled: Settled) => void,
): E.Either<TransportError, StreamedCall> | undefined => {
  let request: unknown;
  try {
    request = JSON.parse(body);
  } catch (cause) {
    return E.left(network(cause));
  }
  if (!isRecord(request)) return undefined;
  const { id, params } = request;
  if (!isId(id)) return undefined;
  // A record read as a request: the token readers look at its params only.
  const placed = isRecord(params) ? withToken(state.dialect, request as Json & Request, params, id) : undefined;
  // Sent as it is, it would get its answer alone, its values dropped by the other side: a stream
  // is all its values or says it is not, so nothing is sent.
  if (placed === undefined) return E.left(network(new TypeError(UNSTREAMABLE)));
  const { token } = placed;
  if (state.streams.has(token)) {
    return E.left(network(new Error(`progress token ${JSON.stringify(token)} is already in use on this connection`)));
  }
  const stream: StreamedCall = {
    id,
    token,
    body: placed.params === params ? body : JSON.stringify({ ...request, params: placed.params }),
    settle,
    message: undefined,
    awaiting: false,
    values: new HeldValues<unknown>(
      onValue,
      (cause) => fail(state, stream, network(cause)),
      (count, cost) => moved(state, stream, count, cost),
    ),
    done: false,
  };
  return E.right(stream);
};

/** The call is sent, as `message`: its token routes to it from now on. */
export const register = (state: PeerState, stream: StreamedCall, message: Outgoing): void => {
  stream.message = message;
  stream.awaiting = true;
  state.streams.set(stream.token, stream);
  state.endedTokens.delete(stream.token);
};

/** The call awaits its answer no more (answered, aborted, failed): its token routes to it no more. */
export const unregister = (state: PeerState, stream: StreamedCall): void => {
  if (!stream.awaiting) return;
  stream.awaiting = false;
  if (stream.values.length > 0) state.holdingCalls -= 1;
  if (state.streams.get(stream.token) !== stream) return;
  state.streams.delete(stream.token);
  const ended = state.endedTokens;
  ended.add(stream.token);
  if (ended.size > ENDED_KEPT) ended.delete(ended.values().next().value as Token);
};

/**
 * Values were held (`count` > 0) or let go, with their text's length: the connection's totals, the
 * calls awaiting answers that hold some, and past `maxWaitingLength` held, the call fails.
 */
const moved = (state: PeerState, stream: StreamedCall, count: number, cost: number): void => {
  state.heldLength += cost;
  state.valuesHeld += count;
  // A value taken is progress: a pause's watch does not read on while consumers take.
  if (count < 0) state.progressed = true;
  const now = stream.values.length;
  if (stream.awaiting && (now === 0 || now === count)) state.holdingCalls += now === 0 ? -1 : 1;
  if (count > 0 && state.heldLength > state.maxWaitingLength)
    return fail(state, stream, tooLarge(state.maxWaitingLength));
  flow(state);
};

/**
 * How the call settles: a failure at once (its held values dropped), its answer once every value
 * that came before it has been taken.
 */
export const finish = (stream: StreamedCall, settled: Settled): void => {
  if (stream.done) return;
  const done = (): void => {
    stream.done = true;
    stream.settle(settled);
  };
  if (E.isLeft(settled)) {
    stream.values.drop();
    done();
  } else stream.values.end(done);
};

/** The call fails on this side (its consumer threw, or holds too much): cancelled on the other side if it is still awaited. */
const fail = (state: PeerState, stream: StreamedCall, error: TransportError): void => {
  if (stream.done) return;
  const message = stream.message;
  if (!stream.awaiting || message === undefined) return finish(stream, E.left(error));
  if (state.outgoing.get(stream.id) === message) cancelOnPeer(state, stream.id);
  message.fail(error);
};

/**
 * A message was skipped for its size: its id and token were not read, so it may have been a value
 * of any streamed call awaiting its answer. Each of them fails `tooLarge` (and is cancelled on the
 * other side) rather than succeed without a value it was sent. A plain call is not touched: an
 * answer of its skipped is the same loss as before, and its time-out says so.
 */
export const failStreams = (state: PeerState, limit: number): void => {
  if (state.streams.size === 0) return;
  for (const stream of [...state.streams.values()]) fail(state, stream, tooLarge(limit));
};

/**
 * A progress notification received (its params, its text's length): whether it was a value of one
 * of this side's calls (taken, or dropped for a call that has ended). Any other goes where it went
 * before: to the methods served.
 */
export const routed = (state: PeerState, params: unknown, length: number): boolean => {
  if (!isRecord(params)) return false;
  const { dialect } = state;
  const token = params[dialect.progressTokenKey];
  if (!isId(token)) return false;
  const stream = state.streams.get(token);
  if (stream === undefined) return state.endedTokens.has(token);
  stream.values.push(dialect.valueOf(params), length);
  return true;
};
