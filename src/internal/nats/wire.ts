/**
 * JSON-RPC on NATS request-reply, as `serveNats` answers and `natsTransport` reads it: the body of
 * a message is one JSON-RPC body (a request or a batch), and its answer is one message to the reply
 * subject, the answer's JSON text, or an empty message for a body of notifications. A request with
 * the header `Rpc-Stream: values` asks for the values its method streams: each goes first, as its
 * own message to the same reply subject (the `$/progress` or MCP notification an HTTP event stream
 * carries, ./core/progress-wire), with the header `Rpc-Value: <n>`, numbered 1, 2, 3...; the answer
 * comes last, with `Rpc-Value-Count: <how many went before it>`, so that a reader can tell a lost
 * message (core NATS delivers at most once) from none. Here: the header names, how an answer is
 * sent, and {@link NatsOutlet}, a streamed call's outlet.
 *
 * @module
 */
import { headers as natsHeaders } from "@nats-io/nats-core";
import { logSafely } from "../core/logger";
import type { BodyOutlet } from "../core/served-body";
import type { NatsConnection, NatsHeaders, NatsMessage } from "./shapes";

/**
 * The request header that asks `serveNats` for the values a method streams: set it to
 * {@link STREAM_VALUES}. `natsTransport` sets it for a streamed call; a client of its own may too.
 *
 * @example
 * import { STREAM_HEADER, STREAM_VALUES } from "rpcserver/nats";
 * `${STREAM_HEADER}: ${STREAM_VALUES}`; // "Rpc-Stream: values"
 *
 * @since 5.0.10
 * @category nats
 */
export const STREAM_HEADER = "Rpc-Stream";

/**
 * The value of {@link STREAM_HEADER} that asks for streamed values.
 *
 * @example
 * import { STREAM_VALUES } from "rpcserver/nats";
 * STREAM_VALUES; // "values"
 *
 * @since 5.0.10
 * @category nats
 */
export const STREAM_VALUES = "values";

/**
 * The header that marks a message to a reply subject as a streamed value (or LSP's work-done begin
 * and end) rather than the answer, which comes last and has none: a client reading with
 * `requestMany` stops at the first message without it. Its value numbers the messages of one
 * request: `1`, `2`, `3`... in the order they were sent.
 *
 * @example
 * import { VALUE_HEADER } from "rpcserver/nats";
 * VALUE_HEADER; // "Rpc-Value"
 *
 * @since 5.0.10
 * @category nats
 */
export const VALUE_HEADER = "Rpc-Value";

/**
 * The header of a streamed call's answer that says how many messages marked {@link VALUE_HEADER}
 * went before it (`0` for none): a reader that got fewer lost some. `natsTransport` then fails the
 * call with `TransportError` `gap`.
 *
 * @example
 * import { VALUE_COUNT_HEADER } from "rpcserver/nats";
 * VALUE_COUNT_HEADER; // "Rpc-Value-Count"
 *
 * @since 5.0.10
 * @category nats
 */
export const VALUE_COUNT_HEADER = "Rpc-Value-Count";

/** The NATS services framework's error headers, for a message dispatch could not answer. */
export const SERVICE_ERROR = "Nats-Service-Error";
export const SERVICE_ERROR_CODE = "Nats-Service-Error-Code";

/** Headers of one entry. */
const headersOf = (name: string, value: number): NatsHeaders => {
  const made = natsHeaders();
  made.set(name, String(value));
  return made;
};

/** Does the message ask for its values? Only a request that has a reply subject can get them. */
export const asksForValues = (message: NatsMessage): boolean =>
  message.reply !== undefined && message.reply !== "" && message.headers?.get(STREAM_HEADER) === STREAM_VALUES;

/**
 * Publishes `data` to the message's reply subject; `false` (logged) when that failed: the
 * connection closed under it, or `data` is over the NATS server's `max_payload`.
 */
const send = (message: NatsMessage, data: string, headers?: NatsHeaders): boolean => {
  try {
    if (headers === undefined) message.respond(data);
    else message.respond(data, { headers });
    return true;
  } catch (thrown) {
    // A subject under a wildcard is the sender's choice: the site does not name it, for sampling.
    logSafely(
      `rpcserver/nats: could not answer a message on ${message.subject}`,
      thrown,
      "rpcserver/nats: could not answer a message",
    );
    return false;
  }
};

/** The services framework's error reply: an empty message whose headers say why. */
const serviceError = (message: NatsMessage, code: number, description: string): void => {
  const headers = natsHeaders();
  headers.set(SERVICE_ERROR, description);
  headers.set(SERVICE_ERROR_CODE, String(code));
  send(message, "", headers);
};

/**
 * Sends dispatch's answer: its text, or for a body of notifications (`""`) an empty message when the
 * sender waits for one (`nc.request` then resolves at once, rather than at its timeout), nothing when
 * it published without a reply subject. An answer that cannot be sent (over `max_payload`) is
 * replaced by the services framework's error reply, so that the requester learns why at once.
 */
export const answer = (message: NatsMessage, text: string, headers?: NatsHeaders): void => {
  if (message.reply === undefined || message.reply === "") return;
  if (!send(message, text, headers))
    serviceError(message, 500, `rpcserver: the answer (${text.length} characters) could not be sent`);
};

/**
 * Dispatch itself failed (a bad option, or the context function threw something other than a
 * `JsonRpcError`): the services framework's error reply.
 */
export const failed = (message: NatsMessage, thrown: unknown): void => {
  logSafely(
    `rpcserver/nats: dispatch failed for a message on ${message.subject}`,
    thrown,
    "rpcserver/nats: dispatch failed for a message",
  );
  if (message.reply === undefined || message.reply === "") return;
  serviceError(message, 500, thrown instanceof Error ? thrown.message : String(thrown));
};

/**
 * How many values go out between two waits for the NATS server to have seen them: core NATS has
 * no back-pressure of its own, and this bounds what the connection holds unsent for a fast method.
 */
const FLUSH_EVERY = 64;

/**
 * A streamed call's outlet on NATS: each value one message marked `Rpc-Value: <n>`, the answer the
 * last, marked `Rpc-Value-Count: <n>`. A message is numbered once it is published: one that could
 * not be (the connection closed, over `max_payload`) leaves no hole in the numbers. The NATS
 * server cannot tell us that the requester has gone, so nothing stops the call but its own end, a
 * `timeout` stage, or the service stopping (whose stopped call is still answered, with its error).
 */
export class NatsOutlet implements BodyOutlet {
  /** Messages marked `Rpc-Value` published so far. */
  private sent = 0;

  constructor(
    private readonly connection: NatsConnection,
    private readonly request: NatsMessage,
    private readonly done: () => void,
    private readonly fail: (thrown: unknown) => void,
  ) {}

  value(text: string): Promise<void> | undefined {
    try {
      this.request.respond(text, { headers: headersOf(VALUE_HEADER, this.sent + 1) });
    } catch (thrown) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(thrown);
    }
    this.sent += 1;
    return this.sent % FLUSH_EVERY === 0 ? this.connection.flush() : undefined;
  }

  message(text: string): void {
    if (send(this.request, text, headersOf(VALUE_HEADER, this.sent + 1))) this.sent += 1;
  }

  finish(text: string): void {
    answer(this.request, text, headersOf(VALUE_COUNT_HEADER, this.sent));
    this.done();
  }

  failed(thrown: unknown): void {
    this.fail(thrown);
  }

  stop(): void {
    // Nothing to end: a NATS answer is a message, not a stream the wire holds open.
  }
}
