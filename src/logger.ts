/**
 * The replaceable logger. Python's `rpcserver.*` loggers become one console-compatible object:
 * errors and warnings go to stderr by default, per-request info lines are silent.
 *
 * The current logger lives on `globalThis` under a registered symbol so that the ESM and the
 * CommonJS builds, if both are loaded, log through the same one.
 *
 * @module
 */
import { messageOf } from "./describe";

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
 * `message` and the exception as one text: its stack (which starts with its name and message) when
 * it has one. The exception is anything a method or a stage threw: reading its `stack` may throw (a
 * getter, a Proxy), and this runs after the task, where nothing would catch it, so a failure to read
 * it is written as what can be said of it.
 */
const lineOf = (args: ReadonlyArray<unknown>): string | undefined => {
  const [message, thrown] = args;
  if (typeof message !== "string" || args.length > 2) return undefined;
  if (args.length === 1) return message;
  try {
    if (thrown instanceof globalThis.Error) {
      const stack: unknown = thrown.stack;
      if (typeof stack === "string") return `${message}\n${stack}`;
    }
  } catch {
    return `${message}\n${messageOf(thrown)}`;
  }
  return undefined;
};

/** `console.error(...args)`, which formats them (util.inspect): a hostile value, or a replaced console, may make that throw. */
const writeFormatted = (args: ReadonlyArray<unknown>): void => {
  try {
    console.error(...args);
  } catch {
    writeText(
      typeof args[0] === "string"
        ? `${args[0]}\n(an exception that cannot be described)`
        : "rpcserver: (an error that cannot be described)",
    );
  }
};

const writeText = (text: string): void => {
  try {
    console.error(text);
  } catch {
    // The logger must not end the process it reports for: a console that cannot write loses the line.
  }
};

/**
 * Errors waiting to be written. Formatting an exception's stack costs more than answering the
 * request that raised it (about 8 µs on the reference machine, against 5 µs to throw), so the
 * default logger only queues the arguments, and formats and writes them once the current task is
 * done (a microtask): the answer is not held up, and a burst of errors is one write. The queue is
 * written at once when it reaches `QUEUE_LIMIT` (a loop that never yields cannot grow it without
 * bound) and when the process exits.
 */
let queue: Array<ReadonlyArray<unknown>> = [];
const QUEUE_LIMIT = 1024;
let exitHooked = false;

/** Runs after the task (a microtask, or at exit): nothing here may throw, since nothing would catch it. */
const flush = (): void => {
  const entries = queue;
  if (entries.length === 0) return;
  queue = [];
  let text = "";
  for (const args of entries) {
    const line = lineOf(args);
    if (line !== undefined) text = text === "" ? line : `${text}\n${line}`;
    else {
      // Not the message-and-exception shape: console formats it, after what came before it.
      if (text !== "") writeText(text);
      text = "";
      writeFormatted(args);
    }
  }
  if (text !== "") writeText(text);
};

const enqueue = (args: ReadonlyArray<unknown>): void => {
  queue.push(args);
  if (queue.length >= QUEUE_LIMIT) return flush();
  if (queue.length > 1) return;
  if (!exitHooked && typeof process === "object" && typeof process.once === "function") {
    exitHooked = true;
    process.once("exit", flush);
  }
  queueMicrotask(flush);
};

/**
 * The default logger: errors to `console.error`, warnings to `console.warn` (stderr in Node),
 * silent `info`. An error with an exception is written as its message and the exception's stack,
 * at the end of the current task rather than at once (see docs/guide.md, "Logging").
 *
 * @example
 * import { defaultLogger, setLogger } from "rpcserver";
 * setLogger(defaultLogger); // back to the default after trying another
 *
 * @since 5.0.10
 * @category logging
 */
export const defaultLogger: Logger = {
  error: (...args) => enqueue(args),
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
