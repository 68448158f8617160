/**
 * The walk over a codec: io-ts codecs described by their `_tag` (their members described in turn),
 * io-ts-types codecs by their name, Standard Schemas by their own JSON Schema; guarded, so that
 * describing never throws nor loops.
 *
 * @module
 */
import { isStandardSchema, standardOf } from "../core/schema";
import { intersection, isMergeableObject, objectSchema, union } from "./combine-schemas";
import { BY_NAME, UUID } from "./named-codecs";
import {
  definitionKey,
  field,
  isObject,
  nameOf,
  nothing,
  put,
  reference,
  same,
  undescribed,
  type JsonSchema,
  type Walk,
} from "./schema-walk";
import { describeStandard } from "./standard-schemas";

/**
 * Nesting deeper than this is taken for a runaway: a `t.recursion` whose definition builds a fresh
 * recursive codec at every level would otherwise never reach a codec already seen.
 */
const MAX_DEPTH = 100;

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

/** The schema of a codec whose `_tag` says all there is (a JSON type, or no JSON value), else `undefined`. */
const bySimpleTag = (tag: unknown): JsonSchema | undefined => {
  switch (tag) {
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
    default:
      return undefined;
  }
};

/** A codec described by its io-ts `_tag` (or, with none, by its name as an io-ts-types codec). */
const byTag = (codec: object, walk: Walk): JsonSchema => {
  const tag = field(codec, "_tag");
  const simple = bySimpleTag(tag);
  if (simple !== undefined) return simple;
  const inner = (): JsonSchema => describe(field(codec, "type"), walk);
  const members = (): JsonSchema[] => {
    const types = field(codec, "types");
    return Array.isArray(types) ? types.map((type: unknown) => describe(type, walk)) : [];
  };
  switch (tag) {
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
      return isMergeableObject(schema) ? { ...schema, additionalProperties: false } : schema;
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
export const describe = (codec: unknown, walk: Walk): JsonSchema => {
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
