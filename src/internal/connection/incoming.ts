/**
 * Incoming requests: the pipeline each incoming message goes through (the same as
 * `asyncDispatch`'s, behind a first stage of the connection's own), and what a request being
 * served holds: its signal, made when the method first reads it, and its place in the tables a
 * cancellation and the close look in. Which message runs when is flow control's
 * (./flow-control); this runs one.
 *
 * @module
 */
import type { Kind, URIS } from "fp-ts/HKT";
import { ERROR_REQUEST_CANCELLED } from "../core/codes";
import { Async } from "../core/effect";
import { isPlainObject } from "../core/guards";
import { logSafely } from "../core/logger";
import { environment, type Env } from "../core/options";
import { dispatcher, parsedDispatcher } from "../core/pipeline/dispatcher";
import type { Answer } from "../core/pipeline/compose";
import type { Id } from "../core/request";
import { ErrorResponse, type Response } from "../core/response";
import { NODATA } from "../core/sentinels";
import { requestCancelled } from "../core/progress-wire";
import { writeAll } from "../core/serializer";
import { Streamed } from "../core/streamed";
import { RequestAbort, withRequestAbort } from "../core/signal";
import { isNotification, owned, type Around, type Handler } from "../core/stages";
import { endStream } from "../core/stream";
import { isId, UNPARSED } from "./messages";
import type { Connection, Settings } from "./options";
import type { PeerState, Serving } from "./state";

/** Cancels a request being served: its signal (if it has one yet) aborts, its listeners guarded. */
export const abortServing = (entry: Serving, reason: unknown): void => {
  entry.abort.abort(reason);
  // A method streaming values stops: its sink refuses.
  entry.streamed?.cancel();
  // With or without a token: its generator is stopped at its next yield (at once if it waits for
  // the channel to drain), its answer going nowhere.
  if (entry.request !== undefined) endStream(entry.request, requestCancelled());
};

/**
 * The context a method receives: a plain-object context gains the connection (`peer`, to call the
 * other side back) and the request's `signal` (made when read).
 */
const withPeer = (context: unknown, peer: Connection, entry: Serving): unknown =>
  isPlainObject(context) ? withRequestAbort({ ...context, peer }, entry.abort) : context;

/** The id a response carries. */
const idOf = (response: Response): Id | null => (response._tag === "Right" ? response.right.id : response.left.id);

/** The answer of a request cancelled while it waited in a batch (MCP's is left out when written). */
const cancelledInBatch = (id: Id): Response => ({
  _tag: "Left",
  left: ErrorResponse(ERROR_REQUEST_CANCELLED, "Request cancelled", NODATA, id),
});

/**
 * The first stage: registers each request, hands its signal on, answers a cancellation, and gives
 * a request with a progress token its sink (core/streamed.ts's, on the connection's wire: ./outlet).
 */
const trackingStage = (state: PeerState): Around =>
  owned({
    _tag: "Around",
    asyncOnly: true,
    around:
      <F extends URIS>() =>
      (next: Handler<F>): Handler<F> =>
      (call) => {
        const { request } = call;
        if (state.precancelled.size > 0 && isId(request.id) && state.precancelled.delete(request.id)) {
          return cancelledInBatch(request.id) as Kind<F, Response>;
        }
        const entry: Serving = { request, abort: new RequestAbort(request) };
        // Made before the request is registered: a context getter that throws must leave nothing behind.
        const context = withPeer(call.context, state.connection, entry);
        const id = request.id;
        const answered = !isNotification(request) && isId(id);
        state.live.add(entry);
        // A second request of an id in flight does not take the first's place: a cancel of that id
        // still reaches the first (the one the peer's id named first), which no later one can orphan.
        if (answered && !state.serving.has(id)) state.serving.set(id, entry);
        // Only a request that can be answered streams (to a notification, nothing is sent back).
        const streamed = answered ? Streamed.open(state.wire, request, state.dialect.tokens(request)) : undefined;
        if (streamed !== undefined) entry.streamed = streamed;
        const finish = (): void => {
          state.live.delete(entry);
          if (answered && state.serving.get(id) === entry) state.serving.delete(id);
          streamed?.end();
        };
        let outcome: Kind<F, Response>;
        try {
          outcome = next({ request, context });
        } catch (thrown) {
          finish();
          throw thrown;
        }
        if (!(outcome instanceof Promise)) {
          finish();
          return streamed === undefined ? outcome : (streamed.answer(outcome as Response) as Kind<F, Response>);
        }
        return new Promise<Response>((settle, fail) => {
          entry.cancel = (response) => {
            finish();
            settle(response);
          };
          outcome.then(
            (response: Response) => {
              finish();
              settle(streamed === undefined ? response : streamed.answer(response));
            },
            (thrown: unknown) => {
              finish();
              // A method's rejection is handed on as it is: the pipeline makes its error response.
              // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
              fail(thrown);
            },
          );
        }) as Kind<F, Response>;
      },
  });

/** The answers as sent: without those cancelled MCP-style, written by the connection's serializer. */
const written =
  (silenced: Set<Id>) =>
  (given: Env) =>
  (answer: Answer): string => {
    if (silenced.size === 0 || answer === undefined) return writeAll(given.serializer, given.debug, answer);
    if (!Array.isArray(answer)) {
      return silenced.delete(idOf(answer)) ? "" : writeAll(given.serializer, given.debug, answer);
    }
    const kept = answer.filter((response) => !silenced.delete(idOf(response)));
    return kept.length === 0 ? "" : writeAll(given.serializer, given.debug, kept);
  };

/**
 * Builds the connection's pipeline into `state`: its options (the connection's stage first, then
 * the server's and the given ones) and the dispatch that writes its answers, of a message already
 * parsed and of one kept as text. The options are checked now, so that a bad one is the caller's
 * exception rather than every message's failure.
 */
export const preparePipeline = (state: PeerState, settings: Settings): void => {
  const { app, stages, maxBatchSize, context, rest } = settings;
  state.options = {
    ...rest,
    // Messages are JSON: a `deserializer` (refused by the options' type) is not called.
    deserializer: undefined,
    maxBatchSize,
    context,
    stages: [trackingStage(state), ...(app?.stages ?? []), ...stages],
  };
  state.env = environment(state.methods, state.options, true);
  const output = written(state.silenced);
  state.dispatch = parsedDispatcher(Async, output);
  state.dispatchText = dispatcher(Async, output);
};

/**
 * Runs one message through the pipeline: its value as `receiver` parsed it, or for `UNPARSED` (a
 * message that waited, or that is not JSON: -32700) its text. Its answer, as text ("" for none).
 */
export const run = (state: PeerState, text: string, parsed: unknown): string | Promise<string> => {
  try {
    return parsed === UNPARSED
      ? state.dispatchText(text, state.methods, state.options)
      : state.dispatch(parsed, state.methods, state.options);
  } catch (thrown) {
    // Dispatch throws only for a bad option, which `environment` refused already: still, the slot is freed.
    logSafely("rpcserver: a connection could not answer a message", thrown);
    return "";
  }
};
