/**
 * A web `Request` kept alive by its own signal. undici's `Request` (Node's, 18 to 26) follows the
 * signal it was made with through a weak reference to a controller that only the `Request` holds:
 * once the `Request` is collected (a stream outlives every other use of it), its signal is never
 * aborted, and a client that leaves is never seen by whatever listens to that signal.
 *
 * @module
 */

/**
 * The signal's own reference to its request: a property, not a WeakMap entry, whose ephemerons
 * made collections slower: fetchHandler's CPU per request rose 16% with them in `bench/http-cpu.mjs`, and
 * 2-3% (within its noise) with this.
 */
const HOLDS = Symbol("rpcserver.request");

/** `request`, now held by its signal (its own, which it made to follow the one it was given). */
export const heldBySignal = (request: Request): Request => {
  (request.signal as AbortSignal & { [HOLDS]?: Request })[HOLDS] = request;
  return request;
};
