/**
 * rpcserver: JSON-RPC 2.0 request dispatch on fp-ts and io-ts.
 *
 * The main entry holds the specification's names (and their Python spellings), the everyday API,
 * the dispatch options and stages, OpenRPC, contracts and the development server. The type-level
 * helpers the library computes with are in `rpcserver/types`.
 *
 * @example
 * import { dispatch, method, Success } from "rpcserver";
 * method(function ping() { return Success("pong"); });
 * dispatch('{"jsonrpc":"2.0","method":"ping","id":1}'); // '{"jsonrpc":"2.0","result":"pong","id":1}'
 *
 * @module
 */

// The specification's names (interface-specification.md, in their TypeScript spelling).
export { asyncDispatch, asyncDispatchToResponse, asyncDispatchToSerializable } from "./internal/core/async-dispatch";
export * as codes from "./codes";
export { dispatch, dispatchToResponse, dispatchToSerializable } from "./internal/core/dispatch";
export { JsonRpcError } from "./internal/core/exceptions";
export { setLogger, type Logger } from "./internal/core/logger";
export { globalMethods, method } from "./internal/core/methods";
export {
  ErrorResponse,
  SuccessResponse,
  toDict,
  toErrorDict,
  toSerializable,
  toSuccessDict,
  type Response,
} from "./internal/core/response";
export {
  Error,
  InvalidParams,
  Success,
  UndeclaredError,
  type ErrorOf,
  type ErrorResult,
  type Result,
  type SuccessResult,
  type UndeclaredErrorOf,
} from "./internal/core/result";
export { NOCONTEXT, NODATA } from "./internal/core/sentinels";
export { VERSION, __version__ } from "./internal/core/version";

// Python spellings (interface-specification.md): the same function objects as the names above.
export {
  asyncDispatch as async_dispatch,
  asyncDispatchToResponse as async_dispatch_to_response,
  asyncDispatchToSerializable as async_dispatch_to_serializable,
} from "./internal/core/async-dispatch";
export { dispatch_to_response, dispatch_to_serializable } from "./internal/core/dispatch";
export { global_methods } from "./internal/core/methods";
export { to_dict, to_error_dict, to_serializable, to_success_dict } from "./internal/core/response";

// The everyday API: methods, their context, results, requests and answers.
export type { Expects, NoContext, WithSignal } from "./internal/core/context-marks";
export type { MethodsWithoutContext } from "./internal/core/dispatch-context";
export { dispatchToJson } from "./internal/core/dispatch";
export { defaultLogger } from "./internal/core/logger";
export {
  withCodecs,
  withParams,
  type Method,
  type MethodOf,
  type Methods,
  type Returns,
} from "./internal/core/methods";
export { withContext, type ContextMethods } from "./internal/core/context-methods";
export type { MethodError, MethodExample, MethodInfo, MethodOptions, MethodTag } from "./internal/core/method-info";
export type { Processed } from "./internal/core/pipeline/output";
export { requestCodec, validateRequest, type Id, type Request } from "./internal/core/request";
export type { ErrorDict, Serializable, SuccessDict } from "./internal/core/response";
export { RpcError } from "./internal/core/result";
export {
  isStandardSchema,
  type Schema,
  type StandardJSONSchemaV1,
  type StandardSchemaV1,
  type TypeOfSchema,
} from "./internal/core/schema";
export { toHttp, type HttpAnswer } from "./internal/http/json-answer";
export { answerHttp, type AnswerHttpOptions, type HttpOptions, type HttpStreamAnswer } from "./internal/http/answer";

// Dispatch options, the default serializer, and stages.
export type { JsonOptions, Options, ResponseOptions, Validator } from "./internal/core/options";
export { serialize } from "./internal/core/serializer";
export { observe, timeout, type Observation, type TimeoutOptions } from "./internal/core/library-stages";
export type { AnyStage, Around, AsyncStage, Call, Stage } from "./internal/core/stages";

// OpenRPC and JSON Schema.
export { toJsonSchema } from "./internal/documents/jsonschema";
export type { JsonSchema } from "./internal/documents/schema-walk";
export { DISCOVER, OPENRPC_VERSION, discover, openRpcDocument } from "./internal/documents/openrpc";
export type {
  ContentDescriptor,
  ExamplePairing,
  OpenRpcDocument,
  OpenRpcInfo,
  OpenRpcMethod,
  OpenRpcOptions,
} from "./internal/documents/openrpc-types";

// Contracts: one definition for both ends.
export {
  contract,
  type ArgsOf,
  type Contract,
  type Definition,
  type Entries,
  type Entry,
  type Flatten,
  type ResultOf,
} from "./internal/contract/contract";
export { lazy, type Lazy } from "./internal/contract/lazy";
export { merge } from "./internal/contract/merge";
export {
  fromResult,
  implement,
  server,
  type Branch,
  type BranchServer,
  type ErrorsOf,
  type HandlerFor,
  type HandlerTree,
  type Handlers,
  type Implemented,
  type MethodServer,
  type MethodServerBuilder,
  type Outcome,
  type Server,
  type ServerBuilder,
  type StandardCode,
} from "./internal/contract/implement";

// The development server (`serve` is the specification's; it loads the server when called).
export {
  serve,
  type DevServer,
  type DevServerAddress,
  type ServeOptions,
  type ServeOptionsFor,
} from "./internal/node/serve";

/**
 * The type-level helpers (`rpcserver/types`) as one namespace, types only: never written by hand,
 * but there so that TypeScript can name them when it writes your declarations. Without it,
 * `export const stage = timeout(100)` in a project with `declaration: true` fails (TS2883: the
 * inferred type "cannot be named without a reference to" a file inside the package).
 *
 * @example
 * import { timeout, type types } from "rpcserver";
 * export const stage: types.TypedAround<unknown, unknown> & types.AddsSignal = timeout(100);
 */
export type * as types from "./types";
