/**
 * How the default logger samples a flood of errors: each error's kind (a server-defined label and
 * its exception's class, never text a client chooses), counted in its interval, and of each kind
 * what is written whole, what short, and what only counted; all of it bounded in bytes.
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
  /** The most kinds counted at once. */
  readonly kinds: number;
  /** The most bytes the kinds counted at once may hold (their keys and the text they quote). */
  readonly bytes: number;
  /**
   * Past `kinds` (or `bytes`), of how many more kinds in an interval the first error is still
   * written whole (each remembered by a number, not its text); further errors of those kinds, and
   * every error of kinds past these, are counted together as one kind.
   */
  readonly overflow: number;
  /** The clock. */
  readonly now: () => number;
}

/** The default logger's sampling. @internal */
export const SAMPLING: Sampling = {
  first: 3,
  thereafter: 100,
  interval: 1000,
  kinds: 1024,
  bytes: 2 * 1024 * 1024,
  overflow: 16_384,
  now: () => Date.now(),
};

/**
 * A copy of `text` that holds none of the string it was cut from. V8 makes a slice of 13
 * characters or more a view into its parent (and a concatenation a tree of its parts): a 256-character
 * cut of a 100 KB message kept as such keeps the 100 KB. Splitting and joining builds a new flat string.
 */
export const flat = (text: string): string => text.split("").join("");

/** How much of an error's text is kept or written short: enough to recognise it, bounded in memory. */
export const TEXT_CUT = 256;

/** `text`, cut to `TEXT_CUT` characters, as a string of its own. */
export const cut = (text: string): string => flat(text.length > TEXT_CUT ? `${text.slice(0, TEXT_CUT - 3)}...` : text);

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

/** What stands for an exception's class when nothing can be read of it. */
const UNREADABLE = "(a value that cannot be described)";

/**
 * The exception's class, as the server's code defines it: its constructor's name (read from its
 * prototype's own data properties, so no getter runs), or its type for what is not an object. Never
 * its message or anything else set per instance, which may quote what a client sent.
 */
const classOf = (prototype: unknown, thrown: unknown): string => {
  if (thrown === null) return "null";
  if (typeof thrown !== "object" && typeof thrown !== "function") return typeof thrown;
  if (prototype === null) return "(no prototype)";
  if (prototype === UNREADABLE) return UNREADABLE;
  try {
    const made: unknown = Object.getOwnPropertyDescriptor(prototype, "constructor")?.value;
    const name: unknown = typeof made === "function" ? Object.getOwnPropertyDescriptor(made, "name")?.value : undefined;
    return typeof name === "string" ? cut(name) : "(an unnamed class)";
  } catch {
    return UNREADABLE;
  }
};

/** The exception's prototype (what tells its class), read once; `UNREADABLE` for a hostile one. */
const prototypeOf = (thrown: unknown): unknown => {
  if ((typeof thrown !== "object" || thrown === null) && typeof thrown !== "function") return typeof thrown;
  try {
    return Object.getPrototypeOf(thrown) as unknown;
  } catch {
    return UNREADABLE;
  }
};

