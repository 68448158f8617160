/**
 * Progress on the standard wire, with no state: which tokens a request carries, the notification
 * each streamed value goes out as, in the two protocols that define one inside plain JSON-RPC 2.0,
 * and why a transport's sink refuses a value. Every wire's sink (core/served-body.ts's `Streamed`:
 * a connection's, an HTTP event stream's, NATS's) shapes its notifications here, so the wires say
 * the same thing the same way.
 *
 * - LSP 3.17: `params.partialResultToken` gets `$/progress { token, value }` for each value (and
 *   the final result is then emptied, {@link emptied}); `params.workDoneToken` gets `{ kind:
 *   "begin", title }` with the first value, a `{ kind: "report", message?, percentage? }` per value
 *   when there is no partial-result token, and `{ kind: "end" }` once the request is done.
 * - MCP: `params._meta.progressToken` gets `notifications/progress { progressToken, progress,
 *   total?, message? }` for each value.
 * - Over HTTP, a request with an id and no token gets its values on its own id, `$/progress {
 *   token: <id>, value }` ({@link httpTokens}): the event stream belongs to that one POST.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { ERROR_REQUEST_CANCELLED } from "./codes";
import { JsonRpcError } from "./exceptions";
import { isRecord } from "./guards";
import { logSafely } from "./logger";
import { SuccessResponse, type Response } from "./response";

/**
 * A value a method streams that goes out as the message it holds rather than as progress: what a
 * protocol sends on a request's own stream besides progress (MCP's log notifications, and its
 * server-to-client requests on a POST's event stream). The message is written as it is.
 */
export class WireMessage {
  constructor(readonly message: Readonly<Record<string, unknown>>) {}
}

/**
 * A value a method streams that no wire sends: a step of its stream (its generator waits at that
 * `yield` as at any other, the event loop's turns are counted) that writes nothing. What MCP's
 * `tools/call` yields for a tool's progress when the call asked for none (no `progressToken`), where
 * HTTP would otherwise send the value on the request's id.
 */
export const UNSENT: unique symbol = Symbol("rpcserver.unsent");

/** LSP's progress notification. */
export const LSP_PROGRESS = "$/progress";
/** MCP's progress notification. */
export const MCP_PROGRESS = "notifications/progress";

/** A progress token: a string or a number, as both protocols define it. */
export type ProgressToken = string | number;

/** Whose notification a value goes out as. */
export type Convention = "lsp" | "mcp";

/** Writes one message as JSON text: the transport's serializer (`serialize` by default). */
export type Write = (value: unknown) => string;

type Json = Record<string, unknown>;

/**
 * Where a request's values go, and in whose convention: `token` (LSP's partial-result token, MCP's
 * progress token, or over HTTP the request's id), LSP's work-done token, and whether the final
 * result is emptied once values went out (LSP's partial results).
 */
export interface Tokens {
  readonly convention: Convention;
  readonly token: ProgressToken | undefined;
  readonly workDone: ProgressToken | undefined;
  readonly empties: boolean;
}

/** What carries the tokens: a request (or a message about to be sent as one), by its params. */
export interface Carrier {
  readonly params?: unknown;
}

const isToken = (value: unknown): value is ProgressToken => typeof value === "string" || typeof value === "number";

const tokenIn = (record: Json, key: string): ProgressToken | undefined => {
  const token = record[key];
  return isToken(token) ? token : undefined;
};

/** LSP's tokens, in params by name: `partialResultToken` and `workDoneToken`; `undefined` for neither. */
export const lspTokens = (request: Carrier): Tokens | undefined => {
  const { params } = request;
  if (!isRecord(params)) return undefined;
  const token = tokenIn(params, "partialResultToken");
  const workDone = tokenIn(params, "workDoneToken");
  return token === undefined && workDone === undefined
    ? undefined
    : { convention: "lsp", token, workDone, empties: true };
};

/** MCP's token: `params._meta.progressToken`; `undefined` for none. */
export const mcpTokens = (request: Carrier): Tokens | undefined => {
  const { params } = request;
  if (!isRecord(params)) return undefined;
  const meta = params["_meta"];
  const token = isRecord(meta) ? tokenIn(meta, "progressToken") : undefined;
  return token === undefined ? undefined : { convention: "mcp", token, workDone: undefined, empties: false };
};

/**
 * Over HTTP both conventions are read, request by request: MCP's `_meta.progressToken` first, then
 * LSP's tokens, then the request's own `id` (the by-id form: `$/progress { token: id, value }`,
 * the result not emptied). `undefined` for a notification, whose values are dropped.
 */
