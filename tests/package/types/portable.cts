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
import transport = require("rpcserver/transport");
import pl = require("rpcserver/pipeline");
import E = require("fp-ts/lib/Either");

const text: string = main.dispatchToJson("[]", methods.globalMethods);
const later: Promise<string> = asyncMain.dispatchToJson("[]");
const ok: rpc.Result = result.Success(codes.ERROR_METHOD_NOT_FOUND);
const dict = response.toDict(E.right(response.SuccessResponse(sentinels.NODATA, 1)));
const answer: transport.HttpAnswer = transport.toHttp(text);
const env: pl.Env = pl.environment({}, undefined, false);
const server: Promise<rpc.DevServer> = rpc.serve();
export = { text, later, ok, dict, answer, env, server };
