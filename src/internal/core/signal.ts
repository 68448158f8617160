/**
 * A method's `AbortSignal`: making it, following the signal of whatever may abort it, and aborting
 * it. Every source of abort reaches the one signal the method sees: a stage that hands the method a
 * signal of its own (`timeout`) follows the one the context already carries (a connection's, which a
 * cancel or a close aborts; `answerHttp`'s, which the client going away aborts; the caller's own),
 * so that composing stages never cuts a source off.
 *
 * Its abort listeners are guarded. Its listeners are the method's
 * code, and an event target does not let their exceptions reach the code that aborts: Node, Deno and
 * Bun re-throw one as an uncaught exception that ends the process, before the request that timed
 * out, or the rest of its batch, is answered (a browser reports it as an uncaught error). So what an
 * abort listener throws is logged instead, and the others, the answers and the process go on.
 *
 * Where the runtime has `getEventListeners` (`node:events`: Node 20.16 and later, Deno, Bun; reached
 * through `process.getBuiltinModule`, so that this module imports nothing from Node), the listeners
 * are wrapped just before the abort, each removed and added again wrapped (in its order on Node; an
 * `onabort` handler wrapped in place): only a request that times out pays anything. Elsewhere
 * (Node 18, browsers) the signal's prototype is given guarded listener methods when it is made, which
 * wrap each listener as it is added; that costs every request whose method uses its signal 1.3-1.8
 * times as much (measured on Node 20), and is why it is only the fallback. Listeners on a signal
 * derived from this one (`AbortSignal.any([signal])`, a `fetch`'s own) are beyond reach: see
 * docs/pipeline.md.
 *
 * @module
 * @internal
 */
import { isObject } from "./guards";
import { logSafely } from "./logger";

/** A listener as event targets take it (declared here: the DOM's names are not in every lib). */
type Callback = (this: unknown, event: unknown) => void;
type Listener = Callback | { readonly handleEvent: (event: unknown) => void };

/** Each listener's wrapper (the fallback keeps them, so that `removeEventListener` finds it). */
const wrappers = new WeakMap<object, Callback>();

const guarded = (listener: Listener): Callback => {
  let wrapper = wrappers.get(listener);
  if (wrapper === undefined) {
    wrapper = function (this: unknown, event: unknown): void {
      try {
        if (typeof listener === "function") listener.call(this, event);
        else listener.handleEvent(event);
      } catch (thrown) {
        logSafely("rpcserver: a listener on a method's abort signal threw", thrown);
      }
    };
    wrappers.set(listener, wrapper);
  }
  return wrapper;
};

const isListener = (value: unknown): value is Listener =>
  typeof value === "function" ||
  (isObject(value) && typeof (value as { handleEvent?: unknown }).handleEvent === "function");

type GetEventListeners = (target: unknown, type: string) => Listener[];

/** `getEventListeners` of `node:events` where the runtime has it, else null; looked up once. */
let listenersLookup: GetEventListeners | null | undefined;

const listenersOf = (): GetEventListeners | null => {
  if (listenersLookup !== undefined) return listenersLookup;
  try {
    const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const events = process?.getBuiltinModule?.("node:events") as { getEventListeners?: unknown } | undefined;
    listenersLookup =
      typeof events?.getEventListeners === "function" ? (events.getEventListeners as GetEventListeners) : null;
  } catch {
    listenersLookup = null;
  }
  return listenersLookup;
};

/** Called with whatever the caller passed (a null listener included): the target decides, as usual. */
type Registration = (this: unknown, type: unknown, listener: unknown, options?: unknown) => void;

/** The fallback: `AbortSignal.prototype` with listener methods that wrap what they are given. */
let guardedPrototype: object | undefined;

