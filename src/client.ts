/**
 * rpcserver/client: call a JSON-RPC server, typed by the contract the server implements.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement, serve } from "rpcserver";
 * import { client, http } from "rpcserver/client";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * // A server to call: the development server, on a port the system picks.
 * const server = await serve("127.0.0.1", 0, { methods: implement(api, { add: (a, b) => E.right(a + b) }) });
 * const calc = client(api, http(server.url));
 * await calc.add(1, 2)(); // { _tag: "Right", right: 3 }
 * server.close();
 *
 * @module
 */
export { batch, type BatchAnswers, type BatchMember } from "./internal/client/batch";
export type { CallOptions, RpcCall, RpcNotification, RpcStream } from "./internal/client/call";
export { notify, withOptions } from "./internal/client/calls";
export { foldStream, open, type StreamRun } from "./internal/client/streams";
export {
  matchClientError,
  StreamError,
  type CallError,
  type ClientError,
  type DeclaredError,
  type InvalidAnswer,
  type InvalidCall,
  type ServerError,
  type TransportError,
  type UndeclaredError,
} from "./internal/client/errors";
export type { ParsedAnswer, Transport, TransportOptions } from "./internal/client/transport";
export { http, type HttpOptions, type HttpTransportOptions } from "./internal/client/transports/http";
export { local } from "./internal/client/transports/local";
export {
  client,
  type ClientOptions,
  type ClientFunction,
  type ContractClient,
  type DeclaredErrorsOf,
  type Json,
  type TableClient,
} from "./internal/client/client";
