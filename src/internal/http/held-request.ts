/**
 * A web `Request` kept alive by its own signal. undici's `Request` (Node's, 18 to 26) follows the
 * signal it was made with through a weak reference to a controller that only the `Request` holds:
 * once the `Request` is collected (a stream outlives every other use of it), its signal is never
 * aborted, and a client that leaves is never seen by whatever listens to that signal.
 *
 * @module
 */

/** Keyed by the signal: a request lives as long as anything can still listen to its signal. */
const HELD = new WeakMap<AbortSignal, Request>();

/** `request`, now held by its signal (its own, which it made to follow the one it was given). */
export const heldBySignal = (request: Request): Request => {
  HELD.set(request.signal, request);
  return request;
};
