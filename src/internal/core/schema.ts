/**
 * Standard Schema: any schema library's validators (zod, valibot, ArkType, Effect Schema...)
 * beside io-ts codecs, recognised by their `~standard` member (Standard Schema v1).
 *
 * - a schema is turned once, when a method is given it, into an io-ts-shaped codec (its
 *   `decode`, `encode` and `is`), so the pipeline keeps one code path and io-ts codecs keep theirs;
 * - a failure is reported as io-ts failures are: one line per issue, its path joined as io-ts paths
 *   are (`params[0].name`), then its message;
 * - `validate` may answer a Promise: `decode` then answers a Promise too, which async dispatch
 *   waits for and sync dispatch refuses; `is`, which must answer at once, answers `false` and
 *   handles the Promise it drops, so that its rejection is never unhandled.
 *
 * The interfaces below are copied from `@standard-schema/spec` 1.1.0, as the specification
 * invites, so the package has no dependency for them.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type * as t from "io-ts";
import { isObject, isRecord, isThenable } from "./guards";
import { report } from "./params";

/**
 * A Standard Schema v1 (`@standard-schema/spec` 1.1.0): a validator of any schema library that
 * implements the specification (zod 3.24+, valibot 1, ArkType 2, Effect Schema through its
 * standard adapter). Methods, contracts and the `validator` option take one wherever they take an
 * io-ts codec.
 *
 * @example
 * import type { StandardSchemaV1 } from "rpcserver";
 * const positive: StandardSchemaV1<number> = {
 *   "~standard": {
 *     version: 1,
 *     vendor: "mine",
 *     validate: (value) =>
 *       typeof value === "number" && value > 0 ? { value } : { issues: [{ message: "expected a positive number" }] },
 *   },
 * };
 * positive["~standard"].validate(2); // { value: 2 }
 * positive["~standard"].validate(-1); // { issues: [{ message: "expected a positive number" }] }
 *
 * @since 5.0.10
 * @category schemas
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

/**
 * The members of {@link StandardSchemaV1}, as the specification names them.
 *
 * @since 5.0.10
 * @category schemas
 */
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace StandardSchemaV1 {
  /** What a schema's `~standard` member holds. */
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    /** Checks a value: its (possibly transformed) value, or its issues; a Promise of either when async. */
    readonly validate: (value: unknown, options?: Options) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  /** What `validate` answers. */
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  /** A value accepted, as the schema gives it back (possibly transformed). */
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  /** Options of `validate`. */
  export interface Options {
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  /** A value refused, with why. */
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  /** One reason a value was refused, and where. */
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  /** One step of an issue's path. */
  export interface PathSegment {
    readonly key: PropertyKey;
  }
  /** The types a schema takes and gives. */
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  /** The type a schema takes. */
  export type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  /** The type a schema gives. */
  export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}

/**
 * A Standard JSON Schema v1 (`@standard-schema/spec` 1.1.0): a schema that can describe itself as
 * a JSON Schema. OpenRPC documents and `toJsonSchema` read it when a schema has it.
 *
 * @example
 * import type { StandardJSONSchemaV1 } from "rpcserver";
 * const anything: StandardJSONSchemaV1 = {
 *   "~standard": { version: 1, vendor: "mine", jsonSchema: { input: () => ({}), output: () => ({}) } },
 * };
 *
 * @since 5.0.10
 * @category schemas
 */
export interface StandardJSONSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: StandardSchemaV1.Types<Input, Output> | undefined;
    readonly jsonSchema: {
      /** The JSON Schema of the values the schema takes. */
      readonly input: (options: {
        readonly target: string;
        readonly libraryOptions?: Record<string, unknown> | undefined;
      }) => Record<string, unknown>;
      /** The JSON Schema of the values the schema gives. */
      readonly output: (options: {
        readonly target: string;
        readonly libraryOptions?: Record<string, unknown> | undefined;
      }) => Record<string, unknown>;
    };
  };
}

/**
 * What a method takes to check a value: an io-ts codec or a Standard Schema.
 *
 * @since 5.0.10
 * @category schemas
 */
export type Schema = t.Any | StandardSchemaV1;

