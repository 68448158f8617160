/**
 * io-ts codecs as JSON Schema (src/jsonschema.ts).
 *
 * 1. A table, one row per codec kind: the exact schema, that it is a valid draft-07 schema, and,
 *    compiled by ajv, that it validates the values the codec decodes and refuses the values the codec
 *    refuses. Where the two cannot agree, the row lists the values on which they differ, and why.
 * 2. Properties (fast-check, fixed seed): for generated JSON values, the schema validates exactly when
 *    the codec decodes; where they cannot agree exactly, one direction, with the reason.
 * 3. Recursion, `schemaIn`, codecs that cannot be described, cycles.
 */
import Ajv from "ajv";
import addFormats from "ajv-formats";
import fc from "fast-check";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import {
  BigIntFromString,
  BooleanFromNumber,
  BooleanFromString,
  DateFromISOString,
  DateFromNumber,
  DateFromUnixTime,
  IntFromString,
  Json,
  JsonFromString,
  NonEmptyString,
  NumberFromString,
  optionFromNullable,
  UUID,
} from "io-ts-types";
import { schemaIn, toJsonSchema } from "../src/internal/documents/jsonschema";
import type { JsonSchema } from "../src/internal/documents/schema-walk";

const ajv = new Ajv({ strict: false });
addFormats(ajv);

const validates = (schema: JsonSchema, value: unknown): boolean => ajv.validate(schema, value) === true;
const decodes = (codec: t.Decoder<unknown, unknown> | t.Any, value: unknown): boolean => E.isRight(codec.decode(value));

const runs = { seed: 42, numRuns: 200 };

interface PositiveBrand {
  readonly Positive: unique symbol;
}
const Positive = t.brand(t.number, (n): n is t.Branded<number, PositiveBrand> => n > 0, "Positive");
interface EvenBrand {
  readonly Even: unique symbol;
}
const Even = t.brand(t.Int, (n): n is t.Branded<t.Int, EvenBrand> => n % 2 === 0, "Even");

interface Tree {
  readonly value: number;
  readonly children: readonly Tree[];
}
const Tree: t.Type<Tree> = t.recursion("Tree", (self) => t.type({ value: t.number, children: t.readonlyArray(self) }));
const treeDefinition = {
  type: "object",
  properties: {
    value: { type: "number" },
    children: { type: "array", items: { $ref: "#/definitions/Tree" } },
  },
  required: ["value", "children"],
};

const uuid = "123e4567-e89b-12d3-a456-426614174000";

interface Row {
  readonly name: string;
  readonly codec: t.Decoder<unknown, unknown> | t.Any;
  readonly schema: JsonSchema;
  /** Values the codec decodes: the schema must validate them. */
  readonly accepts: readonly unknown[];
  /** JSON values the codec refuses: the schema must refuse them. */
  readonly refuses: readonly unknown[];
  /** The codec decodes these but the schema, which describes the wire form, refuses them. */
  readonly onlyCodec?: readonly unknown[];
  /** The schema validates these but the codec refuses them: a constraint JSON Schema cannot state. */
  readonly onlySchema?: readonly unknown[];
}

