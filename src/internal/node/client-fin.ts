/**
 * The client's FIN (and its connection's close), told to every request pending on its connection (the development server's and
 * `nodeHandler`'s, which stop the methods then: a FIN is a client gone or one that half-closed, and
 * TCP cannot tell which until a write). One `end` listener per socket, added at its first request
 * and kept for its life: pipelined requests are pending many at once, and one listener each would
 * pass EventEmitter's limit of 10 (a MaxListenersExceededWarning in the host's log, at a client's
 * will). It is kept rather than added and removed with each request: a keep-alive request then
 * costs a `Set`'s add and delete.
 *
 * @module
 */
import type { Socket } from "node:net";

/** The requests waiting for each socket's FIN. */
const waiting = new WeakMap<Socket, Set<() => void>>();

/** Calls `leave` at `socket`'s FIN or close, or now if its FIN came already, until `offFin` is called with it. */
export const onFin = (socket: Socket, leave: () => void): void => {
  if (socket.readableEnded || socket.destroyed) return leave();
  let pending = waiting.get(socket);
  if (pending === undefined) {
    const created = new Set<() => void>();
    waiting.set(socket, created);
    const tell = (): void => {
      for (const each of created) each();
    };
    socket.once("end", tell);
    // A reset (or a destroy) ends no stream: the requests queued behind the one being answered
    // (pipelined) hear of it only so, as Node closes neither their `req` nor their `res`.
    socket.once("close", tell);
    pending = created;
  }
  pending.add(leave);
};

/** Once a request is done: a keep-alive socket outlives it, and keeps nothing of it. */
export const offFin = (socket: Socket, leave: () => void): void => {
  waiting.get(socket)?.delete(leave);
};
