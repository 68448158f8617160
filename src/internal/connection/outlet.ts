/**
 * The connection as a wire for the values its methods stream (core/served-body.ts's `Wire`): a
 * request that carries its convention's token gets the core's `Streamed` (./incoming), and each of
 * its values goes out as a message like any other (./flow-control's `send`), written by the
 * connection's serializer. Back-pressure is the outlet's wait: a value sent while the channel is
 * full waits until it drains (./flow-control's `drain` resumes every such wait at once), so that a
 * method producing values faster than the other side reads them is paused, one value ahead at
 * most. A cancel or the close (./incoming's `abortServing`) makes the sink refuse and ends the
 * request's stream, which stops a method waiting here at once.
 *
 * @module
 */
import { requestCancelled } from "../core/progress-wire";
import { serialize } from "../core/serializer";
import type { Wire } from "../core/streamed";
import { send } from "./flow-control";
import type { PeerState } from "./state";

/** The channel's drain, which every value sent while it is full waits for: made at the first. */
const drained = (state: PeerState): Promise<void> => {
  if (state.drained !== undefined) return state.drained.promise;
  let settle = (): void => undefined;
  const promise = new Promise<void>((resume) => (settle = resume));
  state.drained = {
    promise,
    resume: () => {
      state.drained = undefined;
      settle();
    },
  };
  return promise;
};

/** The connection's wire: made once its pipeline is, whose serializer writes the values too. */
export const connectionWire = (state: PeerState): Wire => ({
  write: state.env.serializer ?? serialize,
  outlet: {
    value: (text) => {
      send(state, text);
      // Sending may close the connection (a peer that does not read), which stops the request.
      if (state.closed) return Promise.reject(requestCancelled());
      return state.full ? drained(state) : undefined;
    },
    message: (text) => send(state, text),
  },
  get stopped() {
    return state.closed;
  },
});