const fallbackPrototype = (): object => {
  if (guardedPrototype !== undefined) return guardedPrototype;
  // Both are called with .call(signal, ...), never unbound.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const add = EventTarget.prototype.addEventListener as Registration;
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const remove = EventTarget.prototype.removeEventListener as Registration;
  guardedPrototype = Object.create(AbortSignal.prototype, {
    addEventListener: {
      configurable: true,
      writable: true,
      value: function (this: unknown, type: unknown, listener: unknown, options?: unknown): void {
        add.call(this, type, isListener(listener) ? guarded(listener) : listener, options);
      },
    },
    removeEventListener: {
      configurable: true,
      writable: true,
      value: function (this: unknown, type: unknown, listener: unknown, options?: unknown): void {
        remove.call(this, type, isListener(listener) ? (wrappers.get(listener) ?? listener) : listener, options);
      },
    },
  }) as object;
  return guardedPrototype;
};

/** A controller for a method's signal: a real `AbortSignal` (`instanceof`, `AbortSignal.any`, `fetch` take it). */
export const signalController = (): AbortController => {
  const controller = new AbortController();
  if (listenersOf() === null) Object.setPrototypeOf(controller.signal, fallbackPrototype());
  return controller;
};

/** Aborts the signal of a controller from {@link signalController}, its abort listeners guarded. */
export const abortGuarded = (controller: AbortController, reason: unknown): void => {
  const signal = controller.signal;
  // An `onabort` handler is set, not added: wrapped in place, it keeps its turn among the listeners.
  if (typeof signal.onabort === "function") {
    signal.onabort = guarded(signal.onabort as Callback) as typeof signal.onabort;
  }
  const getEventListeners = listenersOf();
  if (getEventListeners !== null) {
    const handler: unknown = signal.onabort;
    for (const listener of getEventListeners(signal, "abort")) {
      // Some runtimes list the `onabort` handler itself (Bun): it is guarded already, and removing it
      // would not unset it.
      if (listener === handler) continue;
      // Removed whether it was added to capture or not (which means nothing on a signal).
      signal.removeEventListener("abort", listener);
      signal.removeEventListener("abort", listener, { capture: true });
      // Once: a signal aborts once, and a listener left on it after would keep what it holds (a
      // follower that lets go by the listener it added cannot find this wrapper).
      signal.addEventListener("abort", guarded(listener), { once: true });
    }
  }
  controller.abort(reason);
};

/** What lets go of nothing: no signal was followed. */
const letGo = (): void => undefined;

/**
 * What {@link follow} reads of a signal: an `AbortSignal`, or a wire's lighter one that only
 * dispatch reads (node/node-exchange's: an `AbortController` for each HTTP request cost a tenth of
 * its time on Node, where the event-target machinery is slow).
 */
