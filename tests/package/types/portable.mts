// Compiled against the PACKED package with no Node types ("types": []): what a browser project (lib
// DOM, NodeNext resolution) and an edge or worker one (lib WebWorker, bundler resolution) see. Every
// entry but rpcserver/server (the Node one: server-without-node.mts) is imported, so that, with
// skipLibCheck off, every declaration file they reach is checked.
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import {
  asyncDispatch,
  contract,
  dispatch,
  implement,
  method,
  serve,
  Success,
  type DevServer,
  type Result,
} from "rpcserver";
import { client, http, local, type ClientError, type RpcCall } from "rpcserver/client";
import { connect, contentLength, webSocket, type Channel, type Connection } from "rpcserver/connection";
import { dispatchToJson } from "rpcserver/main";
import { dispatchToJson as asyncDispatchToJson } from "rpcserver/async_main";
import { toDict, type Response } from "rpcserver/response";
import { InvalidParams } from "rpcserver/result";
import { ERROR_PARSE_ERROR } from "rpcserver/codes";
import { globalMethods } from "rpcserver/methods";
import { NODATA } from "rpcserver/sentinels";
import { toHttp, type HttpAnswer } from "rpcserver/http";
import { fetchHandler, type FetchHandler } from "rpcserver/fetch";
import { mcpHandler, mcpServer, text as mcpText, tool } from "rpcserver/mcp";
import { environment, pipeline, Sync, toJson, type Env } from "rpcserver/pipeline";
import type { CallArgsOf, ContractRefusal } from "rpcserver/types";

const ping = method(function ping(): Result {
  return Success("pong");
});
const fetched: FetchHandler = fetchHandler({ ping }, { maxBodyBytes: 1024, cors: true });
// An MCP server (rpcserver/mcp): its declarations need no Node types and no MCP package.
const mcp: (request: Request) => Promise<globalThis.Response> = mcpHandler(
  mcpServer({
    name: "calc",
    version: "1.0.0",
    tools: {
      add: tool({
        description: "adds",
        input: t.type({ a: t.number, b: t.number }),
        run: ({ a, b }) => E.right([mcpText(`${a + b}`)]),
      }),
    },
  }),
);
const text: string = dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', { ping });
const same: string = dispatchToJson("[]", { ping });
const later: Promise<string> = asyncDispatchToJson("[]");
const alsoLater: Promise<string> = asyncDispatch("[]");
const response: Response = E.left({ code: ERROR_PARSE_ERROR, message: "Parse error", data: NODATA, id: null });
const dict = toDict(response);
const invalid: Result = InvalidParams("no");
const registered: boolean = globalMethods !== undefined;
const answer: HttpAnswer = toHttp(text);
const env: Env = environment({ ping }, undefined, false);
const piped: string = toJson(env)(pipeline(Sync)(env)("[]"));

// The main entry's serve resolves to DevServer: what the dev server offers, with no Node type.
const server: DevServer = await serve("localhost", 0);
const address = server.address();
const port: number | undefined = typeof address === "object" && address !== null ? address.port : undefined;
server.once("error", (error: Error) => void error.message).on("close", () => undefined);
if (server.listening) server.close((error?: Error) => void error).closeAllConnections();
// @ts-expect-error DevServer lists what a user does with the server, not node:http's whole API
server.setTimeout(1000);

// rpcserver/client and the contract names: what a browser or a worker calls a server with.
const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  now: { result: t.string },
});
const implemented = implement(api, { add: (a, b) => E.right(a + b), now: () => E.right("today") });
const calc = client(
  api,
  http(new URL("https://api.example/rpc"), { headers: () => ({ authorization: "Bearer t" }), fetch }),
);
const sum: RpcCall<number> = calc.add(1, 2);
const inProcess = client(api, local(implemented)).now();
// @ts-expect-error now takes no params
calc.now(1);
const tableClient = client<typeof implemented>(local(implemented));
const kind = (error: ClientError): string => error._tag;

// rpcserver/connection without Node's types: the standard WebSocket (lib DOM) is a channel, and
// a channel of one's own is an object of five members.
const socketPeer: Connection = connect(webSocket(new WebSocket("ws://localhost:5000")), { methods: implemented });
const ownChannel: Channel = { send: () => true, start: () => undefined, close: () => undefined };
const framed: string = contentLength().encode("{}");
const remote = client(api, socketPeer.transport);

// rpcserver/types without Node's types.
const callArgs: CallArgsOf<{ params: t.TupleC<[t.NumberC, t.NumberC]> }> = [1, 2];
const accepted: ContractRefusal<{ add: { result: t.NumberC } }> = undefined as never;

export {
  callArgs,
  accepted,
  socketPeer,
  ownChannel,
  framed,
  remote,
  text,
  same,
  later,
  alsoLater,
  dict,
  invalid,
  registered,
  answer,
  piped,
  port,
  sum,
  inProcess,
  tableClient,
  kind,
  fetched,
  mcp,
};
