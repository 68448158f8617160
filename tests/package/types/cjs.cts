// Compiled against the BUILT package's CommonJS types (dist/cjs/*.d.cts) under strict NodeNext resolution.
import rpc = require("rpcserver");
import codes = require("rpcserver/codes");

const ping = rpc.method(function ping(): rpc.Result {
  return rpc.Success("pong");
});
const text: string = rpc.dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', { ping });
const code: number = codes.ERROR_METHOD_NOT_FOUND;
// @ts-expect-error dispatch takes a string or bytes
rpc.dispatch(42);
export = { text, code };
