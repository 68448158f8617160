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
 * The server-to-client requests of this process awaiting their answers, by id. Over HTTP the answer
 * is a POST of its own, which reaches the process whose event stream carried the request (no
 * sessions yet: one process, or a balancer that keeps a client on one).
 */
export class Replies {
  private readonly waiting = new Map<string, Settle>();

  /** A fresh id, and the answer's Promise (rejected never: a Left when the signal aborts first). */
  open(signal: AbortSignal): { readonly id: string; readonly answer: Promise<E.Either<Error, JsonObject>> } {
    counter += 1;
    const id = `rpcserver-mcp-${counter}`;
    const answer = new Promise<E.Either<Error, JsonObject>>((settle) => {
      const onAbort = (): void => {
        this.waiting.delete(id);
        settle(E.left(new Error("cancelled before the client answered")));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(id, (answered) => {
        signal.removeEventListener("abort", onAbort);
        this.waiting.delete(id);
        settle(answered);
      });
    });
    return { id, answer };
  }

  /** A JSON-RPC response from the client: `true` if it answered a request of ours (now settled). */
  take(message: unknown): boolean {
    if (!isRecord(message) || typeof message["id"] !== "string" || "method" in message) return false;
    const settle = this.waiting.get(message["id"]);
    if (settle === undefined) return false;
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

/** Nowhere to send to (a prompt's read over HTTP in the 2025 era): notifications dropped, requests a Left. */
export const noOutbox: Outbox = {
  send: () => undefined,
  sent: () => undefined,
  ask: () => () => Promise.resolve(E.left(new Error("the client cannot be asked here"))),
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
): Outbox => ({
  send: (method, params) => push(new WireMessage({ jsonrpc: "2.0", method, params })),
  sent: () => undefined,
  ask: (method, params) => () => {
    const { id, answer } = replies.open(signal());
    push(new WireMessage({ jsonrpc: "2.0", id, method, params }));
    return answer;
  },
});
