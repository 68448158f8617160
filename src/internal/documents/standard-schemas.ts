/**
 * Standard Schemas described by their own JSON Schema (`~standard.jsonSchema`), checked to be JSON
 * and moved into the document being built: their definitions and self-references lifted into its
 * definitions, their local `$ref`s rewritten to point there.
 *
 * @module
 */
import { jsonSchemaOf, type StandardSchemaV1 } from "../core/schema";
import { definitionKey, isObject, put, type JsonSchema, type Walk } from "./schema-walk";

/** Thrown inside {@link jsonCopy} when a `jsonSchema` answer holds something JSON cannot carry. */
const NOT_JSON = Symbol("not JSON");

/**
 * A deep copy of a Standard Schema's `jsonSchema` answer, checked to be JSON: plain objects and
 * arrays, strings, booleans, finite numbers and `null`. A cycle, a function, a bigint, a class
 * instance (a `Date`, a `Map`)... throw {@link NOT_JSON}: the document would not serialise, or not
 * say what the schema means. A member whose value is `undefined` is left out, as `JSON.stringify`
 * leaves it out. The answer comes from outside: a getter may throw (that is the caller's to catch),
 * and nesting too deep for the stack is a `RangeError`, caught the same way.
 */
const jsonCopy = (value: unknown, path: Set<object>): unknown => {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  // NOT_JSON is a private sentinel, caught by this file's caller, never seen by user code.
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  if (typeof value !== "object" || path.has(value)) throw NOT_JSON;
  const prototype: unknown = Object.getPrototypeOf(value);
  const isArray = Array.isArray(value);
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  if (!isArray && prototype !== Object.prototype && prototype !== null) throw NOT_JSON;
  path.add(value);
  try {
    if (isArray) return (value as readonly unknown[]).map((item) => jsonCopy(item, path));
    const copy: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) if (member !== undefined) put(copy, key, jsonCopy(member, path));
    return copy;
  } finally {
    path.delete(value);
  }
};

/**
 * Keywords whose value is a map from names to schemas: its keys are names (a property may be
 * called `$ref` or `const`), its values schemas.
 */
const SCHEMA_MAPS = new Set([
  "properties",
  "patternProperties",
  "definitions",
  "$defs",
  "dependencies",
  "dependentSchemas",
]);

/** Keywords whose value is data, not schemas: a `{ "$ref": "#" }` in them is a value, not a reference. */
const DATA = new Set(["const", "enum", "default", "examples"]);

/**
 * A schema (a checked JSON copy) with each `$ref` replaced by `rewrite($ref)`, and without `$id`
 * (an anchor `#name` aside): the schema is moved into a document where an `$id` would change the
 * base its `$ref`s resolve against.
 */
const rewriteRefs = (schema: unknown, rewrite: (ref: string) => string): unknown => {
  if (Array.isArray(schema)) return schema.map((item: unknown) => rewriteRefs(item, rewrite));
  if (!isObject(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(schema)) {
    if (key === "$ref" && typeof member === "string") put(copy, key, rewrite(member));
    else if (key === "$id" && typeof member === "string" && !member.startsWith("#")) continue;
    else if (DATA.has(key)) put(copy, key, member);
    else if (SCHEMA_MAPS.has(key) && isObject(member) && !Array.isArray(member)) {
      const map: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(member)) put(map, name, rewriteRefs(value, rewrite));
      put(copy, key, map);
    } else put(copy, key, rewriteRefs(member, rewrite));
  }
  return copy;
};

/** A JSON pointer's segment as the name it stands for (RFC 6901, in a URI fragment: percent-encoded). */
const unescapeSegment = (segment: string): string => {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // A lone `%` is not percent-encoding: the segment is read as written.
  }
  return decoded.replaceAll("~1", "/").replaceAll("~0", "~");
};

/**
 * A Standard Schema's own JSON Schema, moved into the walk's document: its `definitions` and
 * `$defs` become definitions in `sink` under names of their own, and so does the root itself when
 * something in it refers to it (`#`, as zod writes a schema that contains itself); every local
 * `$ref` is rewritten to `refBase` + that name (+ the rest of its pointer). Then each `$ref`
 * resolves in the document, an OpenRPC document as a standalone schema, where `#` would name the
 * whole document and its `definitions` would not be found. A `$ref` that is not a local pointer
 * (another document, an anchor) is left as it is.
 */
const lift = (answer: Readonly<Record<string, unknown>>, walk: Walk): JsonSchema => {
  // The document carries its own dialect: a schema's `$schema` is left out.
  const { $schema: _dialect, definitions, $defs, ...root } = answer;
  const reserve = (name: string): string => {
    const key = definitionKey(name, walk.sink);
    put(walk.sink, key, {});
    return key;
  };
  const keysOf = (defs: unknown): Map<string, string> =>
    new Map(isObject(defs) && !Array.isArray(defs) ? Object.keys(defs).map((name) => [name, reserve(name)]) : []);
  const groups = { definitions: keysOf(definitions), $defs: keysOf($defs) };
  let rootKey: string | undefined;
  const rewrite = (ref: string): string => {
    if (ref !== "#" && !ref.startsWith("#/")) return ref;
    const [group = "", name, ...rest] = ref.slice(2).split("/");
    const key =
      (group === "definitions" || group === "$defs") && name !== undefined
        ? groups[group].get(unescapeSegment(name))
        : undefined;
    if (key !== undefined) return [`${walk.refBase}${key}`, ...rest].join("/");
    rootKey ??= reserve(typeof root["title"] === "string" ? root["title"] : "Recursive");
    return ref === "#" ? `${walk.refBase}${rootKey}` : `${walk.refBase}${rootKey}/${ref.slice(2)}`;
  };
  for (const [group, defs] of [
    ["definitions", definitions],
    ["$defs", $defs],
  ] as const) {
    for (const [name, key] of groups[group]) {
      put(walk.sink, key, rewriteRefs((defs as Readonly<Record<string, unknown>>)[name], rewrite));
    }
  }
  const schema = rewriteRefs(root, rewrite) as JsonSchema;
  if (rootKey === undefined) return schema;
  put(walk.sink, rootKey, schema);
  return { $ref: `${walk.refBase}${rootKey}` };
};

/**
 * A Standard Schema described by its own JSON Schema (`input` or `output`) when it has one (see
 * {@link lift}), else as anything, with a description naming its vendor. An answer that is not
 * JSON (a cycle, a function...) counts as none: describing never throws.
 */
export const describeStandard = (schema: StandardSchemaV1, walk: Walk): JsonSchema => {
  const side = walk.side ?? "input";
  const done = walk.lifted.get(schema)?.[side];
  if (done !== undefined) return done;
  let described: JsonSchema | undefined;
  const answer = jsonSchemaOf(schema, side);
  if (answer !== undefined) {
    // Checked and copied before anything is written to the sink: a refused answer leaves no trace.
    let copy: unknown;
    try {
      copy = jsonCopy(answer, new Set());
    } catch {
      copy = undefined;
    }
    if (isObject(copy) && !Array.isArray(copy)) described = lift(copy as Readonly<Record<string, unknown>>, walk);
  }
  if (described === undefined) {
    const vendor: unknown = schema["~standard"].vendor;
    described = {
      description: `A ${typeof vendor === "string" ? vendor : "unknown"} schema, which gives no JSON Schema`,
    };
  }
  walk.lifted.set(schema, { ...walk.lifted.get(schema), [side]: described });
  return described;
};
