/**
 * `natsTransport`: a client transport for `rpcserver/client` over NATS request-reply. It keeps one
 * inbox subscription of its own and routes each answer to its call by the reply subject's last
 * token, as nats-core's own requests do, because `nc.request` takes no `AbortSignal` and answers
 * one message: this way a call can be aborted, its values (./wire) come before its answer, and
 * "no responders" is told apart from a timeout.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { headers as natsHeaders } from "@nats-io/nats-core";
import { isThenable } from "../core/guards";
import { failure, type TransportError } from "../client/errors";
import { NEVER, type ParsedAnswer, type Transport, type TransportOptions } from "../client/transport";
import { valueOf } from "../client/transports/event-answer";
import type { NatsConnection, NatsHeaders, NatsMessage, NatsSubscription } from "./shapes";
import { SERVICE_ERROR, SERVICE_ERROR_CODE, STREAM_HEADER, STREAM_VALUES } from "./wire";

/**
 * The options of {@link natsTransport}.
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsTransportOptions {
  /**
   * How long a call waits for its answer (for a streamed call: for each message) before it fails
   * with `{ reason: "timeout" }`: a request the serving process took and then died with is never
   * answered. Default 30,000 ms. A call's own `timeoutMs` and signal apply as well.
   */
  readonly timeoutMs?: number;
  /** Headers sent with every request (a token, a trace id), or a function that makes them per call. */
  readonly headers?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>);
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

/** One call awaiting its answer. */
interface Pending {
  readonly settle: (answer: E.Either<TransportError, string | ParsedAnswer>) => void;
  readonly options: TransportOptions;
  /** Rearms the call's timer: a streamed call waits `timeoutMs` for each message. */
  readonly rearm: () => void;
  /** The values handed on so far, so that the answer follows the last of them. */
  chain: Promise<void> | undefined;
}

