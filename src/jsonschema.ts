/**
 * io-ts codecs as JSON Schema (draft 7, the dialect of OpenRPC 1.3). The schema describes the WIRE
 * form of a value: what the codec decodes from and encodes to (its `O`/input side), not the decoded
 * type. So `DateFromISOString` is a string, and `t.type({ at: DateFromISOString })` an object whose
 * `at` is a string.
 *
 * Mapping rules, by io-ts `_tag`:
 * - `string`, `number`, `boolean`, `null`: their JSON type. `unknown`/`any`: `{}`. `UnknownRecord`:
 *   `{ type: "object" }`; `UnknownArray`: `{ type: "array" }`; the deprecated `t.object`: object or array.
 * - `undefined`, `void`, `never`, `bigint`, `Function`: no JSON value has these, so `{ not: {} }`
 *   (nothing validates). Such members are dropped from unions; a `t.type` prop whose codec decodes
 *   `undefined` is not `required`.
 * - `literal`: `{ type, const }`. `keyof`: `{ type: "string", enum: keys }`. A union whose members are
 *   all literals, `keyof`s or `null` becomes one `enum` (with `type` when the members share one).
 * - `union`: `anyOf`. `intersection`: the object members (`type`, `partial`, `exact`, `strict`,
 *   records over literal keys) merge into ONE object schema, closed (`additionalProperties: false`)
 *   only if every merged member is closed; other members go beside it in `allOf`, and then nothing
 *   is closed (a closed member inside `allOf` would refuse the other members' properties).
 * - `type`: `properties` + `required`. `partial`: `properties`. `exact`/`strict`:
 *   `additionalProperties: false` when the inner schema is a plain object one (io-ts strips unknown
 *   properties on decode instead of refusing them; the schema describes what is sent, without them).
 * - `array`/`readonlyArray`: `items`. `tuple`: `items` as an array, `additionalItems: false`,
 *   `maxItems` n, `minItems` n less the trailing elements that decode `undefined`.
 * - `record`: over a `keyof`/literal(-union) domain, an object with those keys `required` and closed
 *   (io-ts decodes it as `strict`); otherwise `additionalProperties` is the value schema, and
 *   `propertyNames` the domain schema unless the domain is `t.string`.
 * - `readonly`: the inner schema. Refinements and brands: the base schema with `description` naming
 *   the refinement, except `Int`/`Integer` (`type: "integer"`), `NonEmptyString` (`minLength: 1`) and
 *   `UUID` (`format: "uuid"` and the pattern io-ts-types checks).
 * - `recursion`: `{ $ref }` to a definition named after the codec (`#/definitions/Name` in a standalone
 *   schema, `#/components/schemas/Name` in an OpenRPC document).
 * - io-ts-types codecs are plain `t.Type`s with no `_tag`, and this module may not import io-ts-types,
 *   so they are recognised by `name`: `DateFromISOString`, `DateFromNumber`, `DateFromUnixTime`,
 *   `NumberFromString`, `IntFromString`, `BigIntFromString`, `BooleanFromString`,
 *   `BooleanFromNumber`, `JsonFromString` (a user codec with one of these names is read the same way).
 * - A Standard Schema: its own `~standard.jsonSchema` (`input` or `output`), moved into the document:
 *   its `definitions`/`$defs`, and itself when it refers to itself (`#`), become definitions like a
 *   `t.recursion`'s, its local `$ref`s rewritten to them. Without one, or with an answer that throws
 *   or is not JSON (a cycle...): `{ description }` naming its vendor.
 * - Anything else becomes `{ description: name }`: any value validates. Describing never throws.
 *
 * Where codec and schema cannot agree, the schema gives the canonical wire form: io-ts strips the
 * extras of `exact`/`strict` objects and tuples that the schema refuses; a refinement's predicate is
 * only named; `new Date(s)` parses more than RFC 3339's `date-time`; `IntFromString` is digits only.
 *
 * @module
 */
import type * as t from "io-ts";
import { isStandardSchema, jsonSchemaOf, standardOf, type StandardSchemaV1 } from "./schema";

/**
 * A JSON Schema (draft 7) as a plain JSON object.
 *
 * @example
 * const point: JsonSchema = { type: "object", properties: { x: { type: "number" } }, required: ["x"] };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface JsonSchema {
  readonly [keyword: string]: unknown;
}

/** What {@link describe} accepts: any io-ts codec, including a bare `Decoder` with only a name. */
type Codec = t.Decoder<unknown, unknown> | t.Any;

/** The schema no JSON value satisfies, for codecs that only accept values JSON cannot carry. */
const nothing = (): JsonSchema => ({ not: {} });

