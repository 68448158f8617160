// The CommonJS side of portable.mts: every entry but rpcserver/server through require(), compiled
// against the packed package's .d.cts files with no Node types.
import rpc = require("rpcserver");
import main = require("rpcserver/main");
import asyncMain = require("rpcserver/async_main");
import response = require("rpcserver/response");
import result = require("rpcserver/result");
import codes = require("rpcserver/codes");
import methods = require("rpcserver/methods");
import sentinels = require("rpcserver/sentinels");
import http = require("rpcserver/http");
import fetchEntry = require("rpcserver/fetch");
import pl = require("rpcserver/pipeline");
import rpcClient = require("rpcserver/client");
import rpcConnection = require("rpcserver/connection");
import types = require("rpcserver/types");
import E = require("fp-ts/lib/Either");
import t = require("io-ts");

const text: string = main.dispatchToJson("[]", methods.globalMethods);
const later: Promise<string> = asyncMain.dispatchToJson("[]");
const ok: rpc.Result = result.Success(codes.ERROR_METHOD_NOT_FOUND);
const dict = response.toDict(E.right(response.SuccessResponse(sentinels.NODATA, 1)));
const answer: http.HttpAnswer = http.toHttp(text);
const env: pl.Env = pl.environment({}, undefined, false);
const server: Promise<rpc.DevServer> = rpc.serve();
const api = rpc.contract({ ping: { result: t.literal("pong") } });
const calc = rpcClient.client(api, rpcClient.local(rpc.implement(api, { ping: () => E.right("pong" as const) })));
const pong: rpcClient.RpcCall<"pong"> = calc.ping();
const handler: fetchEntry.FetchHandler = fetchEntry.fetchHandler(
  rpc.implement(api, { ping: () => E.right("pong" as const) }),
);
// rpcserver/connection without Node's types: a MessagePort (lib DOM) is a channel.
const peer: rpcConnection.Connection = rpcConnection.connect(rpcConnection.messagePort(new MessageChannel().port1), {
  cancellation: "mcp",
});
const args: types.ParamsArgs<[number, string]> = [1, "a"];
export = { args, text, later, ok, dict, answer, env, server, pong, peer, handler };
