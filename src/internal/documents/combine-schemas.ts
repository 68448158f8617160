/**
 * Schemas put together: object schemas (the members of an intersection merged into one) and
 * unions (a union of literals as one `enum`).
 *
 * @module
 */
import { isNothing, isObject, nothing, put, same, type JsonSchema } from "./schema-walk";

/**
 * An object schema that intersections can merge: nothing but `type: "object"`, `properties`,
 * `required`, `additionalProperties: false` and a `description`. Anything else (a value schema for
 * additional properties, `propertyNames`) would change meaning if merged.
 */
export const isMergeableObject = (schema: JsonSchema): boolean =>
  schema["type"] === "object" &&
  (schema["additionalProperties"] === undefined || schema["additionalProperties"] === false) &&
  Object.keys(schema).every((key) =>
    ["type", "properties", "required", "additionalProperties", "description"].includes(key),
  );

const withoutClosing = (schema: JsonSchema): JsonSchema => {
  if (!isMergeableObject(schema) || schema["additionalProperties"] !== false) return schema;
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

export const objectSchema = (
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

export const intersection = (members: readonly JsonSchema[]): JsonSchema => {
  if (members.some(isNothing)) return nothing();
  const constraining = members.filter((schema) => Object.keys(schema).length > 0);
  const objects = constraining.filter(isMergeableObject);
  const others = constraining.filter((schema) => !isMergeableObject(schema));
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
export const union = (members: readonly JsonSchema[]): JsonSchema => {
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
