/**
 * A CommonJS module whose exported functions are its methods (no `method(...)` calls needed):
 *
 *     npx rpcserver examples/methods.cjs --port 5000
 *
 * The command serves every function the module exports; each must return a Result. They carry
 * no codecs, so their OpenRPC document (`npx rpcserver examples/methods.cjs --openrpc`) shows only
 * their arity: one param with the schema `{}` per declared parameter. `withCodecs` from
 * "rpcserver" gives such a function params and result codecs, a summary and examples.
 */
const { InvalidParams, Success } = require("rpcserver");

module.exports = {
  /** `[6, 7]` -> `42`. */
  multiply(a, b) {
    return typeof a === "number" && typeof b === "number" ? Success(a * b) : InvalidParams("two numbers expected");
  },

  /** `["hello"]` -> `"HELLO"`. */
  upper(text) {
    return typeof text === "string" ? Success(text.toUpperCase()) : InvalidParams("a string expected");
  },

  /** An async function works as well. */
  async now() {
    return Success(new Date().toISOString());
  },
};
