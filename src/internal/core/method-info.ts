/**
 * What a method says about itself: its codecs (params decoded before the call, the result encoded
 * after it) and what its OpenRPC document shows (summary, tags, the errors it may answer with,
 * examples), as `method`, `withCodecs` and a contract take them.
 *
 * @module
 */
import type * as t from "io-ts";
import type { Schema, StandardSchemaV1, TypeOfSchema, WireOfSchema } from "./schema";

/**
 * A tag of a method in its OpenRPC document: a name, or a name and a description.
 *
 * @example
 * import type { MethodTag } from "rpcserver";
 * const tags: MethodTag[] = ["math", { name: "beta", description: "may change" }];
 *
 * @since 5.0.10
 * @category openrpc
 */
export type MethodTag = string | { readonly name: string; readonly description?: string };

/**
 * An application error a method may answer with, as its OpenRPC document lists it: `code`,
 * `message`, and optionally a schema for its `data` (an io-ts codec or a Standard Schema),
 * described as a JSON Schema. A contract's client decodes the `data` of an error of that code with
 * it, and types the error by it (see `DeclaredError` in `rpcserver/client`).
 *
 * @example
 * import * as t from "io-ts";
 * import type { MethodError } from "rpcserver";
 * const notFound: MethodError = { code: 404, message: "No such user", data: t.type({ id: t.number }) };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface MethodError {
  readonly code: number;
  readonly message: string;
  readonly data?: t.Decoder<unknown, unknown> | t.Any | StandardSchemaV1;
}

/**
 * An example call of a method, for its OpenRPC document and the tools that read it (a test runner
 * such as `@open-rpc/test-coverage` sends `params` and expects `result`). Both are in their WIRE
 * form, as JSON carries them: `params` as sent (an array for positional params, an object for
 * named ones), `result` as the response holds it (after the result codec's `encode`).
 *
 * @example
 * import type { MethodExample } from "rpcserver";
 * const example: MethodExample<[number, number], number> = { name: "one plus two", params: [1, 2], result: 3 };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface MethodExample<P = unknown, A = unknown> {
  readonly name?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly params: P;
  readonly result: A;
}

/**
 * What a method says about itself: its codecs (`params` decodes its params, `result` encodes its
 * result, `stream` each value it streams) and what its OpenRPC document shows (summary, description, tags, deprecated, the errors
 * it may answer with, examples, and names for positional params). All optional.
 *
 * @example
 * import * as t from "io-ts";
 * import type { MethodInfo } from "rpcserver";
 * const info: MethodInfo<t.TupleC<[t.NumberC, t.NumberC]>, t.NumberC> = {
 *   params: t.tuple([t.number, t.number]),
 *   result: t.number,
 *   summary: "Adds two numbers",
 *   paramNames: ["a", "b"],
 *   examples: [{ params: [1, 2], result: 3 }],
 * };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface MethodInfo<C extends Schema = t.Any, R extends Schema = t.UnknownC, S extends Schema = Schema> {
  /** io-ts codec or Standard Schema for the params: they are decoded before the call, and described in the document. */
  readonly params?: C;
  /**
   * io-ts codec for the result: the value in `Success(...)` is encoded by it before it is sent (a
   * `Date` through `DateFromISOString` is sent as ISO text), and it is described in the document.
   * An encode that throws answers that request with -32603. A Standard Schema checks the value
   * (and may transform it) instead; a value it refuses is -32603 with its lines in `data`.
   */
  readonly result?: R;
  /**
   * io-ts codec or Standard Schema for each value the method streams (an `async function*`
   * method's `yield`s), encoded (or checked) as a result is, before a transport that can carry it
   * sends it; shown in the document as `x-stream`. A value it refuses, or an encode that throws,
   * stops the method and answers -32603.
   */
  readonly stream?: S;
  /** A short summary of what the method does. */
  readonly summary?: string;
  /** What the method does, at length (GitHub Markdown). */
  readonly description?: string;
  /** Tags grouping methods in the document. */
  readonly tags?: readonly MethodTag[];
  /** Whether the method is deprecated. */
  readonly deprecated?: boolean;
  /** The application errors the method may answer with. */
  readonly errors?: readonly MethodError[];
  /** Example calls, in their wire form. */
  readonly examples?: ReadonlyArray<MethodExample<WireOfSchema<C>, R extends t.Any ? t.OutputOf<R> : TypeOfSchema<R>>>;
  /** Names of positional params in the document (default `param0`, `param1`...). */
  readonly paramNames?: readonly string[];
}

/**
 * Options of {@link method}: the name to register under, and what {@link MethodInfo} holds: an
 * io-ts codec for the params, one for the result, and the method's documentation.
 *
 * @since 5.0.10
 * @category model
 */
export interface MethodOptions<
  C extends Schema = t.Any,
  R extends Schema = t.UnknownC,
  S extends Schema = Schema,
> extends MethodInfo<C, R, S> {
  readonly name?: string;
}