const rows: readonly Row[] = [
  // Primitives.
  { name: "string", codec: t.string, schema: { type: "string" }, accepts: ["", "a"], refuses: [1, null, true, {}, []] },
  { name: "number", codec: t.number, schema: { type: "number" }, accepts: [0, -1.5, 1e300], refuses: ["1", null, []] },
  { name: "boolean", codec: t.boolean, schema: { type: "boolean" }, accepts: [true, false], refuses: [0, "true"] },
  { name: "null", codec: t.null, schema: { type: "null" }, accepts: [null], refuses: [0, "", false, {}] },
  // No JSON value is undefined: nothing validates, and nothing JSON decodes.
  { name: "undefined", codec: t.undefined, schema: { not: {} }, accepts: [], refuses: [null, 0, "", {}, []] },
  { name: "void", codec: t.void, schema: { not: {} }, accepts: [], refuses: [null, 0] },
  { name: "never", codec: t.never, schema: { not: {} }, accepts: [], refuses: [null, 0, {}] },
  { name: "unknown", codec: t.unknown, schema: {}, accepts: [null, 0, "a", {}, [1]], refuses: [] },
  {
    name: "UnknownRecord",
    codec: t.UnknownRecord,
    schema: { type: "object" },
    accepts: [{}, { a: 1 }],
    refuses: [[], null, "a"],
  },
  {
    name: "UnknownArray",
    codec: t.UnknownArray,
    schema: { type: "array" },
    accepts: [[], [1, "a"]],
    refuses: [{}, "a"],
  },
  // Literals, keyof, unions.
  {
    name: "string literal",
    codec: t.literal("a"),
    schema: { type: "string", const: "a" },
    accepts: ["a"],
    refuses: ["b", 1, null],
  },
  {
    name: "number literal",
    codec: t.literal(1),
    schema: { type: "number", const: 1 },
    accepts: [1],
    refuses: [2, "1"],
  },
  {
    name: "boolean literal",
    codec: t.literal(true),
    schema: { type: "boolean", const: true },
    accepts: [true],
    refuses: [false, "true"],
  },
  {
    name: "keyof",
    codec: t.keyof({ a: null, b: null }),
    schema: { type: "string", enum: ["a", "b"] },
    accepts: ["a", "b"],
    refuses: ["c", "toString", 1],
  },
  {
    name: "union of string literals",
    codec: t.union([t.literal("a"), t.literal("b"), t.keyof({ c: null })]),
    schema: { type: "string", enum: ["a", "b", "c"] },
    accepts: ["a", "b", "c"],
    refuses: ["d", null],
  },
  {
    name: "union of mixed literals and null",
    codec: t.union([t.literal(1), t.literal("one"), t.null]),
    schema: { enum: [1, "one", null] },
    accepts: [1, "one", null],
    refuses: [2, "two", false],
  },
  {
    name: "union",
    codec: t.union([t.string, t.number]),
    schema: { anyOf: [{ type: "string" }, { type: "number" }] },
    accepts: ["a", 1],
    refuses: [null, true, {}],
  },
  {
    name: "union with undefined",
    codec: t.union([t.string, t.undefined]),
    schema: { type: "string" },
    accepts: ["a"],
    refuses: [null, 1],
  },
  // Objects.
  {
    name: "type",
    codec: t.type({ a: t.string, b: t.union([t.number, t.undefined]), c: t.unknown }),
    schema: {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" }, c: {} },
      required: ["a"],
    },
    accepts: [{ a: "" }, { a: "", b: 1 }, { a: "", c: null }, { a: "", z: 1 }],
    refuses: [{}, { a: 1 }, { a: "", b: "1" }, [], null],
  },
  {
    name: "partial",
    codec: t.partial({ a: t.string, b: t.number }),
    schema: { type: "object", properties: { a: { type: "string" }, b: { type: "number" } } },
    accepts: [{}, { a: "" }, { b: 1, z: 1 }],
    refuses: [{ a: 1 }, [], "a"],
  },
  // io-ts strips unknown properties of exact/strict codecs instead of refusing them.
  {
    name: "exact type",
    codec: t.exact(t.type({ a: t.string })),
    schema: { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false },
    accepts: [{ a: "" }],
    refuses: [{}, { a: 1 }],
    onlyCodec: [{ a: "", z: 1 }],
  },
  {
    name: "exact partial",
    codec: t.exact(t.partial({ a: t.string })),
    schema: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
    accepts: [{}, { a: "" }],
    refuses: [{ a: 1 }, []],
    onlyCodec: [{ z: 1 }],
  },
  {
    name: "strict",
    codec: t.strict({ a: t.number }),
    schema: { type: "object", properties: { a: { type: "number" } }, required: ["a"], additionalProperties: false },
    accepts: [{ a: 1 }],
    refuses: [{}, { a: "1" }],
    onlyCodec: [{ a: 1, z: 1 }],
  },
  {
    name: "readonly",
    codec: t.readonly(t.type({ a: t.number })),
    schema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
    accepts: [{ a: 1 }],
    refuses: [{}],
  },
  // Intersections.
  {
    name: "intersection of type and partial",
    codec: t.intersection([t.type({ a: t.string }), t.partial({ b: t.number })]),
    schema: { type: "object", properties: { a: { type: "string" }, b: { type: "number" } }, required: ["a"] },
    accepts: [{ a: "" }, { a: "", b: 1 }, { a: "", z: null }],
    refuses: [{ b: 1 }, { a: "", b: "1" }],
  },
  {
    name: "intersection of exacts: closed over the union of their properties",
    codec: t.intersection([t.exact(t.type({ a: t.string })), t.exact(t.partial({ b: t.Int }))]),
    schema: {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "integer" } },
      required: ["a"],
      additionalProperties: false,
    },
    accepts: [{ a: "" }, { a: "", b: 1 }],
    refuses: [{ b: 1 }, { a: "", b: 1.5 }],
    onlyCodec: [{ a: "", z: 1 }],
  },
  {
    name: "intersection of exact and type: open, since the type's side keeps other properties",
    codec: t.intersection([t.exact(t.type({ a: t.string })), t.type({ b: t.number })]),
    schema: { type: "object", properties: { a: { type: "string" }, b: { type: "number" } }, required: ["a", "b"] },
    accepts: [
      { a: "", b: 1 },
      { a: "", b: 1, z: 1 },
    ],
    refuses: [{ a: "" }],
  },
  {
    name: "intersection with the same prop twice",
    codec: t.intersection([t.type({ a: t.number }), t.partial({ a: Positive })]),
    schema: {
      type: "object",
      properties: { a: { allOf: [{ type: "number" }, { type: "number", description: "Positive" }] } },
      required: ["a"],
    },
    accepts: [{ a: 1 }],
    refuses: [{}, { a: "1" }],
    onlySchema: [{ a: -1 }],
  },
  {
    name: "intersection with a record: allOf, the exact member opened",
    codec: t.intersection([t.exact(t.type({ a: t.number })), t.record(t.string, t.number)]),
    schema: {
      allOf: [
        { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
        { type: "object", additionalProperties: { type: "number" } },
      ],
    },
    accepts: [{ a: 1 }, { a: 1, b: 2 }],
    refuses: [{ b: 2 }, { a: 1, b: "2" }],
  },
  {
    name: "intersection of primitives",
    codec: t.intersection([t.string, NonEmptyString]),
    schema: { allOf: [{ type: "string" }, { type: "string", minLength: 1 }] },
    accepts: ["a"],
    refuses: ["", 1],
  },
  // Arrays, tuples, records.
  {
    name: "array",
    codec: t.array(t.number),
    schema: { type: "array", items: { type: "number" } },
    accepts: [[], [1, 2]],
    refuses: [["1"], {}, "a"],
  },
  {
    name: "readonlyArray",
    codec: t.readonlyArray(t.string),
    schema: { type: "array", items: { type: "string" } },
    accepts: [[], ["a"]],
    refuses: [[1], {}],
  },
  // io-ts drops the elements past a tuple's length instead of refusing them.
  {
    name: "tuple",
    codec: t.tuple([t.string, t.number]),
    schema: {
      type: "array",
      items: [{ type: "string" }, { type: "number" }],
      minItems: 2,
      maxItems: 2,
      additionalItems: false,
    },
    accepts: [["a", 1]],
    refuses: [["a"], [1, "a"], [], "a"],
    onlyCodec: [["a", 1, true]],
  },
  {
    name: "tuple with an optional last element",
    codec: t.tuple([t.number, t.union([t.string, t.undefined])]),
    schema: {
      type: "array",
      items: [{ type: "number" }, { type: "string" }],
      minItems: 1,
      maxItems: 2,
      additionalItems: false,
    },
    accepts: [[1], [1, "a"]],
    refuses: [[], [1, 2], ["a"]],
  },
  {
    name: "empty tuple",
    // io-ts types a tuple as non-empty, but builds the empty one.
    codec: t.tuple([] as unknown as [t.Mixed]),
    schema: { type: "array", maxItems: 0 },
    accepts: [[]],
    refuses: [{}, "a"],
    onlyCodec: [[1]],
  },
  {
    name: "record over strings",
    codec: t.record(t.string, t.number),
    schema: { type: "object", additionalProperties: { type: "number" } },
    accepts: [{}, { a: 1 }],
    refuses: [{ a: "1" }, [], null],
  },
  // io-ts decodes a record over enumerable keys as `strict`: those keys required, others stripped.
  {
    name: "record over keyof",
    codec: t.record(t.keyof({ a: null, b: null }), t.number),
    schema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
      additionalProperties: false,
    },
    accepts: [{ a: 1, b: 2 }],
    refuses: [{ a: 1 }, { a: 1, b: "2" }, {}],
    onlyCodec: [{ a: 1, b: 2, c: "x" }],
  },
  {
    name: "record over a union of literals, optional values",
    codec: t.record(t.union([t.literal("x"), t.literal("y")]), t.union([t.string, t.undefined])),
    schema: {
      type: "object",
      properties: { x: { type: "string" }, y: { type: "string" } },
      additionalProperties: false,
    },
    accepts: [{}, { x: "a" }, { x: "a", y: "b" }],
    refuses: [{ x: 1 }],
    onlyCodec: [{ z: 1 }],
  },
  // io-ts drops the keys outside a record's domain instead of refusing them.
  {
    name: "record over a refined domain",
    codec: t.record(NonEmptyString, t.number),
    schema: {
      type: "object",
      propertyNames: { type: "string", minLength: 1 },
      additionalProperties: { type: "number" },
    },
    accepts: [{}, { a: 1 }],
    refuses: [{ a: "1" }, []],
    onlyCodec: [{ "": "anything" }],
  },
  {
    name: "record of any: io-ts also takes arrays",
    codec: t.record(t.string, t.any),
    schema: { type: ["object", "array"], additionalProperties: {} },
    accepts: [{}, { a: 1 }, [1]],
    refuses: [null, "a", 1],
  },
  // Refinements and brands.
  { name: "Int", codec: t.Int, schema: { type: "integer" }, accepts: [0, -3, 1e20], refuses: [1.5, "1", null] },
  {
    name: "brand",
    codec: Positive,
    schema: { type: "number", description: "Positive" },
    accepts: [1, 0.5],
    refuses: ["1", null],
    onlySchema: [0, -1],
  },
  {
    name: "brand over Int",
    codec: Even,
    schema: { type: "integer", description: "Even" },
    accepts: [2, 0],
    refuses: [2.5, "2"],
    onlySchema: [3],
  },
  {
    name: "refinement",
    codec: t.refinement(t.string, (s) => s.length < 3, "Short"),
    schema: { type: "string", description: "Short" },
    accepts: ["ab"],
    refuses: [1],
    onlySchema: ["abc"],
  },
  {
    name: "refinement of an exact type",
    codec: t.exact(t.refinement(t.type({ a: t.number }), (o) => o.a > 0, "PositiveA")),
    schema: {
      type: "object",
      properties: { a: { type: "number" } },
      required: ["a"],
      description: "PositiveA",
      additionalProperties: false,
    },
    accepts: [{ a: 1 }],
    refuses: [{}, { a: "1" }],
    onlyCodec: [{ a: 1, z: 1 }],
    onlySchema: [{ a: -1 }],
  },
  // Recursion.
  {
    name: "recursion",
    codec: Tree,
    schema: { $ref: "#/definitions/Tree", definitions: { Tree: treeDefinition } },
    accepts: [
      { value: 1, children: [] },
      { value: 1, children: [{ value: 2, children: [{ value: 3, children: [] }] }] },
    ],
    refuses: [{ value: 1 }, { value: 1, children: [{ value: "2", children: [] }] }, { value: 1, children: [{}] }],
  },
  // io-ts-types, recognised by name; the schema is the wire form.
  {
    name: "DateFromISOString",
    codec: DateFromISOString,
    schema: { type: "string", format: "date-time" },
    accepts: ["2020-01-01T00:00:00Z", "2020-01-01T00:00:00.123+05:30", new Date(0).toISOString()],
    refuses: ["not a date", "", 0, null],
    // `new Date(s)` parses more than RFC 3339 (a date alone, no zone, prose); and not a leap second.
    onlyCodec: ["2020-01-01", "2020-01-01T00:00:00", "March 7 2020"],
    onlySchema: ["1990-12-31T23:59:60Z"],
  },
  {
    name: "NumberFromString",
    codec: NumberFromString,
    schema: { type: "string", pattern: expect.any(String) },
    accepts: ["1", "-1.5", " 2 ", ".5", "1.", "1e3", "-1E-3", "Infinity", "+Infinity", "0x1F", "0b101", "0o17"],
    refuses: ["", " ", "a", "1a", "1_000", "-0x1", "NaN", "e3", ".", 1, null],
  },
  {
    name: "IntFromString",
    codec: IntFromString,
    schema: { type: "string", pattern: expect.any(String) },
    accepts: ["1", "-12", " 3 ", "9".repeat(308)],
    refuses: ["1.5", "a", "", "9".repeat(309), 1],
    // Integer values in other spellings: the pattern gives digits only.
    onlyCodec: ["1e3", "1.0", "0x10", "0".repeat(400) + "1"],
  },
  {
    name: "BigIntFromString",
    codec: BigIntFromString,
    schema: { type: "string", pattern: expect.any(String) },
    accepts: ["1", "-12", "+3", " 4 ", "0x1f", "0b1", "0o7", "9".repeat(400)],
    refuses: ["", " ", "1.5", "1e3", "-0x1", "0x", "a", 1],
  },
  {
    name: "BooleanFromString",
    codec: BooleanFromString,
    schema: { type: "string", enum: ["true", "false"] },
    accepts: ["true", "false"],
    refuses: ["TRUE", "1", true],
  },
  {
    name: "BooleanFromNumber",
    codec: BooleanFromNumber,
    schema: { type: "number" },
    accepts: [0, 1, -2.5],
    refuses: [true, "1"],
  },
  {
    name: "DateFromNumber",
    codec: DateFromNumber,
    schema: { type: "number", minimum: -8.64e15, maximum: 8.64e15 },
    accepts: [0, 1.5, -8.64e15, 8.64e15],
    refuses: [8.64e15 + 1, -8.64e15 - 1, "0", null],
  },
  {
    name: "DateFromUnixTime",
    codec: DateFromUnixTime,
    schema: { type: "integer", minimum: -8.64e12, maximum: 8.64e12 },
    accepts: [0, -1, 8.64e12, -8.64e12],
    refuses: [1.5, 8.64e12 + 1, "0"],
  },
  {
    name: "NonEmptyString",
    codec: NonEmptyString,
    schema: { type: "string", minLength: 1 },
    accepts: ["a", " "],
    refuses: ["", 1],
  },
  {
    name: "UUID",
    codec: UUID,
    schema: { type: "string", format: "uuid", pattern: expect.any(String) },
    accepts: [uuid, uuid.toUpperCase()],
    // ajv-formats' `uuid` alone would take the `urn:uuid:` prefix, which io-ts-types refuses.
    refuses: [`urn:uuid:${uuid}`, uuid.slice(1), "", 1],
  },
  // JsonFromString JSON.parse()s whatever it is given, so it takes numbers too; the wire form is a string.
  {
    name: "JsonFromString",
    codec: JsonFromString,
    schema: { type: "string", contentMediaType: "application/json" },
    accepts: ['{"a":1}', "1"],
    refuses: [{}],
    onlyCodec: [1, null],
    onlySchema: ["{"],
  },
  {
    name: "io-ts-types inside a type: the wire form of each prop",
    codec: t.type({ at: DateFromISOString, n: NumberFromString, when: optionFromNullable(t.string) }),
    schema: {
      type: "object",
      properties: {
        at: { type: "string", format: "date-time" },
        n: { type: "string", pattern: expect.any(String) },
        when: { description: "Option<string>" },
      },
      required: ["at", "n"],
    },
    accepts: [
      { at: "2020-01-01T00:00:00Z", n: "1" },
      { at: "2020-01-01T00:00:00Z", n: "1", when: null },
    ],
    refuses: [{ at: "x", n: "1" }, { at: "2020-01-01T00:00:00Z", n: 1 }, { n: "1" }],
    // optionFromNullable is not one the module knows: anything validates.
    onlySchema: [{ at: "2020-01-01T00:00:00Z", n: "1", when: 1 }],
  },
];

