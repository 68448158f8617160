/**
 * Serializing responses to JSON text.
 *
 * The default serializer is `JSON.stringify` that refuses what JSON cannot hold: NaN and
 * Infinity (which `JSON.stringify` would silently write as `null`), BigInts and cycles (which it
 * throws on). Each response is serialized on its own, so one that fails becomes -32603 and the
 * rest of a batch is sent as usual.
 *
 * @module
 */
import { ERROR_INTERNAL_ERROR } from "./codes";
import { messageOf } from "./describe";
import { logSafely } from "./logger";
import type { Id } from "./request";
import { toDict, type Response } from "./response";
import { NODATA } from "./sentinels";

const refuseNonFinite = (_key: string, value: unknown): unknown => {
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError(`${String(value)} is not allowed in JSON`);
  }
  return value;
};

/**
 * JSON text of `value`, refusing NaN, Infinity, BigInt and cycles with a `TypeError`, and a value
 * that has no JSON form at all (a function, a symbol, `undefined`).
 *
 * Why the second pass: NaN and Infinity come out of `JSON.stringify` as `null`, so text without
 * `null` in it cannot have held one, and only text that has `null` pays for the checking replacer.
 *
 * @example
 * import { serialize } from "rpcserver";
 * serialize({ a: 1 }); // '{"a":1}'
 * // serialize({ a: NaN }) throws a TypeError ("NaN is not allowed in JSON"), where JSON.stringify writes null.
 *
 * @since 5.0.10
 * @category serialization
 */
export const serialize = (value: unknown): string => {
  // Primitives first: ids, codes, messages and most results are, and `null` must not send its own
  // text through the checking replacer.
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      if (Number.isFinite(value)) return JSON.stringify(value);
      throw new TypeError(`${String(value)} is not allowed in JSON`);
    case "boolean":
      return value ? "true" : "false";
  }
  if (value === null) return "null";
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) throw new TypeError(`a ${typeof value} has no JSON form`);
  return text.includes("null") ? JSON.stringify(value, refuseNonFinite) : text;
};

/** Where `serializer` was left at its default, responses are written without building dicts. */
const HEAD_SUCCESS = '{"jsonrpc":"2.0","result":';
const HEAD_ERROR = '{"jsonrpc":"2.0","error":{"code":';

const writeDefault = (response: Response): string => {
  if (response._tag === "Right") {
    const { result, id } = response.right;
    return `${HEAD_SUCCESS}${result === undefined ? "null" : serialize(result)},"id":${serialize(id)}}`;
  }
  const { code, message, data, id } = response.left;
  const tail = data === NODATA || data === undefined ? "" : `,"data":${serialize(data)}`;
  return `${HEAD_ERROR}${serialize(code)},"message":${serialize(message)}${tail}},"id":${serialize(id)}}`;
};

/** An id that the serializer could not write, written as best it can be; never throws. */
const lastResortId = (id: Id | null): string =>
  typeof id === "string"
    ? JSON.stringify(id)
    : typeof id === "number" && Number.isFinite(id)
      ? String(id)
      : typeof id === "bigint"
        ? id.toString()
        : "null";

/** A serializer's output must be text: it is joined into a batch and sent. */
const asText = (output: unknown): string => {
  if (typeof output !== "string") throw new TypeError(`the serializer returned a ${typeof output}, not a string`);
  return output;
};

const write = (serializer: ((value: unknown) => string) | undefined, response: Response): string =>
  serializer === undefined ? writeDefault(response) : asText(serializer(toDict(response)));

/**
 * One response as JSON text. If the serializer fails, the response becomes -32603 with the same
 * id (the reason in `data` only under `debug`), written by the same serializer and, if that fails
 * too, by a fixed writer that cannot.
 */
export const writeResponse = (
  serializer: ((value: unknown) => string) | undefined,
  debug: boolean,
  response: Response,
): string => {
  try {
    return write(serializer, response);
  } catch (thrown) {
    const id = response._tag === "Right" ? response.right.id : response.left.id;
    const reason = messageOf(thrown);
    // The id and the reason may quote what a client sent: the site says neither, for sampling.
    logSafely(
      `rpcserver: the response to request ${lastResortId(id)} could not be serialized: ${reason}`,
      undefined,
      "rpcserver: a response could not be serialized",
    );
    try {
      return write(serializer, {
        _tag: "Left",
        left: { code: ERROR_INTERNAL_ERROR, message: "Internal error", data: debug ? reason : NODATA, id },
      });
    } catch {
      return `${HEAD_ERROR}${ERROR_INTERNAL_ERROR},"message":"Internal error"},"id":${lastResortId(id)}}`;
    }
  }
};

/** Every response as JSON text: one object, an array for a batch, `""` when nothing to send. */
export const writeAll = (
  serializer: ((value: unknown) => string) | undefined,
  debug: boolean,
  responses: Response | ReadonlyArray<Response> | undefined,
): string => {
  if (responses === undefined) return "";
  if (!Array.isArray(responses)) return writeResponse(serializer, debug, responses as Response);
  let text = "[";
  for (let i = 0; i < responses.length; i++) {
    if (i > 0) text += ",";
    text += writeResponse(serializer, debug, responses[i] as Response);
  }
  return `${text}]`;
};
