/**
 * Schemas of codecs known by their name alone: io-ts-types' codecs (plain `t.Type`s with no `_tag`,
 * which this library may not import) and the patterns their refinements check.
 *
 * @module
 */
import type { JsonSchema } from "./schema-walk";

/**
 * `NumberFromString` decodes what `+s` turns into a number, after refusing blank strings: a
 * StringNumericLiteral (decimal with sign, exponent or `Infinity`; unsigned hex, octal or binary)
 * with optional whitespace around it. JavaScript's `\s` is the same whitespace as `trim()` and `+s`.
 */
const NUMERIC =
  "^\\s*(?:[+-]?(?:Infinity|(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+)\\s*$";

/**
 * `IntFromString` accepts any numeric string whose value is an integer (`"1e3"`, `"1.0"`): no regular
 * expression says exactly that, so the schema gives the canonical form, digits. At most 308 of them,
 * so that every string it accepts stays below `Number.MAX_VALUE` and decodes.
 */
const INTEGER = "^\\s*[+-]?\\d{1,308}\\s*$";

/** `BigIntFromString` decodes what `BigInt(s)` parses: a StringIntegerLiteral, blank refused. */
const BIG_INTEGER = "^\\s*(?:[+-]?\\d+|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+)\\s*$";

/** The exact pattern io-ts-types' `UUID` checks; ajv-formats' `uuid` also allows a `urn:uuid:` prefix. */
export const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/** `new Date(n)` is valid for |n| up to 8.64e15 ms (ECMAScript TimeClip). */
const MAX_TIME = 8.64e15;

/**
 * io-ts-types codecs, by name. They have no `_tag`, and importing them would make io-ts-types a
 * runtime dependency, so the name is all there is to go on.
 */
export const BY_NAME: Readonly<Record<string, () => JsonSchema>> = {
  DateFromISOString: () => ({ type: "string", format: "date-time" }),
  DateFromNumber: () => ({ type: "number", minimum: -MAX_TIME, maximum: MAX_TIME }),
  DateFromUnixTime: () => ({ type: "integer", minimum: -MAX_TIME / 1000, maximum: MAX_TIME / 1000 }),
  NumberFromString: () => ({ type: "string", pattern: NUMERIC }),
  IntFromString: () => ({ type: "string", pattern: INTEGER }),
  BigIntFromString: () => ({ type: "string", pattern: BIG_INTEGER }),
  BooleanFromString: () => ({ type: "string", enum: ["true", "false"] }),
  BooleanFromNumber: () => ({ type: "number" }),
  JsonFromString: () => ({ type: "string", contentMediaType: "application/json" }),
};
