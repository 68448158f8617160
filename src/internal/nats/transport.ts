/**
 * `natsTransport`: a client transport for `rpcserver/client` over NATS request-reply. It keeps one
 * inbox subscription of its own (./inbox) and routes each answer to its call by the reply subject's
 * last token, as nats-core's own requests do, because `nc.request` takes no `AbortSignal` and answers
 * one message: this way a call can be aborted, its values (./wire) come before its answer, and
 * "no responders" is told apart from a timeout.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { headers as natsHeaders } from "@nats-io/nats-core";
import { closed, failure, network, type TransportError } from "../client/errors";
import { streamedId, type Transport, type TransportOptions } from "../client/transport";
import { MAX_ANSWER_BYTES } from "../client/transports/http-answer";
import { messageOf } from "../core/describe";
import type { Relay } from "../core/relay";
import { fitsOneTimer, MAX_TIMER_MS } from "../core/timer";
import { Inbox, type Answer, type CallOptions } from "./inbox";
import type { NatsConnection, NatsHeaders } from "./shapes";
import { STREAM_HEADER, STREAM_VALUES } from "./wire";

/**
 * The options of {@link natsTransport}.
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsTransportOptions {
  /**
   * How long a call waits for its answer (for a streamed call: for each message, until the answer)
   * before it fails with `{ reason: "timeout" }`: a request the serving process took and then died
   * with is never answered. Default 30,000 ms, at most 2,147,483,647 (a timer's limit). A call's own
   * `timeoutMs` and signal apply as well.
   */
  readonly timeoutMs?: number | undefined;
  /** Headers sent with every request (a token, a trace id), or a function that makes them per call. */
  readonly headers?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>) | undefined;
  /**
   * The most bytes a call takes: its answer, or the values of a streamed call that its consumer has
   * not taken yet. Past it the call fails `{ reason: "tooLarge", limit }`. Default 64 MiB.
   */
  readonly maxAnswerBytes?: number | undefined;
  /** The inbox's prefix. Default: the connection's `inboxPrefix` option, else `_INBOX`. */
  readonly inboxPrefix?: string | undefined;
}

/**
 * A transport over NATS, with a way to let go of its inbox subscription.
 *
 * @since 5.0.10
 * @category nats
 */
export type NatsTransport = Transport & {
  /** Ends the inbox subscription; calls still awaiting answers, and every later one, fail with `{ reason: "closed" }`. */
  readonly close: () => void;
};

const DEFAULT_TIMEOUT_MS = 30_000;

/** The headers of one request: the transport's (or a relayed request's), and `Rpc-Stream: values` for a streamed call. */
const requestHeaders = (
  given: Readonly<Record<string, string>> | undefined,
  streamed: boolean,
): NatsHeaders | undefined => {
  if (given === undefined && !streamed) return undefined;
  const headers = natsHeaders();
  for (const [name, value] of Object.entries(given ?? {})) headers.set(name, value);
  if (streamed) headers.set(STREAM_HEADER, STREAM_VALUES);
  return headers;
};

const headersGiven = (options: NatsTransportOptions): Readonly<Record<string, string>> | undefined =>
  typeof options.headers === "function" ? options.headers() : options.headers;

const headersOption = (headers: NatsHeaders | undefined): { headers?: NatsHeaders } =>
  headers === undefined ? {} : { headers };

/**
 * A publish that threw: the connection closed or draining, or anything else (a bad subject, a body
 * over `max_payload`).
 */
const publishFailure = (connection: NatsConnection, cause: unknown): TransportError =>
  connection.isClosed() || connection.isDraining?.() === true ? closed(cause) : network(cause);

/** The options checked when the transport is made. */
const limits = (
  name: string,
  options: NatsTransportOptions,
): { readonly timeoutMs: number; readonly maxAnswerBytes: number } => {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // The limit this option documents: one timer's (a call's own `timeoutMs` has none).
  if (!fitsOneTimer(timeoutMs)) {
    throw new RangeError(`${name}: timeoutMs must be a number of milliseconds from 1 to ${MAX_TIMER_MS}`);
  }
  const maxAnswerBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  if (maxAnswerBytes !== Infinity && !(Number.isSafeInteger(maxAnswerBytes) && maxAnswerBytes > 0)) {
    throw new RangeError(`${name}: maxAnswerBytes must be a positive integer or Infinity`);
  }
  return { timeoutMs, maxAnswerBytes };
};