/**
 * Nesting deeper than this is taken for a runaway: a `t.recursion` whose definition builds a fresh
 * recursive codec at every level would otherwise never reach a codec already seen.
 */
const MAX_DEPTH = 100;

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
const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/** `new Date(n)` is valid for |n| up to 8.64e15 ms (ECMAScript TimeClip). */
const MAX_TIME = 8.64e15;

/**
 * io-ts-types codecs, by name. They have no `_tag`, and importing them would make io-ts-types a
 * runtime dependency, so the name is all there is to go on.
 */
const BY_NAME: Readonly<Record<string, () => JsonSchema>> = {
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

/** State of one description: where recursive codecs go and how they are referred to. */
interface Walk {
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
  if (typeof value !== "object" || path.has(value)) throw NOT_JSON;
  const prototype: unknown = Object.getPrototypeOf(value);
  const isArray = Array.isArray(value);
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
const describeStandard = (schema: StandardSchemaV1, walk: Walk): JsonSchema => {
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

/**
 * Reads a member of a codec. Codecs come from outside and may be anything, so every read goes through
 * `unknown` and is checked by the caller.
 */
const field = (codec: object, key: string): unknown => (codec as Readonly<Record<string, unknown>>)[key];

const isObject = (value: unknown): value is object =>
  (typeof value === "object" && value !== null) || typeof value === "function";

const nameOf = (codec: unknown): string => {
  try {
    const name = isObject(codec) ? field(codec, "name") : undefined;
    return typeof name === "string" ? name : "(unnamed codec)";
  } catch {
    return "(unnamed codec)";
  }
};

/** A codec this module cannot describe: any value validates, and the description says what it was. */
const undescribed = (codec: unknown): JsonSchema => ({ description: nameOf(codec) });

/**
 * Writes `object[key]` as an own data property: a prop or definition may be called `__proto__`, and
 * plain assignment would set the prototype instead.
 */
const put = (object: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
};

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

const isNothing = (schema: JsonSchema): boolean => same(schema, nothing());

/**
 * Whether a missing property is fine for this codec: io-ts' `t.type` decodes a missing property as
 * `undefined`, so decoding `undefined` is the exact test (it covers `t.undefined` in a union,
 * `t.unknown`, io-ts-types' `optionFromNullable`...). A codec that throws counts as refusing.
 */
const acceptsUndefined = (codec: unknown): boolean => {
  try {
    if (!isObject(codec)) return false;
    const decode = field(codec, "decode");
    if (typeof decode !== "function") return false;
    const result: unknown = decode.call(codec, undefined);
    return isObject(result) && field(result, "_tag") === "Right";
  } catch {
    return false;
  }
};

/**
 * An object schema that intersections can merge: nothing but `type: "object"`, `properties`,
 * `required`, `additionalProperties: false` and a `description`. Anything else (a value schema for
 * additional properties, `propertyNames`) would change meaning if merged.
 */
const isPlainObject = (schema: JsonSchema): boolean =>
  schema["type"] === "object" &&
  (schema["additionalProperties"] === undefined || schema["additionalProperties"] === false) &&
  Object.keys(schema).every((key) =>
    ["type", "properties", "required", "additionalProperties", "description"].includes(key),
  );

const withoutClosing = (schema: JsonSchema): JsonSchema => {
  if (!isPlainObject(schema) || schema["additionalProperties"] !== false) return schema;
  const { additionalProperties: _closed, ...open } = schema;
  return open;
};

const propertiesOf = (schema: JsonSchema): Record<string, JsonSchema> => {
  const properties = schema["properties"];
  return isObject(properties) ? (properties as Record<string, JsonSchema>) : {};
};

const requiredOf = (schema: JsonSchema): readonly string[] => {
  const required = schema["required"];
  return Array.isArray(required) ? required.filter((key): key is string => typeof key === "string") : [];
};

const descriptionsOf = (schemas: readonly JsonSchema[]): string[] => [
  ...new Set(schemas.map((schema) => schema["description"]).filter((d): d is string => typeof d === "string")),
];

const objectSchema = (
  properties: Record<string, JsonSchema>,
  required: readonly string[],
  closed: boolean,
  descriptions: readonly string[] = [],
): JsonSchema => ({
  type: "object",
  properties,
  ...(required.length > 0 ? { required: [...required] } : {}),
  ...(closed ? { additionalProperties: false } : {}),
  ...(descriptions.length > 0 ? { description: descriptions.join("; ") } : {}),
});

/**
 * One object schema for the object members of an intersection: io-ts decodes an intersection by
 * decoding the value with every member, which is what one schema with all their properties checks.
 * It is closed only if every member is: a value of `exact(A) & B` may carry B's properties.
 */
const mergeObjects = (schemas: readonly JsonSchema[]): JsonSchema => {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const schema of schemas) {
    for (const [key, property] of Object.entries(propertiesOf(schema))) {
      const existing = Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : undefined;
      put(
        properties,
        key,
        existing === undefined || same(existing, property) ? property : { allOf: [existing, property] },
      );
    }
    for (const key of requiredOf(schema)) if (!required.includes(key)) required.push(key);
  }
  const closed = schemas.every((schema) => schema["additionalProperties"] === false);
  return objectSchema(properties, required, closed, descriptionsOf(schemas));
};

const intersection = (members: readonly JsonSchema[]): JsonSchema => {
  if (members.some(isNothing)) return nothing();
  const constraining = members.filter((schema) => Object.keys(schema).length > 0);
  const objects = constraining.filter(isPlainObject);
  const others = constraining.filter((schema) => !isPlainObject(schema));
  if (others.length === 0) return objects.length === 0 ? {} : mergeObjects(objects);
  const all = [...(objects.length > 0 ? [withoutClosing(mergeObjects(objects))] : []), ...others];
  return all.length === 1 && all[0] !== undefined ? all[0] : { allOf: all };
};

/** The values of an `enum`-like schema (`const`, `enum`, or `type: "null"`), or undefined if it is not one. */
const enumValues = (schema: JsonSchema): readonly unknown[] | undefined => {
  const keys = Object.keys(schema);
  if (same(schema, { type: "null" })) return [null];
  if (!keys.every((key) => key === "type" || key === "const" || key === "enum")) return undefined;
  if ("const" in schema && !("enum" in schema)) return [schema["const"]];
  const values = schema["enum"];
  return Array.isArray(values) && !("const" in schema) ? values : undefined;
};

/** A union of literals reads better, and validates faster, as one `enum`. */
const union = (members: readonly JsonSchema[]): JsonSchema => {
  const possible = members.filter((schema) => !isNothing(schema));
  if (possible.length === 0) return nothing();
  if (possible.length === 1 && possible[0] !== undefined) return possible[0];
  const values = possible.map(enumValues);
  if (values.every((v): v is readonly unknown[] => v !== undefined)) {
    const all = [...new Set(values.flat())];
    const types = [...new Set(possible.map((schema) => schema["type"]))];
    return { ...(types.length === 1 && typeof types[0] === "string" ? { type: types[0] } : {}), enum: all };
  }
  return { anyOf: possible };
};

const literal = (codec: object): JsonSchema => {
  const value = field(codec, "value");
  if (value === null) return { type: "null" };
  if (value === undefined) return nothing();
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean") return { type, const: value };
  return undescribed(codec);
};

/**
 * The keys of a record domain that io-ts enumerates (its internal `getDomainKeys`): such records are
 * decoded as `strict` objects with exactly those keys.
 */
const domainKeys = (domain: unknown): readonly string[] | undefined => {
  if (!isObject(domain)) return undefined;
  const tag = field(domain, "_tag");
  if (tag === "LiteralType") {
    const value = field(domain, "value");
    return typeof value === "string" ? [value] : undefined;
  }
  if (tag === "KeyofType") {
    const keys = field(domain, "keys");
    return isObject(keys) ? Object.keys(keys) : undefined;
  }
  if (tag === "UnionType") {
    const types = field(domain, "types");
    if (!Array.isArray(types)) return undefined;
    const all = types.map(domainKeys);
    return all.every((keys): keys is readonly string[] => keys !== undefined) ? [...new Set(all.flat())] : undefined;
  }
  return undefined;
};

const record = (codec: object, walk: Walk): JsonSchema => {
  const domain = field(codec, "domain");
  const codomain = field(codec, "codomain");
  const keys = domainKeys(domain);
  if (keys !== undefined) {
    const properties: Record<string, JsonSchema> = {};
    for (const key of keys) put(properties, key, describe(codomain, walk));
    return objectSchema(properties, acceptsUndefined(codomain) ? [] : keys, true);
  }
  const value = describe(codomain, walk);
  const names = describe(domain, walk);
  // io-ts lets a record over `t.any` values be an array too (`isAnyC` in its record).
  const anyValue = isObject(codomain) && field(codomain, "_tag") === "AnyType";
  return {
    type: anyValue ? ["object", "array"] : "object",
    ...(same(names, { type: "string" }) || same(names, {}) ? {} : { propertyNames: names }),
    additionalProperties: value,
  };
};

const tuple = (codec: object, walk: Walk): JsonSchema => {
  const types = field(codec, "types");
  if (!Array.isArray(types)) return undescribed(codec);
  // Draft 7 wants a non-empty `items` array; the empty tuple is the empty array.
  if (types.length === 0) return { type: "array", maxItems: 0 };
  let minItems = types.length;
  while (minItems > 0 && acceptsUndefined(types[minItems - 1])) minItems--;
  return {
    type: "array",
    items: types.map((type: unknown) => describe(type, walk)),
    minItems,
    maxItems: types.length,
    additionalItems: false,
  };
};

const props = (codec: object, walk: Walk, optional: (prop: unknown) => boolean, closed: boolean): JsonSchema => {
  const all = field(codec, "props");
  if (!isObject(all)) return undescribed(codec);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, prop] of Object.entries(all)) {
    put(properties, key, describe(prop, walk));
    if (!optional(prop)) required.push(key);
  }
  return objectSchema(properties, required, closed);
};

