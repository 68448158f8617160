/**
 * The dispatch functions' front end: {@link dispatcher} makes one of the pipeline in an effect and
 * an output stage, and keeps the last pipeline it composed (the cache of built pipelines), reused
 * while a call's methods and options, the context aside, stay the same.
 *
 * @module
 */
import type { Kind, URIS } from "fp-ts/HKT";
import type { Effect } from "../effect";
import { globalMethods, type Methods } from "../methods";
import { environment, type Env } from "../options";
import { NOCONTEXT } from "../sentinels";
import { compose, type Answer, type DispatchOptions } from "./compose";
import { serverError } from "./failures";

/** The options a compiled pipeline was built from: all but the context, which each call passes. */
interface Built {
  readonly methods: Methods;
  readonly deserializer: unknown;
  readonly validator: unknown;
  readonly debug: unknown;
  readonly maxBatchSize: unknown;
  readonly stages: ReadonlyArray<unknown> | undefined;
  readonly serializer: unknown;
  readonly postProcess: unknown;
}

const NO_OPTIONS: DispatchOptions = {};

const builtFrom = (methods: Methods, o: DispatchOptions): Built => ({
  methods,
  deserializer: o.deserializer,
  validator: o.validator,
  debug: o.debug,
  maxBatchSize: o.maxBatchSize,
  // A copy: the caller may change its array between calls.
  stages: Array.isArray(o.stages) ? [...(o.stages as ReadonlyArray<unknown>)] : o.stages,
  serializer: o.serializer,
  postProcess: o.postProcess,
});

const sameStages = (built: ReadonlyArray<unknown> | undefined, given: unknown): boolean => {
  if (built === given) return true;
  if (built === undefined || !Array.isArray(given) || given.length !== built.length) return false;
  for (let i = 0; i < built.length; i++) if (given[i] !== built[i]) return false;
  return true;
};

/** Whether `o` asks for the pipeline `built` was compiled from: each option compared by value, the context aside. */
const sameBuild = (built: Built, methods: Methods, o: DispatchOptions): boolean =>
  built.methods === methods &&
  o.deserializer === built.deserializer &&
  o.validator === built.validator &&
  o.debug === built.debug &&
  o.maxBatchSize === built.maxBatchSize &&
  o.serializer === built.serializer &&
  o.postProcess === built.postProcess &&
  sameStages(built.stages, o.stages);

/**
 * A dispatch function made of the pipeline in effect `F` and an output stage: the six dispatch
 * functions are `dispatcher(Sync | Async, toJson | () => toSerializable | toResponses)`, and a front end of
 * your own (bytes out, another envelope) is one more output stage. The result takes `(request,
 * methods?, options?)` like `dispatch`, and returns `Kind<F, O>`: `O` itself for `Sync`, a
 * `Later<O>` for `Async` (`Promise.resolve` it for a Promise).
 *
 * Composing the pipeline (checking the options, building each stage's closures) costs more than a
 * small request, so the last composition is kept and reused while a call's methods and options
 * (the context aside, each compared by value) are the same: `dispatch(body, methods, { context:
 * caller, stages })` composes once, not once per request. Options are still read at every call; a
 * changed one composes anew.
 *
 * @example
 * import { dispatcher, Sync, type Answer } from "rpcserver/pipeline";
 * import { Success } from "rpcserver";
 * const toBytes = dispatcher(Sync, () => (answer: Answer) => new TextEncoder().encode(JSON.stringify(answer ?? null)));
 * const bytes = toBytes('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => Success("pong") }, undefined); // a Uint8Array
 * new TextDecoder().decode(bytes); // '{"_tag":"Right","right":{"result":"pong","id":1}}'
 *
 * @since 5.0.10
 * @category pipeline
 */
export const dispatcher = <F extends URIS, O>(F: Effect<F>, output: (env: Env) => (answer: Answer) => O) => {
  let built: Built | undefined;
  let run: ((body: unknown, context: unknown) => Kind<F, O>) | undefined;
  return (request: unknown, methods: Methods | undefined, options: DispatchOptions | undefined): Kind<F, O> => {
    const table = methods ?? globalMethods;
    const o = options ?? NO_OPTIONS;
    const context = options === undefined || o.context === undefined ? NOCONTEXT : o.context;
    if (run === undefined || built === undefined || !sameBuild(built, table, o)) {
      const env = environment(methods, options, F.concurrent);
      const composed = compose(F, env);
      const out = output(env);
      const failed = (thrown: unknown): O => out(serverError(env, thrown));
      run = (body, ctx) => F.attempt(composed, body, ctx, out, failed);
      built = builtFrom(table, o);
    }
    return run(request, context);
  };
};
