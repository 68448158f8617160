/**
 * The dispatch functions' front end: {@link dispatcher} makes one of the pipeline in an effect and
 * an output stage, and keeps the last pipeline it composed (the cache of built pipelines), reused
 * while a call's methods and options, the context aside, stay the same. {@link parsedDispatcher}
 * is the same for a request body already parsed (a connection's message, `local`'s direct path).
 *
 * @module
 */
import type { Kind, URIS } from "fp-ts/HKT";
import type { Effect } from "../effect";
import { globalMethods, type Methods } from "../methods";
import { environment, type Env } from "../options";
import { NOCONTEXT } from "../sentinels";
import { compose, composeParsed, type Answer, type DispatchOptions } from "./compose";
import { serverError } from "./failures";

/** The options a compiled pipeline was built from (all but the context, which each call passes), and its methods. */
interface Built {
  readonly methods: Methods;
  readonly options: DispatchOptions;
}

const NO_OPTIONS: DispatchOptions = {};

/**
 * The options dispatch reads, from `o`, with `context` and `stages` given: a new object of one
 * shape whatever `o` holds. The one list of the options a pipeline is composed from: the cache
 * below keeps one, and a wire that dispatches with a context and stages of its own passes one
 * (a spread of its own options would copy members dispatch does not read and give each caller's
 * object a shape of its own, which makes {@link sameBuild}'s reads megamorphic).
 */
export const dispatchOptions = (o: DispatchOptions, context: unknown, stages: unknown): DispatchOptions =>
  ({
    context,
    deserializer: o.deserializer,
    validator: o.validator,
    debug: o.debug,
    maxBatchSize: o.maxBatchSize,
    stages,
    serializer: o.serializer,
    postProcess: o.postProcess,
  }) as DispatchOptions;

// A copy of the stages: the caller may change its array between calls.
const builtFrom = (methods: Methods, o: DispatchOptions): Built => ({
  methods,
  options: dispatchOptions(
    o,
    undefined,
    Array.isArray(o.stages) ? [...(o.stages as ReadonlyArray<unknown>)] : o.stages,
  ),
});

const sameStages = (built: ReadonlyArray<unknown> | undefined, given: unknown): boolean => {
  if (built === given) return true;
  if (built === undefined || !Array.isArray(given) || given.length !== built.length) return false;
  for (let i = 0; i < built.length; i++) if (given[i] !== built[i]) return false;
  return true;
};

/** Whether `o` asks for the pipeline `built` was compiled from: each option compared by value, the context aside. */
const sameBuild = ({ methods: table, options: b }: Built, methods: Methods, o: DispatchOptions): boolean =>
  table === methods &&
  o.deserializer === b.deserializer &&
  o.validator === b.validator &&
  o.debug === b.debug &&
  o.maxBatchSize === b.maxBatchSize &&
  o.serializer === b.serializer &&
  o.postProcess === b.postProcess &&
  sameStages(b.stages, o.stages);

/** A composition of the pipeline: from its text ({@link compose}) or from its value ({@link composeParsed}). */
type Composer = <F extends URIS>(F: Effect<F>, env: Env) => (input: unknown, context: unknown) => Kind<F, Answer>;

/** One composition of the pipeline, what it was built from, its output stage and its net. */
interface Compiled<F extends URIS, O> {
  readonly built: Built;
  readonly composed: (body: unknown, context: unknown) => Kind<F, Answer>;
  readonly out: (answer: Answer) => O;
  readonly failed: (thrown: unknown) => O;
}

/**
 * A dispatch function of `composer`'s pipeline, keeping the last one it composed (see
 * {@link dispatcher}). Each request is `F.attempt` of the kept parts themselves: no closure of its
 * own around them, one call less per request.
 */
const cached = <F extends URIS, O>(composer: Composer, F: Effect<F>, output: (env: Env) => (answer: Answer) => O) => {
  const compile = (
    table: Methods,
    o: DispatchOptions,
    methods: Methods | undefined,
    options: DispatchOptions | undefined,
  ): Compiled<F, O> => {
    const env = environment(methods, options, F.concurrent);
    const composed = composer(F, env);
    const out = output(env);
    return { composed, out, failed: (thrown) => out(serverError(env, thrown)), built: builtFrom(table, o) };
  };
  let last: Compiled<F, O> | undefined;
  return (request: unknown, methods: Methods | undefined, options: DispatchOptions | undefined): Kind<F, O> => {
    const table = methods ?? globalMethods;
    const o = options ?? NO_OPTIONS;
    const context = options === undefined || o.context === undefined ? NOCONTEXT : o.context;
    if (last === undefined || !sameBuild(last.built, table, o)) last = compile(table, o, methods, options);
    return F.attempt(last.composed, request, context, last.out, last.failed);
  };
};

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
export const dispatcher = <F extends URIS, O>(F: Effect<F>, output: (env: Env) => (answer: Answer) => O) =>
  cached(compose, F, output);

/**
 * {@link dispatcher} for a request body already parsed: the value its text parsed to, run as that
 * text would be but for the parse (the `deserializer` option is not called). One entry for every
 * part that parsed a message before dispatching it: a connection reads each message to route it,
 * and `local`'s direct path hands the request over as a value.
 *
 * @internal
 */
export const parsedDispatcher = <F extends URIS, O>(F: Effect<F>, output: (env: Env) => (answer: Answer) => O) =>
  cached(composeParsed, F, output);
