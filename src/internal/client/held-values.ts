/**
 * The values of one streamed call on their way to its consumer (`onValue`), for a transport that
 * cannot stop reading for one call: a connection carries many calls, and core NATS cannot slow its
 * sender. Each value is handed on once the consumer has taken the one before (the Promise
 * `onValue` returned has settled); those that come meanwhile are held, in order, with what each
 * costs (the transport's unit: text, bytes); the call's end comes after them. The transport bounds
 * what is held (`cost`, `length`) and fails the call past its bound.
 *
 * @module
 */
import { Fifo } from "../core/fifo";
import { isThenable } from "../core/guards";
import { nextTurn, Pace } from "../core/turns";

/** A value held, with what it costs. */
interface Held<T> {
  readonly item: T;
  readonly cost: number;
}

/** One streamed call's values not yet taken by its consumer. */
export class HeldValues<T> {
  private held = new Fifo<Held<T>>();
  /**
   * The pace of handing held values on to a consumer that takes each at once (its `onValue` returns
   * no Promise): that is the consumer's code run in a loop, which gives the event loop its turns.
   */
  private pace: Pace | undefined;
  /** What the values held cost, together. */
  cost = 0;
  /** The consumer is taking a value (the Promise `onValue` returned has not settled), or the event loop has its turn. */
  busy = false;
  /** Nothing more is handed on: the call has ended, or was let go. */
  private over = false;
  /** The call's end, once it came while values were still to be taken. */
  private last: (() => void) | undefined;

  constructor(
    /** Hands one value on: what `onValue` returned. */
    private readonly hand: (item: T) => unknown,
    /** `onValue` threw or rejected: the call fails. */
    private readonly failed: (cause: unknown) => void,
    /** A value was held (`1`) or let go (`-1`, or minus all at once), with its cost: for flow control. */
    private readonly moved?: ((count: number, cost: number) => void) | undefined,
    /**
     * What a value becomes once it is held rather than handed on at once: `natsTransport` copies
     * its bytes out of the chunk the socket read, which holding the view would keep alive whole.
     */
    private readonly keep?: (item: T) => T,
  ) {}

  /** How many values are held. */
  get length(): number {
    return this.held.length;
  }

  /** A value and what it costs held: handed on now if the consumer is free, else held after the others. */
  push(item: T, cost: number): void {
    if (this.over) return;
    // Not before those held: one may come while they are being handed on (a resumed channel).
    if (!this.busy && this.length === 0) return this.deliver(item);
    this.held.push({ item: this.keep === undefined ? item : this.keep(item), cost });
    this.cost += cost;
    this.moved?.(1, cost);
  }

  /** The call ends: `settle` runs once every value held has been taken (at once when none is). */
  end(settle: () => void): void {
    if (this.over) return;
    if (this.busy || this.length > 0) {
      this.last = settle;
      return;
    }
    this.over = true;
    settle();
  }

  /** The call failed or was stopped: the values held are let go, and nothing more is handed on. */
  drop(): void {
    this.over = true;
    this.last = undefined;
    const { length, cost } = this;
    this.held.clear();
    this.cost = 0;
    if (length > 0) this.moved?.(-length, -cost);
  }

  private deliver(item: T): void {
    let taken: unknown;
    try {
      taken = this.hand(item);
    } catch (cause) {
      return this.failed(cause);
    }
    if (!isThenable(taken)) return;
    this.busy = true;
    Promise.resolve(taken).then(this.taken, (cause: unknown) => {
      this.busy = false;
      this.failed(cause);
    });
  }

  /** The consumer took its value: the values held go on, in order, then the end if it came. */
  private readonly taken = (): void => {
    this.busy = false;
    while (!this.busy && !this.over && this.length > 0) {
      if ((this.pace ??= new Pace()).due()) {
        this.busy = true;
        void nextTurn().then(this.taken);
        return;
      }
      const { item, cost } = this.held.shift() as Held<T>;
      this.cost -= cost;
      // Handed on before it is counted gone: counting may resume reading, and what that brings
      // comes after it.
      this.deliver(item);
      this.moved?.(-1, -cost);
    }
    const last = this.last;
    if (this.busy || this.over || last === undefined) return;
    this.over = true;
    this.last = undefined;
    last();
  };
}