describe("the schema of each codec kind", () => {
  test.each(rows.map((row) => [row.name, row] as const))("%s", (_name, row) => {
    const schema = toJsonSchema(row.codec);
    expect(schema).toEqual(row.schema);
    expect(ajv.validateSchema(schema)).toBe(true);
    // The lists are about the codec first: a wrong list would make the schema checks meaningless.
    expect(row.accepts.filter((value) => !decodes(row.codec, value))).toEqual([]);
    expect(row.refuses.filter((value) => decodes(row.codec, value))).toEqual([]);
    expect((row.onlyCodec ?? []).filter((value) => !decodes(row.codec, value))).toEqual([]);
    expect((row.onlySchema ?? []).filter((value) => decodes(row.codec, value))).toEqual([]);
    expect(row.accepts.filter((value) => !validates(schema, value))).toEqual([]);
    expect(row.refuses.filter((value) => validates(schema, value))).toEqual([]);
    expect((row.onlyCodec ?? []).filter((value) => validates(schema, value))).toEqual([]);
    expect((row.onlySchema ?? []).filter((value) => !validates(schema, value))).toEqual([]);
  });

  test("the io-ts-types patterns", () => {
    expect(toJsonSchema(NumberFromString)["pattern"]).toBe(
      "^\\s*(?:[+-]?(?:Infinity|(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+)\\s*$",
    );
    expect(toJsonSchema(IntFromString)["pattern"]).toBe("^\\s*[+-]?\\d{1,308}\\s*$");
    expect(toJsonSchema(BigIntFromString)["pattern"]).toBe(
      "^\\s*(?:[+-]?\\d+|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+)\\s*$",
    );
    expect(toJsonSchema(UUID)["pattern"]).toBe(
      "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
    );
  });

  // ajv skips a `__proto__` entry of `properties`, so this one is checked on the schema alone.
  test("a prop named __proto__ is an own property of `properties`, not its prototype", () => {
    const codec = t.type(Object.defineProperty({}, "__proto__", { value: t.string, enumerable: true }) as t.Props);
    const schema = toJsonSchema(codec);
    const properties = schema["properties"] as object;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(properties, "__proto__")?.value).toEqual({ type: "string" });
    expect(schema["required"]).toEqual(["__proto__"]);
  });

  test("a codec that only decodes undefined makes no prop required, whatever its kind", () => {
    expect(toJsonSchema(t.type({ a: t.undefined, b: t.void, c: t.union([t.null, t.undefined]) }))).toEqual({
      type: "object",
      properties: { a: { not: {} }, b: { not: {} }, c: { type: "null" } },
    });
  });
});