/** A random token for the inbox: unguessable enough that two transports never share one. */
const randomToken = (): string => `${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;

/**
 * An empty message that says the request was not served: the NATS server's 503 (nobody serves the
 * subject), or the services framework's error reply (`Nats-Service-Error-Code`, with its reason).
 */
const refusal = (headers: NatsHeaders, subject: string): TransportError | undefined => {
  if (headers.code === 503) return { _tag: "TransportError", reason: "noResponders", subject };
  const code = Number(headers.get(SERVICE_ERROR_CODE));
  return code > 0
    ? { _tag: "TransportError", reason: "status", status: code, body: headers.get(SERVICE_ERROR) }
    : undefined;
};

const closedError = (cause: unknown): TransportError => ({ _tag: "TransportError", reason: "closed", cause });

/** The headers of one request: the transport's, and `Rpc-Stream: values` for a streamed call. */
const requestHeaders = (options: NatsTransportOptions, streamed: boolean): NatsHeaders | undefined => {
  const given = typeof options.headers === "function" ? options.headers() : options.headers;
  if (given === undefined && !streamed) return undefined;
  const headers = natsHeaders();
  for (const [name, value] of Object.entries(given ?? {})) headers.set(name, value);
  if (streamed) headers.set(STREAM_HEADER, STREAM_VALUES);
  return headers;
};

/** A message to a streamed call: a value handed on in order, or its answer after the values. */
const routeStreamed = (pending: Pending, message: NatsMessage, onValue: (value: unknown) => unknown): void => {
  const text = message.string();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return settleAfterValues(pending, E.right(text));
  }
  const found = valueOf(json, pending.options.ids?.[0]);
  if (found === "answer") return settleAfterValues(pending, E.right({ json }));
  if (found === "skip") return;
  pending.rearm();
  const hand = (): Promise<void> | undefined => {
    if (pending.options.signal.aborted) return undefined;
    const taken = onValue(found.value);
    return isThenable(taken) ? Promise.resolve(taken).then(() => undefined) : undefined;
  };
  pending.chain = pending.chain === undefined ? hand() : pending.chain.then(hand);
};

const settleAfterValues = (pending: Pending, answer: E.Either<TransportError, string | ParsedAnswer>): void => {
  if (pending.chain === undefined) pending.settle(answer);
  else void pending.chain.then(() => pending.settle(answer));
};

/**
 * A transport for `rpcserver/client` over NATS: each call a request to `subject` (served by
 * `serveNats`, or any JSON-RPC server on NATS), its answer the reply.
 *
 * Details:
 * - A body of notifications is published without a reply subject, and answers `""` at once.
 * - A streamed call (`open`, `for await`) asks for its values with the header `Rpc-Stream:
 *   values`; they come before the answer, at the server's pace (core NATS has no back-pressure:
 *   the values its consumer has not taken wait in this process).
 * - Failures: nobody serving `subject` is `{ reason: "noResponders", subject }` (at once); no
 *   answer within `timeoutMs` is `{ reason: "timeout" }`; the connection closed is `closed`; the
 *   services framework's error reply (the server could not dispatch or send the answer) is
 *   `{ reason: "status", status: <its code>, body: <its reason> }`.
 * - An aborted call's late answer is dropped; the server is not told (NATS has no way back).
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
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new RangeError("natsTransport: timeoutMs must be a positive number of milliseconds");
  }
  const pending = new Map<string, Pending>();
  let inbox: string | undefined;
  let subscription: NatsSubscription | undefined;
  let next = 0;
  /** `close()` was called: every call from now on is refused, notifications included. */
  let closed = false;

  const route = (error: Error | null, message: NatsMessage): void => {
    const call = pending.get(message.subject.slice((inbox as string).length + 1));
    if (call === undefined) return;
    if (error !== null) return call.settle(E.left(closedError(error)));
    if (message.data.length === 0 && message.headers !== undefined) {
      const refused = refusal(message.headers, subject);
      if (refused !== undefined) return call.settle(E.left(refused));
    }
    const { onValue } = call.options;
    if (onValue !== undefined) return routeStreamed(call, message, onValue);
    call.settle(E.right(message.string()));
  };

  /** The inbox, subscribed at the first call; the calls fail as `closed` once the connection closes. */
  const open = (): string => {
    if (inbox !== undefined) return inbox;
    inbox = `_INBOX.${randomToken()}`;
    subscription = connection.subscribe(`${inbox}.*`, { callback: route });
    void connection.closed().then((cause) => failAll(closedError(cause ?? new Error("nats: connection closed"))));
    return inbox;
  };

  const failAll = (error: TransportError): void => {
    for (const call of [...pending.values()]) call.settle(E.left(error));
  };

  const send = (body: string, callOptions: TransportOptions) => () =>
    new Promise<E.Either<TransportError, string | ParsedAnswer>>((resolve) => {
      const { signal, ids, onValue } = callOptions;
      if (signal.aborted) return resolve(E.left(failure(signal, signal.reason)));
      if (closed) return resolve(E.left(closedError(new Error("natsTransport: closed"))));
      if (connection.isClosed()) return resolve(E.left(closedError(new Error("nats: connection closed"))));
      if (ids !== undefined && ids.every((id) => id === undefined)) {
        try {
          connection.publish(subject, body, headersOption(requestHeaders(options, false)));
          return resolve(E.right(""));
        } catch (cause) {
          return resolve(E.left(publishFailure(connection, cause)));
        }
      }
      const token = String((next += 1));
      const reply = `${open()}.${token}`;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = (): void => settle(E.left(failure(signal, signal.reason)));
      const settle = (answer: E.Either<TransportError, string | ParsedAnswer>): void => {
        if (!pending.delete(token)) return;
        clearTimeout(timer);
        if (signal !== NEVER) signal.removeEventListener("abort", onAbort);
        resolve(answer);
      };
      const rearm = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => settle(E.left({ _tag: "TransportError", reason: "timeout", timeoutMs })), timeoutMs);
      };
      pending.set(token, { settle, options: callOptions, rearm, chain: undefined });
      // A call that nothing can abort adds no listener (see NEVER).
      if (signal !== NEVER) signal.addEventListener("abort", onAbort, { once: true });
      rearm();
      try {
        const headers = requestHeaders(options, onValue !== undefined);
        connection.publish(subject, body, { reply, ...headersOption(headers) });
      } catch (cause) {
        settle(E.left(publishFailure(connection, cause)));
      }
    });

  const close = (): void => {
    closed = true;
    subscription?.unsubscribe();
    failAll(closedError(new Error("natsTransport: closed")));
  };
  return Object.assign(send, { close });
};

const headersOption = (headers: NatsHeaders | undefined): { headers?: NatsHeaders } =>
  headers === undefined ? {} : { headers };

/** A publish that threw: the connection closed (or draining), or anything else (a bad subject, a body over `max_payload`). */
const publishFailure = (connection: NatsConnection, cause: unknown): TransportError =>
  connection.isClosed() ? closedError(cause) : { _tag: "TransportError", reason: "network", cause };