const refinement = (codec: object, walk: Walk): JsonSchema => {
  const base = describe(field(codec, "type"), walk);
  const name = nameOf(codec);
  const type = base["type"];
  if ((name === "Int" || name === "Integer") && type === "number") return { ...base, type: "integer" };
  if (name === "NonEmptyString" && type === "string") return { ...base, minLength: 1 };
  if (name === "UUID" && type === "string") return { ...base, format: "uuid", pattern: UUID };
  const description = base["description"];
  return { ...base, description: typeof description === "string" ? `${description}; ${name}` : name };
};

/** Definition keys follow OpenRPC's rule for `components.schemas` names: `^[a-zA-Z0-9.\-_]+$`. */
const definitionKey = (name: string, sink: Record<string, JsonSchema>): string => {
  const base = name.replace(/[^a-zA-Z0-9._-]/g, "_") || "Recursive";
  let key = base;
  for (let n = 2; Object.prototype.hasOwnProperty.call(sink, key); n++) key = `${base}_${n}`;
  return key;
};

const reference = (key: string, walk: Walk): JsonSchema => ({ $ref: `${walk.refBase}${key}` });

/**
 * A `t.recursion` is written once to the sink and referred to by `$ref` everywhere, including inside
 * itself, which is what stops the walk. The key is reserved before its definition is described, so a
 * different codec with the same name met inside gets a key of its own.
 *
 * The definition is described with an empty cycle guard: it legitimately meets again the codecs on
 * the way to it (io-ts-types' `Json` union contains `JsonArray`, whose definition contains `Json`), and
 * the walk still ends, as each recursive codec opens at most one such fresh start.
 */
