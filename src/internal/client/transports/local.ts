/**
 * The `local` transport: requests dispatched in-process, through their JSON text, or for a client
 * given the transport itself by a direct path that hands the request and the answers over as the
 * values their text would parse to.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { asyncDispatch } from "../../core/async-dispatch";
import type { Methods } from "../../core/methods";
import type { Env, JsonOptions } from "../../core/options";
import { Async } from "../../core/effect";
import { parsedDispatcher } from "../../core/pipeline/dispatcher";
import type { Answer } from "../../core/pipeline/compose";
import { toDict, type Response as RpcResponse } from "../../core/response";
import { writeResponse } from "../../core/serializer";
import { jsonCopy, NOT_PLAIN } from "../json-copy";
import { DIRECT, NEVER, type Direct, type ParsedAnswer, type Transport } from "../transport";
import { LocalStreams } from "./local-streams";
import { aborted, network } from "../errors";

/**
 * `local`'s answer as values: what `JSON.parse` would make of the answer's text, without the text.
 * Each response whose result, error and id are plain JSON is copied ({@link jsonCopy}); any other
 * is written by the default serializer, as over the wire (a NaN result is -32603, a `Date` its ISO
 * text), and parsed back. `""` for no answer.
 */
const asValues =
  (env: Env) =>
  (answer: Answer): "" | ParsedAnswer => {
    if (answer === undefined) return "";
    if (!Array.isArray(answer)) return { json: responseValue(env, answer) };
    const json: unknown[] = [];
    for (const response of answer) json.push(responseValue(env, response));
    return { json };
  };

/**
 * One response as the value its text parses to (see {@link asValues}): its response object (as
 * the default serializer writes it: `result` null for none, no `data` for `NODATA`) copied when
 * plain, else written and parsed.
 */
const responseValue = (env: Env, response: RpcResponse): unknown => {
  try {
    const copy = jsonCopy(toDict(response));
    if (copy !== NOT_PLAIN) return copy;
  } catch {
    // A getter that throws: the text path below meets it as the serializer does.
  }
  return JSON.parse(writeResponse(undefined, env.debug, response)) as unknown;
};

/**
 * A transport that dispatches in-process with `asyncDispatch(body, methods, options)`: for tests,
 * and for a front end that embeds its server (in a worker, say). For a server made with `server`,
 * pass its `methods` and its `options(context)`.
 *
 * A client given this transport itself (not a wrapper of it) skips the JSON text both ways: it
 * hands the request over as the value its text would parse to and takes the responses back as the
 * values their text would parse to, with the same answers as through text (results still decoded
 * by the contract's codecs; a result the serializer would refuse still -32603; a `Date` still its
 * ISO text). With a `serializer` or a `deserializer` in `options`, every call goes through text.
 *
 * A streamed call (`open`, `for await`) gets each value its method yields as it is yielded: the
 * request is given a sink (`streamTo`, from a stage before `options.stages`) that hands the value
 * over as JSON carries it, and waits while the consumer is behind, so the generator waits at its
 * `yield`. When the call is cancelled (`break`, its signal), the sink refuses the next value, which
 * stops the generator (its `finally` runs).
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, local } from "rpcserver/client";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * const calc = client(api, local(implement(api, { add: (a, b) => E.right(a + b) })));
 * await calc.add(1, 2)(); // { _tag: "Right", right: 3 }
 *
 * @since 5.0.10
 * @category client
 */
export const local = (methods: Methods, options?: JsonOptions): Transport => {
  const streams = new LocalStreams();
  const dispatchText = (body: string, given: JsonOptions | undefined) =>
    asyncDispatch(body, methods as never, given as never).then(
      (answer) => E.right(answer),
      (cause: unknown) => E.left(network(cause)),
    );
  const transport: Transport = (body, transportOptions) => () => {
    const { signal, onValue } = transportOptions;
    if (signal.aborted) return Promise.resolve(E.left(aborted(signal.reason)));
    if (onValue === undefined && signal === NEVER) return dispatchText(body, options);
    return streams.run(body, transportOptions, () => dispatchText(body, streams.options(options)));
  };
  // Dispatchers of the request as a value, this transport's own: each keeps its composition while
  // the options stay the same (streamed calls have one stage more, so they have their own).
  const run = parsedDispatcher(Async, asValues);
  const runStreamed = parsedDispatcher(Async, asValues);
  const direct: Direct = (request, transportOptions) => {
    const { signal, onValue } = transportOptions;
    if (signal.aborted) return E.left(aborted(signal.reason));
    // Options are read at each call, as asyncDispatch reads them: a serializer or a deserializer
    // of the user's sees text (the request written again from its value: the same text).
    if (options !== undefined && (options.serializer !== undefined || options.deserializer !== undefined)) {
      return transport(JSON.stringify(request), transportOptions)();
    }
    try {
      // A call that can be stopped (a time-out, a signal) goes the streamed way even when it is
      // plain: its method, a generator that never waits included, must stop when the call does.
      const answer =
        onValue === undefined && signal === NEVER
          ? run(request, methods, options)
          : streams.run(request, transportOptions, () => runStreamed(request, methods, streams.options(options)));
      return answer instanceof Promise
        ? answer.then(E.right, (cause: unknown) => E.left(network(cause)))
        : E.right(answer);
    } catch (cause) {
      return E.left(network(cause));
    }
  };
  return Object.assign(transport, { [DIRECT]: direct });
};
