/**
 * One method's entry in an OpenRPC document: its params (split from its params codec's schema, or
 * counted from its arity), its result, the values it streams (`x-stream`), and what it declares
 * about itself (summary, tags, errors, examples...).
 *
 * @module
 */
import { isMembers as isObject } from "../core/guards";
import { infoOf, isContextual, type Method } from "../core/methods";
import type { MethodExample, MethodInfo, MethodTag } from "../core/method-info";
import { schemaIn } from "./jsonschema";
import type { ContentDescriptor, ExamplePairing, OpenRpcMethod } from "./openrpc-types";
import { same, type JsonSchema } from "./schema-walk";

/**
 * OpenRPC requires every name it holds (a method's, a param's, an example's) to be a string of at
 * least one character (`minLength: 1` in its meta-schema): `""` cannot be described. A Map's key
 * may not even be a string.
 */
export const isDescribable = (name: unknown): name is string => typeof name === "string" && name !== "";

/** A `$ref` into `components.schemas` followed once, to see the shape of a recursive params codec. */
const resolved = (schema: JsonSchema, components: Readonly<Record<string, JsonSchema>>): JsonSchema => {
  const ref = schema["$ref"];
  const prefix = "#/components/schemas/";
  if (typeof ref !== "string" || !ref.startsWith(prefix)) return schema;
  const key = ref.slice(prefix.length);
  return Object.prototype.hasOwnProperty.call(components, key) ? (components[key] ?? schema) : schema;
};

/**
 * An object schema whose properties are all there is to it: its properties can be named params,
 * unless one of them cannot be named (`""`), which leaves the whole object one param.
 * `additionalProperties: true` is JSON Schema's default written out (Effect Schema writes it), so
 * it splits as its absence does; only a schema for the other members keeps the object whole.
 */
const isSplittableObject = (schema: JsonSchema): boolean =>
  schema["type"] === "object" &&
  isObject(schema["properties"]) &&
  Object.keys(schema["properties"]).every(isDescribable) &&
  Object.keys(schema).every((key) =>
    ["type", "properties", "required", "additionalProperties", "description"].includes(key),
  ) &&
  typeof (schema["additionalProperties"] ?? true) === "boolean";

/** A tuple schema (`items` as an array), or the empty tuple's. */
const isTuple = (schema: JsonSchema): boolean =>
  schema["type"] === "array" &&
  (Array.isArray(schema["items"]) || (schema["items"] === undefined && schema["maxItems"] === 0));

interface Params {
  readonly structure: "by-name" | "by-position" | undefined;
  readonly params: ContentDescriptor[];
  /** Whether the one param is the whole params value (a codec that cannot be split). */
  readonly whole?: true;
}

const positionalName = (names: readonly string[] | undefined, index: number): string => {
  const name = Array.isArray(names) ? (names as readonly unknown[])[index] : undefined;
  return typeof name === "string" && name !== "" ? name : `param${index}`;
};

/**
 * The params of a method, from its params codec (or its arity), and how they are passed. Without a
 * codec, the context (when there is one, or when the method was made to take one) is the first
 * parameter, and not a param.
 */
const paramsOf = (f: Method, info: MethodInfo, components: Record<string, JsonSchema>, context: boolean): Params => {
  const names = info.paramNames;
  if (info.params === undefined) {
    const length = typeof f.length === "number" && f.length > 0 ? f.length : 0;
    const arity = context || isContextual(f) ? Math.max(0, length - 1) : length;
    const params = Array.from({ length: arity }, (_, i) => ({
      name: positionalName(names, i),
      schema: {},
      required: true,
    }));
    return { structure: arity === 0 ? undefined : "by-position", params };
  }
  const whole = schemaIn(info.params, components);
  const schema = resolved(whole, components);
  if (isTuple(schema)) {
    const items = Array.isArray(schema["items"]) ? (schema["items"] as JsonSchema[]) : [];
    const minItems = typeof schema["minItems"] === "number" ? schema["minItems"] : items.length;
    const params = items.map((item, i) => ({ name: positionalName(names, i), schema: item, required: i < minItems }));
    return { structure: "by-position", params };
  }
  if (isSplittableObject(schema)) {
    const properties = schema["properties"] as Readonly<Record<string, JsonSchema>>;
    const required = Array.isArray(schema["required"]) ? (schema["required"] as unknown[]) : [];
    const params = Object.keys(properties).map((name) => ({
      name,
      schema: properties[name] ?? {},
      required: required.includes(name),
    }));
    return { structure: "by-name", params };
  }
  const name = positionalName(names, 0) === "param0" ? "params" : positionalName(names, 0);
  return {
    structure: undefined,
    whole: true,
    params: [
      {
        name,
        schema: whole,
        required: !same(schema, {}),
        description: "The whole params value, which the method's params codec does not split into params",
      },
    ],
  };
};

