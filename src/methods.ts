/**
 * rpcserver/methods: registering functions that requests can call, and the types that describe
 * them.
 *
 * Lookups see own entries only, so a request for `toString`, `constructor` or `__proto__` never
 * reaches `Object.prototype` and gets -32601 unless such a method was registered.
 *
 * @example
 * import * as t from "io-ts";
 * import { dispatch } from "rpcserver";
 * import { globalMethods, method, withParams } from "rpcserver/methods";
 * import { Success } from "rpcserver/result";
 * method(function ping() { return Success("pong"); });
 * "ping" in globalMethods; // true
 * const methods = { add: withParams(t.tuple([t.number, t.number]), (a, b) => Success(a + b)) };
 * dispatch('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}', methods); // '{"jsonrpc":"2.0","result":3,"id":1}'
 *
 * @module
 */
export {
  globalMethods,
  method,
  withCodecs,
  withParams,
  type ExpectsNone,
  type Method,
  type MethodOf,
  type Methods,
  type ParamsArgs,
  type Returns,
} from "./internal/core/methods";
export { withContext, type ContextMethods } from "./internal/core/context-methods";
export type { MethodError, MethodExample, MethodInfo, MethodOptions, MethodTag } from "./internal/core/method-info";
// Python spelling (interface-specification.md): the same object.
export { global_methods } from "./internal/core/methods";
