/**
 * rpcserver/sentinels: values that mean "nothing here" where `undefined` would be ambiguous.
 *
 * They are registered symbols (`Symbol.for`), so the ESM and the CommonJS builds of this package,
 * if both end up loaded in one process, still agree on them.
 *
 * @example
 * import { Error } from "rpcserver/result";
 * import { NODATA } from "rpcserver/sentinels";
 * Error(1, "Oops", NODATA); // an error sent without a `data` member, as Error(1, "Oops") is
 *
 * @module
 */
export { NOCONTEXT, NODATA } from "./internal/core/sentinels";
