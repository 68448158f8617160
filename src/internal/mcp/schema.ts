/**
 * A tool's or a prompt's schema, whichever kind it is given as: an io-ts codec or any Standard
 * Schema (decoded here, its failures as lines naming each failing path; described by `toJsonSchema`),
 * or a JSON Schema as written (2020-12 keywords kept), which the client is shown and nothing here checks.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type * as t from "io-ts";
import { failureLines, isStandardSchema, toCodec, type StandardSchemaV1 } from "../core/schema";
import { isRecord, isThenable } from "../core/guards";
import { toJsonSchema } from "../documents/jsonschema";
import type { JsonSchema } from "../documents/schema-walk";
import type { JsonObject } from "./protocol";

/**
 * A schema the kit takes: an io-ts codec, a Standard Schema, or `{ jsonSchema }`, a JSON Schema
 * kept as written (its values are then not checked).
 *
 * @since 5.0.10
 * @category mcp
 */
export type McpSchema = t.Decoder<unknown, unknown> | StandardSchemaV1 | { readonly jsonSchema: JsonObject };

/** What a schema decodes to: its codec's or Standard Schema's output, anything for a bare JSON Schema. */
export type Decoded<S> =
  S extends t.Decoder<unknown, infer A> ? A : S extends StandardSchemaV1<unknown, infer O> ? O : JsonObject;

const isWritten = (schema: McpSchema): schema is { readonly jsonSchema: JsonObject } =>
  !isStandardSchema(schema) && typeof (schema as { decode?: unknown }).decode !== "function";

/** The JSON Schema a client is shown for `schema`: an object schema, as MCP asks of a tool's. */
export const jsonSchemaFor = (schema: McpSchema | undefined): JsonSchema => {
  if (schema === undefined) return { type: "object", properties: {} };
  if (isWritten(schema)) return schema.jsonSchema;
  const described = toJsonSchema(schema);
  return isRecord(described) && described["type"] === undefined ? { type: "object", ...described } : described;
};

/**
 * A schema's decoder, made once: the value decoded, or the lines naming what failed and where (from
 * `root`); at once when the schema answers at once (io-ts, most Standard Schemas), else a Promise.
 */
export const decoderOf = (
  schema: McpSchema | undefined,
  root: string,
): ((value: unknown) => E.Either<readonly string[], unknown> | Promise<E.Either<readonly string[], unknown>>) => {
  if (schema === undefined || isWritten(schema)) return E.right;
  const codec = toCodec(schema) as {
    decode: (value: unknown) => E.Either<unknown, unknown> | Promise<E.Either<unknown, unknown>>;
  };
  const lines = E.mapLeft((left: unknown) => failureLines(codec, left, root));
  return (value) => {
    const decoded = codec.decode(value);
    return isThenable(decoded) ? Promise.resolve(decoded).then(lines) : lines(decoded);
  };
};
