/**
 * rpcserver/pipeline: the request pipeline as fp-ts values, each stage on its own (parse, validate,
 * your stages, resolve, call), their composition in an effect (`Sync`, `Async`), the output stages,
 * `dispatcher`, which makes a dispatch function of a pipeline and an output stage, and `streamTo`,
 * which gives a request a sink for the values its method streams (for a transport of your own).
 *
 * @example
 * import { pipe } from "fp-ts/function";
 * import { environment, pipeline, toJson, Sync } from "rpcserver/pipeline";
 * import { Success } from "rpcserver";
 * const env = environment({ ping: () => Success("pong") }, undefined, false);
 * pipe('{"jsonrpc":"2.0","method":"ping","id":1}', pipeline(Sync)(env), toJson(env));
 * // '{"jsonrpc":"2.0","result":"pong","id":1}'
 *
 * @module
 */
export { call } from "./internal/core/pipeline/call";
export { pipeline, type Answer, type DispatchOptions } from "./internal/core/pipeline/compose";
export { dispatcher } from "./internal/core/pipeline/dispatcher";
export { serialize, toJson, toObjects, toResponses, type Processed } from "./internal/core/pipeline/output";
export { parse, validate } from "./internal/core/pipeline/parse-validate";
export { resolve, type Invocation } from "./internal/core/pipeline/resolve";
export { environment, type Env, type RequestDecoder } from "./internal/core/options";
export { Async, Later, LaterURI, Sync, toTaskEither, type Effect } from "./internal/core/effect";
export { observe, timeout, type Observation, type TimeoutOptions } from "./internal/core/library-stages";
export type { AnyStage, Around, AsyncStage, Call, Handler, Stage } from "./internal/core/stages";
export { streamTo, type StreamSink } from "./internal/core/stream";
