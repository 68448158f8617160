/**
 * The connection's queues (its Fifo: messages waiting for the channel to drain, streamed values
 * among them, and the waiting room) let go of what they hand on. Found attacking issue 33 item 2 on
 * a real TCP socket: rounds of 300 streaming requests blocked on a peer that did not read, then
 * cancelled and read, left MCP's heap one round's values higher for three rounds before it fell; a
 * slot taken kept its message alive until a thousand more were taken.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Fifo } from "../src/internal/core/fifo";

/** A full collection (V8's `gc`, reached without `--expose-gc` on the command line). */
const collect = (): void => {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
};

/** A WeakRef keeps its target for the rest of the job that made it: the collection comes after a turn. */
const collectLater = async (): Promise<void> => {
  await new Promise((go) => setImmediate(go));
  collect();
};

test("a Fifo taken from, or emptied, holds none of the items taken, and still takes them in order", async () => {
  const queue = new Fifo<object>();
  const refs: WeakRef<object>[] = [];
  const fill = (count: number): void => {
    for (let i = 0; i < count; i++) {
      const item = { i };
      refs.push(new WeakRef(item));
      queue.push(item);
    }
  };
  fill(100);
  for (let i = 0; i < 60; i++) queue.shift();
  await collectLater();
  expect(refs.slice(0, 60).filter((ref) => ref.deref() !== undefined)).toEqual([]);
  expect(refs.slice(60).every((ref) => ref.deref() !== undefined)).toBe(true);
  expect(queue.length).toBe(40);
  while (queue.shift() !== undefined);
  await collectLater();
  expect(refs.filter((ref) => ref.deref() !== undefined)).toEqual([]);
  expect(queue.length).toBe(0);
  fill(3);
  expect([queue.shift(), queue.shift(), queue.peek(), queue.length]).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }, 1]);
});
