/**
 * rpcserver/result: what a method returns. A `Result` is a real fp-ts `Either`, built with fp-ts's
 * own `left` and `right`, so every fp-ts function works on it.
 *
 * @example
 * import { InvalidParams, Success, type Result } from "rpcserver/result";
 * const half = (n: number): Result<number> => (n % 2 === 0 ? Success(n / 2) : InvalidParams("an even number"));
 * half(4); // { _tag: "Right", right: { result: 2 } }
 * half(3); // { _tag: "Left", left: { code: -32602, message: "Invalid params", data: "an even number" } }
 *
 * @module
 */
export {
  Error,
  InvalidParams,
  RpcError,
  Success,
  type ErrorOf,
  type ErrorResult,
  type Result,
  type SuccessResult,
} from "./internal/core/result";
