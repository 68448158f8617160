/**
 * Cancellation, both ways, by LSP's `$/cancelRequest` (`{ id }`) or MCP's
 * `notifications/cancelled` (`{ requestId, reason? }`). An incoming cancellation finds its request
 * being served (its signal aborts; LSP answers it -32800 at once, MCP leaves it unanswered), or
 * waiting alone (it never runs) or in a waiting batch (answered or left out when the batch runs).
 * Cancelling an unknown or finished request is ignored, as both protocols say. The outgoing side
 * (a call whose signal aborts) sends the same notification: see ./outgoing.
 *
 * @module
 */
import { isRecord } from "../core/guards";
import { ERROR_REQUEST_CANCELLED } from "../core/codes";
import type { Id } from "../core/request";
import { ErrorResponse } from "../core/response";
import { NODATA } from "../core/sentinels";
import { serialize, writeAll } from "../core/serializer";
import { send } from "./flow-control";
import { abortServing } from "./incoming";
import { isId } from "./messages";
import type { PeerState } from "./state";

/** Cancels one of this side's calls on the other side: the convention's notification for `id`. */
export const cancelOnPeer = (state: PeerState, id: Id): void =>
  send(
    state,
    serialize({ jsonrpc: "2.0", method: state.dialect.cancelMethod, params: state.dialect.cancelParams(id) }),
  );

/** What the method's `signal.reason` becomes: an Error with the reason the peer gave (MCP's `reason`), if any. */
const cancelReason = (params: unknown): Error => {
  const given = isRecord(params) ? params["reason"] : undefined;
  return new Error(typeof given === "string" && given !== "" ? given : "Request cancelled");
};

/** LSP's answer to a cancelled request: -32800. */
const answerCancelled = (state: PeerState, id: Id): void =>
  send(
    state,
    writeAll(state.env.serializer, state.env.debug, {
      _tag: "Left",
      left: ErrorResponse(ERROR_REQUEST_CANCELLED, "Request cancelled", NODATA, id),
    }),
  );

/** An incoming cancellation (its params): the request it names is cancelled, wherever it is. */
export const cancel = (state: PeerState, params: unknown): void => {
  const { dialect } = state;
  const id = isRecord(params) ? dialect.cancelledId(params) : undefined;
  if (!isId(id)) return;
  const entry = state.serving.get(id);
  if (entry === undefined) {
    // Not started yet: it never runs. LSP still answers it; MCP does not.
    const queued = state.waitingById.get(id);
    if (queued !== undefined) {
      state.waitingById.delete(id);
      queued.cancelled = true;
      if (dialect.answersCancelled) answerCancelled(state, id);
      return;
    }
    // A member of a waiting batch: answered in the batch's answer when it runs (LSP), or left out (MCP).
    if (!state.waitingInBatch.delete(id)) return;
    state.precancelled.add(id);
    if (!dialect.answersCancelled) state.silenced.add(id);
    return;
  }
  state.serving.delete(id);
  if (!dialect.answersCancelled) state.silenced.add(id);
  abortServing(entry, cancelReason(params));
  entry.cancel?.({ _tag: "Left", left: ErrorResponse(ERROR_REQUEST_CANCELLED, "Request cancelled", NODATA, id) });
};
