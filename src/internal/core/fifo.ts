/**
 * The first-in, first-out queue: a connection's messages waiting for a slot or for the channel to
 * drain, and a streamed call's values held for a consumer still taking an earlier one.
 *
 * @module
 */

/** A first-in, first-out queue that takes from the front without moving the rest (`shift` does). */
export class Fifo<T> {
  /** A slot already taken holds `undefined`, so that what was taken is not kept alive by the queue. */
  private items: Array<T | undefined> = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): T | undefined {
    const item = this.items[this.head];
    if (item === undefined) return undefined;
    // Let go of it: a queue that drained would otherwise hold up to a thousand messages sent (each
    // up to `maxMessageLength`: a streamed value, a waiting request's text) until it compacts.
    this.items[this.head] = undefined;
    this.head += 1;
    // (Not truncated once empty: `length = 0` drops the backing store, which a queue pushed to and
    // emptied one message at a time then allocates again each time, 4x the cost of a push and shift.)
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
