/**
 * The request pipeline as fp-ts values: parse -> validate -> (your stages) -> resolve -> call ->
 * output, written once and run by sync and async dispatch alike. This file holds the composition
 * ({@link pipeline}, `compose`, and `composeParsed` for a body already parsed); each stage has a
 * file of its own beside it.
 *
 * Design. Each stage is a Reader of the dispatch environment ({@link Env}) giving a Kleisli arrow:
 * `parse(env): (body) => Either<ErrorResponse, unknown>`, and so on. A Left is already the answer
 * (`Left<ErrorResponse>` is a `Response`), so a stage that fails simply ends its request. The
 * composition ({@link pipeline}) is written once against an {@link Effect}, an fp-ts `Monad`: the
 * stages that can wait (your stages, the call) run in `EitherT` over it, and the six dispatch
 * functions are that one composition instantiated with `Sync` (fp-ts's `Identity`: the Eithers are
 * the answers) or `Async` (`Later`: synchronous until a method really returns a Promise, a
 * `TaskEither` to its users), followed by one of three output stages (`toJson`, `() => toSerializable`,
 * `toResponses`).
 *
 * Why this design rather than the others weighed (docs/pipeline.md has the measurements):
 * - `TaskEither` for async dispatch would cost every request two Promises and a tick even when its
 *   method is plain; `Later` keeps async dispatch within 5% of the hand-written lower bound.
 * - A flag tested inside the call stage (the previous design) made the effect a branch rather than
 *   a value; here the effect is a parameter, and the stages cannot tell which they run in.
 * - Stages as `(env, input)` pairs would save one closure per stage per environment; the Reader
 *   form lets the composition be built once per environment instead (and kept by each dispatch
 *   function while the methods and options, the context aside, stay the same), so a request
 *   allocates no closure for it.
 *
 * The rules the stages enforce:
 * - a request that cannot be parsed or validated is answered, with id `null`;
 * - a notification (a valid request without `id`) is never answered, even when it fails;
 * - an empty batch, or one over `maxBatchSize`, is answered by one -32600 and runs nothing;
 * - a batch is validated member by member and answered in its order; async dispatch runs its
 *   members at once;
 * - nothing a request carries, and nothing a method or a stage does, makes dispatch throw: an
 *   exception in a method, a params or result codec, the methods table or a stage answers that
 *   request alone (-32603), and only a failure of the library itself (or of `postProcess`) is
 *   -32000; nothing it does ends the process either (an exception that cannot be read, a Promise
 *   that rejects where nobody waits for it);
 * - an answer carries the id its request came with, whatever a stage makes of the request.
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
import * as E from "fp-ts/Either";
import type { Kind, URIS } from "fp-ts/HKT";
import { identity } from "fp-ts/function";
import type { Effect } from "../effect";
import type { Env, JsonOptions, ResponseOptions } from "../options";
import type { Request } from "../request";
import type { Response } from "../response";
import { isNotification } from "../stages";
import { answered, dropped } from "./call";
import { invalidRequest, serverError } from "./failures";
import { base, handler } from "./handler";
import { resolution } from "./resolve";
import {
  defaultCheck,
  parseBody,
  parseFailure,
  refusal,
  refusedValidator,
  validating,
  type ValidatedRequest,
} from "./parse-validate";
import { failedNotification, failedRequest, netted, withId } from "./request-net";

/**
 * What one request body comes to: a Response, a list of them for a batch, or `undefined` when
 * nothing is to be sent.
 *
 * @example
 * import { environment, pipeline, Sync, type Answer } from "rpcserver/pipeline";
 * // An empty batch is an invalid request:
 * const answer: Answer = pipeline(Sync)(environment({}, undefined, false))("[]");
 * // { _tag: "Left", left: { code: -32600, message: "Invalid Request", data: "the batch is empty", id: null } }
 *
 * @since 5.0.10
 * @category pipeline
 */
export type Answer = Response | Response[] | undefined;

const nothing = (): Response | undefined => undefined;

/**
 * `Kind<F, A>` as `Kind<F, B>` for `A` a subtype of `B`: both effects (Identity, Later) are
 * covariant, which fp-ts's encoding of higher kinds cannot express.
 */
const widen = <F extends URIS, A extends B, B>(fa: Kind<F, A>): Kind<F, B> => fa as unknown as Kind<F, B>;

/**
 * Every option any dispatch function takes: what a {@link dispatcher} accepts.
 *
 * @example
 * import type { DispatchOptions } from "rpcserver/pipeline";
 * const options: DispatchOptions = { debug: true, postProcess: (response) => response };
 *
 * @since 5.0.10
 * @category pipeline
 */
export type DispatchOptions = JsonOptions & ResponseOptions<unknown>;

/**
 * The whole pipeline for one request body, in the effect `F`: parse, then each request (validate,
 * your stages, resolve, call), then the answers collected. The answers are Responses; one of the
 * output stages below turns them into what a dispatch function returns.
 *
 * @example
 * import { Async, environment, pipeline, toTaskEither } from "rpcserver/pipeline";
 * import { Success } from "rpcserver";
 * const env = environment({ ping: async () => Success("pong") }, undefined, true);
 * await pipeline(Async)(env)('{"jsonrpc":"2.0","method":"ping","id":1}'); // { _tag: "Right", right: { result: "pong", id: 1 } }
 *
 * @since 5.0.10
 * @category pipeline
 */
