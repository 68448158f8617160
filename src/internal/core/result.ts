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
 * The value inside a successful Result: what the response's `result` member will hold. `A` is its
 * type: `unknown` unless the method declares a result codec (see `method`'s `result` option), whose
 * decoded type it then is.
 *
 * @since 5.0.10
 * @category model
 */
export interface SuccessResult<A = unknown> {
  readonly result: A;
}

/**
 * The value inside a failed Result: the response's `error` object. An error without a `data`
 * member has `data` left out (what a handler or stage may write: `E.left({ code, message })`),
 * `undefined`, or `NODATA` (what `Error` and `InvalidParams` put there): all three send no `data`.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import type { ErrorResult } from "rpcserver";
 * const gone: ErrorResult = { code: 410, message: "Gone" };
 * const refused = E.left(gone);
 *
 * @since 5.0.10
 * @category model
 */
export interface ErrorResult {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * What a method returns: `Right<SuccessResult<A>>` or `Left<ErrorResult>`. `Result` alone is
 * `Result<unknown>`, any success value; `Result<A>` is one whose success value is an `A` (what a
 * method with a result codec of type `A` must return). Every `Result<A>` is a `Result`, and the
 * failures (`Error`, `InvalidParams`) are `Either<ErrorResult, never>`: a `Result<A>` for every `A`,
 * and also the Left a stage or a contract handler answers with (one vocabulary for one error).
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { Success, type Result } from "rpcserver";
 * const ping = (): Result<string> => Success("pong");
 * E.isRight(ping()); // true
 *
 * @since 5.0.10
 * @category model
 */
export type Result<A = unknown> = Either<ErrorResult, SuccessResult<A>>;

/**
 * A successful Result. `Success()` and `Success(undefined)` send `"result": null`, so a success
 * response never lacks its `result` member. Its type is `Result<A>` for the value's type `A`
 * (`Result<null>` without a value).
 *
 * @example
 * import { Success } from "rpcserver";
 * // A Result<number>:
 * Success(3); // { _tag: "Right", right: { result: 3 } }
 *
 * @since 5.0.10
 * @category constructors
 */
export const Success: {
  (): Result<null>;
  <A>(result: A): Result<A>;
} = (result?: unknown): Result<never> =>
  // The value is the caller's `A` (or null): each overload's return type holds, which TS cannot see.
  right({ result: result === undefined ? null : result }) as Result<never>;

/** Warns (UserWarning) when a code is not an integer or a message not a string. @internal */
export const checkError = (code: unknown, message: unknown): void => {
  if (!Number.isInteger(code)) warn(`JSON-RPC error code should be an integer, got ${String(code)}`);
  if (typeof message !== "string") warn(`JSON-RPC error message should be a string, got ${typeof message}`);
};

/**
 * A failed Result: `left({ code, message, data })`, an `Either<ErrorOf<Code, D>, never>` (an
 * `Either<ErrorResult, never>` that keeps its code and data types, for a contract's declared
 * errors), so it is a `Result<A>` for every `A`, a stage's Left and a contract handler's Left alike. It is sent as
 * given whatever `debug` is, so it must hold no secrets. Without `data` the response has no `data`
 * member. A code that is not an integer or a message that is
 * not a string warns (UserWarning) and is still sent as given. Codes -32768 to -32000 are
 * reserved by JSON-RPC; use codes outside that range.
 *
 * @example
 * import { Error } from "rpcserver";
 * Error(1, "Out of stock", { sku: "A-1" }); // { _tag: "Left", left: { code: 1, message: "Out of stock", data: { sku: "A-1" } } }
 *
 * @since 5.0.10
 * @category constructors
 */
export const Error: {
  <const Code extends number>(code: Code, message: string): Either<ErrorOf<Code, NODATA>, never>;
  <const Code extends number, D>(code: Code, message: string, data: D): Either<ErrorOf<Code, D>, never>;
} = (code: number, message: string, data: unknown = NODATA): Either<never, never> => {
  checkError(code, message);
  // The code and data are the caller's: each overload's type holds, which TS cannot see.
  return left({ code, message, data }) as Either<never, never>;
};

/**
 * An error whose code and data keep their types (`Error(404, "No such person", { id: 7 })` is an
 * `ErrorOf<404, { id: number }>`), so that a contract's server can check them against the errors
 * an entry declares. Without data, `D` is `NODATA`.
 *
 * @example
 * import type { ErrorOf } from "rpcserver";
 * const notFound: ErrorOf<404, { id: number }> = { code: 404, message: "No such person", data: { id: 7 } };
 *
 * @since 5.0.10
 * @category constructors
 */
export interface ErrorOf<Code extends number = number, D = unknown> extends ErrorResult {
  readonly code: Code;
  readonly data?: D;
}

/**
 * {@link Error} under a name that does not shadow the global `Error` in the module that imports
 * it: the same function (`RpcError === Error`). The docs use it; `Error` stays, the
 * specification's name.
 *
 * @example
 * import { RpcError, Success } from "rpcserver";
 * const divide = (a: number, b: number) => (b === 0 ? RpcError(1, "Division by zero") : Success(a / b));
 * divide(4, 2); // { _tag: "Right", right: { result: 2 } }
 * divide(1, 0); // { _tag: "Left", left: { code: 1, message: "Division by zero", data: NODATA } }
 * new Error("still the global Error"); // not shadowed
 *
 * @since 5.0.10
 * @category constructors
 */
export const RpcError: typeof Error = Error;

/**
 * An error a contract entry does not declare, answered on purpose: {@link UndeclaredError} makes
 * one (a phantom mark, nothing at run time).
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import { UndeclaredError, type UndeclaredErrorOf } from "rpcserver";
 * const teapot: E.Either<UndeclaredErrorOf<418>, never> = UndeclaredError(418, "I'm a teapot");
 *
 * @since 5.0.10
 * @category constructors
 */
export interface UndeclaredErrorOf<Code extends number = number, D = unknown> extends ErrorOf<Code, D> {
  /** Phantom: never present at run time. Named so that a compile error about it says what it is. */
  readonly "answered with UndeclaredError: its entry does not declare it": true;
}

/**
 * {@link Error}, said to be one its contract entry does not declare: a handler of an entry that
 * declares `errors` may answer only those (each code with its declared data), the standard codes
 * (-32768 to -32000), or this, the visible opt-in. The client sees it as any undeclared error
 * (`declared: false`). The same value as `Error(code, message, data)` at run time.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement, UndeclaredError } from "rpcserver";
 * const api = contract({ get: { params: t.tuple([t.number]), result: t.string, errors: [{ code: 404, message: "Not found" }] } });
 * const methods = implement(api, { get: (id) => (id > 0 ? E.right("yes") : UndeclaredError(999, "Quota exceeded")) });
 *
 * @since 5.0.10
 * @category constructors
 */
export const UndeclaredError: {
  <const Code extends number>(code: Code, message: string): Either<UndeclaredErrorOf<Code, NODATA>, never>;
  <const Code extends number, D>(code: Code, message: string, data: D): Either<UndeclaredErrorOf<Code, D>, never>;
} = Error as (code: number, message: string, data?: unknown) => Either<never, never>;

/**
 * `Error(-32602, "Invalid params", data)`: for params of the right shape but a bad value.
 *
 * @example
 * import { InvalidParams, Success } from "rpcserver";
 * const divide = (a: number, b: number) => (b === 0 ? InvalidParams("division by zero") : Success(a / b));
 * divide(1, 0); // { _tag: "Left", left: { code: -32602, message: "Invalid params", data: "division by zero" } }
 *
 * @since 5.0.10
 * @category constructors
 */
export const InvalidParams: {
  (): Either<ErrorOf<-32602, NODATA>, never>;
  <D>(data: D): Either<ErrorOf<-32602, D>, never>;
} = (data: unknown = NODATA): Either<never, never> =>
  left({ code: ERROR_INVALID_PARAMS, message: "Invalid params", data }) as Either<never, never>;