export const httpTokens = (request: Carrier, id: unknown): Tokens | undefined =>
  mcpTokens(request) ??
  lspTokens(request) ??
  (isToken(id) ? { convention: "lsp", token: id, workDone: undefined, empties: false } : undefined);

/** The text of a notification, by the transport's serializer (as its responses are written). */
export const notificationText = (write: Write, method: string, params: Json): string =>
  write({ jsonrpc: "2.0", method, params });

/** A value as a message: a string as it is, anything else as its JSON text (`undefined`: none). */
const messageOf = (write: Write, value: unknown): string | undefined =>
  typeof value === "string" || value === undefined ? value : write(value);

/** LSP's report of a value: its own `message` and `percentage` if it has either, else the value as the message. */
const report = (write: Write, value: unknown): Json => {
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
  const message = messageOf(write, value);
  return message === undefined ? { kind: "report" } : { kind: "report", message };
};

/** Is `value` MCP's progress itself: `{ progress: number, total?: number, message?: string }`? */
const isMcpProgress = (value: unknown): value is { progress: number; total?: number; message?: string } =>
  isRecord(value) &&
  typeof value["progress"] === "number" &&
  (value["total"] === undefined || typeof value["total"] === "number") &&
  (value["message"] === undefined || typeof value["message"] === "string");

/** MCP's progress of the `index`-th value (from 1): its own fields if it has that shape, else its index. */
const mcpParams = (write: Write, token: ProgressToken, index: number, value: unknown): Json => {
  if (isMcpProgress(value)) {
    const { progress, total, message } = value;
    return {
      progressToken: token,
      progress,
      ...(total !== undefined ? { total } : {}),
      ...(message !== undefined ? { message } : {}),
    };
  }
  const message = messageOf(write, value);
  return message === undefined
    ? { progressToken: token, progress: index }
    : { progressToken: token, progress: index, message };
};

/**
 * The notification the `index`-th value (from 1) of a request with `tokens` goes out as, in their
 * convention: LSP's `$/progress { token, value }` on the partial-result token, else a work-done
 * report; MCP's `notifications/progress { progressToken, progress, total?, message? }`. Throws what
 * `write` throws (a value it cannot write): the caller makes that the method's exception. A
 * {@link WireMessage} goes out as the message it holds, in either convention.
 */
export const valueNotification = (write: Write, tokens: Tokens, index: number, value: unknown): string => {
  if (value instanceof WireMessage) return write(value.message);
  const { convention, token, workDone } = tokens;
  if (convention === "mcp")
    return notificationText(write, MCP_PROGRESS, mcpParams(write, token as ProgressToken, index, value));
  return token !== undefined
    ? notificationText(write, LSP_PROGRESS, { token, value })
    : notificationText(write, LSP_PROGRESS, { token: workDone, value: report(write, value) });
};

/** LSP's work-done `begin`, titled with the request's method. */
export const workDoneBegin = (method: string): Json => ({ kind: "begin", title: method });

/** LSP's work-done `end`. */
export const WORK_DONE_END: Json = Object.freeze({ kind: "end" });

/**
 * A work-done notification (`begin` or `end`) on `token`, or `undefined` when `write` throws on it:
 * that is logged, and the request goes on (its values and its answer are what matter).
 */
export const workDoneNotification = (write: Write, token: ProgressToken, value: Json): string | undefined => {
  try {
    return notificationText(write, LSP_PROGRESS, { token, value });
  } catch (thrown) {
    logSafely("rpcserver: a work-done progress notification could not be written", thrown);
    return undefined;
  }
};

/**
 * Why a sink refuses once its request is cancelled, its client gone or its connection closed:
 * -32800, which stops the method as its own `JsonRpcError` would (answered as given, nothing
 * logged). Its answer goes nowhere.
 */
export const requestCancelled = (): JsonRpcError => new JsonRpcError(ERROR_REQUEST_CANCELLED, "Request cancelled");

/** Why a sink refuses a value that comes after its request's response (a method still running after a `timeout`). */
export const answeredAlready = (): Error => new Error("rpcserver: a value was streamed after its request was answered");

/**
 * LSP 3.17: "the final response has to be empty in terms of result values" once partial results
 * went out (`sent` of them on a partial-result token): `[]` for an array result, `null` for any
 * other. An error is sent as it is, and a request that sent no value keeps its result.
 */
export const emptied = (tokens: Tokens, sent: number, response: Response): Response =>
  tokens.token === undefined || sent === 0 || response._tag === "Left"
    ? response
    : E.right(SuccessResponse(Array.isArray(response.right.result) ? [] : null, response.right.id));
