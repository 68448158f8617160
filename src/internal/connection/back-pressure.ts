/**
 * Back-pressure on streamed values: a request's sink (./progress) that sent its notification while
 * the channel was full waits here until the channel drains (`hold`), so that a method producing
 * values faster than the other side reads them is paused, one value ahead at most. The wait ends
 * when the channel drains (`release`, from ./flow-control), or fails when the request is cancelled
 * or the connection closes (`refuse`, from ./incoming's `abortServing`), which stops the method.
 *
 * @module
 */
import { requestCancelled } from "../core/progress-wire";
import type { PeerState, Progress } from "./state";

/** Waits for the channel to drain: resolves then, rejects if the request stops first. */
export const hold = (state: PeerState, progress: Progress): Promise<void> =>
  new Promise<void>((resume, stop) => {
    progress.waiting = { resume, stop };
    state.held.add(progress);
  });

/** The channel has drained: every sink waiting goes on. */
export const release = (state: PeerState): void => {
  const held = [...state.held];
  state.held.clear();
  for (const progress of held) {
    const waiting = progress.waiting;
    progress.waiting = undefined;
    waiting?.resume();
  }
};

/**
 * The request has stopped (cancelled, or the connection closed): its sink refuses from now on, and
 * one waiting fails. (Its record stays in `held` until the next drain or the close, which skip it:
 * the set is bounded by the requests in flight.)
 */
export const refuse = (progress: Progress): void => {
  progress.done = true;
  const waiting = progress.waiting;
  if (waiting === undefined) return;
  progress.waiting = undefined;
  waiting.stop(requestCancelled());
};