export const pipeline =
  <F extends URIS>(F: Effect<F>) =>
  (env: Env): ((body: unknown) => Kind<F, Answer>) => {
    const run = compose(F, env);
    const failed = (thrown: unknown): Answer => serverError(env, thrown);
    return (body) => F.attempt(run, body, env.context, identity, failed);
  };

/**
 * The composition without the net for failures of the library itself (the callers add it). The
 * context is an argument rather than read from `env`, so that one composition serves every call
 * whose options differ only in their context (the common case: the caller, per request).
 */
export const compose = <F extends URIS>(
  F: Effect<F>,
  env: Env,
): ((body: unknown, context: unknown) => Kind<F, Answer>) => {
  const dispatchParsed = composeParsed(F, env);
  return (body, context) => {
    let value: unknown;
    try {
      value = parseBody(env, body);
    } catch (thrown) {
      return F.of<Answer>(parseFailure(thrown));
    }
    return dispatchParsed(value, context);
  };
};

/**
 * {@link compose} after the parse: a value that is already parsed (by a connection that read it
 * to route it, by `local`'s direct path, which hands the request over as a value) run as a request
 * body whose text parsed to it. The `deserializer` option is not called; everything else is the
 * same (a batch, -32600 for what is not a request object, the stages, the answers).
 */
export const composeParsed = <F extends URIS>(
  F: Effect<F>,
  env: Env,
): ((value: unknown, context: unknown) => Kind<F, Answer>) => {
  const runValid = runRequest(F, env);
  const run = (validated: ValidatedRequest, context: unknown): Kind<F, Response | undefined> =>
    E.isLeft(validated) ? F.of<Response | undefined>(validated) : runValid(validated.right, context);
  const decode = validating(env);
  const check = defaultCheck(env);

  // A validator's Promise never rejects (its failure is -32600): what it does is the library's own.
  const libraryFailed = (thrown: unknown): Response => serverError(env, thrown);

  /**
   * One request. Only a Standard Schema validator may answer a Promise, so only with one is the
   * answer looked at: the common path stays as it was. The default validator is asked what is
   * wrong with the value, and a request goes on as it is (no Validation, no Right for it).
   */
  const one: (value: unknown, context: unknown) => Kind<F, Response | undefined> =
    check !== undefined
      ? (value, context) => {
          const why = check(value);
          return why === undefined ? runValid(value as Request, context) : F.of<Response | undefined>(refusal(why));
        }
      : env.validator.waits === true
        ? (value, context) => {
            const request = decode(value);
            return request instanceof Promise
              ? F.wait(
                  request,
                  (validated) => run(validated as ValidatedRequest, context),
                  libraryFailed,
                  refusedValidator,
                )
              : run(request, context);
          }
        : (value, context) => run(decode(value) as ValidatedRequest, context);

  const batch = (members: ReadonlyArray<unknown>, context: unknown): Kind<F, Answer> => {
    if (members.length === 0) return F.of<Answer>(invalidRequest("the batch is empty"));
    if (members.length > env.maxBatchSize) {
      // The count as data, as -32002 carries its length: a connection tells by it which batch of its it was.
      return F.of<Answer>(invalidRequest({ size: members.length, max: env.maxBatchSize }));
    }
    const outcomes = new Array<Kind<F, Response | undefined>>(members.length);
    for (let i = 0; i < members.length; i++) outcomes[i] = one(members[i], context);
    return F.map(F.all(outcomes), collect);
  };

  return (value, context) =>
    Array.isArray(value) ? batch(value, context) : widen<F, Response | undefined, Answer>(one(value, context));
};

/**
 * One valid request run to its answer, under the net of its own when there are stages: a
 * notification's answer is dropped (it still runs to the end).
 */
const runRequest = <F extends URIS>(
  F: Effect<F>,
  env: Env,
): ((request: Request, context: unknown) => Kind<F, Response | undefined>) => {
  // Your stages may rewrite, mutate or break the request on its way (a new id, a getter that
  // throws): with stages each request runs under a net of its own, which answers it with the id it
  // arrived with, and a failure no stage caught with -32603 for that request alone. Without
  // stages the request is the validated one throughout, every step guards its own user code, and
  // the request and its context go to resolve as they are (no call object for them).
  if (env.stages.length > 0) {
    const handle = handler(F, env);
    const answer = netted(F, handle, withId, failedRequest(env));
    // A notification's answer is built (a stage may answer it, or observe its answer) and dropped.
    const notify = netted(F, handle, nothing, failedNotification);
    return (request, context) => {
      const call = { request, context };
      return isNotification(call.request) ? notify(call) : widen<F, Response, Response | undefined>(answer(call));
    };
  }
  const answer = base(F, env, answered);
  // Without stages a notification's answer is never built: its method's return is read for its log line alone.
  const notify = base<F, Response | undefined>(F, env, dropped);
  return (request, context) => {
    const found = resolution(env, request, context);
    return isNotification(request) ? notify(found) : widen<F, Response, Response | undefined>(answer(found));
  };
};

/** The answers to send: a batch without any (all notifications) is nothing to send. */
const collect = (outcomes: ReadonlyArray<Response | undefined>): Answer => {
  const responses: Response[] = [];
  for (const outcome of outcomes) if (outcome !== undefined) responses.push(outcome);
  return responses.length === 0 ? undefined : responses;
};