describe("codecs it cannot describe", () => {
  test("a codec it does not know becomes { description: name }", () => {
    const Mystery = new t.Type<string>(
      "Mystery",
      (u): u is string => typeof u === "string",
      (u, c) => (typeof u === "string" ? t.success(u) : t.failure(u, c)),
      t.identity,
    );
    expect(toJsonSchema(Mystery)).toEqual({ description: "Mystery" });
    expect(toJsonSchema(t.array(Mystery))).toEqual({ type: "array", items: { description: "Mystery" } });
  });

  test("a tag it does not know, or a member that throws, is described by name, without an exception", () => {
    const odd = { name: "Odd", _tag: "SomethingNew" } as unknown as t.Any;
    expect(toJsonSchema(odd)).toEqual({ description: "Odd" });
    const throwing = {
      name: "Throwing",
      _tag: "InterfaceType",
      get props(): never {
        throw new Error("no props");
      },
    } as unknown as t.Any;
    expect(toJsonSchema(throwing)).toEqual({ description: "Throwing" });
    expect(toJsonSchema(t.type({ a: throwing }))).toEqual({
      type: "object",
      properties: { a: { description: "Throwing" } },
      required: ["a"],
    });
  });

  test("a cycle that does not go through t.recursion ends where it closes", () => {
    const props: Record<string, t.Any> = {};
    const Loop = t.type(props);
    props["self"] = Loop;
    expect(toJsonSchema(Loop)).toEqual({
      type: "object",
      properties: { self: { description: Loop.name } },
      required: ["self"],
    });
  });

  test("a recursion that makes a new codec at every level stops at a depth limit", () => {
    const deeper = (n: number): t.Any => t.recursion(`Level${n}`, () => t.array(deeper(n + 1)));
    const schema = toJsonSchema(deeper(0));
    const definitions = schema["definitions"] as Record<string, JsonSchema>;
    const count = Object.keys(definitions).length;
    expect(count).toBeGreaterThan(10);
    expect(count).toBeLessThan(100);
    expect(ajv.validateSchema(schema)).toBe(true);
    expect(validates(schema, [[[]]])).toBe(true);
    expect(validates(schema, [1])).toBe(false);
  });
});