/**
 * The type a schema gives a handler: an io-ts codec's `TypeOf`, a Standard Schema's output.
 *
 * @example
 * import type * as t from "io-ts";
 * import type { TypeOfSchema } from "rpcserver";
 * type N = TypeOfSchema<t.NumberC>; // number
 *
 * @since 5.0.10
 * @category schemas
 */
export type TypeOfSchema<S> = S extends t.Any
  ? t.TypeOf<S>
  : S extends StandardSchemaV1
    ? StandardSchemaV1.InferOutput<S>
    : never;

/**
 * The type a schema takes from the wire: an io-ts codec's `OutputOf` (its encoded form), a
 * Standard Schema's input.
 *
 * @since 5.0.10
 * @category schemas
 */
export type WireOfSchema<S> = S extends t.Any
  ? t.OutputOf<S>
  : S extends StandardSchemaV1
    ? StandardSchemaV1.InferInput<S>
    : never;

/**
 * What a handler hands a result schema: an io-ts codec's `TypeOf` (it encodes it), a Standard
 * Schema's input (it checks, and may transform, it).
 *
 * @since 5.0.10
 * @category schemas
 */
export type ResultOfSchema<S> = S extends t.Any
  ? t.TypeOf<S>
  : S extends StandardSchemaV1
    ? StandardSchemaV1.InferInput<S>
    : never;

/**
 * Is `value` a Standard Schema v1: a `~standard` member of version 1 with a `validate` function?
 *
 * @example
 * import * as t from "io-ts";
 * import { isStandardSchema } from "rpcserver";
 * isStandardSchema(t.number); // false
 *
 * @since 5.0.10
 * @category schemas
 */
export const isStandardSchema = (value: unknown): value is StandardSchemaV1 => {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props = (value as { "~standard"?: unknown })["~standard"];
  return (
    typeof props === "object" &&
    props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === "function"
  );
};

/**
 * A Standard Schema's own JSON Schema (`StandardJSONSchemaV1`) of what it takes (`input`) or gives
 * (`output`), draft-07, when it has one; `undefined` when it has none, answers something other than
 * an object, or throws (describing never throws). Read by the document and by the client. @internal
 */
export const jsonSchemaOf = (
  schema: StandardSchemaV1,
  side: "input" | "output",
): Readonly<Record<string, unknown>> | undefined => {
  try {
    const convert = (schema["~standard"] as Partial<StandardJSONSchemaV1["~standard"]>).jsonSchema?.[side];
    const described: unknown = typeof convert === "function" ? convert({ target: "draft-07" }) : undefined;
    return isRecord(described) ? described : undefined;
  } catch {
    return undefined;
  }
};

const STANDARD = Symbol.for("rpcserver.standardSchema");

/** The issues a schema refused a value with: the Left of a standard codec's `decode`. @internal */
export type Issues = ReadonlyArray<StandardSchemaV1.Issue>;

/**
 * A Standard Schema in an io-ts codec's shape: `decode` answers an Either of the issues (or a
 * Promise of one, when `validate` does), `encode` checks a result and answers the schema's value
 * (throwing a {@link SchemaRefused} when it refuses it), `is` whether `validate` accepts a value at
 * once (`false` when it answers a Promise, whose rejection is handled, never left unhandled). @internal
 */
export interface StandardCodec {
  readonly [STANDARD]: StandardSchemaV1;
  readonly _tag: "StandardSchema";
  readonly name: string;
  readonly decode: (value: unknown) => E.Either<Issues, unknown> | Promise<E.Either<Issues, unknown>>;
  readonly encode: (value: unknown) => unknown;
  readonly is: (value: unknown) => boolean;
}

/** The schema a standard codec was made from, if `codec` is one. @internal */
export const standardOf = (codec: unknown): StandardSchemaV1 | undefined =>
  (typeof codec === "object" || typeof codec === "function") && codec !== null
    ? (codec as { [STANDARD]?: StandardSchemaV1 })[STANDARD]
    : undefined;

const refusals = new WeakSet<object>();

/**
 * Thrown by a standard codec's `encode` (or its Promise rejected with it) when the schema refuses a
 * result, or by a stream's encoding when it refuses a streamed value (`of` says which). @internal
 */
