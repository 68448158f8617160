/**
 * In-memory channels for connection tests: two ends joined so that what one sends the other
 * receives, on a later microtask (or when the test says, for a `held` pair), with the flow-control
 * hooks counted.
 */
import type { Channel, ChannelEvents } from "../../src/connection";

export interface End extends Channel {
  /** Messages this end has sent. */
  readonly sent: string[];
  /** How often the connection paused and resumed this end. */
  readonly flow: { paused: number; resumed: number };
  /** Delivers a message to this end's connection as if the other side had sent it. */
  readonly inject: (text: string) => void;
  /** Whether the connection has closed this end. */
  readonly isClosed: () => boolean;
}

export interface PairOptions {
  /** Whether the ends can pause (default true). */
  readonly pausable?: boolean;
  /** `send` says "full" from this many messages on, and never drains (a peer that does not read). */
  readonly fullAfter?: number;
  /** Whether a paused end really stops receiving (what it is sent waits until it resumes), as a stream does. Default false: pausing is only counted. */
  readonly holds?: boolean;
}

export const pair = (options: PairOptions = {}): [End, End] => {
  const events: Array<ChannelEvents | undefined> = [undefined, undefined];
  const closed = [false, false];
  const paused = [false, false];
  const held: string[][] = [[], []];
  const deliver = (side: 0 | 1, text: string): void => {
    if (closed[side]) return;
    if (options.holds === true && paused[side]) held[side]?.push(text);
    else events[side]?.message(text);
  };
  const end = (me: 0 | 1): End => {
    const other = (1 - me) as 0 | 1;
    const sent: string[] = [];
    const flow = { paused: 0, resumed: 0 };
    const finish = (reason: unknown): void => {
      for (const side of [me, other]) {
        if (closed[side]) continue;
        closed[side] = true;
        events[side]?.closed(reason);
      }
    };
    return {
      sent,
      flow,
      inject: (text) => events[me]?.message(text),
      isClosed: () => closed[me] === true,
      send: (text) => {
        if (closed[me]) return false;
        sent.push(text);
        queueMicrotask(() => deliver(other, text));
        return options.fullAfter === undefined || sent.length < options.fullAfter;
      },
      start: (given) => {
        events[me] = given;
      },
      ...(options.pausable === false
        ? {}
        : {
            pause: () => {
              flow.paused += 1;
              paused[me] = true;
            },
            resume: () => {
              flow.resumed += 1;
              paused[me] = false;
              for (const text of (held[me] ?? []).splice(0)) deliver(me, text);
            },
          }),
      close: (reason) => finish(reason),
    };
  };
  return [end(0), end(1)];
};

/** A single end whose other side is the test itself (nothing is delivered anywhere). */
export const lone = (options: PairOptions = {}): End => pair(options)[0];

/** Waits for pending microtasks and a macrotask. */
export const settle = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
