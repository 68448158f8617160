/**
 * Issue 24, the client side (`rpcserver/client`): a streamed call's values as they arrive, then
 * its decoded result or a ClientError; `open`, iterating the call itself, `foldStream`; `break` and
 * the call's signal cancelling on the other side; a value the stream codec refuses; back-pressure
 * (what the client holds ahead of its consumer, counted); and a stream sent as a plain call (run,
 * `batch`, `notify`). Over `local` (the generator driven by the consumer) and over `http` against
 * node:http servers written here that answer the agreed event-stream wire by hand, one byte at a
 * time included. The event-stream parser is tested on its own, at every cut of a stream. The types
 * are in tests/streams-client-types.test.ts.
 */
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as t from "io-ts";
import { DateFromISOString } from "io-ts-types";
import { z } from "zod";
import { getEventListeners } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { contract, implement, serve, Success, type DevServer } from "../src";
import {
  batch,
  client,
  foldStream,
  http,
  local,
  notify,
  open,
  StreamError,
  withOptions,
  type Transport,
  type TransportOptions,
} from "../src/client";
import { STREAM_BUFFER } from "../src/internal/client/streams";
import { EventStream, type ServerEvent } from "../src/internal/http/event-stream-reader";
import { recordLogs } from "./support";

/** A promise and its resolver. */
const deferred = <A = void>(): { promise: Promise<A>; resolve: (value: A) => void } => {
  let resolve: (value: A) => void = () => undefined;
  const promise = new Promise<A>((r) => (resolve = r));
  return { promise, resolve };
};

/** Lets I/O and timers run: a macrotask turn, `n` times. */
const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

const escaped: unknown[] = [];
const onRejection = (reason: unknown): void => void escaped.push(reason);
let logs: ReturnType<typeof recordLogs>;
beforeAll(() => process.on("unhandledRejection", onRejection));
afterAll(() => process.off("unhandledRejection", onRejection));
beforeEach(() => {
  logs = recordLogs();
});
afterEach(async () => {
  logs.restore();
  await turns(2);
  expect(escaped).toEqual([]);
});

/** What both ends agree on. The server's own stream codecs are looser where the client must refuse. */
const api = contract({
  count: { params: t.tuple([t.number]), stream: t.number, result: t.string },
  days: { params: t.tuple([t.number]), stream: DateFromISOString, result: t.number },
  failing: {
    params: t.tuple([t.number]),
    stream: t.number,
    result: t.string,
    errors: [{ code: 404, message: "Not found", data: t.type({ after: t.number }) }],
  },
  endless: { stream: t.number, result: t.string },
  wrong: { stream: t.number, result: t.string },
  bytes: { stream: t.union([t.string, t.number]), result: t.string },
  flood: { params: t.tuple([t.number]), stream: t.number, result: t.number },
  big: { stream: t.string, result: t.string },
  cut: { stream: t.number, result: t.string },
  json: { stream: t.number, result: t.string },
  add: { params: t.tuple([t.number, t.number]), result: t.number },
});

/** Handlers both servers below share: dates through the stream codec, and a declared error after values. */
const days = async function* (n: number) {
  for (let day = 1; day <= n; day++) yield new Date(Date.UTC(2024, 0, day));
  return E.right(n);
};
const failing = async function* (n: number) {
  for (let i = 1; i <= n; i++) yield i;
  return E.left({ code: 404 as const, message: "Not found", data: { after: n } });
};

