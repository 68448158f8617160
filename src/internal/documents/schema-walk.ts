/**
 * What describing a codec as JSON Schema works with: the {@link JsonSchema} type, the state of one
 * description ({@link Walk}), and the small helpers every describer shares (reading a codec's
 * members safely, writing own properties, naming definitions).
 *
 * @module
 */

/**
 * A JSON Schema (draft 7) as a plain JSON object.
 *
 * @example
 * import type { JsonSchema } from "rpcserver";
 * const point: JsonSchema = { type: "object", properties: { x: { type: "number" } }, required: ["x"] };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface JsonSchema {
  readonly [keyword: string]: unknown;
}

/** State of one description: where recursive codecs go and how they are referred to. */
export interface Walk {
  /** Prefix of a `$ref` to a definition: `#/definitions/` or `#/components/schemas/`. */
  readonly refBase: string;
  /** Where definitions of recursive codecs are written. */
  readonly sink: Record<string, JsonSchema>;
  /** The definition key of each recursive codec already written to `sink`. */
  readonly keys: Map<object, string>;
  /** Codecs being described on the current path: meeting one again (not via `t.recursion`) is a cycle. */
  readonly path: Set<object>;
  depth: number;
  /** Which side a Standard Schema is described from: what it takes (params) or what it gives (results). */
  readonly side?: "input" | "output";
  /**
   * The schema already given for each Standard Schema on each side, its definitions lifted into
   * `sink`: a schema used by several methods is lifted once.
   */
  readonly lifted: Map<object, Partial<Record<"input" | "output", JsonSchema>>>;
}

/** The schema no JSON value satisfies, for codecs that only accept values JSON cannot carry. */
export const nothing = (): JsonSchema => ({ not: {} });

/**
 * Reads a member of a codec. Codecs come from outside and may be anything, so every read goes through
 * `unknown` and is checked by the caller.
 */
export const field = (codec: object, key: string): unknown => (codec as Readonly<Record<string, unknown>>)[key];

export const isObject = (value: unknown): value is object =>
  (typeof value === "object" && value !== null) || typeof value === "function";

export const nameOf = (codec: unknown): string => {
  try {
    const name = isObject(codec) ? field(codec, "name") : undefined;
    return typeof name === "string" ? name : "(unnamed codec)";
  } catch {
    return "(unnamed codec)";
  }
};

/** A codec that cannot be described: any value validates, and the description says what it was. */
export const undescribed = (codec: unknown): JsonSchema => ({ description: nameOf(codec) });

/**
 * Writes `object[key]` as an own data property: a prop or definition may be called `__proto__`, and
 * plain assignment would set the prototype instead.
 */
export const put = (object: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
};

export const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export const isNothing = (schema: JsonSchema): boolean => same(schema, nothing());

/** Definition keys follow OpenRPC's rule for `components.schemas` names: `^[a-zA-Z0-9.\-_]+$`. */
export const definitionKey = (name: string, sink: Record<string, JsonSchema>): string => {
  const base = name.replace(/[^a-zA-Z0-9._-]/g, "_") || "Recursive";
  let key = base;
  for (let n = 2; Object.prototype.hasOwnProperty.call(sink, key); n++) key = `${base}_${n}`;
  return key;
};

export const reference = (key: string, walk: Walk): JsonSchema => ({ $ref: `${walk.refBase}${key}` });