const recursive = (codec: object, walk: Walk): JsonSchema => {
  let key = walk.keys.get(codec);
  if (key === undefined) {
    key = definitionKey(nameOf(codec), walk.sink);
    walk.keys.set(codec, key);
    put(walk.sink, key, {});
    put(walk.sink, key, describe(field(codec, "type"), { ...walk, path: new Set() }));
  }
  return reference(key, walk);
};

const byTag = (codec: object, walk: Walk): JsonSchema => {
  const inner = (): JsonSchema => describe(field(codec, "type"), walk);
  const members = (): JsonSchema[] => {
    const types = field(codec, "types");
    return Array.isArray(types) ? types.map((type: unknown) => describe(type, walk)) : [];
  };
  switch (field(codec, "_tag")) {
    case "StringType":
      return { type: "string" };
    case "NumberType":
      return { type: "number" };
    case "BooleanType":
      return { type: "boolean" };
    case "NullType":
      return { type: "null" };
    case "UndefinedType":
    case "VoidType":
    case "NeverType":
    case "BigIntType":
    case "FunctionType":
      return nothing();
    case "UnknownType":
    case "AnyType":
      return {};
    case "AnyDictionaryType":
      return { type: "object" };
    case "AnyArrayType":
      return { type: "array" };
    case "ObjectType":
      return { type: ["object", "array"] };
    case "LiteralType":
      return literal(codec);
    case "KeyofType": {
      const keys = field(codec, "keys");
      return isObject(keys) ? { type: "string", enum: Object.keys(keys) } : undescribed(codec);
    }
    case "UnionType":
      return union(members());
    case "IntersectionType":
      return intersection(members());
    case "InterfaceType":
      return props(codec, walk, acceptsUndefined, false);
    case "StrictType":
      return props(codec, walk, acceptsUndefined, true);
    case "PartialType":
      return props(codec, walk, () => true, false);
    case "ExactType": {
      const schema = inner();
      return isPlainObject(schema) ? { ...schema, additionalProperties: false } : schema;
    }
    case "ArrayType":
    case "ReadonlyArrayType":
      return { type: "array", items: inner() };
    case "TupleType":
      return tuple(codec, walk);
    case "DictionaryType":
      return record(codec, walk);
    case "ReadonlyType":
      return inner();
    case "RefinementType":
      return refinement(codec, walk);
    case "RecursiveType":
      return recursive(codec, walk);
    case undefined: {
      const known = Object.prototype.hasOwnProperty.call(BY_NAME, nameOf(codec)) ? BY_NAME[nameOf(codec)] : undefined;
      return known === undefined ? undescribed(codec) : known();
    }
    default:
      return undescribed(codec);
  }
};

