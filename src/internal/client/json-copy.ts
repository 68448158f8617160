/**
 * A fresh copy of a value made of plain JSON, as `JSON.parse(JSON.stringify(value))` would make it
 * but without the text: how the client's and `local`'s direct path hand values over.
 *
 * @module
 */
/** What {@link jsonCopy} answers for a value it does not copy. @internal */
export const NOT_PLAIN = Symbol("notPlain");

/** Deeper than this, a value is left to `JSON.stringify` (which also finds a cycle). */
const MAX_COPY_DEPTH = 64;

/**
 * `JSON.parse(JSON.stringify(value))` for a value made of plain JSON (finite numbers, strings,
 * booleans, null, arrays and plain objects, no `toJSON`), without the text: a fresh copy, `-0` as
 * `0`. Anything else, or anything deeper than 64 levels, is `NOT_PLAIN`: its JSON form is left to
 * the text path (`undefined` members, NaN, a `Date`, a class, a BigInt, a cycle, a `__proto__`
 * key), so that the copy is exactly what the text would have parsed to. A getter that throws
 * throws.
 *
 * @internal
 */
export const jsonCopy = (value: unknown, depth = 0): unknown => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // `+ 0` turns -0 into 0, as JSON.stringify writes it.
      return Number.isFinite(value) ? value + 0 : NOT_PLAIN;
    case "object":
      break;
    default:
      return NOT_PLAIN;
  }
  if (value === null) return null;
  if (depth >= MAX_COPY_DEPTH || "toJSON" in value) return NOT_PLAIN;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype === Array.prototype) {
    const list = value as readonly unknown[];
    const out: unknown[] = [];
    for (let i = 0; i < list.length; i++) {
      const item = jsonCopy(list[i], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out.push(item);
    }
    return out;
  }
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const record = value as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    if (key === "__proto__") return NOT_PLAIN;
    const item = jsonCopy(record[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[key] = item;
  }
  return out;
};
