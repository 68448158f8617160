/**
 * Turning thrown values and arbitrary data into short text, safely: a thrown value may be
 * anything (`undefined`, an object whose getters throw), and describing it must never throw.
 *
 * @module
 * @internal
 */

/** The longest rendering of a value in a message; enough to recognise it, too short to flood logs. */
export const MAX_RENDERED = 80;

/** The message of a thrown value: `error.message` for Errors, `String(value)` otherwise. */
export const messageOf = (thrown: unknown): string => {
  try {
    if (typeof thrown === "object" && thrown !== null && "message" in thrown) {
      const message = thrown.message;
      if (typeof message === "string") return message;
    }
    return String(thrown);
  } catch {
    return "(a value that cannot be described)";
  }
};

/** A short JSON-like rendering of a value for error reports. */
export const render = (value: unknown): string => {
  let text: string | undefined;
  try {
    text = typeof value === "bigint" ? `${value}n` : JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) text = messageOf(value);
  return text.length > MAX_RENDERED ? `${text.slice(0, MAX_RENDERED - 3)}...` : text;
};

/** A request's method name for a log line: a stage may have left a request whose reads throw. */
export const methodNameOf = (request: unknown): string => {
  try {
    const name = (request as { method?: unknown }).method;
    return typeof name === "string" ? name : render(name);
  } catch {
    return "(a method name that cannot be read)";
  }
};
