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
 * How the default logger samples a flood of errors, after zap's sampler: of each kind, the first
 * `first` in an `interval` are written whole (the exception's stack included), then one in
 * `thereafter`, short (the exception's name and message, not its stack), with how many like it
 * were not written since; what is left unwritten is counted on a line of its own when its interval
 * is over (at the next error after it) or when the process exits. No timer: the clock is read when
 * an error is logged.
 *
 * @internal
 */
export interface Sampling {
  /** Of each kind, how many are written whole in an interval. */
  readonly first: number;
  /** After those, one in how many is written (short). */
  readonly thereafter: number;
  /** The interval, in the clock's unit (milliseconds). */
  readonly interval: number;
  /** The most kinds counted at once; errors of further kinds are counted together, as one kind. */
  readonly kinds: number;
  /** The clock. */
  readonly now: () => number;
}

/** The default logger's sampling. @internal */
export const SAMPLING: Sampling = {
  first: 3,
  thereafter: 100,
  interval: 1000,
  kinds: 1024,
  now: () => Date.now(),
};

/**
 * The first line of an exception's stack, as V8 writes it (`name: message`), read without reading
 * the stack (formatting it is what costs); for what is not an Error, what can be said of it cheaply.
 * The exception may be hostile (getters and Proxy traps that throw).
 */
const headOf = (thrown: unknown): string => {
  try {
    if (thrown instanceof globalThis.Error) {
      const name = String(thrown.name);
      const message = String(thrown.message);
      return message === "" ? name : `${name}: ${message}`;
    }
    if (typeof thrown === "string") return thrown;
    if ((typeof thrown === "object" && thrown !== null) || typeof thrown === "function") {
      return Object.prototype.toString.call(thrown);
    }
    return String(thrown);
  } catch {
    return "(a value that cannot be described)";
  }
};

/** How much of an error's text tells its kind: enough to tell kinds apart, bounded in memory. */
const KIND_TEXT = 256;
const cut = (text: string): string => (text.length > KIND_TEXT ? `${text.slice(0, KIND_TEXT - 3)}...` : text);

/** One kind of error in its current interval. */
interface Kind {
  /** When its interval started. */
  start: number;
  /** How many of it came in the interval. */
  seen: number;
  /** How many of it were not written since the last one that was. */
  dropped: number;
  /** Its message and its exception's first line (cut short), for the line that counts what was not written. */
  readonly message: string;
  readonly head: string | undefined;
}

/** What the logger queues: an error's arguments, written whole, or a line made already. */
type Entry = ReadonlyArray<unknown> | string;

/**
 * A default logger with sampling of its own (`defaultLogger` is one, with `SAMPLING`); tests give
 * it their clock.
 *
 * @internal
 */
export const makeDefaultLogger = (options: Partial<Sampling> = {}): Logger => {
  const { first, thereafter, interval, kinds: most, now } = { ...SAMPLING, ...options };
  const kinds = new Map<string, Kind>();
  /** Errors of kinds beyond `most`, counted together. */
  const others: Kind = { start: -Infinity, seen: 0, dropped: 0, message: "", head: undefined };
  let swept = -Infinity;

  /**
   * Errors waiting to be written. Formatting an exception's stack costs more than answering the
   * request that raised it (about 8 µs on the reference machine, against 5 µs to throw), so the
   * logger only queues the arguments, and formats and writes them once the current task is done (a
   * microtask): the answer is not held up, and a burst of errors is one write. The queue is written
   * at once when it reaches `QUEUE_LIMIT` (a loop that never yields cannot grow it without bound)
   * and when the process exits.
   */
  let queue: Entry[] = [];
  const QUEUE_LIMIT = 1024;
  let exitHooked = false;

  /** Runs after the task (a microtask, or at exit): nothing here may throw, since nothing would catch it. */
  const flush = (): void => {
    const entries = queue;
    if (entries.length === 0) return;
    queue = [];
    let text = "";
    for (const entry of entries) {
      const line = typeof entry === "string" ? entry : lineOf(entry);
      if (line !== undefined) text = text === "" ? line : `${text}\n${line}`;
      else {
        // Not the message-and-exception shape: console formats it, after what came before it.
        if (text !== "") writeText(text);
        text = "";
        writeFormatted(entry as ReadonlyArray<unknown>);
      }
    }
    if (text !== "") writeText(text);
  };

  const enqueue = (entry: Entry): void => {
    queue.push(entry);
    if (queue.length >= QUEUE_LIMIT) return flush();
    if (queue.length > 1) return;
    if (!exitHooked && typeof process === "object" && typeof process.once === "function") {
      exitHooked = true;
      process.once("exit", () => {
        for (const kind of kinds.values()) report(kind);
        report(others);
        flush();
      });
    }
    queueMicrotask(flush);
  };

  /** Queues the count of what of `kind` was not written, if any. */
  const report = (kind: Kind): void => {
    if (kind.dropped === 0) return;
    enqueue(
      kind === others
        ? `rpcserver: ${kind.dropped} more errors not logged (of kinds beyond the first ${most} in ${interval} ms)`
        : `${kind.message} [${kind.dropped} more like it not logged]${kind.head === undefined ? "" : `\n${kind.head}`}`,
    );
    kind.dropped = 0;
  };

  /**
   * The kind looked up last, and what it was looked up by. A flood is one kind again and again: the
   * same message, and an exception whose name and message are the same strings. Recognising it by
   * comparing those (most often the same string objects) is cheaper than writing its key and
   * hashing it.
   */
  let lastKind: Kind | undefined;
  let lastMessage = "";
  let lastArity = 0;
  let lastName: unknown;
  let lastText: unknown;

  /** Once an interval: counts what was not written of the kinds whose interval is over, and forgets them. */
  const sweep = (time: number): void => {
    swept = time;
    for (const [id, kind] of kinds) {
      if (time - kind.start < interval && time >= kind.start) continue;
      report(kind);
      kinds.delete(id);
    }
    lastKind = undefined;
    if (time - others.start >= interval || time < others.start) report(others);
  };

  const sampled = (args: unknown[], message: string): void => {
    const time = now();
    if (time - swept >= interval || time < swept) sweep(time);
    // The exception's name and message, never its stack (formatting that is what costs).
    let name: unknown;
    let text: unknown;
    if (args.length === 2) {
      try {
        const thrown = args[1];
        if (thrown instanceof globalThis.Error) {
          name = thrown.name;
          text = thrown.message;
        }
      } catch {
        // Hostile: headOf says what it can of it.
      }
    }
    let kind: Kind | undefined;
    let head: string | undefined;
    if (
      lastKind !== undefined &&
      args.length === lastArity &&
      (args.length === 1 || name !== undefined) &&
      name === lastName &&
      text === lastText &&
      message === lastMessage
    ) {
      kind = lastKind;
    } else {
      head = args.length === 2 ? headOf(args[1]) : undefined;
      const key = head === undefined ? message : `${message}\n${head}`;
      const id = key.length > 2 * KIND_TEXT ? key.slice(0, 2 * KIND_TEXT) : key;
      kind = kinds.get(id);
      if (kind === undefined) {
        if (kinds.size < most) {
          kind = {
            start: time,
            seen: 0,
            dropped: 0,
            message: cut(message),
            head: head === undefined ? head : cut(head),
          };
          kinds.set(id, kind);
        } else kind = others;
      }
      lastKind = kind;
      lastMessage = message;
      lastArity = args.length;
      lastName = name;
      lastText = text;
    }
    if (time - kind.start >= interval || time < kind.start) {
      // A new interval (or a clock set back): what the last one did not write is counted first.
      report(kind);
      kind.start = time;
      kind.seen = 0;
    }
    const seen = ++kind.seen;
    if (seen <= first) return enqueue(args);
    if ((seen - first) % thereafter !== 0) {
      // Not written, and its stack never formatted: this is what a flood costs.
      kind.dropped++;
      return;
    }
    const dropped = kind.dropped;
    kind.dropped = 0;
    if (head === undefined && args.length === 2) head = headOf(args[1]);
    const note = kind === others ? "errors of other kinds" : "like it";
    enqueue(
      `${message} [sampled: ${dropped} more ${note} not logged before this one]${head === undefined ? "" : `\n${head}`}`,
    );
  };

  return {
    error: (...args) => {
      const [message] = args;
      if (typeof message === "string" && args.length <= 2) sampled(args, message);
      else enqueue(args);
    },
    warn: (...args) => console.warn(...args),
    info: noop,
  };
};

/**
 * The default logger: errors to `console.error`, warnings to `console.warn` (stderr in Node),
 * silent `info`. An error with an exception is written as its message and the exception's stack,
 * at the end of the current task rather than at once. A flood of one kind of error is sampled: of
 * each kind (the same message, and the same exception name and message), the first 3 in a second
 * are written whole, then one in 100 without its stack, with a count of those not written (see
 * docs/guide.md, "Logging"). A logger of your own (`setLogger`) gets every error.
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
