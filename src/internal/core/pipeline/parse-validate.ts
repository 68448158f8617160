/**
 * Stages 1 and 2 of every request body: `parse` (text or UTF-8 bytes to a value) and `validate`
 * (each request object decoded by the validator), with the forms the composition runs (a validator
 * that answers a Promise, waited for by async dispatch and refused by sync dispatch).
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type * as t from "io-ts";
import { ERROR_INTERNAL_ERROR, ERROR_INVALID_REQUEST, ERROR_PARSE_ERROR } from "../codes";
import { messageOf } from "../describe";
import { logSafely } from "../logger";
import type { Env } from "../options";
import { report } from "../params";
import { requestCodec, requestProblem, type Request } from "../request";
import { ErrorResponse } from "../response";
import { failWith } from "./failures";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * UTF-8 bytes: a Uint8Array (a Buffer is one) of any realm. `instanceof` first: about 6 ns against
 * the internal tag's 100 (a getter), for the bytes of this realm that a Node server (a Buffer) or a
 * NATS message hands over; the tag then finds those of another realm (a `node:vm` context, an
 * iframe). An object that only borrows Uint8Array's prototype passes `instanceof`, and the decoder
 * then refuses it: -32700, as for any body that is not text.
 */
const isBytes = (value: unknown): value is Uint8Array =>
  value instanceof Uint8Array ||
  (ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === "[object Uint8Array]");

/**
 * `JSON.parse` without the stack trace of its SyntaxError: the trace is never shown (only the
 * message goes in `data`) and recording it is most of a parse error's cost. JSON.parse of a string
 * runs no user code, so the limit is restored before anything else can observe it.
 */
const parseJson = (text: string): unknown => {
  const limit = (Error as StackLimit).stackTraceLimit;
  (Error as StackLimit).stackTraceLimit = 0;
  try {
    return JSON.parse(text);
  } finally {
    (Error as StackLimit).stackTraceLimit = limit;
  }
};

/** V8's `Error.stackTraceLimit` (other engines may not have it), typed here: the core compiles without Node's types. */
type StackLimit = { stackTraceLimit?: number | undefined };

/**
 * Stage 1: the request body (text, or UTF-8 bytes) to a value, with `deserializer` (default
 * `JSON.parse`). Anything thrown is -32700 with its message in `data`.
 *
 * @example
 * import { environment, parse } from "rpcserver/pipeline";
 * parse(environment({}, undefined, false))("[1]"); // { _tag: "Right", right: [1] }
 * // A Left: -32700 Parse error, the parser's message in `data`.
 * parse(environment({}, undefined, false))("[1");
 *
 * @since 5.0.10
 * @category stages
 */
export const parse =
  (env: Env) =>
  (body: unknown): E.Either<ErrorResponse, unknown> => {
    try {
      return E.right(parseBody(env, body));
    } catch (thrown) {
      return parseFailure(thrown);
    }
  };

/**
 * Stage 1 as the composition runs it: the value, or what the parse threw. No Right is made for a
 * body that parses, as none is for a request that resolves: one object less per request.
 */
export const parseBody = (env: Env, body: unknown): unknown => {
  const text: unknown = typeof body === "string" || !isBytes(body) ? body : utf8.decode(body);
  if (env.deserializer !== undefined) return env.deserializer(text as string);
  if (typeof text !== "string") throw new TypeError(`the request must be a string or UTF-8 bytes, got ${typeof text}`);
  return parseJson(text);
};

/** What the parse threw, as the answer: -32700 with its message in `data`. */
export const parseFailure = (thrown: unknown): E.Either<ErrorResponse, never> =>
  failWith(ERROR_PARSE_ERROR, "Parse error", messageOf(thrown), null);

/** An io-ts report as `data`: an error's own message where it has one (a custom validator's, the request codec's), else the path. */
const reportOf = (errors: t.Errors): unknown => {
  const lines = errors.map((error) => error.message ?? report([error], "request")[0]);
  return lines.length === 1 ? lines[0] : lines;
};

/** -32600 for a value the validator refused, its report in `data`. */
export const refusal = (report: unknown): E.Either<ErrorResponse, never> =>
  E.left(ErrorResponse(ERROR_INVALID_REQUEST, "Invalid Request", report, null));

const refuse = (validation: t.Validation<Request>): ValidatedRequest =>
  E.isLeft(validation) ? refusal(reportOf(validation.left)) : validation;

/**
 * Stage 2: one request object decoded by the validator (default `requestCodec`): -32600 with the
 * report in `data` when it fails.
 *
 * @example
 * import { environment, validate } from "rpcserver/pipeline";
 * validate(environment({}, undefined, false))({ jsonrpc: "2.0", method: 1 });
 * // { _tag: "Left", left: { code: -32600, message: "Invalid Request", data: "method: must be a string", id: null } }
 *
 * @since 5.0.10
 * @category stages
 */
export const validate = (env: Env): ((value: unknown) => E.Either<ErrorResponse, Request>) => {
  const validated = validating(env);
  return (value) => {
    const request = validated(value);
    return request instanceof Promise ? refusedValidator() : request;
  };
};

/**
 * Stage 2 as the composition runs it: a validator (a Standard Schema) whose `validate` answers a
 * Promise gives a Promise, which never rejects, for async dispatch to wait for. `validate` stays a
 * Kleisli arrow into Either, refusing it as sync dispatch does.
 */
export const validating = (env: Env): ((value: unknown) => ValidatedRequest | Promise<ValidatedRequest>) => {
  const decoder = env.validator;
  if (decoder.waits !== true) return (value) => refuse(decoder.decode(value) as E.Either<t.Errors, Request>);
  return (value) => {
    const decoded = decoder.decode(value);
    return decoded instanceof Promise ? decoded.then(refuse) : refuse(decoded);
  };
};

export type ValidatedRequest = E.Either<ErrorResponse, Request>;

/**
 * The default validator's check itself, when the environment has that validator (`requestCodec`):
 * the composition asks it what is wrong with a value and hands a request on as it is, with no io-ts
 * Validation and no Right made for it. `undefined` for any other validator, which `validating` runs.
 */
export const defaultCheck = (env: Env): ((value: unknown) => string | undefined) | undefined =>
  env.validator === requestCodec ? requestProblem : undefined;

/** Sync dispatch cannot wait for a validator (a Standard Schema) that answers a Promise: -32603 for that request. */
export const refusedValidator = (): E.Either<ErrorResponse, never> => {
  logSafely("rpcserver: the validator returned a Promise to sync dispatch");
  return failWith(ERROR_INTERNAL_ERROR, "Internal error", "The validator returned a Promise; use asyncDispatch", null);
};
