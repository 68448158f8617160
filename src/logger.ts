/**
 * The replaceable logger. Python's `rpcserver.*` loggers become one console-compatible object:
 * errors and warnings go to stderr by default, per-request info lines are silent.
 *
 * The current logger lives on `globalThis` under a registered symbol so that the ESM and the
 * CommonJS builds, if both are loaded, log through the same one.
 *
 * @module
 */

/**
 * What rpcserver logs through: `console`, pino and winston loggers all fit.
 *
 * @since 5.0.10
 * @category logging
 */
export interface Logger {
  /** Uncaught method exceptions, unserializable responses, dispatch failures. */
  readonly error: (...args: unknown[]) => void;
  /** The development server's listening line. */
  readonly warn: (...args: unknown[]) => void;
  /** One line per development-server request (silent by default). */
  readonly info: (...args: unknown[]) => void;
}

const noop = (): void => undefined;

/**
 * The default logger: `console.error` and `console.warn` (stderr in Node), silent `info`.
 *
 * @since 5.0.10
 * @category logging
 */
export const defaultLogger: Logger = {
  error: (...args) => console.error(...args),
  warn: (...args) => console.warn(...args),
  info: noop,
};

const SLOT = Symbol.for("rpcserver.logger");
type Slot = { [SLOT]?: Logger };

/** The logger in force now. @internal */
export const log = (): Logger => (globalThis as Slot)[SLOT] ?? defaultLogger;

/**
 * Replaces the logger used by dispatch and the development server; returns the previous one.
 *
 * @example
 * import { setLogger } from "rpcserver";
 * setLogger(console); // also print per-request info lines
 *
 * @since 5.0.10
 * @category logging
 */
export const setLogger = (logger: Logger): Logger => {
  const previous = log();
  (globalThis as Slot)[SLOT] = logger;
  return previous;
};

/** Logs an error; a logger that throws is ignored, since logging must never cost a client its answer. @internal */
export const logSafely = (message: string, thrown?: unknown): void => {
  try {
    if (thrown === undefined) log().error(message);
    else log().error(message, thrown);
  } catch {
    // Nothing to do: the response is still sent.
  }
};