describe("recursion", () => {
  test("a recursive codec validates a nested value, and refuses a bad one deep inside", () => {
    const schema = toJsonSchema(Tree);
    let deep: Tree = { value: 0, children: [] };
    for (let i = 1; i < 50; i++) deep = { value: i, children: [deep, { value: -i, children: [] }] };
    expect(decodes(Tree, deep)).toBe(true);
    expect(validates(schema, deep)).toBe(true);
    const bad = JSON.parse(JSON.stringify(deep).replace('"value":0', '"value":"0"')) as unknown;
    expect(decodes(Tree, bad)).toBe(false);
    expect(validates(schema, bad)).toBe(false);
  });

  test("a recursive codec used twice is defined once; a different one with the same name gets its own key", () => {
    const Other = t.recursion("Tree", (self: t.Any) => t.union([t.string, t.array(self)]));
    const schema = toJsonSchema(t.type({ a: Tree, b: Tree, c: Other }));
    expect(schema).toEqual({
      type: "object",
      properties: {
        a: { $ref: "#/definitions/Tree" },
        b: { $ref: "#/definitions/Tree" },
        c: { $ref: "#/definitions/Tree_2" },
      },
      required: ["a", "b", "c"],
      definitions: {
        Tree: treeDefinition,
        Tree_2: { anyOf: [{ type: "string" }, { type: "array", items: { $ref: "#/definitions/Tree_2" } }] },
      },
    });
    const value = { a: { value: 1, children: [] }, b: { value: 2, children: [] }, c: ["x", ["y"]] };
    expect(validates(schema, value)).toBe(true);
    expect(validates(schema, { ...value, c: ["x", [1]] })).toBe(false);
  });

  test("mutually recursive codecs, and a name that is not a valid key", () => {
    // io-ts-types' Json: a union of JsonArray and JsonRecord, each recursive through the union.
    expect(toJsonSchema(Json)).toEqual({
      anyOf: [
        { type: "boolean" },
        { type: "number" },
        { type: "string" },
        { type: "null" },
        { $ref: "#/definitions/JsonArray" },
        { $ref: "#/definitions/JsonRecord" },
      ],
      definitions: {
        JsonArray: { type: "array", items: { anyOf: expect.any(Array) } },
        JsonRecord: { type: "object", additionalProperties: { anyOf: expect.any(Array) } },
      },
    });
    const Generic = t.recursion("List<number>", (self: t.Any) => t.union([t.null, t.tuple([t.number, self])]));
    const schema = toJsonSchema(Generic);
    expect(schema["$ref"]).toBe("#/definitions/List_number_");
    expect(validates(schema, [1, [2, null]])).toBe(true);
    expect(validates(schema, [1, [2, 3]])).toBe(false);
  });
});