/**
 * A transport for `rpcserver/client` over NATS: each call a request to `subject` (served by
 * `serveNats`, or any JSON-RPC server on NATS), its answer the reply.
 *
 * Details:
 * - A body of notifications is published without a reply subject, and answers `""` at once.
 * - A streamed call (`open`, `for await`) asks for its values with the header `Rpc-Stream:
 *   values`; they come before the answer, at the server's pace (core NATS has no back-pressure:
 *   the values its consumer has not taken wait in this process, up to `maxAnswerBytes`, past
 *   which the call fails `tooLarge`). Once the answer is in, no timer runs: a slow consumer
 *   takes the values at its pace.
 * - Failures: nobody serving `subject` is `{ reason: "noResponders", subject }` (at once); no
 *   answer within `timeoutMs` is `{ reason: "timeout" }`; the connection closed is `closed`; the
 *   services framework's error reply (the server could not dispatch or send the answer) is
 *   `{ reason: "status", status: <its code>, body: <its reason> }`.
 * - An aborted call's late answer is dropped; the server is not told (NATS has no way back).
 * - The inbox is `<inboxPrefix>.<random>` (the connection's `inboxPrefix`, or this transport's), so
 *   that permissions that give each user an inbox prefix of its own hold; each call's reply token
 *   is random, so a peer that saw one reply subject cannot answer the next calls.
 *
 * @example
 * // compile-only: it needs a NATS server (docs/scale-out.md runs one)
 * import * as t from "io-ts";
 * import { contract } from "rpcserver";
 * import { client } from "rpcserver/client";
 * import { natsTransport, type NatsConnection } from "rpcserver/nats";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * // `nc` from `connect` of @nats-io/transport-node:
 * const add = async (nc: NatsConnection) => {
 *   const calc = client(api, natsTransport(nc, "rpc.examples", { timeoutMs: 5_000 }));
 *   return calc.add(1, 2)(); // resolves to { _tag: "Right", right: 3 }
 * };
 *
 * @since 5.0.10
 * @category nats
 */
export const natsTransport = (
  connection: NatsConnection,
  subject: string,
  options: NatsTransportOptions = {},
): NatsTransport => {
  const { publish, call, close } = caller("natsTransport", connection, subject, options);
  const send = (body: string, callOptions: TransportOptions) => () =>
    new Promise<Answer>((resolve) => {
      const { ids, onValue } = callOptions;
      const given = headersGiven(options);
      if (ids !== undefined && ids.every((id) => id === undefined)) {
        return resolve(publish(body, callOptions.signal, requestHeaders(given, false)));
      }
      const headers = requestHeaders(given, onValue !== undefined);
      call(body, callOptions, headers, resolve, streamedId(body, callOptions));
    });
  return Object.assign(send, { close });
};

/**
 * A relay over NATS, with a way to let go of its inbox subscription.
 *
 * @example
 * // compile-only: it needs a NATS server (docs/mcp.md runs one)
 * import { natsRelay, type NatsConnection, type NatsRelay } from "rpcserver/nats";
 * const relayTo = (nc: NatsConnection): NatsRelay => natsRelay(nc, "mcp.tools", { timeoutMs: 60_000 });
 *
 * @since 5.0.10
 * @category nats
 */
export type NatsRelay = Relay & {
  /** Ends the inbox subscription; bodies still awaiting answers, and every later one, are rejected. */
  readonly close: () => void;
};

/** What the front's log says of a failure beyond its reason. */
const detailOf = (error: TransportError): string => {
  if ("cause" in error) return ` (${messageOf(error.cause)})`;
  switch (error.reason) {
    case "gap":
      return ` (message ${error.expected} expected, ${error.came} came)`;
    case "timeout":
      return ` (no message in ${error.timeoutMs} ms)`;
    case "tooLarge":
      return ` (past maxAnswerBytes, ${error.limit})`;
    default:
      return "";
  }
};

/** Why a relayed body got no answer, as an Error the front logs. */
const relayFailure = (subject: string, error: TransportError): Error =>
  new Error(`natsRelay: no answer on ${subject}: ${error.reason}${detailOf(error)}`);

