/**
 * Requests: the JSON-RPC 2.0 request object and the io-ts codec that the default validator uses.
 *
 * The rules, the same as `schema/request.schema.json`:
 * - `jsonrpc` is exactly `"2.0"`;
 * - `method` is a string;
 * - `params`, if present, is an array or an object;
 * - `id`, if present, is a string, a finite number (or a `bigint` from a custom deserializer) or
 *   `null`; a request without `id` is a notification;
 * - no other members (io-ts `exact`/`strict` would only strip them, so the codec checks itself).
 *
 * @module
 */
import * as t from "io-ts";

/**
 * A request id: string, number (a `bigint` from a custom deserializer counts as a number) or null.
 *
 * @since 5.0.10
 * @category model
 */
export type Id = string | number | bigint | null;

/**
 * A JSON-RPC 2.0 request object that passed validation.
 *
 * @since 5.0.10
 * @category model
 */
export interface Request {
  readonly jsonrpc: "2.0";
  readonly method: string;
  readonly params?: ReadonlyArray<unknown> | { readonly [key: string]: unknown };
  readonly id?: Id;
}

// Always called as hasOwn.call(object, key), never unbound.
// eslint-disable-next-line @typescript-eslint/unbound-method
const hasOwn = Object.prototype.hasOwnProperty;

const isId = (u: unknown): boolean =>
  u === null || typeof u === "string" || (typeof u === "number" && Number.isFinite(u)) || typeof u === "bigint";

const isParams = (u: unknown): boolean => typeof u === "object" && u !== null;

/**
 * Says what is wrong with `u` as a request, or `undefined` when nothing is. Written by hand, with
 * no allocation on success, because it runs once per request on the hot path: {@link requestCodec}
 * decodes with it, and the composition calls it directly for that default validator.
 * @internal
 */
export const requestProblem = (u: unknown): string | undefined => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return "a request must be an object";
  const r = u as { [key: string]: unknown };
  if (r["jsonrpc"] !== "2.0") return 'jsonrpc: must be exactly "2.0"';
  if (typeof r["method"] !== "string") return "method: must be a string";
  for (const key in r) {
    // The two members read above first: an inherited one is skipped either way, and the builtin
    // call it saves is a tenth of what a notification costs past its JSON.parse.
    if (key === "jsonrpc" || key === "method") continue;
    if (!hasOwn.call(r, key)) continue;
    if (key === "params") {
      if (!isParams(r[key])) return "params: must be an array or an object";
    } else if (key === "id") {
      if (!isId(r[key])) return "id: must be a string, a number or null";
    } else {
      return `${key}: is not a member of a JSON-RPC 2.0 request`;
    }
  }
  return undefined;
};

class RequestCodec extends t.Type<Request, Request, unknown> {
  constructor() {
    super(
      "JsonRpcRequest",
      (u): u is Request => requestProblem(u) === undefined,
      (u, c) => {
        const why = requestProblem(u);
        return why === undefined ? t.success(u as Request) : t.failure(u, c, why);
      },
      t.identity,
    );
  }

  /** `decode` without building an io-ts context unless it fails: it runs once per request. */
  override decode(u: unknown): t.Validation<Request> {
    const why = requestProblem(u);
    return why === undefined ? t.success(u as Request) : t.failure(u, [{ key: "", type: this, actual: u }], why);
  }
}

/**
 * The io-ts codec of a JSON-RPC 2.0 request object: the default validator. A failure carries one
 * error whose `message` says what is wrong (the -32600 response's `data`).
 *
 * @example
 * import { requestCodec } from "rpcserver";
 * requestCodec.is({ jsonrpc: "2.0", method: "ping", id: 1 }); // true
 * requestCodec.is({ jsonrpc: "2.0", method: "ping", extra: 1 }); // false
 *
 * @since 5.0.10
 * @category validation
 */
export const requestCodec: t.Type<Request, Request, unknown> = new RequestCodec();

/**
 * The default validator: throws a `TypeError` saying what is wrong when `value` is not a valid
 * JSON-RPC 2.0 request object. Pass `validator: () => undefined` to turn validation off.
 *
 * @example
 * import { validateRequest } from "rpcserver";
 * // A valid request: it returns; an invalid one throws a TypeError saying what is wrong.
 * validateRequest({ jsonrpc: "2.0", method: "ping" }); // undefined
 *
 * @since 5.0.10
 * @category validation
 */
export const validateRequest = (value: unknown): void => {
  const why = requestProblem(value);
  if (why !== undefined) throw new TypeError(why);
};