describe("schemaIn", () => {
  test("puts the definition in components and refers to #/components/schemas/<Name>", () => {
    const components: Record<string, JsonSchema> = {};
    expect(schemaIn(Tree, components)).toEqual({ $ref: "#/components/schemas/Tree" });
    expect(schemaIn(t.array(Tree), components)).toEqual({
      type: "array",
      items: { $ref: "#/components/schemas/Tree" },
    });
    expect(Object.keys(components)).toEqual(["Tree"]);
    expect(components["Tree"]).toEqual({
      ...treeDefinition,
      properties: {
        ...treeDefinition.properties,
        children: { type: "array", items: { $ref: "#/components/schemas/Tree" } },
      },
    });
    // As in an OpenRPC document: the reference resolves against `components.schemas` at the root.
    const document = { ...schemaIn(t.array(Tree), components), components: { schemas: components } };
    expect(validates(document, [{ value: 1, children: [{ value: 2, children: [] }] }])).toBe(true);
    expect(validates(document, [{ value: 1, children: [{ value: 2 }] }])).toBe(false);
  });

  test("a name already taken in components by something else gets a suffix", () => {
    const components: Record<string, JsonSchema> = { Tree: { type: "string" } };
    expect(schemaIn(Tree, components)).toEqual({ $ref: "#/components/schemas/Tree_2" });
    expect(components["Tree"]).toEqual({ type: "string" });
    expect(Object.keys(components)).toEqual(["Tree", "Tree_2"]);
  });

  test("a non-recursive codec leaves components alone", () => {
    const components: Record<string, JsonSchema> = {};
    expect(schemaIn(t.type({ a: t.string }), components)).toEqual(toJsonSchema(t.type({ a: t.string })));
    expect(components).toEqual({});
  });
});

