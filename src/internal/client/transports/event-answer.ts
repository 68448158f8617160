/**
 * A call's answer sent as an event stream (`text/event-stream`, as MCP's Streamable HTTP and
 * rpcserver's servers answer a POST that accepts it): each event one JSON-RPC message, read as it
 * arrives. The values of the call come first, as `$/progress` notifications whose `token` is the
 * call's id, each handed to `onValue` and waited for before more is read (back-pressure: the
 * server's writes then wait too); the message that is no notification is the answer. Browser-safe:
 * the bytes come from a web `ReadableStream` (`http`) or any source of chunks ({@link ByteChunks}:
 * `nodeHttp` gives a Node response's).
 *
 * @internal
 * @module
 */
import * as E from "fp-ts/Either";
import { isMembers as isObject, isThenable } from "../../core/guards";
import { failure, network, tooLarge, type TransportError } from "../errors";
import type { ParsedAnswer, TransportOptions } from "../transport";
import { EventStream } from "../../http/event-stream-reader";

/** The notification that carries a value of the call whose id is its `token`. */
const PROGRESS = "$/progress";

/**
 * Where an event stream's text comes from: the next chunk, decoded, or `undefined` at its end; and
 * how to stop it. @internal
 */
export interface EventChunks {
  readonly read: () => Promise<string | undefined>;
  readonly cancel: () => void;
}

/**
 * Bytes as they arrive, a chunk at a time: `next` answers as a web stream's reader's `read()` and a
 * Node stream's async iterator's `next()` both do. @internal
 */
export interface ByteChunks {
  readonly next: () => Promise<{ readonly done?: boolean | undefined; readonly value?: Uint8Array | undefined }>;
  readonly cancel: () => void;
}

/**
 * A source of bytes as an {@link EventChunks}: decoded as UTF-8 a chunk at a time (a character cut
 * between two chunks is kept whole), as `fetch`'s `text()` decodes (a byte-order mark dropped).
 * @internal
 */
export const decoded = ({ next, cancel }: ByteChunks): EventChunks => {
  const decoder = new TextDecoder();
  let ended = false;
  return {
    read: async () => {
      if (ended) return undefined;
      const chunk = await next();
      if (chunk.done !== true && chunk.value !== undefined) return decoder.decode(chunk.value, { stream: true });
      ended = true;
      return decoder.decode();
    },
    cancel,
  };
};

/** A web `ReadableStream` of bytes as an {@link EventChunks}. @internal */
export const decodedChunks = (body: ReadableStream<Uint8Array>): EventChunks => {
  const reader = body.getReader();
  return decoded({
    next: () => reader.read(),
    // Cancelling ends the request: fetch stops reading and closes the connection, and the server
    // sees the client go (its handler's signal aborts).
    cancel: () => void reader.cancel().catch(() => undefined),
  });
};

const ended = (): TransportError =>
  network(new Error("http: the event stream ended before the call's answer (its response) came"));

/**
 * What one message of the stream is for the call: a value (handed on), nothing (another
 * notification, or a value nobody asked for), or the answer. NATS's transport reads its messages so too.
 * @internal
 */
export const valueOf = (message: unknown, id: unknown): { readonly value: unknown } | "skip" | "answer" => {
  if (!isObject(message) || Array.isArray(message) || typeof message["method"] !== "string") return "answer";
  const params = message["params"];
  return message["method"] === PROGRESS && id !== undefined && isObject(params) && params["token"] === id
    ? { value: params["value"] }
    : "skip";
};

/**
 * Reads the event stream `source` to the call's answer: the first message (an event of type
 * `message`) that is no notification, as the value it parses to, or its text when it is no JSON
 * (the call then fails as `notJson`). Each `$/progress` on the call's id (`ids[0]`) goes to
 * `onValue`, and is waited for; other events and notifications are skipped. An event (or the part
 * of one held while it arrives) longer than `limit` is `tooLarge`; a stream that ends without the
 * answer is a `network` TransportError; the call's signal aborting is `aborted`. The stream is
 * cancelled whenever it is left before its end.
 *
 * @internal
 */
export const eventAnswer = async (
  source: EventChunks,
  { signal, onValue }: TransportOptions,
  /** The call's id, its values' token (`streamedId`). */
  id: unknown,
  limit: number,
): Promise<E.Either<TransportError, string | ParsedAnswer>> => {
  const events = new EventStream();
  try {
    for (let chunk = await source.read(); chunk !== undefined; chunk = await source.read()) {
      events.push(chunk);
      for (let event = events.next(); event !== undefined; event = events.next()) {
        if (event.data.length > limit) return stop(source, E.left(tooLarge(limit)));
        if (event.type !== "message") continue;
        let message: unknown;
        try {
          message = JSON.parse(event.data);
        } catch {
          return stop(source, E.right(event.data));
        }
        const found = valueOf(message, id);
        if (found === "answer") return stop(source, E.right({ json: message }));
        if (found === "skip" || onValue === undefined) continue;
        const taken = onValue(found.value);
        if (isThenable(taken)) await taken;
        if (signal.aborted) return stop(source, E.left(failure(signal, signal.reason)));
      }
      if (events.held > limit) return stop(source, E.left(tooLarge(limit)));
    }
    return E.left(ended());
  } catch (cause) {
    return E.left(failure(signal, cause));
  }
};

/** Leaves the stream before its end (cancelled), with the call's answer or failure. */
const stop = <A extends E.Either<TransportError, string | ParsedAnswer>>(source: EventChunks, answer: A): A => {
  source.cancel();
  return answer;
};
