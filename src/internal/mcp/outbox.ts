/**
 * What a handler sends its client while it runs (log notifications, progress, and requests such as
 * `elicitation/create` and `sampling/createMessage`), and the way each goes: on a connection,
 * through the peer; over HTTP, on the POST's own event stream, as values the `tools/call` method
 * streams ({@link WireMessage}), the client's answers to the requests coming back in later POSTs
 * ({@link Replies}, which the HTTP handler hands them to).
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type * as TE from "fp-ts/TaskEither";
import type { Connection } from "../connection/options";
import { isRecord } from "../core/guards";
import { WireMessage } from "../core/progress-wire";
import type { JsonObject } from "./protocol";

/** A server-to-client request's settling, by its id. */
type Settle = (answer: E.Either<Error, JsonObject>) => void;

let counter = 0;

/**
 * 128 random bits, as hex: an id no other client can guess (over HTTP, whoever knows an id can
 * answer it). WebCrypto's where the runtime has it; Node 18 without its flag has none, and gets
 * `Math.random`'s, which is not a secret from a determined attacker (docs/mcp.md says so).
 */
const unguessable = (): string => {
  const bytes = new Uint8Array(16);
  const crypto = (globalThis as { crypto?: { getRandomValues?: (into: Uint8Array) => Uint8Array } }).crypto;
  if (typeof crypto?.getRandomValues === "function") crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i += 1) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
};

/**
 * The server-to-client requests of this process awaiting their answers, by id. Over HTTP the answer
 * is a POST of its own, which reaches the process whose event stream carried the request (one
 * process, or a balancer that keeps a client on one: with sessions, on its `Mcp-Session-Id`). Each
 * id is unguessable, and with sessions bound to the session that was asked: an answer from another
 * session (or none) is not taken.
 */
export class Replies {
  private readonly waiting = new Map<string, { readonly owner: string | undefined; readonly settle: Settle }>();

  /**
   * A fresh id, and the answer's Promise (rejected never: a Left when the signal aborts first).
   * `owner`: the session asked (its `Mcp-Session-Id`), whose answer alone is taken.
   */
  open(
    signal: AbortSignal,
    owner?: string,
  ): { readonly id: string; readonly answer: Promise<E.Either<Error, JsonObject>> } {
    const id = `rpcserver-mcp-${unguessable()}`;
    const answer = new Promise<E.Either<Error, JsonObject>>((settle) => {
      const onAbort = (): void => {
        this.waiting.delete(id);
        settle(E.left(new Error("cancelled before the client answered")));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(id, {
        owner,
        settle: (answered) => {
          signal.removeEventListener("abort", onAbort);
          this.waiting.delete(id);
          settle(answered);
        },
      });
    });
    return { id, answer };
  }

  /**
   * A JSON-RPC response from the client (`from`: the session it came in, if any): `true` if it
   * answered a request of ours asked of that session (now settled).
   */
  take(message: unknown, from?: string): boolean {
    if (!isRecord(message) || typeof message["id"] !== "string" || "method" in message) return false;
    const waiting = this.waiting.get(message["id"]);
    if (waiting === undefined || waiting.owner !== from) return false;
    const { settle } = waiting;
    const { result, error } = message;
    settle(
      isRecord(result)
        ? E.right(result)
        : E.left(new Error(isRecord(error) && typeof error["message"] === "string" ? error["message"] : "bad answer")),
    );
    return true;
  }
}

/**
 * Where a handler's messages go: `send` a notification, `ask` a request (`key`: what names it in
 * the 2026 era's `inputRequests`); `sent` once every notification is on its way (`undefined`:
 * nothing to wait for).
 */
export interface Outbox {
  readonly send: (method: string, params: JsonObject) => void;
  readonly ask: (method: string, params: JsonObject, key?: string) => TE.TaskEither<Error, JsonObject>;
  readonly sent: () => Promise<void> | undefined;
}

/** The client capability each kind of ask needs. */
const NEEDS: Readonly<Record<string, string>> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/** Why a client of these capabilities cannot be asked `method` (one it did not declare), or `undefined`. */
export const missingCapability = (method: string, capabilities: JsonObject): string | undefined => {
  const needs = NEEDS[method];
  return needs !== undefined && !isRecord(capabilities[needs])
    ? `the client did not declare the ${needs} capability`
    : undefined;
};

/**
 * `base`, but an ask that `refusal` has a reason against is that reason at once, a Left: never sent,
 * never waited for (a client that declared no such capability, or that takes no event stream).
 */
export const guardedOutbox = (base: Outbox, refusal: (method: string) => string | undefined): Outbox => ({
  ...base,
  ask: (method, params, key) => {
    const why = refusal(method);
    return why === undefined ? base.ask(method, params, key) : () => Promise.resolve(E.left(new Error(why)));
  },
});

/** Nowhere to send to (a prompt's read over HTTP in the 2025 era): notifications dropped, requests a Left. */
export const noOutbox: Outbox = {
  send: () => undefined,
  sent: () => undefined,
  ask: () => () =>
    Promise.resolve(
      E.left(
        new Error("the client cannot be asked here: no stream carries a request to it (a prompt over HTTP, 2025 era)"),
      ),
    ),
};

/**
 * A connection's outbox: messages through its peer's transport, answers matched by the connection,
 * each on the call's signal (`signal()`, read only when a message goes). Its notifications are
 * written after a turn of its own, so the call's answer waits for them (`sent`): progress after the
 * answer is dropped by clients.
 */
export const peerOutbox = (peer: Connection, signal: () => AbortSignal): Outbox => {
  let last: Promise<unknown> | undefined;
  return {
    send: (method, params) => {
      last = peer.transport(JSON.stringify({ jsonrpc: "2.0", method, params }), {
        signal: signal(),
        ids: [undefined],
      })();
    },
    sent: () => last?.then(() => undefined),
    ask: (method, params) => async () => {
      counter += 1;
      const id = 2 ** 40 + counter;
      const sent = await peer.transport(JSON.stringify({ jsonrpc: "2.0", id, method, params }), {
        signal: signal(),
        ids: [id],
      })();
      if (E.isLeft(sent)) return E.left(new Error(`the client could not be asked: ${sent.left.reason}`));
      const answer: unknown = typeof sent.right === "string" ? JSON.parse(sent.right) : sent.right.json;
      return isRecord(answer) && isRecord(answer["result"])
        ? E.right(answer["result"])
        : E.left(
            new Error(
              isRecord(answer) && isRecord(answer["error"]) ? String(answer["error"]["message"]) : "bad answer",
            ),
          );
    },
  };
};

/**
 * An HTTP POST's outbox: each message a value of the call's stream (`push`), requests' answers from
 * `replies` (on the call's signal, `signal()`). Nothing to wait for: the stream sends its values
 * before the answer.
 */
export const streamOutbox = (
  push: (value: WireMessage) => void,
  replies: Replies,
  signal: () => AbortSignal,
  owner?: string,
): Outbox => ({
  send: (method, params) => push(new WireMessage({ jsonrpc: "2.0", method, params })),
  sent: () => undefined,
  ask: (method, params) => () => {
    const { id, answer } = replies.open(signal(), owner);
    push(new WireMessage({ jsonrpc: "2.0", id, method, params }));
    return answer;
  },
});
