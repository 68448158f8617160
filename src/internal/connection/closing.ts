/**
 * Closing a connection: by this side (`close`, which ends the channel) or by the channel (`ended`,
 * once, whoever closed it). Everything in flight ends at once: each incoming request's signal
 * aborts and its answer goes nowhere, each outgoing call fails with `closed`, and every table and
 * queue is emptied, so that nothing of the connection outlives it.
 *
 * @module
 */
import { closed } from "../client/errors";
import { ERROR_REQUEST_CANCELLED } from "../core/codes";
import { ErrorResponse } from "../core/response";
import { NODATA } from "../core/sentinels";
import { abortServing } from "./incoming";
import type { PeerState } from "./state";

/** A connection closed: its reason, for the peers' errors and logs. */
export const closedReason = (reason: unknown): Error =>
  // Any reason a caller gave, as `String` writes it (an object's own `toString` included).
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  reason instanceof Error ? reason : new Error(String(reason ?? "closed"));

/** Closes the connection from this side: the channel ends, and with it the connection. */
export const close = (state: PeerState, reason?: unknown): void => {
  if (state.closed) return;
  state.channel.close(reason ?? new Error("closed"));
  ended(state, reason ?? new Error("closed"));
};

/** The channel has ended: the connection is closed, and all it held let go. */
export const ended = (state: PeerState, reason: unknown): void => {
  if (state.closed) return;
  state.closed = true;
  const cause = closedReason(reason);
  // Each is aborted and settled now (its answer goes nowhere), so that a method that ignores its
  // signal holds no slot or memory of this connection.
  const gone = {
    _tag: "Left",
    left: ErrorResponse(ERROR_REQUEST_CANCELLED, "Request cancelled", NODATA, null),
  } as const;
  for (const entry of [...state.live]) {
    abortServing(entry, cause);
    entry.cancel?.(gone);
  }
  state.live.clear();
  state.serving.clear();
  state.silenced.clear();
  state.queue.clear();
  state.waiting.clear();
  state.waitingById.clear();
  state.waitingInBatch.clear();
  state.precancelled.clear();
  state.drained = undefined;
  if (state.watch !== undefined) clearTimeout(state.watch);
  state.watch = undefined;
  state.waitingLength = 0;
  state.inFlight = 0;
  const pending = new Set(state.outgoing.values());
  state.outgoing.clear();
  // Each fails, its streamed values (if it asked for any) dropped; a streamed call answered
  // already still hands its held values on, then its answer.
  for (const each of pending) each.fail(closed(cause));
  state.streams.clear();
  state.endedTokens.clear();
  state.settleClosed(reason);
};
