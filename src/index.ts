/**
 * rpcserver: JSON-RPC 2.0 request dispatch on fp-ts and io-ts.
 *
 * @example
 * import { dispatch, method, Success } from "rpcserver";
 * method(function ping() { return Success("pong"); });
 * dispatch('{"jsonrpc":"2.0","method":"ping","id":1}'); // '{"jsonrpc":"2.0","result":"pong","id":1}'
 *
 * @module
 */
export {
  asyncDispatch,
  asyncDispatchToResponse,
  asyncDispatchToSerializable,
  asyncDispatch as async_dispatch,
  asyncDispatchToResponse as async_dispatch_to_response,
  asyncDispatchToSerializable as async_dispatch_to_serializable,
} from "./async_main";
export * as codes from "./codes";
export type {
  CheckedStages,
  ContextOf,
  DispatchContext,
  ExpectedContext,
  Expects,
  MethodsFor,
  MethodsWithoutContext,
  NoContext,
  NoOptions,
  PostProcessed,
  Refused,
  StagesFit,
  TypedOptions,
  WithSignal,
  AddsSignal,
  After,
  TypedAround,
} from "./context";
export { JsonRpcError } from "./exceptions";
export {
  contract,
  type ArgsOf,
  type CallArgsOf,
  type Checked,
  type ContractRefusal,
  type Contract,
  type Entries,
  type Entry,
  type ResultOf,
} from "./contract";
export {
  fromResult,
  implement,
  server,
  type HandlerArgs,
  type HandlerFor,
  type Handlers,
  type Implemented,
  type Outcome,
  type Server,
  type ServerBuilder,
} from "./implement";
export { defaultLogger, setLogger, type Logger } from "./logger";
export {
  dispatch,
  dispatchToJson,
  dispatchToResponse,
  dispatchToSerializable,
  dispatch_to_response,
  dispatch_to_serializable,
} from "./main";
export {
  globalMethods,
  global_methods,
  method,
  withCodecs,
  withContext,
  withParams,
  type ContextMethods,
  type ExpectsNone,
  type Method,
  type MethodError,
  type MethodExample,
  type MethodInfo,
  type MethodOf,
  type MethodOptions,
  type MethodTag,
  type Methods,
  type ParamsArgs,
  type Returns,
} from "./methods";
export { toJsonSchema, type JsonSchema } from "./jsonschema";
export {
  isStandardSchema,
  type ResultOfSchema,
  type Schema,
  type StandardJSONSchemaV1,
  type StandardSchemaV1,
  type TypeOfSchema,
  type WireOfSchema,
} from "./schema";
export type { JsonOptions, Options, ResponseOptions, Validator } from "./options";
export {
  DISCOVER,
  OPENRPC_VERSION,
  discover,
  openRpcDocument,
  type ContentDescriptor,
  type ExamplePairing,
  type OpenRpcDocument,
  type OpenRpcInfo,
  type OpenRpcMethod,
  type OpenRpcOptions,
} from "./openrpc";
export type { Processed } from "./pipeline";
export { requestCodec, validateRequest, type Id, type Request } from "./request";
export {
  ErrorResponse,
  SuccessResponse,
  toDict,
  toErrorDict,
  toSerializable,
  toSuccessDict,
  to_dict,
  to_error_dict,
  to_serializable,
  to_success_dict,
  type ErrorDict,
  type Response,
  type Serializable,
  type SuccessDict,
} from "./response";
export { Error, InvalidParams, RpcError, Success, type ErrorResult, type Result, type SuccessResult } from "./result";
export { NOCONTEXT, NODATA } from "./sentinels";
export { serialize } from "./serializer";
export { serve, type DevServer, type DevServerAddress, type ServeOptions } from "./devserver";
export {
  observe,
  timeout,
  type AnyStage,
  type Around,
  type AsyncStage,
  type Call,
  type Observation,
  type Stage,
  type TimeoutOptions,
} from "./stages";
export { toHttp, type HttpAnswer } from "./transport";
export { VERSION, __version__ } from "./version";