export interface Followed {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options: { readonly once: true }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * Follows `given` (a signal that may abort the request: the client went away, a cancel): `onAbort`
 * once it aborts (at once if it has), and the returned function lets it go, which the follower
 * calls once the request is settled so that a long-lived signal (a connection's, a caller's)
 * keeps no listener of a request that is over.
 */
export const follow = (given: Followed | undefined, onAbort: () => void): (() => void) => {
  if (given === undefined) return letGo;
  if (given.aborted) {
    onAbort();
    return letGo;
  }
  given.addEventListener("abort", onAbort, { once: true });
  return () => given.removeEventListener("abort", onAbort);
};

/**
 * Is `thrown` the abort of `signal`, which has aborted: what code that handed the signal on throws
 * when it aborts. Its reason itself (`fetch`), an error the reason caused (Node's timers), or an
 * `AbortError` of no cause (a library of its own). Any other exception is not: a cancel must not
 * keep an error out of the log. Reads that throw (a Proxy) count as no.
 */
export const isAbortOf = (
  thrown: unknown,
  signal: { readonly aborted: boolean; readonly reason?: unknown } | undefined,
): boolean => {
  try {
    if (signal?.aborted !== true) return false;
    const reason: unknown = signal.reason;
    if (thrown === reason) return true;
    if (typeof thrown !== "object" || thrown === null) return false;
    const { name, cause } = thrown as { name?: unknown; cause?: unknown };
    return cause === reason || (name === "AbortError" && cause === undefined);
  } catch {
    return false;
  }
};

/** Whether `value` is an `AbortSignal` (read by shape: a signal of another realm is one too). */
const isSignal = (value: unknown): value is AbortSignal =>
  isObject(value) &&
  typeof (value as { aborted?: unknown }).aborted === "boolean" &&
  typeof (value as { addEventListener?: unknown }).addEventListener === "function" &&
  typeof (value as { removeEventListener?: unknown }).removeEventListener === "function";

/**
 * The signal a request's context already carries, which a stage handing the method a signal of its
 * own must follow: the context's `signal` member (a connection's, `answerHttp`'s, a `timeout`'s
 * before this one, the caller's), or the context itself when a stage made the signal the context
 * (`timeout`'s `context: (_, signal) => signal`). A getter that throws (a context of the user's own
 * making) counts as none: the stage that asks is total.
 */
export const signalIn = (context: unknown): AbortSignal | undefined => {
  if (!isObject(context)) return undefined;
  try {
    if (isSignal(context)) return context;
    const signal = (context as { signal?: unknown }).signal;
    return isSignal(signal) ? signal : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Where a stage finds a request's abort: a member of the context the wire made, not enumerable (a
 * context compared or logged shows `signal` only), whose getter is one function for all contexts
 * (a getter made per request gave each context a shape of its own, and reading `signal` cost twice
 * as much); and a member of the signal once made, which a copy of the context holds instead.
 */
const ABORT: unique symbol = Symbol("rpcserver.requestAbort");
type Carrier = { [ABORT]?: RequestAbort };

/** No reason yet: the request is not aborted. */
const RUNNING: unique symbol = Symbol("running");

/**
 * One request's abort: the one controller every source reaches (a cancel, the client going away, a
 * service stopping, a `timeout`), made when the method first reads its signal (most never do, and
 * a controller costs). Aborted before that, the signal starts aborted, with the first reason.
 */
export class RequestAbort {
  private controller: AbortController | undefined;
  private why: unknown = RUNNING;

  /**
   * `request`: the request it is the abort of (its object, as the stages pass it on). A stage finds
   * it only for that request: a context handed to another dispatch (a method that dispatches a body
   * of its own with its context) carries it too, and a `timeout` there must not abort the outer
   * request, nor share one signal among the inner body's requests.
   */
  constructor(readonly request: object) {}

  /** The request's signal, made on first read. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = signalController();
      // A copy of the context (a stage's `{ ...ctx, user }`) holds the signal, not the abort: the
      // signal leads to it.
      (this.controller.signal as AbortSignal & Carrier)[ABORT] = this;
      // Nobody listens yet: nothing to guard.
      if (this.why !== RUNNING) this.controller.abort(this.why);
    }
    return this.controller.signal;
  }

  /** Whether a source aborted it already. */
  get aborted(): boolean {
    return this.why !== RUNNING;
  }

  /** Aborts it with `reason`, its listeners guarded; the first source to abort gives the reason, later ones change nothing. */
  abort(reason: unknown): void {
    if (this.why !== RUNNING) return;
    this.why = reason;
    if (this.controller !== undefined) abortGuarded(this.controller, reason);
  }
}

/** Every context's `signal` getter: one function, so that the contexts share their shape. */
function requestSignal(this: Carrier): AbortSignal | undefined {
  return this[ABORT]?.signal;
}

/**
 * `context` (a new object the caller made for one request) gains `signal`, its request's: a getter,
 * so that the controller is made only when read. Enumerable: a spread of the context copies the
 * signal (made then), which leads to its abort.
 */
export const withRequestAbort = <T extends object>(context: T, abort: RequestAbort): T =>
  Object.defineProperty(Object.defineProperty(context, ABORT, { value: abort }), "signal", {
    get: requestSignal,
    enumerable: true,
    configurable: true,
  });

/**
 * The abort of `request` that a context carries (a wire's, a `timeout`'s: in the context it made, a
 * copy of it, or the signal as the context), without making its signal; none for any other (the caller's own
 * signal, another request's: an outer request's context handed to a dispatch of its own), or none.
 */
export const requestAbortOf = (context: unknown, request: object): RequestAbort | undefined => {
  if (!isObject(context)) return undefined;
  try {
    const owner = (context as Carrier)[ABORT] ?? (signalIn(context) as Carrier | undefined)?.[ABORT];
    return owner?.request === request ? owner : undefined;
  } catch {
    // A proxy of the user's own making that throws carries none: the stage that asks is total.
    return undefined;
  }
};
