/**
 * The default logger's queue: what it writes, and how. Errors are queued and written once the
 * current task is done, a burst of them as one write; an error of the message-and-exception shape
 * is written as the message and the exception's stack, anything else as `console.error` formats it.
 * Nothing here may throw: it runs where nothing would catch it.
 *
 * @module
 */
import { messageOf } from "./describe";

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
      // An empty stack (a library's error made with `stack: ""`) would write a blank line: such an
      // exception is formatted by the console, as one with no stack.
      if (typeof stack === "string" && stack.trim() !== "") return `${message}\n${stack}`;
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

/** What the logger queues: an error's arguments, written whole, or a line made already. */
export type Entry = ReadonlyArray<unknown> | string;

/** The most entries queued before the queue is written at once. */
const QUEUE_LIMIT = 1024;

/** Node's `process`, as far as the logger uses it: reached through `globalThis`, since the core runs without Node too. */
type Exiting = { once?: (event: "exit", listener: () => void) => unknown };

/** Each writer's last words, in the order the writers first queued: one `exit` listener for them all. */
const lastWords: Array<() => void> = [];

/**
 * Runs `words` when the process exits (where there is a process to say so). One listener however
 * many loggers are made: a listener each would pass Node's warning limit of 10 (a
 * MaxListenersExceededWarning in the host's log) for no reason. Nothing said at exit may throw.
 */
const atProcessExit = (words: () => void): void => {
  if (lastWords.push(words) > 1) return;
  const proc = (globalThis as { process?: Exiting }).process;
  if (typeof proc?.once === "function") proc.once("exit", () => lastWords.forEach((each) => each()));
};

/**
 * The queue of errors waiting to be written, and what writes it. Formatting an exception's stack
 * costs more than answering the request that raised it (about 8 µs on the reference machine,
 * against 5 µs to throw), so the logger only queues the arguments, and formats and writes them once
 * the current task is done (a microtask): the answer is not held up, and a burst of errors is one
 * write. The queue is written at once when it reaches `QUEUE_LIMIT` (a loop that never yields
 * cannot grow it without bound) and when the process exits, after `atExit` has had its say.
 */
export const writer = (atExit: () => void): ((entry: Entry) => void) => {
  let queue: Entry[] = [];
  let hooked = false;

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

  return (entry: Entry): void => {
    queue.push(entry);
    if (queue.length >= QUEUE_LIMIT) return flush();
    if (queue.length > 1) return;
    if (!hooked) {
      hooked = true;
      atProcessExit(() => {
        atExit();
        flush();
      });
    }
    queueMicrotask(flush);
  };
};
