/**
 * rpcserver/node-http: the client's HTTP transport for Node (`nodeHttp`), on `node:http` and
 * `node:https` with a keep-alive agent. Node-only; `rpcserver/client`'s `http`, on the standard
 * `fetch`, is the one for browsers, Deno, Bun and workers.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client } from "rpcserver/client";
 * import { nodeHttp } from "rpcserver/node-http";
 * import { serve } from "rpcserver/server";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * // A server to call: the development server, on a port the system picks.
 * const server = await serve("127.0.0.1", 0, { methods: implement(api, { add: (a, b) => E.right(a + b) }) });
 * const calc = client(api, nodeHttp(`${server.url}rpc`));
 * await calc.add(1, 2)(); // { _tag: "Right", right: 3 }
 * server.close();
 *
 * @module
 */
export { nodeHttp, type NodeHttpOptions } from "./internal/node/http-client";