describe("over local: the generator is driven by the consumer", () => {
  /** What the generators did: yields, and whether their `finally` ran. */
  const seen = { yielded: 0, finished: deferred() };
  const reset = (): void => {
    seen.yielded = 0;
    seen.finished = deferred();
  };
  beforeEach(reset);

  const server = contract({ ...api.methods, wrong: { stream: t.unknown, result: t.string } });
  const methods = implement(server, {
    count: async function* (to) {
      try {
        for (let i = 1; i <= to; i++) {
          seen.yielded++;
          yield i;
        }
        return E.right(`counted to ${to}`);
      } finally {
        seen.finished.resolve();
      }
    },
    days,
    failing,
    endless: async function* () {
      try {
        for (let i = 1; ; i++) {
          seen.yielded++;
          yield i;
        }
      } finally {
        seen.finished.resolve();
      }
    },
    wrong: async function* () {
      try {
        yield 1;
        yield "two";
        yield 3;
        return E.right("never");
      } finally {
        seen.finished.resolve();
      }
    },
    bytes: () => E.right("none"),
    flood: async function* (n) {
      for (let i = 1; i <= n; i++) {
        seen.yielded++;
        yield i;
      }
      return E.right(n);
    },
    big: () => E.right("none"),
    cut: () => E.right("none"),
    json: () => E.right("answered at once"),
    add: (a, b) => E.right(a + b),
  });
  const calls = client(api, local(methods));

  test("for await over the call itself: each value in order; open's run ends with the result", async () => {
    const values: number[] = [];
    for await (const n of calls.count(3)) values.push(n);
    expect(values).toEqual([1, 2, 3]);
    const run = open(calls.count(2));
    expect(await run.next()).toEqual({ done: false, value: 1 });
    expect(await run.next()).toEqual({ done: false, value: 2 });
    expect(await run.next()).toEqual({ done: true, value: E.right("counted to 2") });
    expect(await run.next()).toEqual({ done: true, value: E.right("counted to 2") });
    expect(await run.result).toEqual(E.right("counted to 2"));
  });

  test("each value decoded by the entry's stream codec, from what the wire would carry", async () => {
    const run = open(calls.days(2));
    const values: Date[] = [];
    for await (const day of run) values.push(day);
    expect(values).toEqual([new Date(Date.UTC(2024, 0, 1)), new Date(Date.UTC(2024, 0, 2))]);
    expect(await run.result).toEqual(E.right(2));
  });

  test("foldStream: the fold and the result, or the error", async () => {
    const sum = foldStream(0, (total, n: number) => total + n);
    expect(await pipe(calls.count(4), sum)()).toEqual(E.right([10, "counted to 4"]));
    expect(await pipe(calls.failing(2), sum)()).toEqual(
      E.left({ _tag: "ServerError", declared: true, code: 404, message: "Not found", data: { after: 2 } }),
    );
  });

  test("an error after values: the values, then the declared error", async () => {
    const run = open(calls.failing(2));
    const values: number[] = [];
    for await (const n of run) values.push(n);
    expect(values).toEqual([1, 2]);
    expect(await run.result).toEqual(
      E.left({ _tag: "ServerError", declared: true, code: 404, message: "Not found", data: { after: 2 } }),
    );
  });

  test("a loop over the call itself: the values, then its failure thrown as a StreamError; a break throws nothing", async () => {
    const values: number[] = [];
    let thrown: unknown;
    try {
      for await (const n of calls.failing(2)) values.push(n);
    } catch (error) {
      thrown = error;
    }
    expect(values).toEqual([1, 2]);
    expect(thrown).toBeInstanceOf(StreamError);
    expect((thrown as StreamError).error).toEqual({
      _tag: "ServerError",
      declared: true,
      code: 404,
      message: "Not found",
      data: { after: 2 },
    });
    expect((thrown as StreamError).message).toBe("the streamed call failed: ServerError 404 Not found");
    // A success ends the loop quietly; so does leaving it, though the call then ends aborted.
    const counted: number[] = [];
    for await (const n of calls.count(2)) counted.push(n);
    for await (const n of calls.endless()) if (n === 3) break;
    expect(counted).toEqual([1, 2]);
  });

  test("break cancels the call: the generator stops (its finally runs), and the result is aborted", async () => {
    const run = open(calls.endless());
    const values: number[] = [];
    for await (const n of run) {
      values.push(n);
      if (n === 3) break;
    }
    await seen.finished.promise;
    expect(values).toEqual([1, 2, 3]);
    expect(seen.yielded).toBeLessThanOrEqual(3 + STREAM_BUFFER + 1);
    const result = await run.result;
    expect(result).toMatchObject(E.left({ _tag: "TransportError", reason: "aborted" }));
    // Nothing is logged for it: the sink refuses with -32800, which is answered as given.
    expect(logs.entries).toEqual([]);
  });

  test("the call's signal aborting mid-stream cancels it, with its reason; no listener is left", async () => {
    const controller = new AbortController();
    const run = open(pipe(calls.endless(), withOptions({ signal: controller.signal })));
    const values: number[] = [];
    for await (const n of run) {
      values.push(n);
      if (n === 2) controller.abort("enough");
    }
    await seen.finished.promise;
    expect(values).toEqual([1, 2]);
    expect(await run.result).toEqual(E.left({ _tag: "TransportError", reason: "aborted", cause: "enough" }));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  test("a signal aborted already: nothing runs, the run ends at once", async () => {
    const controller = new AbortController();
    controller.abort("before");
    const values: number[] = [];
    const call = pipe(calls.count(3), withOptions({ signal: controller.signal }));
    // A loop over the call throws its failure (a loop has no place for the Either); open's run never throws.
    const looped = (async () => {
      for await (const n of call) values.push(n);
    })();
    const thrown: unknown = await looped.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(StreamError);
    expect([(thrown as StreamError).error, (thrown as StreamError).message]).toStrictEqual([
      { _tag: "TransportError", reason: "aborted", cause: "before" },
      "the streamed call failed: TransportError aborted",
    ]);
    expect(values).toEqual([]);
    expect(await open(call).result).toEqual(E.left({ _tag: "TransportError", reason: "aborted", cause: "before" }));
    expect(seen.yielded).toBe(0);
  });

  test("a value the stream codec refuses: the values before it, then valueRefused; the call is cancelled", async () => {
    const run = open(calls.wrong());
    const values: number[] = [];
    for await (const n of run) values.push(n);
    await seen.finished.promise;
    expect(values).toEqual([1]);
    const result = await run.result;
    expect(result).toEqual(
      E.left({
        _tag: "InvalidAnswer",
        reason: "valueRefused",
        value: "two",
        message: 'stream: expected number, got "two"',
      }),
    );
  });

  test("a Standard Schema decodes the values too, and refuses what it does not take", async () => {
    const zodded = contract({ ...api.methods, count: { ...api.methods.count, stream: z.number().max(2) } });
    const run = open(client(zodded, local(methods)).count(3));
    const values: number[] = [];
    for await (const n of run) values.push(n);
    await seen.finished.promise;
    expect(values).toEqual([1, 2]);
    expect(await run.result).toEqual(
      E.left({
        _tag: "InvalidAnswer",
        reason: "valueRefused",
        value: 3,
        message: expect.stringMatching(/^stream: .*2/) as unknown,
      }),
    );
  });

  test("a stream codec that throws refuses the value, with what it threw", async () => {
    const throwing = new t.Type<number, number, unknown>(
      "Throwing",
      (u): u is number => typeof u === "number",
      () => {
        throw new RangeError("no values today");
      },
      (n) => n,
    );
    const strict = contract({ ...api.methods, count: { ...api.methods.count, stream: throwing } });
    const run = open(client(strict, local(methods)).count(3));
    for await (const n of run) throw new Error(`no value expected, got ${n}`);
    await seen.finished.promise;
    expect(await run.result).toEqual(
      E.left({
        _tag: "InvalidAnswer",
        reason: "valueRefused",
        value: 1,
        message: "stream: the stream codec threw: no values today",
      }),
    );
  });

  test("a consumer slower than the generator: it never runs more than the buffer ahead (counted)", async () => {
    const run = open(calls.flood(200));
    let taken = 0;
    let lead = 0;
    for await (const n of run) {
      taken++;
      expect(n).toBe(taken);
      // The generator may run as far ahead as it can meanwhile.
      await turns(3);
      lead = Math.max(lead, seen.yielded - taken);
    }
    expect(taken).toBe(200);
    expect(lead).toBe(STREAM_BUFFER);
    expect(await run.result).toEqual(E.right(200));
  });

  test("run as a TaskEither, in a batch or as a notification, a stream is a plain call: values dropped", async () => {
    expect(await calls.count(3)()).toEqual(E.right("counted to 3"));
    expect(seen.yielded).toBe(3);
    const [counted, sum] = await batch([calls.count(2), calls.add(1, 2)])();
    expect(counted).toEqual(E.right("counted to 2"));
    expect(sum).toEqual(E.right(3));
    reset();
    expect(await notify(calls.count(2))()).toEqual(E.right(undefined));
    await seen.finished.promise;
    expect(seen.yielded).toBe(2);
  });

  test("withOptions keeps a stream a stream; a handler that answers at once gives no values", async () => {
    const values: number[] = [];
    for await (const n of pipe(calls.count(2), withOptions({ timeoutMs: 60_000 }))) values.push(n);
    expect(values).toEqual([1, 2]);
    const run = open(calls.json());
    expect(await run.next()).toEqual({ done: true, value: E.right("answered at once") });
  });

  test("a time-out mid-stream ends the run with timeout, after the values that came", async () => {
    const release = deferred();
    const stalled = implement(contract({ stall: { stream: t.number, result: t.string } }), {
      stall: async function* () {
        yield 1;
        await release.promise;
        yield 2;
        return E.right("late");
      },
    });
    const { stall } = client(contract({ stall: { stream: t.number, result: t.string } }), local(stalled));
    const run = open(pipe(stall(), withOptions({ timeoutMs: 20 })));
    const values: number[] = [];
    for await (const n of run) values.push(n);
    expect(values).toEqual([1]);
    expect(await run.result).toEqual(E.left({ _tag: "TransportError", reason: "timeout", timeoutMs: 20 }));
    release.resolve();
  });

  test("two streams at once through one transport, each with its own values", async () => {
    const a = open(calls.count(3));
    const b = open(calls.days(2));
    expect(await a.next()).toEqual({ done: false, value: 1 });
    expect(await b.next()).toEqual({ done: false, value: new Date(Date.UTC(2024, 0, 1)) });
    expect(await a.next()).toEqual({ done: false, value: 2 });
    expect(await b.next()).toEqual({ done: false, value: new Date(Date.UTC(2024, 0, 2)) });
    expect(await b.next()).toEqual({ done: true, value: E.right(2) });
    expect(await a.next()).toEqual({ done: false, value: 3 });
    expect(await a.next()).toEqual({ done: true, value: E.right("counted to 3") });
  });

  test("a table's client: an async function* streams the JSON form of its values", async () => {
    const table = {
      ticks: async function* (n: number) {
        for (let i = 0; i < n; i++) yield { at: new Date(Date.UTC(2024, 0, i + 1)), i };
        return Success("ticked");
      },
    };
    const run = open(client<typeof table>(local(table)).ticks(2));
    const values: Array<{ at: string; i: number }> = [];
    for await (const value of run) values.push(value);
    expect(values).toEqual([
      { at: "2024-01-01T00:00:00.000Z", i: 0 },
      { at: "2024-01-02T00:00:00.000Z", i: 1 },
    ]);
    expect(await run.result).toEqual(E.right("ticked"));
  });

  test("local's text path (a deserializer given) streams too, with the user's stages after its own", async () => {
    const stagesSeen: string[] = [];
    const transport = local(methods, {
      deserializer: (text) => JSON.parse(text as string) as unknown,
      stages: [(call) => (stagesSeen.push(call.request.method), E.right(call))],
    });
    const values: number[] = [];
    const run = open(client(api, transport).count(2));
    for await (const n of run) values.push(n);
    expect(values).toEqual([1, 2]);
    expect(await run.result).toEqual(E.right("counted to 2"));
    expect(stagesSeen).toEqual(["count"]);
  });
});

describe("transports of one's own: the run never throws", () => {
  const { count } = api.methods;
  const one = contract({ count });
  const answerFor = (body: string): string =>
    JSON.stringify({ jsonrpc: "2.0", result: "done", id: (JSON.parse(body) as { id: number }).id });

  test("a transport that throws or rejects: the run ends, network", async () => {
    const throwing: Transport = () => {
      throw new Error("thrown");
    };
    const rejecting: Transport = () => () => Promise.reject(new Error("rejected"));
    for (const transport of [throwing, rejecting]) {
      const run = open(client(one, transport).count(1));
      for await (const n of run) throw new Error(`no value expected, got ${n}`);
      expect(await run.result).toMatchObject(E.left({ _tag: "TransportError", reason: "network" }));
    }
  });

  test("a transport that does not wait for onValue: every value is kept, in order; values after the answer are dropped", async () => {
    let late: TransportOptions["onValue"];
    const eager: Transport = (body, { onValue }) => {
      late = onValue;
      return async () => {
        const waits = Array.from({ length: 3 * STREAM_BUFFER }, (_, i) => onValue?.(i + 1));
        // Past the buffer, every call is told to wait (one Promise), and none rejects.
        expect(waits.filter((wait) => wait !== undefined)).toHaveLength(2 * STREAM_BUFFER + 1);
        expect(new Set(waits.filter((wait) => wait !== undefined)).size).toBe(1);
        return E.right(answerFor(body));
      };
    };
    const run = open(client(one, eager).count(0));
    await turns(1);
    const values: number[] = [];
    for await (const n of run) values.push(n);
    expect(values).toEqual(Array.from({ length: 3 * STREAM_BUFFER }, (_, i) => i + 1));
    expect(late?.(99)).toBeUndefined();
    expect(await run.result).toEqual(E.right("done"));
  });

  test("a transport that ignores onValue: the answer alone", async () => {
    const deaf: Transport = (body) => async () => E.right(answerFor(body));
    const run = open(client(one, deaf).count(3));
    expect(await run.next()).toEqual({ done: true, value: E.right("done") });
  });
});

describe("the event-stream parser", () => {
  const ID = 7;
  const stream = [
    ": a comment\r\n",
    "retry: 10\n",
    "event: message\r\n",
    'data: {"jsonrpc":"2.0",\r\n',
    'data: "method":"$/progress","params":{"token":7,"value":"é🙂"}}\r\n',
    "\r\n",
    "event: ping\ndata: {}\n\n",
    "id: 1\n",
    'data:{"jsonrpc":"2.0","method":"$/progress","params":{"token":7,"value":2}}\r\r',
    "data\n\n",
    "event: nothing\n\n",
    'data: {"jsonrpc":"2.0","result":"ok","id":7}\n\n',
  ].join("");
  const expected: ServerEvent[] = [
    { type: "message", data: '{"jsonrpc":"2.0",\n"method":"$/progress","params":{"token":7,"value":"é🙂"}}' },
    { type: "ping", data: "{}" },
    { type: "message", data: `{"jsonrpc":"2.0","method":"$/progress","params":{"token":${ID},"value":2}}` },
    { type: "message", data: "" },
    { type: "message", data: '{"jsonrpc":"2.0","result":"ok","id":7}' },
  ];
  const parse = (chunks: readonly string[]): ServerEvent[] => {
    const parser = new EventStream();
    const events: ServerEvent[] = [];
    for (const chunk of chunks) {
      parser.push(chunk);
      for (let event = parser.next(); event !== undefined; event = parser.next()) events.push(event);
    }
    return events;
  };

  test("whole, cut in two at every place, and one character at a time: the same events", () => {
    expect(parse([stream])).toEqual(expected);
    for (let cut = 1; cut < stream.length; cut++) {
      expect(parse([stream.slice(0, cut), stream.slice(cut)])).toEqual(expected);
    }
    expect(parse([...stream])).toEqual(expected);
  });

  test("a CR at the end of a chunk and the LF that starts the next are one line ending", () => {
    expect(parse(["data: a\r", "\ndata: b\r", "\n\r", "\n"])).toEqual([{ type: "message", data: "a\nb" }]);
    expect(parse(["data: a\r", "\r"])).toEqual([{ type: "message", data: "a" }]);
  });

  test("an event not ended by a blank line is not one; what it holds is counted", () => {
    const parser = new EventStream();
    parser.push("data: 12345\ndata: 67");
    expect(parser.next()).toBeUndefined();
    expect(parser.held).toBe("12345".length + "data: 67".length);
  });
});

/** A server written here: each method's script answers by hand. */
interface Exchange {
  readonly id: number;
  readonly params: unknown;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
}

const message = (value: object): string => `event: message\ndata: ${JSON.stringify(value)}\n\n`;
const progress = (id: number, value: unknown): string =>
  message({ jsonrpc: "2.0", method: "$/progress", params: { token: id, value } });
const answer = (id: number, result: unknown): string => message({ jsonrpc: "2.0", result, id });
const eventStream = (res: ServerResponse): void =>
  void res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });

/** Writes `text` and waits until it is flushed (or the client has gone). */
/**
 * Writes, and goes on once the write is done, a turn of the event loop later: on Node 26, a write
 * to a socket the client has reset calls back at once (with an error) before `res` is marked
 * destroyed, and a loop of such writes would starve the event loop that delivers 'close'.
 */
const write = (res: ServerResponse, text: string | Uint8Array): Promise<void> =>
  new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.write(text, () => setImmediate(resolve));
  });

describe("over http: a server answering the event-stream wire by hand", () => {
  let server: Server;
  let url: string;
  /** Each request's Accept header, and whether its response closed before it ended (the client went away). */
  const accepts: Array<string | undefined> = [];
  let left = deferred<boolean>();
  const scripts: Record<string, (exchange: Exchange) => Promise<void> | void> = {
    count: ({ id, params, res }) => {
      const [to] = params as [number];
      eventStream(res);
      for (let i = 1; i <= to; i++) res.write(progress(id, i));
      res.end(answer(id, `counted to ${to}`));
    },
    bytes: async ({ id, res }) => {
      eventStream(res);
      const text = [
        ": a comment\r\n",
        "event: message\r\n",
        'data: {"jsonrpc":"2.0",\r\n',
        `data: "method":"$/progress","params":{"token":${id},"value":"é🙂"}}\r\n\r\n`,
        `event: ping\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "$/progress", params: { token: id, value: "ping" } })}\n\n`,
        message({ jsonrpc: "2.0", method: "$/progress", params: { token: id + 1, value: "not mine" } }),
        message({ jsonrpc: "2.0", method: "log", params: { token: id, value: "not a value" } }),
        `id: 1\r\ndata:{"jsonrpc":"2.0","method":"$/progress","params":{"token":${id},"value":2}}\r\r`,
        `data: {"jsonrpc":"2.0","result":\ndata: "bytes","id":${id}}\n\n`,
      ].join("");
      for (const byte of Buffer.from(text)) await write(res, Uint8Array.of(byte));
      res.end();
    },
    failing: ({ id, params, res }) => {
      const [n] = params as [number];
      eventStream(res);
      for (let i = 1; i <= n; i++) res.write(progress(id, i));
      res.end(message({ jsonrpc: "2.0", error: { code: 404, message: "Not found", data: { after: n } }, id }));
    },
    endless: async ({ id, res }) => {
      eventStream(res);
      for (let i = 1; !res.destroyed; i++) await write(res, progress(id, i));
    },
    wrong: async ({ id, res }) => {
      eventStream(res);
      for (const value of [1, "two", 3]) await write(res, progress(id, value));
    },
    flood: async ({ id, params, res }) => {
      const [n] = params as [number];
      eventStream(res);
      for (let i = 1; i <= n && !res.destroyed; i++) {
        if (!res.write(progress(id, i))) await new Promise((resolve) => res.once("drain", resolve));
      }
      res.end(answer(id, n));
    },
    big: ({ id, res }) => {
      eventStream(res);
      res.end(progress(id, "x".repeat(2000)) + answer(id, "big"));
    },
    cut: ({ id, res }) => {
      eventStream(res);
      res.end(progress(id, 1));
    },
    json: ({ id, res }) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", result: "as json", id }));
    },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      accepts.push(req.headers.accept);
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const request = JSON.parse(Buffer.concat(chunks).toString()) as { method: string; id: number; params: unknown };
        const mine = left;
        res.on("close", () => mine.resolve(!res.writableFinished));
        void scripts[request.method]?.({ id: request.id, params: request.params, req, res });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    accepts.length = 0;
    left = deferred<boolean>();
  });

  const calls = () => client(api, http(url));

  test("values then the answer; a streamed call accepts an event stream, a plain one JSON only (an event stream sent anyway is read, its values dropped)", async () => {
    const run = open(calls().count(3));
    const values: number[] = [];
    for await (const n of run) values.push(n);
    expect(values).toEqual([1, 2, 3]);
    expect(await run.result).toEqual(E.right("counted to 3"));
    expect(await calls().count(2)()).toEqual(E.right("counted to 2"));
    expect(accepts).toEqual(["text/event-stream, application/json", "application/json"]);
  });

  test("written one byte at a time: events cut anywhere, CRLF and CR, comments, multi-line data, other events and notifications skipped", async () => {
    const run = open(calls().bytes());
    const values: Array<string | number> = [];
    for await (const value of run) values.push(value);
    expect(values).toEqual(["é🙂", 2]);
    expect(await run.result).toEqual(E.right("bytes"));
  });

  test("a server that streams nothing answers JSON, read as any answer", async () => {
    const run = open(calls().json());
    expect(await run.next()).toEqual({ done: true, value: E.right("as json") });
  });

  test("an error answer after values: the values, then the declared error", async () => {
    const run = open(calls().failing(2));
    const values: number[] = [];
    for await (const n of run) values.push(n);
    expect(values).toEqual([1, 2]);
    expect(await run.result).toEqual(
      E.left({ _tag: "ServerError", declared: true, code: 404, message: "Not found", data: { after: 2 } }),
    );
  });

  test("break closes the stream: the server sees the client go, the result is aborted", async () => {
    const run = open(calls().endless());
    const values: number[] = [];
    for await (const n of run) {
      values.push(n);
      if (n === 3) break;
    }
    expect(values).toEqual([1, 2, 3]);
    expect(await left.promise).toBe(true);
    expect(await run.result).toMatchObject(E.left({ _tag: "TransportError", reason: "aborted" }));
  });

  test("the call's signal aborting closes the stream too, with its reason", async () => {
    const controller = new AbortController();
    const run = open(pipe(calls().endless(), withOptions({ signal: controller.signal })));
    const values: number[] = [];
    for await (const n of run) {
      values.push(n);
      if (n === 2) controller.abort("enough");
    }
    expect(values).toEqual([1, 2]);
    expect(await left.promise).toBe(true);
    expect(await run.result).toEqual(E.left({ _tag: "TransportError", reason: "aborted", cause: "enough" }));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  test("a value the codec refuses: valueRefused, and the stream is closed", async () => {
    const run = open(calls().wrong());
    const values: number[] = [];
    for await (const n of run) values.push(n);
    expect(values).toEqual([1]);
    expect(await left.promise).toBe(true);
    expect(await run.result).toMatchObject(E.left({ _tag: "InvalidAnswer", reason: "valueRefused", value: "two" }));
  });

  test("a stream that ends before the answer: a network TransportError that says so", async () => {
    const run = open(calls().cut());
    const values: number[] = [];
    for await (const n of run) values.push(n);
    expect(values).toEqual([1]);
    const result = await run.result;
    expect(result).toMatchObject(E.left({ _tag: "TransportError", reason: "network" }));
    expect(E.isLeft(result) && result.left._tag === "TransportError" && result.left.reason === "network").toBe(true);
    expect(String((result as E.Left<{ cause: Error }>).left.cause.message)).toMatch(/ended before the call's answer/);
  });

  test("an event longer than maxAnswerBytes: tooLarge, though the stream as a whole may be longer", async () => {
    const run = open(client(api, http(url, { maxAnswerBytes: 1000 })).big());
    for await (const value of run) throw new Error(`no value expected, got ${value}`);
    expect(await run.result).toEqual(E.left({ _tag: "TransportError", reason: "tooLarge", limit: 1000 }));
    const roomy = open(client(api, http(url, { maxAnswerBytes: 3000 })).big());
    expect((await roomy.next()).value).toHaveLength(2000);
  });

  test("a consumer slower than the server: what the transport has read ahead stays within the buffer (counted)", async () => {
    let handed = 0;
    const inner = http(url);
    // Counts the values the transport hands over, before the run's buffer takes them.
    const counting: Transport = (body, options: TransportOptions) =>
      inner(
        body,
        options.onValue === undefined
          ? options
          : {
              ...options,
              onValue: (value) => {
                handed++;
                return options.onValue?.(value);
              },
            },
      );
    const run = open(client(api, counting).flood(1000));
    let taken = 0;
    let lead = 0;
    for await (const n of run) {
      taken++;
      expect(n).toBe(taken);
      if (taken % 100 === 1) await new Promise((resolve) => setTimeout(resolve, 10));
      lead = Math.max(lead, handed - taken);
    }
    expect(taken).toBe(1000);
    expect(lead).toBe(STREAM_BUFFER);
    expect(await run.result).toEqual(E.right(1000));
  });
});

describe("over http: the development server", () => {
  let dev: DevServer;
  let url: string;
  const seen = { yielded: 0, finished: deferred() };
  beforeEach(() => {
    seen.yielded = 0;
    seen.finished = deferred();
  });
  const server = contract({
    ...api.methods,
    wrong: { stream: t.unknown, result: t.string },
    big: { params: t.tuple([t.number, t.number]), stream: t.string, result: t.number },
  });
  const methods = implement(server, {
    count: async function* (to) {
      for (let i = 1; i <= to; i++) yield i;
      return E.right(`counted to ${to}`);
    },
    days,
    failing,
    endless: async function* () {
      try {
        for (let i = 1; ; i++) yield i;
      } finally {
        seen.finished.resolve();
      }
    },
    wrong: async function* () {
      try {
        for (const value of [1, "two", 3]) yield value;
        return E.right("never");
      } finally {
        seen.finished.resolve();
      }
    },
    flood: async function* (n) {
      for (let i = 1; i <= n; i++) {
        seen.yielded++;
        yield i;
      }
      return E.right(n);
    },
    big: async function* (n, size) {
      for (let i = 1; i <= n; i++) {
        seen.yielded++;
        yield String(i).padEnd(size, ".");
      }
      return E.right(n);
    },
    bytes: () => E.right("none"),
    cut: () => E.right("none"),
    json: () => E.right("answered at once"),
    add: (a, b) => E.right(a + b),
  });
  beforeAll(async () => {
    // Its "listening" line is not this suite's business.
    const quiet = recordLogs();
    dev = await serve("127.0.0.1", 0, { methods }).finally(quiet.restore);
    url = `http://127.0.0.1:${(dev.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => dev.close(() => resolve())));

  const calls = () => client(api, http(url));

  test("values then the result, decoded; an error after values; a method that streams nothing answers JSON", async () => {
    const days = open(calls().days(2));
    const values: Date[] = [];
    for await (const day of days) values.push(day);
    expect(values).toEqual([new Date(Date.UTC(2024, 0, 1)), new Date(Date.UTC(2024, 0, 2))]);
    expect(await days.result).toEqual(E.right(2));
    expect(
      await pipe(
        calls().count(4),
        foldStream(0, (sum, n: number) => sum + n),
      )(),
    ).toEqual(E.right([10, "counted to 4"]));
    const failing = open(calls().failing(1));
    expect(await failing.next()).toEqual({ done: false, value: 1 });
    expect(await failing.next()).toEqual({
      done: true,
      value: E.left({ _tag: "ServerError", declared: true, code: 404, message: "Not found", data: { after: 1 } }),
    });
    expect(await open(calls().json()).result).toEqual(E.right("answered at once"));
    expect(await calls().count(3)()).toEqual(E.right("counted to 3"));
  });

  test("break stops the method on the server (its finally runs); the result is aborted", async () => {
    const run = open(calls().endless());
    for await (const n of run) if (n === 3) break;
    await seen.finished.promise;
    expect(await run.result).toMatchObject(E.left({ _tag: "TransportError", reason: "aborted" }));
  });

  test("the call's signal stops it too; a refused value stops it as well", async () => {
    const controller = new AbortController();
    const run = open(pipe(calls().endless(), withOptions({ signal: controller.signal })));
    for await (const n of run) if (n === 2) controller.abort("enough");
    await seen.finished.promise;
    expect(await run.result).toEqual(E.left({ _tag: "TransportError", reason: "aborted", cause: "enough" }));
    seen.finished = deferred();
    const wrong = open(calls().wrong());
    const values: number[] = [];
    for await (const n of wrong) values.push(n);
    await seen.finished.promise;
    expect(values).toEqual([1]);
    expect(await wrong.result).toMatchObject(E.left({ _tag: "InvalidAnswer", reason: "valueRefused", value: "two" }));
  });

  test("a consumer slower than the server: the server's method waits for it (it has not run to its end)", async () => {
    // 400 values of 128 KiB: far more than the sockets' buffers hold between the two ends.
    const total = 400;
    const run = open(client(contract({ big: server.methods.big }), http(url)).big(total, 128 * 1024));
    const first = await run.next();
    expect(first.done).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await turns(10);
    expect(seen.yielded).toBeLessThan(total);
    let taken = 1;
    for await (const value of run) expect(value.startsWith(`${++taken}.`)).toBe(true);
    expect(taken).toBe(total);
    expect(await run.result).toEqual(E.right(total));
  });

  test("many values, all in order", async () => {
    const run = open(calls().flood(5000));
    let taken = 0;
    for await (const n of run) expect(n).toBe(++taken);
    expect(taken).toBe(5000);
    expect(await run.result).toEqual(E.right(5000));
  });
});