/** A JSON value, or one of `value`'s: so that generated values often, but not always, fit. */
const mostly = <T>(value: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof(value, value, fc.jsonValue());
const double = fc.double({ noNaN: true, noDefaultInfinity: true });
const whitespace = fc.constantFrom("", " ", "\t", "\n", "\u00a0", "\ufeff", "\u2028", "\u3000", "\u180e");

describe("properties: the schema validates exactly what the codec decodes", () => {
  const agree = (codec: t.Decoder<unknown, unknown> | t.Any, values: fc.Arbitrary<unknown>) => {
    const schema = toJsonSchema(codec);
    fc.assert(
      fc.property(values, (value) => validates(schema, value) === decodes(codec, value)),
      runs,
    );
  };

  test("Json, over any JSON value", () => {
    agree(Json, fc.jsonValue());
  });

  test("an object with required, optional, keyof and array props", () => {
    const Person = t.type({
      name: t.string,
      age: t.union([t.number, t.undefined]),
      role: t.keyof({ admin: null, user: null }),
      tags: t.array(t.string),
    });
    const fields = fc.record(
      {
        name: mostly(fc.string()),
        age: mostly(double),
        role: mostly(fc.constantFrom("admin", "user", "root", "toString")),
        tags: mostly(fc.array(fc.string(), { maxLength: 3 })),
      },
      { requiredKeys: [] },
    );
    const extra = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 });
    agree(
      Person,
      fc.oneof(
        fc.jsonValue(),
        fc.tuple(extra, fields).map(([e, f]) => ({ ...e, ...f })),
      ),
    );
  });

  test("a recursive tree", () => {
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.jsonValue({ maxDepth: 1 }),
        fc.record(
          { value: mostly(double), children: fc.oneof(fc.array(tie("tree"), { maxLength: 3 }), fc.jsonValue()) },
          { requiredKeys: [] },
        ),
        fc.record({ value: double, children: fc.array(tie("tree"), { maxLength: 3 }) }),
      ),
    }));
    agree(Tree, tree);
  });

  test("an intersection of type and partial, with Int and DateFromNumber", () => {
    const Item = t.intersection([t.type({ id: t.Int }), t.partial({ note: t.string, when: DateFromNumber })]);
    const id = fc.oneof(fc.integer(), double);
    const when = fc.oneof(double, fc.constantFrom(8.64e15, 8.64e15 + 1, -8.64e15, -8.64e15 - 1));
    const fields = fc.record({ id: mostly(id), note: mostly(fc.string()), when: mostly(when) }, { requiredKeys: [] });
    agree(Item, fc.oneof(fc.jsonValue(), fields));
  });

  test("a union of null, literals and a record", () => {
    const Value = t.union([
      t.null,
      t.keyof({ on: null, off: null }),
      t.record(t.string, t.union([t.boolean, t.literal(0)])),
    ]);
    const values = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom("on", "off", "auto"),
      fc.dictionary(fc.string(), fc.oneof(fc.boolean(), fc.constantFrom(0, 1, "0", null)), { maxKeys: 3 }),
    );
    agree(Value, values);
  });

  test("NumberFromString and BigIntFromString, over numeric-looking strings", () => {
    const sign = fc.constantFrom("", "+", "-");
    const digits = fc.stringMatching(/^\d{0,4}$/);
    const decimal = fc
      .tuple(
        whitespace,
        sign,
        digits,
        fc.constantFrom("", "."),
        digits,
        fc.constantFrom("", "e", "E-", "e+"),
        digits,
        whitespace,
      )
      .map((parts) => parts.join(""));
    const radix = fc
      .tuple(
        whitespace,
        sign,
        fc.constantFrom("0x", "0X", "0o", "0b", "0B"),
        fc.stringMatching(/^[0-9a-fA-F]{0,4}$/),
        whitespace,
      )
      .map((parts) => parts.join(""));
    const special = fc.constantFrom("Infinity", "-Infinity", "+Infinity", "infinity", "NaN", "1_000", "", " ");
    const strings = fc.oneof(decimal, radix, special, fc.string(), double.map(String), fc.bigInt().map(String));
    agree(NumberFromString, strings);
    agree(BigIntFromString, strings);
  });

  test("BooleanFromString, UUID, NonEmptyString, DateFromUnixTime", () => {
    agree(BooleanFromString, fc.oneof(fc.constantFrom("true", "false", "True", " true"), fc.jsonValue()));
    agree(
      UUID,
      fc.oneof(
        fc.uuid(),
        fc.uuid().map((u) => u.toUpperCase()),
        fc.uuid().map((u) => `urn:uuid:${u}`),
        fc.string(),
      ),
    );
    agree(NonEmptyString, fc.oneof(fc.string({ maxLength: 2 }), fc.jsonValue()));
    agree(
      DateFromUnixTime,
      fc.oneof(fc.integer(), double, fc.constantFrom(8.64e12, 8.64e12 + 1, -8.64e12, -8.64e12 - 1), fc.jsonValue()),
    );
  });
});

