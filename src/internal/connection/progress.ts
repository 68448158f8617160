/**
 * Streamed values on a connection: a request that carries a progress token gets a sink (the
 * core's `streamTo`), and each value its method streams goes out as a notification on that token,
 * before the request's one response. Which token and which notification is the cancellation
 * convention's:
 *
 * - `"lsp"` (LSP 3.17): `params.partialResultToken` gets `$/progress { token, value }` for each
 *   value, and the final result is then emptied (`[]` for an array, else `null`), as LSP requires;
 *   `params.workDoneToken` gets `$/progress` `{ kind: "begin", title: method }` when the request
 *   starts, `{ kind: "report", message?, percentage? }` for each value when there is no
 *   `partialResultToken`, and `{ kind: "end" }` when it is done, however it ends.
 * - `"mcp"`: `params._meta.progressToken` gets `notifications/progress { progressToken, progress,
 *   total?, message? }` for each value.
 *
 * A request without a token registers no sink: its method's values are dropped, and reading its
 * params is all it costs. A sink resolves once its notification is handed to the channel, or, when
 * the channel is full, once it drains (./back-pressure); it rejects once the request is cancelled or
 * the connection closes, which stops the method. The notifications themselves are shaped in
 * core/progress-wire.ts, which an HTTP event stream shares; what is here is the connection's state.
 *
 * @module
 */
import {
  answeredAlready,
  emptied as emptiedResult,
  requestCancelled,
  WORK_DONE_END,
  workDoneBegin,
  workDoneNotification,
  type ProgressToken,
  type Write,
} from "../core/progress-wire";
import type { Request } from "../core/request";
import type { Response } from "../core/response";
import { serialize } from "../core/serializer";
import { streamTo } from "../core/stream";
import { hold } from "./back-pressure";
import { send } from "./flow-control";
import type { PeerState, Progress, ProgressHooks, Serving } from "./state";

const progressRecord = (
  method: string,
  token: ProgressToken | undefined,
  workDone: ProgressToken | undefined,
): Progress => ({
  method,
  token,
  workDone,
  sent: 0,
  done: false,
  ended: false,
  waiting: undefined,
});

/** The request's tokens, where the connection's convention puts them: its record of progress, or `undefined` for none. */
const progressOf = (state: PeerState, request: Request): Progress | undefined => {
  const tokens = state.dialect.tokens(request);
  return tokens === undefined ? undefined : progressRecord(request.method, tokens.token, tokens.workDone);
};

/** The connection's serializer (as its responses are written), read when used: `env` is set after the hooks are made. */
const writer = (state: PeerState): Write => state.env.serializer ?? serialize;

/** The notification a value goes out as. */
const valueText = (state: PeerState, progress: Progress, value: unknown): string =>
  state.dialect.valueNotification(writer(state), progress, progress.sent + 1, value);

/** Why a sink refuses: its request cancelled or its connection closed (-32800), or its answer already made. */
const stopped = (entry: Serving, state: PeerState): Promise<never> =>
  Promise.reject(entry.abort.aborted || state.closed ? requestCancelled() : answeredAlready());

/** One value from the method: sent, then waited for if the channel is full. */
const push = (state: PeerState, progress: Progress, entry: Serving, value: unknown): Promise<void> | undefined => {
  if (progress.done || state.closed) return stopped(entry, state);
  let text: string;
  try {
    text = valueText(state, progress, value);
  } catch (thrown) {
    // A value its serializer refuses stops the method, which answers the exception as its own.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    return Promise.reject(thrown);
  }
  progress.sent += 1;
  send(state, text);
  // Sending may close the connection (a peer that does not read), which stops the request.
  if (progress.done || state.closed) return stopped(entry, state);
  return state.full ? hold(state, progress) : undefined;
};

/** LSP's work-done begin or end: sent as it comes (one its serializer cannot write is logged, and the request goes on). */
const workDone = (state: PeerState, token: ProgressToken, value: Record<string, unknown>): void => {
  const text = workDoneNotification(writer(state), token, value);
  if (text !== undefined) send(state, text);
};

/** LSP 3.17's emptied final result, once partial results went out. */
const emptied = (progress: Progress, response: Response): Response => emptiedResult(progress, progress.sent, response);

/** The connection's progress, as its first stage uses it: made once per connection. */
export const progressHooks = (state: PeerState): ProgressHooks => {
  return {
    open: (request, entry) => {
      const progress = progressOf(state, request);
      if (progress === undefined) return undefined;
      entry.progress = progress;
      streamTo(request, (value) => push(state, progress, entry, value));
      if (progress.workDone !== undefined) workDone(state, progress.workDone, workDoneBegin(progress.method));
      return progress;
    },
    close: (progress) => {
      progress.done = true;
      if (progress.ended) return;
      progress.ended = true;
      if (progress.workDone !== undefined) workDone(state, progress.workDone, WORK_DONE_END);
    },
    answer: state.dialect.empties ? emptied : (_progress, response) => response,
  };
};
