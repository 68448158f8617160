/**
 * The replaceable logger. Python's `rpcserver.*` loggers become one console-compatible object:
 * errors and warnings go to stderr by default, per-request info lines are silent.
 *
 * The current logger lives on `globalThis` under a registered symbol so that the ESM and the
 * CommonJS builds, if both are loaded, log through the same one.
 *
 * @module
 */
import { writer } from "./log-queue";
import { recognizer, reporter, sampler, SAMPLING, type Kind, type Sampling } from "./log-sampling";

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
 * Where a default logger takes an error with the label of the place that logs it (`logSafely`'s
 * `site`): a registered symbol, so that the ESM and the CommonJS builds, if both are loaded, find it
 * on each other's default logger.
 */
const SITED = Symbol.for("rpcserver.logger.sited");
type Sited = (message: string, thrown: unknown, site: string | undefined, arity: 1 | 2) => void;

/**
 * A default logger with sampling of its own (`defaultLogger` is one, with `SAMPLING`); tests give
 * it their clock.
 *
 * @internal
 */
export const makeDefaultLogger = (options: Partial<Sampling> = {}): Logger => {
  const sampling: Sampling = { ...SAMPLING, ...options };
  const kinds = new Map<string, Kind>();
  /** Errors of kinds beyond those counted, counted together. */
  const others: Kind = { start: -Infinity, seen: 0, dropped: 0, message: "", head: undefined, bytes: 0 };
  // At exit, what was not written of each kind is counted before the queue is written.
  const enqueue = writer(() => {
    for (const kind of kinds.values()) report(kind);
    report(others);
  });
  const report = reporter(sampling, others, enqueue);
  const sampled = sampler(sampling, others, report, enqueue, recognizer(sampling, kinds, others, report));
  const sited: Sited = (message, thrown, site, arity) =>
    sampled(arity === 1 ? [message] : [message, thrown], message, site);
  const logger: Logger = {
    error: (...args) => {
      const [message] = args;
      if (typeof message === "string" && args.length <= 2) sampled(args, message, undefined);
      else enqueue(args);
    },
    warn: (...args) => console.warn(...args),
    info: noop,
  };
  Object.defineProperty(logger, SITED, { value: sited });
  return logger;
};

/**
 * The default logger: errors to `console.error`, warnings to `console.warn` (stderr in Node),
 * silent `info`. An error with an exception is written as its message and the exception's stack,
 * at the end of the current task rather than at once. A flood of one kind of error is sampled: of
 * each kind (where it was logged, the method when the table has it, and the exception's class; never
 * the exception's message, nor anything else a client chooses), the first 3 in a second are written
 * whole, then one in 100 without its stack, with a count of those not written (see docs/guide.md,
 * "Logging"). A logger of your own (`setLogger`) gets every error.
 *
 * @example
 * import { defaultLogger, setLogger } from "rpcserver";
 * setLogger(defaultLogger); // back to the default after trying another
 *
 * @since 5.0.10
 * @category logging
 */
export const defaultLogger: Logger = makeDefaultLogger();

const SLOT = Symbol.for("rpcserver.logger");
type Slot = { [SLOT]?: Logger };

/** The logger in force now. @internal */
export const log = (): Logger => (globalThis as Slot)[SLOT] ?? defaultLogger;

/**
 * Replaces the logger used by dispatch and the development server; returns the previous one.
 *
 * @example
 * import { setLogger } from "rpcserver";
 * const previous = setLogger(console); // also print per-request info lines
 * setLogger(previous); // and back
 *
 * @since 5.0.10
 * @category logging
 */
export const setLogger = (logger: Logger): Logger => {
  const previous = log();
  (globalThis as Slot)[SLOT] = logger;
  return previous;
};

/**
 * Logs an error; a logger that throws is ignored, since logging must never cost a client its answer.
 * `site` labels the place that logs it, for sampling: a default logger tells a flood's kinds apart by
 * the site and the exception's class, so the site must be the server's text, never a client's (a
 * method name only when the table has it). Without one, the message is the label: it must then
 * quote nothing a client chose. A logger of your own gets `message` and `thrown` as ever.
 *
 * @internal
 */
export const logSafely = (message: string, thrown?: unknown, site?: string): void => {
  try {
    const logger = log();
    const sited = site === undefined ? undefined : (logger as { [SITED]?: unknown })[SITED];
    if (typeof sited === "function") (sited as Sited)(message, thrown, site, thrown === undefined ? 1 : 2);
    else if (thrown === undefined) logger.error(message);
    else logger.error(message, thrown);
  } catch {
    // Nothing to do: the response is still sent.
  }
};
