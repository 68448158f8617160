/**
 * Sentinels: values that mean "nothing here" where `undefined` would be ambiguous.
 *
 * They are registered symbols (`Symbol.for`), so the ESM and the CommonJS builds of this package,
 * if both end up loaded in one process, still agree on them.
 *
 * @module
 */

/**
 * Marks an error that has no `data` member: an `ErrorResult` or `ErrorResponse` whose `data` is
 * `NODATA` is sent without `data`.
 *
 * @example
 * import { dispatch, Error, NODATA } from "rpcserver";
 * const result = Error(1, "Out of stock"); // left({ code: 1, message: "Out of stock", data: NODATA })
 * // Sent without `data`:
 * dispatch('{"jsonrpc":"2.0","method":"buy","id":1}', { buy: () => result });
 * // '{"jsonrpc":"2.0","error":{"code":1,"message":"Out of stock"},"id":1}'
 *
 * @since 5.0.10
 * @category sentinels
 */
export const NODATA: unique symbol = Symbol.for("rpcserver.NODATA");

/** The type of {@link NODATA}. @since 5.0.10 @category sentinels */
export type NODATA = typeof NODATA;

/**
 * Marks "no context": dispatch passes no context argument to methods. It is the default of the
 * `context` option.
 *
 * @example
 * import { dispatch, NOCONTEXT, Success } from "rpcserver";
 * dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => Success("pong") }, { context: NOCONTEXT });
 * // '{"jsonrpc":"2.0","result":"pong","id":1}'
 *
 * @since 5.0.10
 * @category sentinels
 */
export const NOCONTEXT: unique symbol = Symbol.for("rpcserver.NOCONTEXT");

/** The type of {@link NOCONTEXT}. @since 5.0.10 @category sentinels */
export type NOCONTEXT = typeof NOCONTEXT;