/**
 * The walk, guarded: codecs are arbitrary objects, so a getter that throws, a cycle that does not go
 * through `t.recursion`, or a runaway depth each end in {@link undescribed} instead of an exception
 * or an endless loop.
 */
const describe = (codec: unknown, walk: Walk): JsonSchema => {
  // A recursive codec meets itself inside its own definition: that is what the `$ref` is for, so it
  // is looked up before the cycle guard, which would otherwise take it for a runaway.
  const defined = isObject(codec) ? walk.keys.get(codec) : undefined;
  if (defined !== undefined) return reference(defined, walk);
  if (!isObject(codec) || walk.path.has(codec) || walk.depth >= MAX_DEPTH) return undescribed(codec);
  walk.path.add(codec);
  walk.depth++;
  try {
    const standard = standardOf(codec) ?? (isStandardSchema(codec) ? codec : undefined);
    if (standard !== undefined) return describeStandard(standard, walk);
    return byTag(codec, walk);
  } catch {
    return undescribed(codec);
  } finally {
    walk.depth--;
    walk.path.delete(codec);
  }
};

/**
 * The key given to each recursive codec in each `components` object, so that describing several
 * methods into one document defines a shared recursive codec once. Weak: it lives as long as the
 * document being built.
 */
const componentKeys = new WeakMap<object, Pick<Walk, "keys" | "lifted">>();

/**
 * The schema of a codec's wire form, recursive codecs defined in `components` and referred to as
 * `#/components/schemas/<Name>`: for building an OpenRPC document, whose `components.schemas` is
 * `components`. `components` is written to; a name already there for another codec gets a suffix.
 *
 * @example
 * import * as t from "io-ts";
 * const components = {};
 * const Tree = t.recursion("Tree", (self) => t.type({ children: t.array(self) }));
 * schemaIn(Tree, components); // { $ref: "#/components/schemas/Tree" }, components.Tree is its definition
 *
 * @since 5.0.10
 * @category openrpc
 * @internal
 */
export const schemaIn = (
  codec: Codec,
  components: Record<string, JsonSchema>,
  side: "input" | "output" = "input",
): JsonSchema => {
  let known = componentKeys.get(components);
  if (known === undefined) {
    known = { keys: new Map(), lifted: new Map() };
    componentKeys.set(components, known);
  }
  return describe(codec, {
    refBase: "#/components/schemas/",
    sink: components,
    ...known,
    path: new Set(),
    depth: 0,
    side,
  });
};

/**
 * The JSON Schema (draft 7) of a codec's wire form: what it decodes from and encodes to. Recursive
 * codecs are referred to as `#/definitions/<Name>`, with the definitions in the result's own
 * `definitions`, so the schema stands alone. Never throws: a codec it cannot describe becomes
 * `{ description: <its name> }`. See the module comment for the mapping. A Standard Schema is
 * described by its own `~standard.jsonSchema` (`side` `"input"`, the default, or `"output"`), its
 * own definitions and self-references (`#`) moved into `definitions` with its `$ref`s rewritten,
 * or as `{}` with a description naming its vendor when it has none (or one that is not JSON).
 *
 * @example
 * import * as t from "io-ts";
 * toJsonSchema(t.type({ name: t.string, age: t.union([t.number, t.undefined]) }));
 * // { type: "object", properties: { name: { type: "string" }, age: { type: "number" } }, required: ["name"] }
 *
 * @since 5.0.10
 * @category openrpc
 */
export const toJsonSchema = (
  codec: t.Decoder<unknown, unknown> | t.Any | StandardSchemaV1,
  side: "input" | "output" = "input",
): JsonSchema => {
  const definitions: Record<string, JsonSchema> = {};
  const schema = describe(codec, {
    refBase: "#/definitions/",
    sink: definitions,
    keys: new Map(),
    path: new Set(),
    depth: 0,
    side,
    lifted: new Map(),
  });
  return Object.keys(definitions).length > 0 ? { ...schema, definitions } : schema;
};
