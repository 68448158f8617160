// Compiled against the PACKED package's CommonJS types (dist/cjs/*.d.cts) under strict NodeNext resolution,
// with Node's types.
import rpc = require("rpcserver");
import codes = require("rpcserver/codes");
import pl = require("rpcserver/pipeline");
import srv = require("rpcserver/server");
import rpc_client = require("rpcserver/client");
import types = require("rpcserver/types");
import t = require("io-ts");
import http = require("node:http");
import E = require("fp-ts/lib/Either");
import F = require("fp-ts/lib/function");

const ping = rpc.method(function ping(): rpc.Result {
  return rpc.Success("pong");
});
const text: string = rpc.dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', { ping });
const code: number = codes.ERROR_METHOD_NOT_FOUND;
// @ts-expect-error dispatch takes a string or bytes
rpc.dispatch(42);
const env: pl.Env = pl.environment({ ping }, undefined, false);
const piped: string = F.pipe('{"jsonrpc":"2.0","method":"ping","id":1}', pl.pipeline(pl.Sync)(env), pl.toJson(env));
const pass: pl.Stage = (call) => E.right(call);
const staged: string = rpc.dispatch(
  '{"jsonrpc":"2.0","method":"ping","id":1}',
  { ping },
  { stages: [pass, pl.observe(() => undefined)] },
);
// @ts-expect-error a Stage returns an Either
const notAStage: pl.Stage = () => 42;
const server: Promise<http.Server> = srv.serve("localhost", 0);

// The contract names and rpcserver/client, through require().
const api = rpc.contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
const implemented = rpc.implement(api, { add: (a, b) => E.right(a + b) });
// @ts-expect-error a handler the contract does not name
rpc.implement(api, { add: (a, b) => E.right(a + b), sub: (a: number, b: number) => E.right(a - b) });
const calc = rpc_client.client(
  api,
  rpc_client.http("http://localhost:5000", { headers: { authorization: "Bearer t" } }),
);
const sum: rpc_client.RpcCall<number> = calc.add(1, 2);
const viaLocal: Promise<E.Either<rpc_client.ClientError, number>> = rpc_client
  .client(api, rpc_client.local(implemented))
  .add(1, 2)();
// @ts-expect-error add takes two numbers
calc.add(1, "2");
const token: types.ContextOf<{ context: { token: string } }> = { token: "t" };
export = { token, text, code, piped, staged, notAStage, server, sum, viaLocal };