/** A result codec that only encodes `undefined` is sent as `null`. */
const resultOf = (info: MethodInfo, components: Record<string, JsonSchema>): ContentDescriptor => {
  if (info.result === undefined) return { name: "result", schema: {} };
  const schema = schemaIn(info.result, components, "output");
  return { name: "result", schema: same(schema, { not: {} }) ? { type: "null" } : schema };
};

/** Each value a streaming method sends before its result, in its wire form: an `x-stream` extension. */
const streamOf = (
  stream: NonNullable<MethodInfo["stream"]>,
  components: Record<string, JsonSchema>,
): ContentDescriptor => ({
  name: "stream",
  // A Standard Schema is described from its own JSON Schema, as a result schema is.
  schema: schemaIn(stream as Parameters<typeof schemaIn>[0], components, "output"),
});

const tagsOf = (tags: readonly MethodTag[]): Array<{ name: string; description?: string }> =>
  tags.flatMap((tag) => {
    if (typeof tag === "string") return tag === "" ? [] : [{ name: tag }];
    if (!isObject(tag) || typeof tag.name !== "string" || tag.name === "") return [];
    return [{ name: tag.name, ...(typeof tag.description === "string" ? { description: tag.description } : {}) }];
  });

/**
 * An example's params under the names of the method's params. A member named `""` that is not one
 * of them (the method's params are by name, so none is `""`) cannot be named: it is left out.
 */
const exampleParams = (params: unknown, described: Params): Array<{ name: string; value: unknown }> => {
  if (params === undefined) return [];
  if (Array.isArray(params) && described.whole !== true) {
    return params.map((value: unknown, i) => ({ name: described.params[i]?.name ?? `param${i}`, value }));
  }
  if (isObject(params) && !Array.isArray(params) && described.structure === "by-name") {
    const known = described.params.map((param) => param.name).filter((name) => name in params);
    const extra = Object.keys(params).filter((name) => isDescribable(name) && !known.includes(name));
    return [...known, ...extra].map((name) => ({ name, value: params[name] }));
  }
  return [{ name: described.params[0]?.name ?? "params", value: params }];
};

const examplesOf = (examples: readonly MethodExample[], described: Params): ExamplePairing[] =>
  examples.filter(isObject).map((example, i) => ({
    name: typeof example.name === "string" && example.name !== "" ? example.name : `example${i + 1}`,
    ...(typeof example.summary === "string" ? { summary: example.summary } : {}),
    ...(typeof example.description === "string" ? { description: example.description } : {}),
    params: exampleParams(example.params, described),
    result: { name: "result", value: example.result === undefined ? null : example.result },
  }));

const errorsOf = (
  errors: NonNullable<MethodInfo["errors"]>,
  components: Record<string, JsonSchema>,
): NonNullable<OpenRpcMethod["errors"]> =>
  errors.filter(isObject).map(({ code, message, data }) => ({
    code,
    message,
    // A Standard Schema is described from its own JSON Schema, as a params or result schema is.
    ...(data === undefined ? {} : { data: schemaIn(data as Parameters<typeof schemaIn>[0], components) }),
  }));

/** One method's entry in the document. @internal */
export const describeMethod = (
  name: string,
  f: Method,
  components: Record<string, JsonSchema>,
  context: boolean,
): OpenRpcMethod => {
  const info = infoOf(f);
  const described = paramsOf(f, info, components, context);
  const text = (value: unknown): value is string => typeof value === "string" && value !== "";
  return {
    name,
    ...(text(info.summary) ? { summary: info.summary } : {}),
    ...(text(info.description) ? { description: info.description } : {}),
    ...(Array.isArray(info.tags) && info.tags.length > 0 ? { tags: tagsOf(info.tags) } : {}),
    ...(described.structure === undefined ? {} : { paramStructure: described.structure }),
    params: described.params,
    result: resultOf(info, components),
    ...(info.stream === undefined ? {} : { "x-stream": streamOf(info.stream, components) }),
    ...(Array.isArray(info.errors) && info.errors.length > 0 ? { errors: errorsOf(info.errors, components) } : {}),
    ...(Array.isArray(info.examples) && info.examples.length > 0
      ? { examples: examplesOf(info.examples, described) }
      : {}),
    ...(typeof info.deprecated === "boolean" ? { deprecated: info.deprecated } : {}),
  };
};
