/**
 * The one mechanism that holds a streamed call's values for a consumer still taking an earlier one
 * (issue 33 item 3): a connection's streamed calls and natsTransport's inbox both use it.
 */
import { HeldValues } from "../src/internal/client/held-values";

/** A consumer that takes each value when the test says. */
const slowConsumer = () => {
  const seen: number[] = [];
  const takes: Array<() => void> = [];
  const onValue = (value: number): Promise<void> => {
    seen.push(value);
    return new Promise((resolve) => takes.push(resolve));
  };
  const take = async (): Promise<void> => {
    takes.shift()?.();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { seen, onValue, take };
};

describe("HeldValues", () => {
  test("one at a time, in order, each held with its cost; the end after the last", async () => {
    const { seen, onValue, take } = slowConsumer();
    const failed: unknown[] = [];
    const moves: Array<[number, number]> = [];
    const values = new HeldValues<number>(
      onValue,
      (cause) => failed.push(cause),
      (n, cost) => moves.push([n, cost]),
    );
    let ended = false;
    values.push(1, 10);
    values.push(2, 20);
    values.push(3, 30);
    values.end(() => (ended = true));
    expect([seen, values.length, values.cost, ended]).toEqual([[1], 2, 50, false]);
    await take();
    expect([seen, values.length, values.cost, ended]).toEqual([[1, 2], 1, 30, false]);
    await take();
    await take();
    expect([seen, values.length, values.cost, ended]).toEqual([[1, 2, 3], 0, 0, true]);
    expect(moves).toEqual([
      [1, 20],
      [1, 30],
      [-1, -20],
      [-1, -30],
    ]);
    expect(failed).toEqual([]);
  });

  test("a value that comes while the held ones are handed on (a channel resumed in between) goes after them", async () => {
    const seen: number[] = [];
    const takes: Array<() => void> = [];
    let resumed = false;
    const values: HeldValues<number> = new HeldValues<number>(
      (value) => {
        seen.push(value);
        return value === 1 ? new Promise<void>((resolve) => takes.push(resolve)) : undefined;
      },
      () => undefined,
      // Letting go of a held value resumes reading, which brings the next value at once.
      (n) => {
        if (n > 0 || resumed) return;
        resumed = true;
        values.push(9, 1);
      },
    );
    values.push(1, 1);
    values.push(2, 1);
    takes.shift()?.();
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(seen).toEqual([1, 2, 9]);
  });

  test("a consumer that rejects fails the call; dropped, nothing more is handed on and the end never runs", async () => {
    const failed: unknown[] = [];
    const seen: number[] = [];
    const values = new HeldValues<number>(
      (value) => {
        seen.push(value);
        return value === 1 ? Promise.reject(new Error("no")) : undefined;
      },
      (cause) => {
        failed.push(cause);
        values.drop();
      },
    );
    let ended = false;
    values.push(1, 1);
    values.push(2, 1);
    values.end(() => (ended = true));
    for (let i = 0; i < 5; i++) await Promise.resolve();
    values.push(3, 1);
    expect([seen, failed, ended, values.length, values.cost]).toEqual([[1], [new Error("no")], false, 0, 0]);
  });

  test("values held for a consumer that takes each at once are handed on with turns of the event loop between, all of them, in order", async () => {
    const seen: number[] = [];
    const takes: Array<() => void> = [];
    const values = new HeldValues<number>(
      (value) => {
        seen.push(value);
        // The first is taken later; every one after it, at once (a sync onValue).
        return value === 0 ? new Promise<void>((resolve) => takes.push(resolve)) : undefined;
      },
      (cause) => {
        throw cause;
      },
    );
    const count = 5000;
    for (let i = 0; i < count; i++) values.push(i, 1);
    const ended = new Promise<void>((resolve) => values.end(resolve));
    // Scheduled before the held values are handed on: it runs at the loop's first turn.
    const atFirstTurn = new Promise<number>((resolve) => setImmediate(() => resolve(seen.length)));
    takes.shift()?.();
    // A turn within 1,024 values (turns.ts: MAX_STEPS), whatever the clock: not all 5,000 at once.
    expect(await atFirstTurn).toBeLessThanOrEqual(1 + 1024);
    await ended;
    expect(seen).toEqual(Array.from({ length: count }, (_, i) => i));
    expect([values.length, values.cost]).toEqual([0, 0]);
  });
});

describe("HeldValues keep", () => {
  test("a value held is what keep makes of it; one handed on at once is as it came", async () => {
    const seen: Array<{ readonly n: number; readonly kept?: true }> = [];
    const takes: Array<() => void> = [];
    const values = new HeldValues<{ readonly n: number; readonly kept?: true }>(
      (value) => {
        seen.push(value);
        return new Promise<void>((resolve) => takes.push(resolve));
      },
      (cause) => {
        throw cause;
      },
      undefined,
      (value) => ({ ...value, kept: true }),
    );
    values.push({ n: 1 }, 1);
    values.push({ n: 2 }, 1);
    takes.shift()?.();
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(seen).toEqual([{ n: 1 }, { n: 2, kept: true }]);
  });
});