/** One kind of error in its current interval. */
export interface Kind {
  /** When its interval started. */
  start: number;
  /** How many of it came in the interval. */
  seen: number;
  /** How many of it were not written since the last one that was. */
  dropped: number;
  /** Its first message and exception's first line (cut short), for the line that counts what was not written. */
  readonly message: string;
  readonly head: string | undefined;
  /** What it holds, in bytes (its key and texts, two bytes a character, and the record). */
  readonly bytes: number;
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

/**
 * What tells an error's kind. `kindOf` answers its kind, or `undefined` for the first error of a
 * kind past those counted (written whole, counted nowhere).
 */
interface Recognizer {
  /** The kind of the error `args` (`message` its first; `site` its server-defined label, if given), once the kinds whose interval is over are counted. */
  readonly kindOf: (args: unknown[], message: string, site: string | undefined, time: number) => Kind | undefined;
}

/** A 32-bit hash of a kind's key (FNV-1a), what an overflowing kind is remembered by. */
const hashOf = (key: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
};

/** Bytes a kind's record costs beyond its strings: the object, its map entry (a rough, safe figure). */
const RECORD_BYTES = 160;

/**
 * The kinds of errors seen in their intervals, and the one looked up last. An error's kind is its
 * site (the label the library gives where it logs, or, when none is given, its message: the
 * server's text) and its exception's class. A flood is one kind again and again: recognising it by
 * comparing the site and the exception's prototype with the last ones is cheaper than writing its
 * key and hashing it.
 */
export const recognizer = (
  { interval, kinds: most, bytes: budget, overflow: overflowing }: Sampling,
  kinds: Map<string, Kind>,
  others: Kind,
  report: (kind: Kind) => void,
): Recognizer => {
  let swept = -Infinity;
  let held = 0;
  /** Kinds past those counted whose first error was written in the current interval, by hash. */
  const overflow = new Set<number>();
  let overflowStart = -Infinity;
  let lastKind: Kind | undefined;
  /** What the last kind was looked up by: its label (cut, a copy) and the exception's prototype and arity. */
  let lastLabel = "";
  let lastArity = 0;
  let lastPrototype: unknown;

  const sweep = (time: number): void => {
    for (const [id, kind] of kinds) {
      if (time - kind.start < interval && time >= kind.start) continue;
      report(kind);
      held -= kind.bytes;
      kinds.delete(id);
    }
    if (time - others.start >= interval || time < others.start) report(others);
    if (time - overflowStart >= interval || time < overflowStart) overflow.clear();
  };

  /** A new kind, counted if it fits; else its first error in this interval is written whole (`undefined`), the rest go to `others`. */
  const fresh = (key: string, message: string, head: string | undefined, time: number): Kind | undefined => {
    const text = cut(message);
    const first = head === undefined ? undefined : cut(head);
    const bytes = 2 * (key.length + text.length + (first?.length ?? 0)) + RECORD_BYTES;
    if (kinds.size < most && held + bytes <= budget) {
      const made: Kind = { start: time, seen: 0, dropped: 0, message: text, head: first, bytes };
      kinds.set(key, made);
      held += bytes;
      return made;
    }
    const hash = hashOf(key);
    if (overflow.has(hash) || overflow.size >= overflowing) return others;
    if (overflow.size === 0) overflowStart = time;
    overflow.add(hash);
    return undefined;
  };

  const kindOf = (args: unknown[], message: string, site: string | undefined, time: number): Kind | undefined => {
    if (time - swept >= interval || time < swept) {
      swept = time;
      sweep(time);
      lastKind = undefined;
    }
    const arity = args.length;
    const prototype = arity === 2 ? prototypeOf(args[1]) : undefined;
    // The label: the site the library names, else the message (the server's own text). A message
    // longer than the cut never equals it, and takes the longer way, which cuts it.
    const labelled = site ?? message;
    if (lastKind !== undefined && arity === lastArity && prototype === lastPrototype && labelled === lastLabel) {
      return lastKind;
    }
    const label = cut(labelled);
    const key = arity === 2 ? flat(`${label}\n${classOf(prototype, args[1])}`) : label;
    const kind = kinds.get(key) ?? fresh(key, message, arity === 2 ? headOf(args[1]) : undefined, time);
    lastKind = kind === undefined || kind === others ? undefined : kind;
    lastLabel = label;
    lastArity = arity;
    lastPrototype = prototype;
    return kind;
  };
  return { kindOf };
};

/** The sampler of errors of the message-and-exception shape: of each kind, what is written, short or whole, and what is counted. */
export const sampler = (
  { first, thereafter, interval, now }: Sampling,
  others: Kind,
  report: (kind: Kind) => void,
  enqueue: (entry: Entry) => void,
  { kindOf }: Recognizer,
): ((args: unknown[], message: string, site: string | undefined) => void) => {
  return (args, message, site) => {
    const time = now();
    const kind = kindOf(args, message, site, time);
    // The first error of a kind past those counted: written whole, once in its interval.
    if (kind === undefined) return enqueue(args);
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
    const head = args.length === 2 ? cut(headOf(args[1])) : undefined;
    const note = kind === others ? "errors of other kinds" : "like it";
    enqueue(
      `${cut(message)} [sampled: ${dropped} more ${note} not logged before this one]${head === undefined ? "" : `\n${head}`}`,
    );
  };
};
