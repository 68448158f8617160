/**
 * The channel over a message port: a `MessagePort`, a `Worker`, a worker's `self`, or Node's
 * `worker_threads` ports and `Worker`s, typed by what it uses of them.
 *
 * @module
 */
import type { Channel, ChannelEvents } from "./channel";

/** A message port, as `MessagePort`, a `Worker` and a worker's `self` (or Node's `parentPort`) are. */
export interface PortLike {
  /** Posts one message to the other side. */
  postMessage(message: unknown): void;
  /** The listener receives a `MessageEvent` (typed `object` here so that every realm's event types fit). */
  addEventListener?(type: "message", listener: (event: object) => void): void;
  /** Node's ports: delivers each message's data. */
  on?(event: "message", listener: (data: unknown) => void): unknown;
  /** Node's ports: says the port closed. */
  on?(event: "close", listener: () => void): unknown;
  /** Node's `worker_threads` `Worker`: says the worker ended (it emits no `close`). */
  on?(event: "exit", listener: (code: number) => void): unknown;
  /** Node's `worker_threads` `Worker`: says the worker threw (`exit` follows). */
  on?(event: "error", listener: (error: unknown) => void): unknown;
  /** A `MessagePort` delivers messages once started. */
  start?(): void;
  /** Closes the port. */
  close?(): void;
  /** A `Worker`'s way to end. */
  terminate?(): unknown;
}

/**
 * A channel over a message port: a `MessagePort` (from a `MessageChannel`), a `Worker`, a
 * worker's `self`, or Node's `worker_threads` ports and `Worker`s. One posted string is one
 * message. On Node the channel ends when the port closes, or when the `Worker` exits or throws. A
 * port has no flow control and (on the web) no close event: close the connection yourself when
 * done.
 *
 * @example
 * import { connect, messagePort } from "rpcserver/connection";
 * const { port1 } = new MessageChannel();
 * const peer = connect(messagePort(port1));
 * peer.close();
 *
 * @since 5.0.10
 * @category connection
 */
export const messagePort = (port: PortLike): Channel => {
  let ended = false;
  let events: ChannelEvents | undefined;
  const end = (reason: unknown): void => {
    if (ended) return;
    ended = true;
    events?.closed(reason);
  };
  return {
    send: (message) => {
      if (!ended) port.postMessage(message);
      return !ended;
    },
    start: (given) => {
      events = given;
      const deliver = (data: unknown): void => {
        if (!ended && typeof data === "string") given.message(data);
      };
      // Node's ports deliver through `on` (the data itself); the web's through events.
      if (typeof port.on === "function") {
        port.on("message", deliver);
        port.on("close", () => end(new Error("the port closed")));
        // A `Worker` ends by `exit` (after `error` if it threw), never by `close`.
        port.on("exit", (code: number) => end(new Error(`the worker exited (${String(code)})`)));
        port.on("error", (error: unknown) => end(error));
      } else {
        port.addEventListener?.("message", (event) => deliver((event as { readonly data?: unknown }).data));
      }
      port.start?.();
    },
    close: (reason) => {
      end(reason ?? new Error("closed"));
      // A Worker has no `close`: it ends by `terminate` (else it, and the process, live on).
      if (typeof port.close === "function") port.close();
      else void port.terminate?.();
    },
  };
};
