/**
 * Fairness: a loop that runs user code (a streaming method's generator, drained by
 * `pipeline/streaming.ts`) gives the event loop a turn within a bounded number of steps. A
 * generator that yields values already in memory resumes in microtasks only, and microtasks run
 * before any I/O, timer or other task: without a turn, nothing else in the process runs (no other
 * request is read, no disconnect, cancel or time-out is seen) until it ends, and an endless one
 * never ends.
 *
 * The rule: a turn once {@link SLICE_MS} have passed since the last one (the clock is read every
 * {@link CLOCK_EVERY} steps), and after {@link MAX_STEPS} steps at most. The count bounds the steps
 * whatever the clock does (workerd stops it while code runs), the clock bounds the time when each
 * step is slow. A turn is a macrotask: `setImmediate` where there is one (Node.js, Bun: after the
 * I/O poll, with no clamping), else a `MessageChannel` message (browsers, Deno, workerd: a
 * `setTimeout` nested in timers is clamped to 4 ms), else `setTimeout`. No `node:` import: the
 * core runs everywhere.
 *
 * @internal
 * @module
 */

/**
 * Steps between two turns at most, whatever the clock says (workerd stops it while code runs). At
 * the cheapest step measured (a generator of numbers with no sink, about 0.3 µs) this is a turn
 * every 0.3 ms, which costs a few percent there; a value sent on a wire costs ten times that
 * step, and the clock turns first. Larger, a test could no longer tell a fair drain by a count:
 * on a socket, the kernel's buffers filling gives a turn after some tens of thousands of values.
 */
export const MAX_STEPS = 1024;

/**
 * Time after which a turn is due: what a stream may hold up others, plus the steps between two
 * reads of the clock. A turn costs a few microseconds (an event-loop iteration): one every 5 ms is
 * a tenth of a percent.
 */
export const SLICE_MS = 5;

/**
 * Steps between two reads of the clock. A read costs about what the cheapest step does (0.1 to
 * 0.25 µs), so it is made every 32 steps (a few percent of that step, nothing beside a value sent
 * on a wire); a slow step (1 ms of work) then holds others up for 32 ms at most.
 */
export const CLOCK_EVERY = 32;

type Scheduler = (resume: () => void) => void;

interface TurnGlobals {
  readonly setImmediate?: (callback: () => void) => unknown;
  readonly MessageChannel?: new () => {
    readonly port1: { onmessage: (() => void) | null; close(): void };
    readonly port2: { postMessage(message: unknown): void; close(): void };
  };
}

/** The runtime's cheapest macrotask, found once. */
const scheduler = ((): Scheduler => {
  const { setImmediate, MessageChannel } = globalThis as unknown as TurnGlobals;
  if (typeof setImmediate === "function") return (resume) => void setImmediate(resume);
  if (typeof MessageChannel === "function")
    // A channel per turn, closed once used: an open port would keep a Deno process alive.
    return (resume) => {
      const { port1, port2 } = new MessageChannel();
      port1.onmessage = () => {
        port1.close();
        port2.close();
        resume();
      };
      port2.postMessage(undefined);
    };
  return (resume) => void setTimeout(resume, 0);
})();

/** Resolves in a macrotask: the event loop has had a turn (I/O, timers, other tasks) meanwhile. */
export const nextTurn = (): Promise<void> => new Promise<void>(scheduler);

/**
 * The pace of one loop: `due()` at each step, and `nextTurn()` when it says so. Made per loop
 * (each drain its own), so that a loop's first turn is counted from its own start.
 */
export class Pace {
  private steps = 0;
  private since = Date.now();

  /** One more step: is a turn due now? Counting from the last `true`. */
  due(): boolean {
    const steps = ++this.steps;
    if (steps % CLOCK_EVERY !== 0) return false;
    if (steps < MAX_STEPS) {
      const now = Date.now();
      if (now - this.since < SLICE_MS) return false;
      this.since = now;
    } else this.since = Date.now();
    this.steps = 0;
    return true;
  }
}
