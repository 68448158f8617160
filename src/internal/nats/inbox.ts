/**
 * One `natsTransport`'s inbox: a subscription to `<inbox>.*` of its own, the calls awaiting answers
 * by their reply token, and how each message to it is routed: a refusal (503, the services
 * framework's error reply), a streamed call's value, or an answer. Tokens are nats-core's `nuid`,
 * random and unguessable, so that a peer that saw one reply subject cannot answer the next calls.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { createInbox, nuid } from "@nats-io/nats-core";
import {
  badStatus,
  closed,
  failure,
  gap,
  network,
  noResponders,
  timedOut,
  tooLarge,
  type TransportError,
} from "../client/errors";
import { NEVER, type TransportOptions } from "../client/transport";
import { valueOf } from "../client/transports/event-answer";
import { HeldValues } from "../client/held-values";
import { after } from "../core/timer";
import type { NatsConnection, NatsHeaders, NatsMessage, NatsSubscription } from "./shapes";
import { SERVICE_ERROR, SERVICE_ERROR_CODE, VALUE_COUNT_HEADER, VALUE_HEADER } from "./wire";

/** What a call comes to: its answer's text, or why none. */
export type Answer = E.Either<TransportError, string>;

/** A call's options: a transport's, and `raw` for a relay's, whose `onValue` gets each value message's text. */
export type CallOptions = TransportOptions & { readonly raw?: boolean };

/**
 * An empty message that says the request was not served: the NATS server's 503 (nobody serves the
 * subject), or the services framework's error reply (`Nats-Service-Error-Code`, with its reason).
 */
const refusal = (headers: NatsHeaders, subject: string): TransportError | undefined => {
  if (headers.code === 503) return noResponders(subject);
  const code = Number(headers.get(SERVICE_ERROR_CODE));
  return code > 0 ? badStatus(code, headers.get(SERVICE_ERROR)) : undefined;
};

/**
 * What one held value costs beside its bytes: the copy's `Uint8Array` and `ArrayBuffer` objects,
 * its backing store's bookkeeping, and its slot in the queue (about 200 bytes, measured on Node
 * 20), so that a stream of small values is bounded by what it takes, not only by its bytes.
 */
const HELD_OVERHEAD = 256;

const utf8 = new TextDecoder();

/** A positive integer written in decimal digits (no sign, no leading zero), else 0. */
const numberOf = (text: string): number => (/^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : 0);

/** An answer's count of values: none said (`""`), a number, or -1 for one that is no count. */
const countOf = (text: string): number | undefined =>
  text === "" ? undefined : text === "0" ? 0 : numberOf(text) || -1;

/** One call awaiting its answer. */
class Pending {
  private cancelTimer: (() => void) | undefined;
  /**
   * The value messages received and not yet handed on (./held-values), as their bytes: held raw
   * and parsed when handed, so that what they take is about what `maxAnswerBytes` counts (parsed,
   * 15 MB of values took 163 MB: tests/nats-memory.test.ts). Each costs its bytes and
   * {@link HELD_OVERHEAD}.
   */
  private readonly values = new HeldValues<Uint8Array>(
    (data) => this.hand(data),
    (cause) => this.settle(E.left(network(cause))),
    undefined,
    (data) => data.slice(),
  );
  /** The value messages received, in order (each numbered one more than the one before). */
  private received = 0;
  /** The answer came: later messages are ignored. */
  private answered = false;

  constructor(
    private readonly inbox: Inbox,
    readonly token: string,
    readonly options: CallOptions,
    private readonly resolve: (answer: Answer) => void,
    /** The call's id, its values' token (`streamedId`). */
    private readonly id: unknown,
  ) {
    if (options.signal !== NEVER) options.signal.addEventListener("abort", this.onAbort, { once: true });
    this.rearm();
  }

  private readonly onAbort = (): void => this.settle(E.left(failure(this.options.signal, this.options.signal.reason)));

  /** No message within `timeoutMs` (a streamed call: since the last value) fails the call. */
  private rearm(): void {
    this.cancelTimer?.();
    const { timeoutMs } = this.inbox;
    this.cancelTimer = after(timeoutMs, () => this.settle(E.left(timedOut(timeoutMs))));
  }

  settle(answer: Answer): void {
    if (!this.inbox.forget(this.token)) return;
    this.cancelTimer?.();
    if (this.options.signal !== NEVER) this.options.signal.removeEventListener("abort", this.onAbort);
    this.values.drop();
    this.resolve(answer);
  }

  /**
   * The answer came, saying how many value messages went before it (`count`, `undefined` when it
   * does not say: a server that streams nothing). Any other count than came is a gap; else it
   * settles the call once the values before it are taken, and no timer runs meanwhile.
   */
  answer(answer: Answer, count: number | undefined): void {
    if (this.answered) return;
    if (count === undefined ? this.received > 0 : count !== this.received) {
      return this.settle(E.left(gap(this.received + 1, count === undefined ? 0 : count + 1)));
    }
    this.answered = true;
    this.cancelTimer?.();
    this.values.end(() => this.settle(answer));
  }

