/**
 * The one exception a method may throw on purpose.
 *
 * @module
 */
import { checkError } from "./result";
import { NODATA } from "./sentinels";

/**
 * Recognises a JsonRpcError by a registered brand rather than `instanceof`, so an error built by
 * the ESM build is still recognised by the CommonJS build (and across realms).
 */
const BRAND = Symbol.for("rpcserver.JsonRpcError");

/**
 * Thrown in a method, or anything it calls: the same effect as returning
 * `Error(code, message, data)`. Sent as given whatever `debug` is. Warns like `Error` when the
 * code is not an integer or the message not a string.
 *
 * @example
 * import { dispatch, JsonRpcError, method, Success } from "rpcserver";
 * method(function withdraw(amount: number) {
 *   if (amount > 100) throw new JsonRpcError(1, "Insufficient funds", { amount });
 *   return Success(amount);
 * });
 * dispatch('{"jsonrpc":"2.0","method":"withdraw","params":[500],"id":1}');
 * // '{"jsonrpc":"2.0","error":{"code":1,"message":"Insufficient funds","data":{"amount":500}},"id":1}'
 *
 * @since 5.0.10
 * @category errors
 */
export class JsonRpcError extends globalThis.Error {
  readonly code: number;
  readonly data: unknown;
  declare readonly [BRAND]: true;

  constructor(code: number, message: string, data: unknown = NODATA) {
    super(message);
    checkError(code, message);
    // "Sent as given": keep a non-string message as it came rather than Error's String(message).
    if (typeof message !== "string") Object.defineProperty(this, "message", { value: message });
    this.name = "JsonRpcError";
    this.code = code;
    this.data = data;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** Is `value` a JsonRpcError from any copy of this package? @internal */
export const isJsonRpcError = (value: unknown): value is JsonRpcError => {
  try {
    return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  } catch {
    // A thrown Proxy whose traps throw is not one of ours.
    return false;
  }
};
