/**
 * Tests of what user code hands back (a method's return, a stage's answer, a callback's value)
 * before the library relies on it. Each reads as little as it can, since reading may run user code
 * (a getter, a Proxy trap): callers run them where an exception is that code's own.
 *
 * @module
 * @internal
 */

/** An object (or array), not `null`. */
export const isObject = (value: unknown): value is object => typeof value === "object" && value !== null;

/** A Promise or any other thenable: what async code returns, and what must not be dropped unhandled. */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  typeof (value as { then?: unknown }).then === "function";