/**
 * A relay over NATS (`mcpHandler`'s `relay`): each POST's body a request to `subject`, served by
 * `serveNats` in the worker processes (a queue group: each body goes to one of them), with the HTTP
 * request's headers as the message's; the messages the worker sends before its answer come back
 * as they are, for the front's event stream. Its options and failures are `natsTransport`'s
 * (`timeoutMs` counts from each message; no worker is `noResponders` at once), each a rejection
 * the front answers -32000 and logs. docs/mcp.md, "Workers over NATS".
 *
 * @example
 * // compile-only: it needs a NATS server (docs/mcp.md runs one)
 * import { mcpHandler, mcpServer } from "rpcserver/mcp";
 * import { natsRelay, type NatsConnection } from "rpcserver/nats";
 * // `nc` from `connect` of @nats-io/transport-node; the workers serve the same declaration:
 * const front = (nc: NatsConnection) =>
 *   mcpHandler(mcpServer({ name: "tools", version: "1.0.0" }), { relay: natsRelay(nc, "mcp.tools") });
 *
 * @since 5.0.10
 * @category nats
 */
export const natsRelay = (
  connection: NatsConnection,
  subject: string,
  options: Omit<NatsTransportOptions, "headers"> = {},
): NatsRelay => {
  const { call, close } = caller("natsRelay", connection, subject, options);
  const relay: Relay = (body, { headers, signal, onMessage }) =>
    new Promise<string>((resolve, reject) => {
      const settle = (answer: Answer): void => {
        if (E.isLeft(answer)) return reject(relayFailure(subject, answer.left));
        resolve(answer.right);
      };
      // A raw call's values are each message's text (./inbox).
      const callOptions: CallOptions =
        onMessage === undefined ? { signal } : { signal, onValue: (text) => onMessage(text as string), raw: true };
      call(body, callOptions, requestHeaders(headers, onMessage !== undefined), settle, undefined);
    });
  return Object.assign(relay, { close });
};

/**
 * What a transport and a relay share: one inbox, the checks of the options, and how a body goes on
 * `subject`: published (`publish`, a body of notifications), or as a request (`call`).
 */
const caller = (
  name: "natsTransport" | "natsRelay",
  connection: NatsConnection,
  subject: string,
  options: NatsTransportOptions,
) => {
  const { timeoutMs, maxAnswerBytes } = limits(name, options);
  const inbox = new Inbox(connection, subject, timeoutMs, maxAnswerBytes, options.inboxPrefix);
  /** `close()` was called: every call from now on is refused, notifications included. */
  let shut = false;

  const refused = (signal: AbortSignal): TransportError | undefined => {
    if (signal.aborted) return failure(signal, signal.reason);
    if (shut) return closed(new Error(`${name}: closed`));
    if (connection.isClosed()) return closed(new Error("nats: connection closed"));
    return undefined;
  };

  /** A body of notifications, published without a reply subject: `""` at once. */
  const publish = (body: string, signal: AbortSignal, headers: NatsHeaders | undefined): Answer => {
    const refusal = refused(signal);
    if (refusal !== undefined) return E.left(refusal);
    try {
      connection.publish(subject, body, headersOption(headers));
      return E.right("");
    } catch (cause) {
      return E.left(publishFailure(connection, cause));
    }
  };

  /** A request: its answer (and, asked for, its values) routed to it by the inbox, for `resolve`. */
  const call = (
    body: string | Uint8Array,
    callOptions: CallOptions,
    headers: NatsHeaders | undefined,
    resolve: (answer: Answer) => void,
    id: unknown,
  ): void => {
    const refusal = refused(callOptions.signal);
    if (refusal !== undefined) return resolve(E.left(refusal));
    let pending: ReturnType<Inbox["call"]>;
    try {
      pending = inbox.call(callOptions, resolve, id);
    } catch (cause) {
      return resolve(E.left(publishFailure(connection, cause)));
    }
    try {
      connection.publish(subject, body, { reply: pending.reply, ...headersOption(headers) });
    } catch (cause) {
      pending.pending.settle(E.left(publishFailure(connection, cause)));
    }
  };

  const close = (): void => {
    shut = true;
    inbox.failAll(closed(new Error(`${name}: closed`)), true);
  };
  return { publish, call, close };
};
