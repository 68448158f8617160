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
 * the connection closes, which stops the method.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { logSafely } from "../core/logger";
import type { Request } from "../core/request";
import { SuccessResponse, type Response } from "../core/response";
import { serialize } from "../core/serializer";
import { streamTo } from "../core/stream";
import { cancelled, hold } from "./back-pressure";
import { send } from "./flow-control";
import { isId, isRecord, type Json } from "./messages";
import type { PeerState, Progress, ProgressHooks, Serving } from "./state";

const LSP_PROGRESS = "$/progress";
const MCP_PROGRESS = "notifications/progress";

type Token = string | number;

const tokenIn = (record: Json, key: string): Token | undefined => {
  const token = record[key];
  return isId(token) ? token : undefined;
};

const progressRecord = (method: string, token: Token | undefined, workDone: Token | undefined): Progress => ({
  method,
  token,
  workDone,
  sent: 0,
  done: false,
  ended: false,
  waiting: undefined,
});

/** LSP's tokens, in params by name: `partialResultToken` and `workDoneToken`. */
const lspTokens = (request: Request): Progress | undefined => {
  const { params } = request;
  if (!isRecord(params)) return undefined;
  const token = tokenIn(params, "partialResultToken");
  const workDone = tokenIn(params, "workDoneToken");
  return token === undefined && workDone === undefined ? undefined : progressRecord(request.method, token, workDone);
};

/** MCP's token: `params._meta.progressToken`. */
const mcpTokens = (request: Request): Progress | undefined => {
  const { params } = request;
  if (!isRecord(params)) return undefined;
  const meta = params["_meta"];
  if (!isRecord(meta)) return undefined;
  const token = tokenIn(meta, "progressToken");
  return token === undefined ? undefined : progressRecord(request.method, token, undefined);
};

/** The text of a notification, by the connection's serializer (as its responses are). */
const written = (state: PeerState, method: string, params: Json): string =>
  (state.env.serializer ?? serialize)({ jsonrpc: "2.0", method, params });

/** A value as a message: a string as it is, anything else as its JSON text (`undefined`: none). */
const messageOf = (state: PeerState, value: unknown): string | undefined =>
  typeof value === "string" || value === undefined ? value : (state.env.serializer ?? serialize)(value);

/** LSP's report of a value: its own `message` and `percentage` if it has either, else the value as the message. */
const report = (state: PeerState, value: unknown): Json => {
  if (isRecord(value)) {
    const { message, percentage } = value;
    if (typeof message === "string" || typeof percentage === "number") {
      return {
        kind: "report",
        ...(typeof message === "string" ? { message } : {}),
        ...(typeof percentage === "number" ? { percentage } : {}),
      };
    }
  }
  const message = messageOf(state, value);
  return message === undefined ? { kind: "report" } : { kind: "report", message };
};

/** Is `value` MCP's progress itself: `{ progress: number, total?: number, message?: string }`? */
const isMcpProgress = (value: unknown): value is { progress: number; total?: number; message?: string } =>
  isRecord(value) &&
  typeof value["progress"] === "number" &&
  (value["total"] === undefined || typeof value["total"] === "number") &&
  (value["message"] === undefined || typeof value["message"] === "string");

/** MCP's progress of the `index`-th value (from 1): its own fields if it has that shape, else its index. */
const mcpParams = (state: PeerState, token: Token, index: number, value: unknown): Json => {
  if (isMcpProgress(value)) {
    const { progress, total, message } = value;
    return {
      progressToken: token,
      progress,
      ...(total !== undefined ? { total } : {}),
      ...(message !== undefined ? { message } : {}),
    };
  }
  const message = messageOf(state, value);
  return message === undefined
    ? { progressToken: token, progress: index }
    : { progressToken: token, progress: index, message };
};

/** The notification a value goes out as. */
const valueText = (state: PeerState, progress: Progress, value: unknown): string => {
  const { token, workDone } = progress;
  if (state.cancellation === "mcp")
    return written(state, MCP_PROGRESS, mcpParams(state, token as Token, progress.sent + 1, value));
  return token !== undefined
    ? written(state, LSP_PROGRESS, { token, value })
    : written(state, LSP_PROGRESS, { token: workDone, value: report(state, value) });
};

/** Why a sink refuses: its request cancelled or its connection closed (-32800), or its answer already made. */
const stopped = (entry: Serving, state: PeerState): Promise<never> =>
  Promise.reject(
    entry.cancelled !== undefined || state.closed
      ? cancelled()
      : new Error("rpcserver: a value was streamed after its request was answered"),
  );

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

/** LSP's work-done begin or end: sent as it comes (a serializer that throws on it is logged, and the request goes on). */
const workDone = (state: PeerState, token: Token, value: Json): void => {
  let text: string;
  try {
    text = written(state, LSP_PROGRESS, { token, value });
  } catch (thrown) {
    return logSafely("rpcserver: a work-done progress notification could not be written", thrown);
  }
  send(state, text);
};

/**
 * LSP 3.17: "the final response has to be empty in terms of result values" once partial results
 * went out: `[]` for an array result, `null` for any other. An error is sent as it is.
 */
const emptied = (progress: Progress, response: Response): Response =>
  progress.token === undefined || progress.sent === 0 || response._tag === "Left"
    ? response
    : E.right(SuccessResponse(Array.isArray(response.right.result) ? [] : null, response.right.id));

/** The connection's progress, as its first stage uses it: made once per connection. */
export const progressHooks = (state: PeerState): ProgressHooks => {
  const lsp = state.cancellation === "lsp";
  const tokens = lsp ? lspTokens : mcpTokens;
  return {
    open: (request, entry) => {
      const progress = tokens(request);
      if (progress === undefined) return undefined;
      entry.progress = progress;
      streamTo(request, (value) => push(state, progress, entry, value));
      if (progress.workDone !== undefined)
        workDone(state, progress.workDone, { kind: "begin", title: progress.method });
      return progress;
    },
    close: (progress) => {
      progress.done = true;
      if (progress.ended) return;
      progress.ended = true;
      if (progress.workDone !== undefined) workDone(state, progress.workDone, { kind: "end" });
    },
    answer: lsp ? emptied : (_progress, response) => response,
  };
};
