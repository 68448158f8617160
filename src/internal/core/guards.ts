/**
 * Tests of what user code hands back (a method's return, a stage's answer, a callback's value)
 * before the library relies on it. Each reads as little as it can, since reading may run user code
 * (a getter, a Proxy trap): callers run them where an exception is that code's own.
 *
 * @module
 */
import type * as t from "io-ts";

/** An object (or array), not `null`. */
export const isObject = (value: unknown): value is object => typeof value === "object" && value !== null;

/** The same test, typed for reading members: an answer, a declaration, the caller's arguments. */
export const isMembers = isObject as (value: unknown) => value is Readonly<Record<string, unknown>>;

/** A Promise or any other thenable: what async code returns, and what must not be dropped unhandled. */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  typeof (value as { then?: unknown }).then === "function";

/** What an io-ts `decode` must return (a params codec's, a validator's): a Right, or a Left of an array of errors. */
export const isValidation = (value: unknown): value is t.Validation<unknown> =>
  isObject(value) &&
  ((value as { _tag?: unknown })._tag === "Right" ||
    ((value as { _tag?: unknown })._tag === "Left" && Array.isArray((value as { left?: unknown }).left)));

/** An object that is not an array (nor `null`): a JSON object's shape, read by its members (a message, its params, a schema). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * An object whose prototype is `Object.prototype` or `null` (made by `{}` or `Object.create(null)`):
 * one a stage may copy with a member added (`{ ...context, signal }`). Narrower than `isRecord`:
 * a class instance or a `Map` is a record, not a plain object.
 */
export const isPlainObject = (value: unknown): value is object => {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** Does `value` have a function under each of `names` (an io-ts codec: `decode`, `encode`, `is`)? */
export const hasFunctions = (value: unknown, ...names: readonly string[]): boolean =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  names.every((name) => typeof (value as Record<string, unknown>)[name] === "function");
