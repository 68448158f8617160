/**
 * A peer: one long-lived channel on which each side both serves and calls.
 *
 * `connect(channel, options)` makes a peer. Incoming requests, notifications and batches go
 * through the same pipeline as `asyncDispatch` (methods, stages, a context, every rule of the
 * specification), each answered as soon as it is done, so a slow request holds up no other.
 * Outgoing calls are a client's: `client(contract, peer.transport)` calls the other side, with
 * per-call signals and timeouts. Cancellation follows LSP (`$/cancelRequest`) or MCP
 * (`notifications/cancelled`); flow control bounds what is in flight in both directions.
 *
 * Flow control slows a peer, it does not drop it: past `maxInFlight`, incoming requests wait in
 * order (and a channel that can pause stops reading), and only a peer that fills the waiting room
 * past `maxWaitingLength` is closed. Reading pauses only while more requests are served than our
 * calls await answers, so a method that calls back to the other side cannot deadlock the
 * connection: sending its call reads on.
 *
 * This file makes the connection and routes each message received: a response to ./outgoing, a
 * cancellation to ./cancellation, a progress notification on the token of one of this side's
 * streamed calls to ./streamed-calls, anything else to ./flow-control, which runs it through the
 * pipeline of ./incoming when a slot is free. ./closing ends it all.
 *
 * @module
 */
import { isRecord } from "../core/guards";
import { ERROR_MESSAGE_TOO_LARGE } from "../core/codes";
import type { NoContext } from "../core/context-marks";
import { serialize } from "../core/serializer";
import { cancel } from "./cancellation";
import type { Channel, ChannelEvents } from "./channels/channel";
import { close, ended } from "./closing";
import { drain, enqueue, send } from "./flow-control";
import { preparePipeline } from "./incoming";
import { isResponse, UNPARSED } from "./messages";
import { answered, transportOf } from "./outgoing";
import { connectionWire } from "./outlet";
import { settingsOf, type AnyServer, type ConnectOptionsFor, type Connection, type ServerCheck } from "./options";
import { createState, type PeerState } from "./state";
import { failStreams, routed } from "./streamed-calls";

/** Answers a message skipped for its size (-32002, id null: its id was not read); the connection goes on. */
const tooLarge = (state: PeerState, length: number, max: number = state.maxMessageLength): void => {
  send(
    state,
    serialize({
      jsonrpc: "2.0",
      error: { code: ERROR_MESSAGE_TOO_LARGE, message: "Message too large", data: { length, max } },
      id: null,
    }),
  );
  failStreams(state, max);
};

/**
 * Where each message received goes: a response to its call, a cancellation to its request, a value
 * to its streamed call, the rest to be served.
 */
const receiver =
  (state: PeerState) =>
  (text: string): void => {
    if (state.closed) return;
    if (text.length > state.maxMessageLength) return tooLarge(state, text.length);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = UNPARSED;
    }
    if (isResponse(parsed)) return answered(state, parsed);
    if (Array.isArray(parsed) && parsed.length > 0 && parsed.every(isResponse)) {
      for (const response of parsed) answered(state, response);
      return;
    }
    if (isRecord(parsed) && parsed["method"] === state.dialect.cancelMethod && !("id" in parsed)) {
      return cancel(state, parsed["params"]);
    }
    // Looked for only while this side has streamed calls (or has had: their late values are dropped).
    if (
      (state.streams.size > 0 || state.endedTokens.size > 0) &&
      isRecord(parsed) &&
      parsed["method"] === state.dialect.progressMethod &&
      !("id" in parsed) &&
      routed(state, parsed["params"], text.length)
    ) {
      return;
    }
    enqueue(state, text, parsed);
  };

/** What the channel reports, to this connection: made once. */
const eventsFor = (state: PeerState): ChannelEvents => ({
  message: receiver(state),
  maxMessageLength: state.maxMessageLength,
  oversize: (length, max) => tooLarge(state, length, max),
  drain: () => drain(state),
  closed: (reason) => ended(state, reason),
});

/**
 * Makes a peer on `channel`: it serves incoming requests with `options.methods` through the
 * dispatch pipeline, and calls the other side through `transport`.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client } from "rpcserver/client";
 * import { connect, messagePort } from "rpcserver/connection";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * // The two ends of one channel: a MessageChannel here; a socket, a worker or a child's stdio elsewhere.
 * const { port1, port2 } = new MessageChannel();
 * const serving = connect(messagePort(port1), { methods: implement(api, { add: (a, b) => E.right(a + b) }) });
 * const peer = connect(messagePort(port2));
 * await client(api, peer.transport).add(1, 2)(); // { _tag: "Right", right: 3 }
 * peer.close();
 * serving.close();
 *
 * @since 5.0.10
 * @category connection
 */
export const connect = <C = NoContext, S extends AnyServer = never>(
  channel: Channel,
  // The check is written out here, not in the alias, so that a compile error's first line names it.
  options?: ServerCheck<C, S> & ConnectOptionsFor<C, S>,
): Connection => {
  const settings = settingsOf(options ?? {});
  const state = createState(channel, settings);
  state.connection = {
    transport: transportOf(state),
    closed: state.whenClosed,
    close: (reason) => close(state, reason),
    load: () => ({
      incoming: state.inFlight + state.waiting.length,
      outgoing: state.outgoing.size,
      queued: state.queue.length,
    }),
  };
  preparePipeline(state, settings);
  state.wire = connectionWire(state);
  channel.start(eventsFor(state));
  return state.connection;
};
