/**
 * The client's FIN, told to every request pending on its connection (the development server's and
 * `nodeHandler`'s, which stop the methods then: a FIN is a client gone or one that half-closed, and
 * TCP cannot tell which until a write). One `end` listener per socket, shared: pipelined requests
 * are pending many at once, and one listener each would pass EventEmitter's limit of 10 (a
 * MaxListenersExceededWarning in the host's log, at a client's will).
 *
 * @module
 */
import type { Socket } from "node:net";

/** The requests waiting for a socket's FIN, and the one listener that tells them. */
interface Waiting {
  readonly leaves: Set<() => void>;
  readonly fin: () => void;
}

const waiting = new WeakMap<Socket, Waiting>();

/**
 * Calls `leave` at `socket`'s FIN (now, if it came already), until the function returned is
 * called: a keep-alive socket outlives its requests, and keeps no listener of one that is done.
 */
export const onFin = (socket: Socket, leave: () => void): (() => void) => {
  if (socket.readableEnded) {
    leave();
    return () => undefined;
  }
  let entry = waiting.get(socket);
  if (entry === undefined) {
    const leaves = new Set<() => void>();
    const fin = (): void => {
      waiting.delete(socket);
      for (const each of leaves) each();
    };
    entry = { leaves, fin };
    waiting.set(socket, entry);
    socket.once("end", fin);
  }
  const { leaves, fin } = entry;
  leaves.add(leave);
  return () => {
    leaves.delete(leave);
    if (leaves.size === 0 && waiting.get(socket) === entry) {
      waiting.delete(socket);
      socket.removeListener("end", fin);
    }
  };
};