describe("properties: one direction, where the two cannot agree exactly", () => {
  // exact/strict and tuples: io-ts strips unknown properties and extra elements instead of refusing
  // them, while the schema describes the wire form without them. So: what the schema validates,
  // the codec decodes; and what the codec encodes, the schema validates.
  test("exact: the schema's values decode, and the codec's encodings validate", () => {
    const Point = t.exact(t.type({ x: t.number, y: t.number, label: t.union([t.string, t.undefined]) }));
    const schema = toJsonSchema(Point);
    const fields = fc.record(
      { x: mostly(double), y: mostly(double), label: mostly(fc.string()) },
      { requiredKeys: [] },
    );
    const extra = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 });
    const values = fc.oneof(
      fc.jsonValue(),
      fields,
      fc.tuple(extra, fields).map(([e, f]) => ({ ...e, ...f })),
    );
    fc.assert(
      fc.property(values, (value) => !validates(schema, value) || decodes(Point, value)),
      runs,
    );
    const points = fc
      .record({ x: double, y: double, label: fc.option(fc.string(), { nil: undefined }), z: fc.string() })
      .map((p): t.TypeOf<typeof Point> => p);
    fc.assert(
      fc.property(points, (point) => validates(schema, Point.encode(point))),
      runs,
    );
  });

  test("tuple: the schema's values decode", () => {
    const Pair = t.tuple([t.string, t.Int]);
    const schema = toJsonSchema(Pair);
    const values = fc.oneof(fc.jsonValue(), fc.array(fc.oneof(fc.string(), fc.integer(), double), { maxLength: 4 }));
    fc.assert(
      fc.property(values, (value) => !validates(schema, value) || decodes(Pair, value)),
      runs,
    );
  });

  // IntFromString takes any numeric string with an integer value ("1e3", "0x10"); the pattern takes
  // only digits, at most 308 of them so that the value never overflows to Infinity.
  test("IntFromString: the schema's strings decode, and safe integers' encodings validate", () => {
    const schema = toJsonSchema(IntFromString);
    const strings = fc.oneof(
      fc.string(),
      fc.stringMatching(/^\s?[+-]?\d{300,320}$/),
      fc.constantFrom("1e3", "1.0", "0x10", "1.5"),
      fc.integer().map(String),
    );
    fc.assert(
      fc.property(strings, (value) => !validates(schema, value) || decodes(IntFromString, value)),
      runs,
    );
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => validates(schema, IntFromString.encode(n as t.Int))),
      runs,
    );
  });

  // Refinements: JSON Schema cannot state an arbitrary predicate, so the schema only describes the
  // base; what the codec decodes, the schema validates.
  test("a brand: the codec's values validate", () => {
    const schema = toJsonSchema(Positive);
    fc.assert(
      fc.property(fc.oneof(double, fc.jsonValue()), (value) => !decodes(Positive, value) || validates(schema, value)),
      runs,
    );
  });

  // DateFromISOString: `new Date(s)` takes more than RFC 3339, and refuses a leap second that RFC 3339
  // allows; but what the codec encodes, `toISOString()`, is a valid date-time for the years 0 to 9999.
  // Outside them it writes an expanded year ("+010000-01-01T..."), which RFC 3339 has no room for.
  test("DateFromISOString: the codec's encodings validate and decode, for four-digit years", () => {
    const schema = toJsonSchema(DateFromISOString);
    expect(validates(schema, DateFromISOString.encode(new Date("+010000-01-01T00:00:00.000Z")))).toBe(false);
    const dates = fc.date({
      min: new Date("0000-01-01T00:00:00.000Z"),
      max: new Date("9999-12-31T23:59:59.999Z"),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(dates, (date) => {
        const wire = DateFromISOString.encode(date);
        return validates(schema, wire) && decodes(DateFromISOString, wire);
      }),
      runs,
    );
  });
});
