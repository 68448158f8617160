/**
 * How the default logger samples a flood of errors: each error's kind (its message, and its
 * exception's name and message), counted in its interval, and of each kind what is written whole,
 * what short, and what only counted.
 *
 * @module
 */
import type { Entry } from "./log-queue";

/**
 * How the default logger samples a flood of errors, after zap's sampler: of each kind, the first
 * `first` in an `interval` are written whole (the exception's stack included), then one in
 * `thereafter`, short (the exception's name and message, not its stack), with how many like it
 * were not written since; what is left unwritten is counted on a line of its own when its interval
 * is over (at the next error after it) or when the process exits. No timer: the clock is read when
 * an error is logged.
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
export interface Kind {
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

/** Queues the count of what of a kind was not written, if any. */
export const reporter =
  ({ kinds: most, interval }: Sampling, others: Kind, enqueue: (entry: Entry) => void) =>
  (kind: Kind): void => {
    if (kind.dropped === 0) return;
    enqueue(
      kind === others
        ? `rpcserver: ${kind.dropped} more errors not logged (of kinds beyond the first ${most} in ${interval} ms)`
        : `${kind.message} [${kind.dropped} more like it not logged]${kind.head === undefined ? "" : `\n${kind.head}`}`,
    );
    kind.dropped = 0;
  };

/** What tells an error's kind: `kindOf`, and the exception's first line when `kindOf` had to read it. */
interface Recognizer {
  /** The kind of the error `args` (`message` its first), once the kinds whose interval is over are counted. */
  readonly kindOf: (args: unknown[], message: string, time: number) => Kind;
  /** The exception's first line as the last `kindOf` read it; `undefined` when it knew the kind without reading it. */
  readonly head: () => string | undefined;
}

/**
 * The kinds of errors seen in their intervals, and the one looked up last, with what it was looked
 * up by. A flood is one kind again and again: the same message, and an exception whose name and
 * message are the same strings. Recognising it by comparing those (most often the same string
 * objects) is cheaper than writing its key and hashing it.
 */
export const recognizer = (
  { interval, kinds: most }: Sampling,
  kinds: Map<string, Kind>,
  others: Kind,
  report: (kind: Kind) => void,
): Recognizer => {
  let swept = -Infinity;
  let lastKind: Kind | undefined;
  let lastMessage = "";
  let lastArity = 0;
  let lastName: unknown;
  let lastText: unknown;
  let head: string | undefined;

  const kindOf = (args: unknown[], message: string, time: number): Kind => {
    if (time - swept >= interval || time < swept) {
      swept = time;
      sweep(kinds, others, interval, report, time);
      lastKind = undefined;
    }
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
    if (
      lastKind !== undefined &&
      args.length === lastArity &&
      (args.length === 1 || name !== undefined) &&
      name === lastName &&
      text === lastText &&
      message === lastMessage
    ) {
      head = undefined;
      return lastKind;
    }
    head = args.length === 2 ? headOf(args[1]) : undefined;
    lastKind = kindFor(kinds, most, others, message, head, time);
    lastMessage = message;
    lastArity = args.length;
    lastName = name;
    lastText = text;
    return lastKind;
  };
  return { kindOf, head: () => head };
};

/** Once an interval: counts what was not written of the kinds whose interval is over, and forgets them. */
const sweep = (
  kinds: Map<string, Kind>,
  others: Kind,
  interval: number,
  report: (kind: Kind) => void,
  time: number,
): void => {
  for (const [id, kind] of kinds) {
    if (time - kind.start < interval && time >= kind.start) continue;
    report(kind);
    kinds.delete(id);
  }
  if (time - others.start >= interval || time < others.start) report(others);
};

/** The kind of an error by its message and exception's first line: one seen in its interval, a new one, or `others` past `most` kinds. */
const kindFor = (
  kinds: Map<string, Kind>,
  most: number,
  others: Kind,
  message: string,
  head: string | undefined,
  time: number,
): Kind => {
  const key = head === undefined ? message : `${message}\n${head}`;
  const id = key.length > 2 * KIND_TEXT ? key.slice(0, 2 * KIND_TEXT) : key;
  const kind = kinds.get(id);
  if (kind !== undefined) return kind;
  if (kinds.size >= most) return others;
  const made: Kind = {
    start: time,
    seen: 0,
    dropped: 0,
    message: cut(message),
    head: head === undefined ? head : cut(head),
  };
  kinds.set(id, made);
  return made;
};

/** The sampler of errors of the message-and-exception shape: of each kind, what is written, short or whole, and what is counted. */
export const sampler = (
  { first, thereafter, interval, now }: Sampling,
  others: Kind,
  report: (kind: Kind) => void,
  enqueue: (entry: Entry) => void,
  { kindOf, head: headRead }: Recognizer,
): ((args: unknown[], message: string) => void) => {
  return (args, message) => {
    const time = now();
    const kind = kindOf(args, message, time);
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
    let head = headRead();
    if (head === undefined && args.length === 2) head = headOf(args[1]);
    const note = kind === others ? "errors of other kinds" : "like it";
    enqueue(
      `${message} [sampled: ${dropped} more ${note} not logged before this one]${head === undefined ? "" : `\n${head}`}`,
    );
  };
};
