/**
 * rpcserver/client: call a JSON-RPC server, typed by the contract the server implements.
 *
 * @example
 * import * as t from "io-ts";
 * import { contract } from "rpcserver";
 * import { client, http } from "rpcserver/client";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * const calc = client(api, http("http://localhost:5000"));
 * await calc.add(1, 2)(); // { _tag: "Right", right: 3 }
 *
 * @module
 */
export {
  batch,
  notify,
  withOptions,
  type BatchAnswers,
  type BatchMember,
  type CallOptions,
  type RpcCall,
  type RpcNotification,
} from "./calls";
export {
  matchClientError,
  type CallError,
  type ClientError,
  type DeclaredError,
  type InvalidAnswer,
  type InvalidCall,
  type ServerError,
  type TransportError,
  type UndeclaredError,
} from "./clienterror";
export {
  http,
  local,
  type HttpOptions,
  type ParsedAnswer,
  type Transport,
  type TransportOptions,
} from "./clienttransport";
export {
  client,
  type ClientOptions,
  type ContractClient,
  type DeclaredErrorsOf,
  type Json,
  type TableClient,
} from "./stubs";
