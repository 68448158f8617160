/**
 * The `AbortSignal` that `timeout` hands a method. Its listeners are the method's code, and an
 * event target does not let their exceptions reach the code that aborts: Node's re-throws one on
 * the next tick, as an uncaught exception that ends the process (Deno's and Bun's do the same),
 * before the request that timed out, or the rest of its batch, is answered. So the signal wraps
 * every listener added to it (`addEventListener`, `onabort`): what one throws is logged, and the
 * other listeners and the answers go on. Listeners added to a signal derived from it
 * (`AbortSignal.any([signal])`, a `fetch`'s own) are beyond its reach: see docs/pipeline.md.
 *
 * @module
 * @internal
 */
import { isObject } from "./guards";
import { logSafely } from "./logger";

/** A listener as event targets take it (declared here: the DOM's names are not in every lib). */
type Callback = (this: unknown, event: unknown) => void;
type Listener = Callback | { readonly handleEvent: (event: unknown) => void };

/** Each listener's wrapper, so that `removeEventListener` with the listener removes its wrapper. */
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

const onabort =
  typeof AbortSignal === "function" ? Object.getOwnPropertyDescriptor(AbortSignal.prototype, "onabort") : undefined;

/**
 * A new controller whose signal guards its listeners. The signal is still a real `AbortSignal`
 * (`instanceof`, `AbortSignal.any`, `fetch` take it); only its own listener methods differ.
 */
export const guardedController = (): AbortController => {
  const controller = new AbortController();
  const signal = controller.signal;
  // Called with whatever the caller passed (a null listener included): the target decides, as usual.
  type Registration = (this: AbortSignal, type: string, listener: unknown, options?: unknown) => void;
  const add = signal.addEventListener as Registration;
  const remove = signal.removeEventListener as Registration;
  let handler: unknown = null;
  Object.defineProperties(signal, {
    addEventListener: {
      configurable: true,
      value: (type: string, listener: unknown, options?: unknown): void =>
        add.call(signal, type, isListener(listener) ? guarded(listener) : listener, options),
    },
    removeEventListener: {
      configurable: true,
      value: (type: string, listener: unknown, options?: unknown): void =>
        remove.call(signal, type, isListener(listener) ? (wrappers.get(listener) ?? listener) : listener, options),
    },
    ...(onabort?.set === undefined
      ? {}
      : {
          onabort: {
            configurable: true,
            get: () => handler,
            set: (value: unknown) => {
              handler = value;
              onabort.set?.call(signal, isListener(value) && typeof value === "function" ? guarded(value) : value);
            },
          },
        }),
  });
  return controller;
};