  /**
   * A value message, numbered `number` (0: not a number); any other than the next is a gap. The
   * next is handed on at once when `onValue` has taken the one before; else held, as a copy of
   * its bytes (nats-core's are a view of the whole chunk the socket read), until it has. Past
   * `maxAnswerBytes` held, the call fails `tooLarge`: core NATS cannot slow the server down, and
   * this process must not hold all that a fast method streams to a slow consumer.
   */
  value(data: Uint8Array, number: number): void {
    if (this.answered) return;
    if (number !== this.received + 1) return this.settle(E.left(gap(this.received + 1, number)));
    this.received = number;
    this.rearm();
    const { values } = this;
    values.push(data, data.length + HELD_OVERHEAD);
    const limit = this.inbox.maxAnswerBytes;
    if (values.cost > limit) this.settle(E.left(tooLarge(limit)));
  }

  /**
   * One value message parsed and handed on: its value, when it is one of this call's (a message
   * for another token, or LSP's work-done begin and end, is not). One that is no JSON ends the call
   * as an answer that is no JSON (`InvalidAnswer` `notJson`). Nothing for a call aborted.
   */
  private hand(data: Uint8Array): unknown {
    const { onValue, signal } = this.options;
    if (signal.aborted || onValue === undefined) return undefined;
    const text = utf8.decode(data);
    // A relay's call hands each message on as it came: the front writes it as is.
    if (this.options.raw === true) return onValue(text);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return this.settle(E.right(text));
    }
    const found = valueOf(json, this.id);
    return found === "answer" || found === "skip" ? undefined : onValue(found.value);
  }
}

/** The subscription and the calls awaiting answers. */
export class Inbox {
  private readonly pending = new Map<string, Pending>();
  private prefix: string | undefined;
  private subscription: NatsSubscription | undefined;
  /** The connection's closing is watched (once, whatever the subscriptions). */
  private watching = false;

  constructor(
    private readonly connection: NatsConnection,
    private readonly subject: string,
    readonly timeoutMs: number,
    readonly maxAnswerBytes: number,
    private readonly inboxPrefix: string | undefined,
  ) {}

  /** Drops a call; `false` when it was settled already. */
  forget(token: string): boolean {
    return this.pending.delete(token);
  }

  /** A new call awaiting its answer on `reply` (the inbox subscribed at the first call). */
  call(
    options: CallOptions,
    resolve: (answer: Answer) => void,
    id: unknown,
  ): { readonly reply: string; readonly pending: Pending } {
    const prefix = this.open();
    const token = nuid.next();
    const pending = new Pending(this, token, options, resolve, id);
    this.pending.set(token, pending);
    return { reply: `${prefix}.${token}`, pending };
  }

  private open(): string {
    if (this.prefix !== undefined) return this.prefix;
    const prefix = createInbox(this.inboxPrefix ?? this.connection.options?.inboxPrefix);
    this.subscription = this.connection.subscribe(`${prefix}.*`, { callback: this.route });
    this.prefix = prefix;
    if (!this.watching) {
      this.watching = true;
      void this.connection
        .closed()
        .then((cause) => this.failAll(closed(cause ?? new Error("nats: connection closed"))));
    }
    return prefix;
  }

  /**
   * Routes one message. An error (the subscription refused: a permission of the inbox's subject)
   * fails every call, as nothing will reach them; nothing here may throw, or nats-core's reader dies.
   */
  private readonly route = (error: Error | null, message: NatsMessage | undefined): void => {
    if (error !== null || message === undefined) {
      // nats-core has closed the subscription: the next call subscribes again (and fails the same
      // way at once if the NATS server refuses again, rather than waiting out its time-out).
      this.prefix = undefined;
      this.subscription = undefined;
      this.failAll(network(error ?? new Error("nats: no message")));
      return;
    }
    const call = this.pending.get(message.subject.slice((this.prefix ?? "").length + 1));
    if (call === undefined) return;
    try {
      this.answerCall(call, message);
    } catch (thrown) {
      call.settle(E.left(network(thrown)));
    }
  };

  /**
   * A plain call's answer is the first message. A streamed call's messages are told apart by their
   * headers, not parsed here: one marked `Rpc-Value` is a value (held raw, parsed when handed
   * on), the one without is the answer, with the count of values before it.
   */
  private answerCall(call: Pending, message: NatsMessage): void {
    const { headers, data } = message;
    if (data.length === 0 && headers !== undefined) {
      const refused = refusal(headers, this.subject);
      if (refused !== undefined) return call.settle(E.left(refused));
    }
    if (data.length > this.maxAnswerBytes) return call.settle(E.left(tooLarge(this.maxAnswerBytes)));
    if (call.options.onValue === undefined) return call.answer(E.right(message.string()), undefined);
    const number = headers?.get(VALUE_HEADER) ?? "";
    if (number !== "") return call.value(data, numberOf(number));
    call.answer(E.right(message.string()), countOf(headers?.get(VALUE_COUNT_HEADER) ?? ""));
  }

  /** Fails every call awaiting an answer; with `end`, lets the subscription go. */
  failAll(error: TransportError, end = false): void {
    for (const call of [...this.pending.values()]) call.settle(E.left(error));
    if (end) this.subscription?.unsubscribe();
  }
}
