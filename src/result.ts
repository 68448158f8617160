/**
 * Results: what a method returns. A `Result` is a real fp-ts `Either`, built with fp-ts's own
 * `left` and `right`, so every fp-ts function works on it.
 *
 * @module
 */
import { left, right, type Either } from "fp-ts/Either";
import { ERROR_INVALID_PARAMS } from "./codes";
import { NODATA } from "./sentinels";
import { warn } from "./warnings";

/**
 * The value inside a successful Result: what the response's `result` member will hold.
 *
 * @since 5.0.10
 * @category model
 */
export interface SuccessResult {
  readonly result: unknown;
}

/**
 * The value inside a failed Result: the response's `error` object. `data` is `NODATA` when the
 * error has no `data` member.
 *
 * @since 5.0.10
 * @category model
 */
export interface ErrorResult {
  readonly code: number;
  readonly message: string;
  readonly data: unknown;
}

/**
 * What a method returns: `Right<SuccessResult>` or `Left<ErrorResult>`.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { Success, type Result } from "rpcserver";
 * const ping = (): Result => Success("pong");
 * E.isRight(ping()); // true
 *
 * @since 5.0.10
 * @category model
 */
export type Result = Either<ErrorResult, SuccessResult>;

/**
 * A successful Result. `Success()` and `Success(undefined)` send `"result": null`, so a success
 * response never lacks its `result` member.
 *
 * @example
 * import { Success } from "rpcserver";
 * Success(3); // { _tag: "Right", right: { result: 3 } }
 *
 * @since 5.0.10
 * @category constructors
 */
export const Success = (result?: unknown): Result => right({ result: result === undefined ? null : result });

/** Warns (UserWarning) when a code is not an integer or a message not a string. @internal */
export const checkError = (code: unknown, message: unknown): void => {
  if (!Number.isInteger(code)) warn(`JSON-RPC error code should be an integer, got ${String(code)}`);
  if (typeof message !== "string") warn(`JSON-RPC error message should be a string, got ${typeof message}`);
};

/**
 * A failed Result. It is sent as given whatever `debug` is, so it must hold no secrets. Without
 * `data` the response has no `data` member. A code that is not an integer or a message that is
 * not a string warns (UserWarning) and is still sent as given. Codes -32768 to -32000 are
 * reserved by JSON-RPC; use codes outside that range.
 *
 * @example
 * import { Error } from "rpcserver";
 * Error(1, "Out of stock", { sku: "A-1" });
 *
 * @since 5.0.10
 * @category constructors
 */
export const Error = (code: number, message: string, data: unknown = NODATA): Result => {
  checkError(code, message);
  return left({ code, message, data });
};

/**
 * `Error(-32602, "Invalid params", data)`: for params of the right shape but a bad value.
 *
 * @example
 * import { InvalidParams, Success } from "rpcserver";
 * const divide = (a: number, b: number) => (b === 0 ? InvalidParams("division by zero") : Success(a / b));
 *
 * @since 5.0.10
 * @category constructors
 */
export const InvalidParams = (data: unknown = NODATA): Result =>
  left({ code: ERROR_INVALID_PARAMS, message: "Invalid params", data });
