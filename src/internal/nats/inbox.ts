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
import { failure, tooLarge, type TransportError } from "../client/errors";
import { NEVER, type ParsedAnswer, type TransportOptions } from "../client/transport";
import { valueOf } from "../client/transports/event-answer";
import { isThenable } from "../core/guards";
import type { NatsConnection, NatsHeaders, NatsMessage, NatsSubscription } from "./shapes";
import { SERVICE_ERROR, SERVICE_ERROR_CODE } from "./wire";

type Answer = E.Either<TransportError, string | ParsedAnswer>;

/** A transport error of reason `closed`. */
export const closedError = (cause: unknown): TransportError => ({ _tag: "TransportError", reason: "closed", cause });

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

/** One call awaiting its answer. */
class Pending {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The values handed on so far, so that the answer follows the last of them. */
  private chain: Promise<void> | undefined;
  /** Bytes of the values received and not yet taken by the consumer. */
  private held = 0;
  private answered = false;

  constructor(
    private readonly inbox: Inbox,
    readonly token: string,
    readonly options: TransportOptions,
    private readonly resolve: (answer: Answer) => void,
  ) {
    if (options.signal !== NEVER) options.signal.addEventListener("abort", this.onAbort, { once: true });
    this.rearm();
  }

  private readonly onAbort = (): void => this.settle(E.left(failure(this.options.signal, this.options.signal.reason)));

  /** No message within `timeoutMs` (a streamed call: since the last value) fails the call. */
  private rearm(): void {
    clearTimeout(this.timer);
    const { timeoutMs } = this.inbox;
    this.timer = setTimeout(
      () => this.settle(E.left({ _tag: "TransportError", reason: "timeout", timeoutMs })),
      timeoutMs,
    );
  }

  settle(answer: Answer): void {
    if (!this.inbox.forget(this.token)) return;
    clearTimeout(this.timer);
    if (this.options.signal !== NEVER) this.options.signal.removeEventListener("abort", this.onAbort);
    this.resolve(answer);
  }

  /** The answer came: it settles the call once the values before it are taken; no timer runs meanwhile. */
  answer(answer: Answer): void {
    if (this.answered) return;
    this.answered = true;
    clearTimeout(this.timer);
    if (this.chain === undefined) this.settle(answer);
    else void this.chain.then(() => this.settle(answer));
  }

  /**
   * A value: handed on in order, each once the one before is taken. Past `maxAnswerBytes` held,
   * the call fails `tooLarge`: core NATS cannot slow the server down, and this process must not
   * hold all that a fast method streams to a slow consumer.
   */
  value(value: unknown, bytes: number, onValue: (value: unknown) => unknown): void {
    if (this.answered) return;
    this.held += bytes;
    const limit = this.inbox.maxAnswerBytes;
    if (this.held > limit) return this.settle(E.left(tooLarge(limit)));
    this.rearm();
    const hand = (): Promise<void> | undefined => {
      this.held -= bytes;
      if (this.options.signal.aborted) return undefined;
      const taken = onValue(value);
      return isThenable(taken) ? Promise.resolve(taken).then(() => undefined) : undefined;
    };
    this.chain = this.chain === undefined ? (hand() ?? Promise.resolve()) : this.chain.then(hand);
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
    options: TransportOptions,
    resolve: (answer: Answer) => void,
  ): { readonly reply: string; readonly pending: Pending } {
    const prefix = this.open();
    const token = nuid.next();
    const pending = new Pending(this, token, options, resolve);
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
        .then((cause) => this.failAll(closedError(cause ?? new Error("nats: connection closed"))));
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
      this.failAll({ _tag: "TransportError", reason: "network", cause: error ?? new Error("nats: no message") });
      return;
    }
    const call = this.pending.get(message.subject.slice((this.prefix ?? "").length + 1));
    if (call === undefined) return;
    try {
      this.answerCall(call, message);
    } catch (thrown) {
      call.settle(E.left({ _tag: "TransportError", reason: "network", cause: thrown }));
    }
  };

  private answerCall(call: Pending, message: NatsMessage): void {
    if (message.data.length === 0 && message.headers !== undefined) {
      const refused = refusal(message.headers, this.subject);
      if (refused !== undefined) return call.settle(E.left(refused));
    }
    if (message.data.length > this.maxAnswerBytes) return call.settle(E.left(tooLarge(this.maxAnswerBytes)));
    const { onValue } = call.options;
    if (onValue === undefined) return call.answer(E.right(message.string()));
    const text = message.string();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return call.answer(E.right(text));
    }
    const found = valueOf(json, call.options.ids?.[0]);
    if (found === "answer") call.answer(E.right({ json }));
    else if (found !== "skip") call.value(found.value, message.data.length, onValue);
  }

  /** Fails every call awaiting an answer; with `end`, lets the subscription go. */
  failAll(error: TransportError, end = false): void {
    for (const call of [...this.pending.values()]) call.settle(E.left(error));
    if (end) this.subscription?.unsubscribe();
  }
}
