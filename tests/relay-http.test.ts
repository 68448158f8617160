/**
 * `relayHttp` (src/internal/http/answer.ts): a body answered by a relay (a server in another
 * process, MCP's workers behind NATS) as `answerHttp` answers it here. The relay here is a function
 * that answers as `natsRelay` does (tests/mcp-nats.test.ts runs the real one against nats-server);
 * these are the edges a real relay seldom shows on demand: a client leaving before or after the
 * first event, a relay failing after it, and a body of notifications from a JSON-only client.
 */
import type { Relay, RelayOptions } from "../src/internal/core/relay";
import { relayHttp } from "../src/internal/http/answer";
import { setLogger } from "../src/internal/core/logger";

const BODY = new TextEncoder().encode('{"jsonrpc":"2.0","method":"count","id":1}');
const EVENTS = "application/json, text/event-stream";

/** A client's departure, as the servers follow it. */
const departure = (): { signal: AbortSignal; leave: () => void } => {
  const controller = new AbortController();
  return { signal: controller.signal, leave: () => controller.abort() };
};

/** A relay that sends `messages`, then waits for its signal (rejecting with its reason), or answers `answer`. */
const relayOf =
  (messages: string[], answer?: string): Relay =>
  async (_body, { signal, onMessage }: RelayOptions) => {
    for (const message of messages) await onMessage?.(message);
    if (answer !== undefined) return answer;
    return new Promise<string>((_settle, fail) =>
      signal.addEventListener("abort", () => fail(signal.reason as Error), { once: true }),
    );
  };

/** What relayHttp was told failed, for the log (the exchange writes it). */
const failures: unknown[] = [];
const failed = (thrown: unknown): void => void failures.push(thrown);

const logged: unknown[] = [];
let previous: ReturnType<typeof setLogger>;
beforeEach(() => {
  logged.length = 0;
  failures.length = 0;
  previous = setLogger({ error: (...line) => void logged.push(line), warn: () => undefined, info: () => undefined });
});
afterEach(() => setLogger(previous));

test("a body of notifications from a JSON-only client is 204, as answerHttp's JSON answer; with events it is 202", async () => {
  const json = await relayHttp(BODY, relayOf([], ""), {
    accept: "application/json",
    signal: departure().signal,
    headers: {},
    failed,
  });
  expect(json.status).toBe(204);
  const events = await relayHttp(BODY, relayOf([], ""), {
    accept: EVENTS,
    signal: departure().signal,
    headers: {},
    failed,
  });
  expect(events.status).toBe(202);
});

test("the client leaving before the first event: the relay's wait aborts and the POST is answered quietly, never rejected", async () => {
  const client = departure();
  const answered = relayHttp(BODY, relayOf([]), { accept: EVENTS, signal: client.signal, headers: {}, failed });
  client.leave();
  await expect(answered).resolves.toMatchObject({ status: 202 });
  expect(logged).toEqual([]);
});

test("the client leaving after the first event: the stream ends closed, not errored, and the relay's wait aborts", async () => {
  const client = departure();
  let relaySignal: AbortSignal | undefined;
  const relay: Relay = (body, options) => {
    relaySignal = options.signal;
    return relayOf(['{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}'])(body, options);
  };
  const answer = await relayHttp(BODY, relay, { accept: EVENTS, signal: client.signal, headers: {}, failed });
  expect(answer.body).toBeInstanceOf(ReadableStream);
  const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toContain("notifications/progress");
  client.leave();
  await expect(reader.read()).resolves.toEqual({ done: true, value: undefined });
  expect(relaySignal?.aborted).toBe(true);
  expect(logged).toEqual([]);
});

test("a relay that fails: each request answered -32000 with its id, after what came (a stream), or as JSON; the failure told", async () => {
  const failing =
    (messages: string[]): Relay =>
    async (_body, { onMessage }) => {
      for (const message of messages) await onMessage?.(message);
      throw new Error("the worker is gone");
    };
  const serverError = (id: unknown): string =>
    JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Server error" }, id });
  const begun = await relayHttp(BODY, failing(['{"jsonrpc":"2.0","method":"x"}']), {
    accept: EVENTS,
    signal: departure().signal,
    headers: {},
    failed,
  });
  const text = await new Response(begun.body).text();
  expect(text).toBe(
    `event: message\ndata: {"jsonrpc":"2.0","method":"x"}\n\nevent: message\ndata: ${serverError(1)}\n\n`,
  );
  const early = await relayHttp(BODY, failing([]), { accept: EVENTS, signal: departure().signal, headers: {}, failed });
  expect([early.status, early.body]).toStrictEqual([200, serverError(1)]);
  const batch = new TextEncoder().encode(
    '[{"jsonrpc":"2.0","method":"a","id":"x"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","method":"b","id":2},{"jsonrpc":"2.0","method":"c","id":{"a":1}}]',
  );
  const json = await relayHttp(batch, failing([]), {
    accept: "application/json",
    signal: departure().signal,
    headers: {},
    failed,
  });
  // An id JSON-RPC does not allow is answered null, as -32600 would answer it, not echoed.
  expect([json.status, json.body]).toStrictEqual([200, `[${serverError("x")},${serverError(2)},${serverError(null)}]`]);
  const notification = new TextEncoder().encode('{"jsonrpc":"2.0","method":"n"}');
  const none = await relayHttp(notification, failing([]), {
    accept: "application/json",
    signal: departure().signal,
    headers: {},
    failed,
  });
  expect(none.status).toBe(204);
  const garbled = await relayHttp(new TextEncoder().encode("{"), failing([]), {
    accept: "application/json",
    signal: departure().signal,
    headers: {},
    failed,
  });
  expect(garbled.body).toBe(serverError(null));
  expect(failures.map(String)).toStrictEqual(Array.from({ length: 5 }, () => "Error: the worker is gone"));
});
