/**
 * Timers for a length the user gave. `setTimeout` holds a delay of at most 2^31 - 1 ms (about 24.8
 * days) and takes a longer one (or `Infinity`) as 1 ms: it would fire at once (Node warns, browsers
 * do not). Every such timer the library arms is armed here, and every check of the limit reads it
 * from here.
 *
 * @module
 */

/** The longest delay one `setTimeout` holds: 2^31 - 1 ms (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Is `ms` a delay one timer holds: a number more than 0 and at most {@link MAX_TIMER_MS} (not NaN, not `Infinity`)? */
export const fitsOneTimer = (ms: unknown): ms is number => typeof ms === "number" && ms > 0 && ms <= MAX_TIMER_MS;

/**
 * Calls `fire` once `ms` milliseconds have passed, whatever their length: a delay longer than one
 * timer holds is waited out in steps of the longest. Answers what cancels it.
 */
export const after = (ms: number, fire: () => void): (() => void) => {
  let timer: ReturnType<typeof setTimeout>;
  // A timer never fires early, so what is left after each step is the delay less the steps.
  const wait = (left: number): void => {
    timer = left > MAX_TIMER_MS ? setTimeout(() => wait(left - MAX_TIMER_MS), MAX_TIMER_MS) : setTimeout(fire, left);
  };
  wait(ms);
  return () => clearTimeout(timer);
};