export class SchemaRefused extends globalThis.Error {
  constructor(
    readonly lines: readonly string[],
    readonly of: "result" | "stream" = "result",
  ) {
    super(lines.join("; "));
    this.name = "SchemaRefused";
    refusals.add(this);
  }
}

/** Is `value` a {@link SchemaRefused}? A WeakSet, not `instanceof`: what a method throws may be a Proxy whose traps throw. @internal */
export const isSchemaRefused = (value: unknown): value is SchemaRefused => isObject(value) && refusals.has(value);

const fromResult = (result: StandardSchemaV1.Result<unknown>): E.Either<Issues, unknown> =>
  result.issues === undefined ? E.right(result.value) : E.left(result.issues);

/**
 * A schema's `validate` answer as an Either, or a Promise of one. A sync answer has `issues` or
 * `value` and a Promise has neither, so the common answer is read with the two reads it needs
 * (measured: a `then` read first cost 2-3% of a dispatch).
 */
const decoding = (
  schema: StandardSchemaV1,
  value: unknown,
): E.Either<Issues, unknown> | Promise<E.Either<Issues, unknown>> => {
  const result = schema["~standard"].validate(value);
  const issues = (result as StandardSchemaV1.Result<unknown>).issues;
  if (issues !== undefined) return E.left(issues);
  if ("value" in result) return E.right(result.value);
  return isThenable(result) ? Promise.resolve(result).then(fromResult) : fromResult(result);
};

/** A result the schema checked: its value, or a {@link SchemaRefused} thrown with its lines. */
const encoded = (decoded: E.Either<Issues, unknown>): unknown => {
  if (E.isLeft(decoded)) throw new SchemaRefused(issueLines(decoded.left, "result"));
  return decoded.right;
};

/**
 * A Standard Schema as a codec the pipeline runs (made once, when a method is given it); io-ts
 * codecs (anything without `~standard`) are returned as given. @internal
 */
export const toCodec = <C>(schema: C): C | StandardCodec => {
  if (!isStandardSchema(schema) || standardOf(schema) !== undefined) return schema;
  const vendor = schema["~standard"].vendor;
  const codec: StandardCodec = {
    [STANDARD]: schema,
    _tag: "StandardSchema",
    name: typeof vendor === "string" ? `${vendor} schema` : "schema",
    decode: (value) => decoding(schema, value),
    encode: (value) => {
      const decoded = decoding(schema, value);
      return isThenable(decoded) ? decoded.then(encoded) : encoded(decoded);
    },
    is: (value) => {
      const decoded = decoding(schema, value);
      if (!isThenable(decoded)) return E.isRight(decoded);
      // `is` answers at once, so an async answer cannot count: false. Its Promise is dropped, and a
      // rejection nobody listens to would be the process's unhandled rejection (which ends Node by
      // default): it gets a handler that does nothing.
      decoded.then(undefined, () => undefined);
      return false;
    },
  };
  return codec;
};

const keyOf = (segment: PropertyKey | StandardSchemaV1.PathSegment): PropertyKey =>
  typeof segment === "object" && segment !== null ? segment.key : segment;

/** One issue as a line: its path from `root`, joined as io-ts paths are, then its message. */
const issueLine = (issue: StandardSchemaV1.Issue, root: string): string => {
  let path = root;
  for (const segment of issue.path ?? []) {
    const key = keyOf(segment);
    path +=
      typeof key === "number" || (typeof key === "string" && /^\d+$/.test(key))
        ? `[${String(key)}]`
        : `.${String(key)}`;
  }
  return `${path}: ${String(issue.message)}`;
};

/** A schema's issues as lines, duplicates removed. @internal */
export const issueLines = (issues: Issues, root: string): string[] => [
  ...new Set(issues.map((issue) => issueLine(issue, root))),
];

/** A failed decode's Left as lines from `root`, whichever kind of codec answered it. @internal */
export const failureLines = (codec: unknown, left: unknown, root: string): string[] =>
  standardOf(codec) === undefined ? report(left as t.Errors, root) : issueLines(left as Issues, root);
