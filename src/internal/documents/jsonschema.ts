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
import type { StandardSchemaV1 } from "../core/schema";
import { describe } from "./describe-codec";
import type { JsonSchema, Walk } from "./schema-walk";

/** What {@link describe} accepts: any io-ts codec, including a bare `Decoder` with only a name. */
type Codec = t.Decoder<unknown, unknown> | t.Any;

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
 * For a recursive codec named `Tree`, it gives `{ $ref: "#/components/schemas/Tree" }` and puts
 * its definition in `components.Tree`. (No `@example`: it is internal, and an example imports
 * only public names.)
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
 * import { toJsonSchema } from "rpcserver";
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
