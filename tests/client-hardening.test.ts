/**
 * The client under what issue 21 found: ids shared by clients that wrap one connection's
 * transport, result codecs that throw, time-outs past what a timer holds, answers a server should
 * not send (a success with a null id, an id answered twice in a batch), and answers too large to
 * hold. Over real sockets (TCP, node:http on 127.0.0.1) where the wire matters; the time-outs
 * under jest's fake timers, so that 2^31 ms is waited without waiting.
 */
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as TE from "fp-ts/TaskEither";
import * as t from "io-ts";
import { createServer as createHttpServer, type ServerResponse } from "node:http";
import { createServer, connect as tcp, type AddressInfo, type Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { contract, implement } from "../src";
import {
  batch,
  client,
  http,
  local,
  notify,
  withOptions,
  type ClientError,
  type Transport,
  type TransportError,
} from "../src/client";
import { connect, byteChannel } from "../src/connection";

const api = contract({
  balance: { params: t.tuple([t.string]), result: t.number },
  user: { params: t.tuple([t.number]), result: t.string },
  add: { params: t.tuple([t.number, t.number]), result: t.number },
});
const methods = implement(api, {
  balance: () => E.right(100),
  user: (n) => E.right(`user-${n}`),
  add: (a, b) => E.right(a + b),
});

/** The ids of the requests in a body (a batch's members' too; none for a notification). */
const idsIn = (body: string): unknown[] => {
  const parsed = JSON.parse(body) as unknown;
  return (Array.isArray(parsed) ? parsed : [parsed])
    .map((request) => (request as { id?: unknown }).id)
    .filter((id) => id !== undefined);
};

/** A transport that records each body and answers every request of it with `result`. */
const recording = (result: unknown = 3): { bodies: string[]; transport: Transport } => {
  const bodies: string[] = [];
  const transport: Transport = (body) => {
    bodies.push(body);
    const answers = idsIn(body).map((id) => ({ jsonrpc: "2.0", result, id }));
    return TE.right(JSON.stringify(body.startsWith("[") ? answers : answers[0]));
  };
  return { bodies, transport };
};

/** A node:http server on 127.0.0.1 answering each POST with `respond(requestBody, res)`. */
const httpServer = async (
  respond: (body: string, res: ServerResponse) => void,
): Promise<{ url: string; close: () => Promise<void> }> => {
  const s = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => respond(Buffer.concat(chunks).toString("utf8"), res));
  });
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/`,
    close: () => {
      s.closeAllConnections();
      return new Promise((resolve) => s.close(() => resolve()));
    },
  };
};

describe("ids are unique whatever wraps a transport (issue 21, item 6)", () => {
  test("two clients over one TCP connection, each through a wrapper of its transport, get their own answers", async () => {
    const sockets: Socket[] = [];
    const listener = createServer((socket) => {
      sockets.push(socket);
      connect(byteChannel(socket, socket), { methods });
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    try {
      const socket = tcp((listener.address() as AddressInfo).port, "127.0.0.1");
      const peer = connect(byteChannel(socket, socket));
      // A wrapper for headers or a log, as docs/contract.md suggests: it does not keep `nextId`.
      const sent: string[] = [];
      const logged: Transport = (body, options) => {
        sent.push(body);
        return peer.transport(body, options);
      };
      // The time-out only bounds a call that the clash would leave waiting.
      const bank = client(api, logged, { timeoutMs: 10_000 });
      const users = client(api, logged, { timeoutMs: 10_000 });
      const answers = await Promise.all([bank.balance("ada")(), users.user(7)(), bank.add(1, 2)()]);
      expect(answers).toStrictEqual([E.right(100), E.right("user-7"), E.right(3)]);
      const ids = sent.flatMap(idsIn);
      expect(new Set(ids).size).toBe(3);
      socket.destroy();
      await peer.closed;
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  test("clients whose transport has no nextId share one counter: no id twice, in calls or batches", async () => {
    const one = recording();
    const two = recording();
    const a = client(api, one.transport);
    const b = client(api, two.transport);
    const table = client<{ add: (a: number, b: number) => unknown }>(two.transport);
    await a.add(1, 2)();
    await b.add(1, 2)();
    await table.add(1, 2)();
    await batch([b.add(1, 2), table.add(3, 4), notify(b.add(5, 6))])();
    await Promise.all([a.add(1, 1)(), b.add(2, 2)()]);
    const ids = [...one.bodies, ...two.bodies].flatMap(idsIn);
    expect(ids).toHaveLength(7);
    expect(new Set(ids).size).toBe(7);
  });

  test("the counter wraps to 1 after Number.MAX_SAFE_INTEGER, before ids stop being exact", async () => {
    // The counter is kept on globalThis (shared by the library's copies in a process): set it near the end.
    const slot = globalThis as unknown as Record<symbol, { last: number } | undefined>;
    const key = Symbol.for("rpcserver.callIds");
    const saved = slot[key];
    slot[key] = { last: Number.MAX_SAFE_INTEGER - 1 };
    try {
      const { bodies, transport } = recording();
      const c = client(api, transport);
      await c.add(1, 2)();
      await batch([c.add(1, 2), c.add(3, 4)])();
      expect(bodies.flatMap(idsIn)).toStrictEqual([Number.MAX_SAFE_INTEGER, 1, 2]);
    } finally {
      slot[key] = saved;
    }
  });

  test("a transport's own nextId is still the one used", async () => {
    const { bodies, transport } = recording();
    let next = 1000;
    const own: Transport = Object.assign(transport, { nextId: () => (next += 10) });
    const c = client(api, own);
    await c.add(1, 2)();
    await batch([c.add(1, 2), c.add(3, 4)])();
    expect(bodies.flatMap(idsIn)).toStrictEqual([1010, 1020, 1030]);
  });
});

describe("a result codec that throws is a Left, never a rejection (issue 21, item 10)", () => {
  /** A codec whose decode throws, as a user's hand-written `validate` may. */
  const Throwing = new t.Type<number, number, unknown>(
    "Throwing",
    (u): u is number => typeof u === "number",
    () => {
      throw new globalThis.Error("the codec broke");
    },
    (n) => n,
  );
  const brittle = contract({
    add: { params: t.tuple([t.number, t.number]), result: Throwing },
    fail: { errors: [{ code: 7, message: "Seven", data: Throwing }] },
  });
  const server = implement(brittle, {
    add: (a, b) => E.right(a + b),
    fail: () => E.left({ code: 7, message: "Seven", data: 1 }),
  });
  const refused = {
    _tag: "InvalidAnswer",
    reason: "resultRefused",
    result: 3,
    message: "result: the result codec threw: the codec broke",
  };

  test("a call, with or without a time-out, and each member of a batch: resultRefused with what it threw", async () => {
    const { transport } = recording(3);
    const c = client(brittle, transport);
    await expect(c.add(1, 2)()).resolves.toStrictEqual(E.left(refused));
    await expect(pipe(c.add(1, 2), withOptions({ timeoutMs: 10_000 }))()).resolves.toStrictEqual(E.left(refused));
    await expect(batch([c.add(1, 2), c.add(1, 2)])()).resolves.toStrictEqual([E.left(refused), E.left(refused)]);
  });

  test("a codec that throws something that is not an Error, whose text throws too", async () => {
    const Odd = new t.Type<number, number, unknown>(
      "Odd",
      (u): u is number => typeof u === "number",
      () => {
        throw {
          toString: () => {
            throw new globalThis.Error("no text");
          },
        };
      },
      (n) => n,
    );
    const c = client(contract({ n: { result: Odd } }), recording(3).transport);
    await expect(c.n()()).resolves.toStrictEqual(
      E.left({ ...refused, message: "result: the result codec threw: a value with no text" }),
    );
  });

  test("an error's data codec that throws: the ServerError, its data as sent (as when the codec refuses it)", async () => {
    const c = client(brittle, (body) => {
      const id = idsIn(body)[0] as number;
      return TE.right(JSON.stringify({ jsonrpc: "2.0", error: { code: 7, message: "Seven", data: 1 }, id }));
    });
    const error = E.left({ _tag: "ServerError", code: 7, message: "Seven", data: 1 });
    await expect(c.fail()()).resolves.toStrictEqual(error);
    await expect(batch([c.fail()])()).resolves.toStrictEqual([error]);
    // Through the server's own answer too.
    await expect(client(brittle, local(server)).fail()()).resolves.toStrictEqual(error);
  });
});

describe("time-outs of any length (issue 21, item 14)", () => {
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ["nextTick", "queueMicrotask", "setImmediate"] });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  /** A transport that records each body and answers (the last body's first id) only when told to, or when aborted. */
  const held = () => {
    const bodies: string[] = [];
    let answer: (text: string) => void = () => undefined;
    const transport: Transport =
      (body, { signal }) =>
      () =>
        new Promise<E.Either<TransportError, string>>((settle) => {
          bodies.push(body);
          answer = (text) => settle(E.right(text));
          signal.addEventListener("abort", () =>
            settle(E.left({ _tag: "TransportError", reason: "aborted", cause: 0 })),
          );
        });
    const answer3 = (): void => answer(`{"jsonrpc":"2.0","result":3,"id":${String(idsIn(bodies.at(-1) ?? "{}")[0])}}`);
    return { bodies, transport, answer3 };
  };

  /** Runs a call, recording its answer once it settles. */
  const running = (call: () => Promise<unknown>) => {
    const state: { answer?: unknown } = {};
    const done = call().then((answer) => (state.answer = answer));
    return { state, done };
  };

  /** Moves the fake clock on by `ms`, in steps a timer can hold, as the real clock would pass. */
  const pass = async (ms: number): Promise<void> => {
    for (let left = ms; left > 0; left -= 2 ** 31 - 1) await jest.advanceTimersByTimeAsync(Math.min(left, 2 ** 31 - 1));
  };

  test.each([2 ** 31, 2 * (2 ** 31 - 1) + 5])("%d ms: not a moment early, and then a timeout", async (timeoutMs) => {
    const { transport } = held();
    const c = client(api, transport, { timeoutMs });
    const { state, done } = running(c.add(1, 2));
    await pass(timeoutMs - 1);
    expect(state.answer).toBeUndefined();
    await pass(1);
    await done;
    expect(state.answer).toStrictEqual(E.left({ _tag: "TransportError", reason: "timeout", timeoutMs }));
  });

  test("Number.MAX_SAFE_INTEGER ms: a year on, still waiting, on one timer", async () => {
    const { transport, answer3 } = held();
    const c = client(api, transport, { timeoutMs: Number.MAX_SAFE_INTEGER });
    const { state, done } = running(c.add(1, 2));
    await pass(365 * 24 * 3600 * 1000);
    expect(state.answer).toBeUndefined();
    expect(jest.getTimerCount()).toBe(1);
    answer3();
    await done;
    expect(state.answer).toStrictEqual(E.right(3));
    expect(jest.getTimerCount()).toBe(0);
  });

  test("Infinity: no timer at all, for a call, through withOptions, and for a batch", async () => {
    const { transport, answer3 } = held();
    const c = client(api, transport, { timeoutMs: Infinity });
    const { state, done } = running(c.add(1, 2));
    await pass(1000);
    expect(state.answer).toBeUndefined();
    expect(jest.getTimerCount()).toBe(0);
    answer3();
    await done;
    expect(state.answer).toStrictEqual(E.right(3));
    const short = client(api, transport, { timeoutMs: 5 });
    const one = running(pipe(short.add(1, 2), withOptions({ timeoutMs: Infinity })));
    const both = running(batch([short.add(1, 2), short.add(3, 4)], { timeoutMs: Infinity }));
    await pass(10_000);
    expect(one.state.answer).toBeUndefined();
    expect(both.state.answer).toBeUndefined();
    expect(jest.getTimerCount()).toBe(0);
  });

  test.each([0, -1, Number.NaN])("%d ms: no time left, a timeout at once and nothing sent", async (timeoutMs) => {
    const { bodies, transport } = held();
    const c = client(api, transport);
    const one = running(pipe(c.add(1, 2), withOptions({ timeoutMs })));
    const both = running(batch([c.add(1, 2)], { timeoutMs }));
    // The promises' turn (and the first millisecond of the timers', where a 0 ms timer would fire).
    await jest.advanceTimersByTimeAsync(1);
    const timeout = E.left({ _tag: "TransportError", reason: "timeout", timeoutMs });
    expect([one.state.answer, both.state.answer]).toStrictEqual([timeout, [timeout]]);
    expect(bodies).toStrictEqual([]);
  });
});

describe("answers a server should not send (issue 21, item 14)", () => {
  test("a success with a null id is no answer to a call (unknownId); an error with one still is", async () => {
    const server = await httpServer((body, res) => {
      const error = body.includes('"add"');
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        error
          ? '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}'
          : '{"jsonrpc":"2.0","result":3,"id":null}',
      );
    });
    try {
      const c = client(api, http(server.url));
      expect(await c.balance("ada")()).toStrictEqual(E.left({ _tag: "InvalidAnswer", reason: "unknownId", id: null }));
      expect(await c.add(1, 2)()).toStrictEqual(
        E.left({ _tag: "ServerError", code: -32600, message: "Invalid Request" }),
      );
    } finally {
      await server.close();
    }
  });

  test("an id answered twice in a batch: that member is notJsonRpc with both answers, agreeing or not", async () => {
    const server = await httpServer((body, res) => {
      const [first, second, third] = idsIn(body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify([
          { jsonrpc: "2.0", result: 100, id: first },
          { jsonrpc: "2.0", result: "user-7", id: second },
          { jsonrpc: "2.0", result: 999, id: first },
          { jsonrpc: "2.0", result: 3, id: third },
          { jsonrpc: "2.0", result: 3, id: third },
        ]),
      );
    });
    try {
      const c = client(api, http(server.url));
      const [balance, user, sum] = await batch([c.balance("ada"), c.user(7), c.add(1, 2)])();
      expect(user).toStrictEqual(E.right("user-7"));
      expect(balance).toMatchObject(E.left({ _tag: "InvalidAnswer", reason: "notJsonRpc" }));
      const twice = (answer: typeof balance): unknown =>
        E.isLeft(answer) && answer.left._tag === "InvalidAnswer" && answer.left.reason === "notJsonRpc"
          ? (answer.left.answer as Array<{ result: unknown }>).map((response) => response.result)
          : answer;
      expect(twice(balance)).toStrictEqual([100, 999]);
      expect(twice(sum)).toStrictEqual([3, 3]);
    } finally {
      await server.close();
    }
  });
});

describe("http's maxAnswerBytes (issue 21, item 14)", () => {
  const MiB = 1024 * 1024;

  /** Only what a test compares: the tag, the reason and the limit (never a body of megabytes). */
  const brief = (answer: E.Either<ClientError, unknown>): unknown =>
    E.isRight(answer)
      ? { right: typeof answer.right }
      : {
          _tag: answer.left._tag,
          reason: "reason" in answer.left ? answer.left.reason : undefined,
          limit: "limit" in answer.left ? answer.left.limit : undefined,
        };

  /**
   * A server that answers with `total` bytes of `x`, written as fast as the client reads them (by
   * `drain`), and stops when the client goes away; `written` resolves to the bytes it wrote.
   */
  const flooding = async (total: number, headers: Record<string, string | number>) => {
    let finished: (bytes: number) => void = () => undefined;
    const written = new Promise<number>((resolve) => (finished = resolve));
    const server = await httpServer((_body, res) => {
      res.writeHead(200, { "content-type": "application/json", ...headers });
      const chunk = Buffer.alloc(64 * 1024, "x");
      let bytes = 0;
      let gone = false;
      res.on("close", () => {
        gone = true;
        finished(bytes);
      });
      const pump = (): void => {
        while (!gone && bytes < total) {
          bytes += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        if (!gone) res.end();
      };
      pump();
    });
    return { server, written };
  };

  test("a chunked answer past the limit: tooLarge, and the body is not read to its end", async () => {
    const total = 256 * MiB;
    const { server, written } = await flooding(total, {});
    try {
      const c = client(api, http(server.url, { maxAnswerBytes: MiB }));
      expect(brief(await c.add(1, 2)())).toStrictEqual({ _tag: "TransportError", reason: "tooLarge", limit: MiB });
      // The client cancelled the body: the server could send only a small part of it.
      expect(await written).toBeLessThan(total / 8);
    } finally {
      await server.close();
    }
  });

  test("a content-length past the limit: refused before reading", async () => {
    const total = 256 * MiB;
    const { server, written } = await flooding(total, { "content-length": total });
    try {
      const c = client(api, http(server.url, { maxAnswerBytes: MiB }));
      expect(brief(await c.add(1, 2)())).toStrictEqual({ _tag: "TransportError", reason: "tooLarge", limit: MiB });
      expect(await written).toBeLessThan(total / 8);
    } finally {
      await server.close();
    }
  });

  test("a gzip answer whose small content-length inflates past the limit: counted as inflated", async () => {
    const inflated = 32 * MiB;
    const packed = gzipSync(Buffer.alloc(inflated, " "));
    const server = await httpServer((_body, res) => {
      res.writeHead(200, {
        "content-type": "application/json",
        "content-encoding": "gzip",
        "content-length": packed.length,
      });
      res.end(packed);
    });
    try {
      const c = client(api, http(server.url, { maxAnswerBytes: MiB }));
      expect(packed.length).toBeLessThan(MiB);
      expect(brief(await c.add(1, 2)())).toStrictEqual({ _tag: "TransportError", reason: "tooLarge", limit: MiB });
    } finally {
      await server.close();
    }
  });

  test("the default is 64 MiB", async () => {
    const total = 64 * MiB + 64 * 1024;
    const { server, written } = await flooding(total, {});
    try {
      const c = client(api, http(server.url));
      expect(brief(await c.add(1, 2)())).toStrictEqual({ _tag: "TransportError", reason: "tooLarge", limit: 64 * MiB });
      await written;
    } finally {
      await server.close();
    }
  });

  test("a chunked answer within the limit, a character split between chunks, a byte-order mark: read whole", async () => {
    const result = "é".repeat(100_000);
    const server = await httpServer((body, res) => {
      const text = `\uFEFF{"jsonrpc":"2.0","result":"${result}","id":${String(idsIn(body)[0])}}`;
      const bytes = Buffer.from(text, "utf8");
      res.writeHead(200, { "content-type": "application/json" });
      // Odd-sized chunks: most "é" (two bytes) are split between two of them.
      for (let at = 0; at < bytes.length; at += 4097) res.write(bytes.subarray(at, at + 4097));
      res.end();
    });
    try {
      const c = client(contract({ s: { result: t.string } }), http(server.url, { maxAnswerBytes: 4 * MiB }));
      expect(await c.s()()).toStrictEqual(E.right(result));
    } finally {
      await server.close();
    }
  });

  test.each([
    ["with a content-length", true],
    ["chunked", false],
  ])("an answer of exactly maxAnswerBytes is taken, one byte more is not (%s)", async (_name, declared) => {
    // An error with a null id is the call's answer whatever its id: a body of a known length.
    const text = `{"jsonrpc":"2.0","error":{"code":1,"message":"${"ü".repeat(200)}"},"id":null}`;
    const bytes = Buffer.from(text, "utf8");
    const server = await httpServer((_body, res) => {
      res.writeHead(200, {
        "content-type": "application/json",
        ...(declared ? { "content-length": bytes.length } : {}),
      });
      res.write(bytes.subarray(0, 1000));
      res.end(bytes.subarray(1000));
    });
    try {
      const at = client(api, http(server.url, { maxAnswerBytes: bytes.length }));
      expect(await at.add(1, 2)()).toStrictEqual(E.left({ _tag: "ServerError", code: 1, message: "ü".repeat(200) }));
      const under = client(api, http(server.url, { maxAnswerBytes: bytes.length - 1 }));
      expect(await under.add(1, 2)()).toStrictEqual(
        E.left({ _tag: "TransportError", reason: "tooLarge", limit: bytes.length - 1 }),
      );
    } finally {
      await server.close();
    }
  });

  test("a fetch of the user's whose response has text() alone: its text's length is checked", async () => {
    const answering =
      (text: (id: unknown) => string): typeof fetch =>
      (_url, init) =>
        Promise.resolve({
          ok: true,
          status: 200,
          text: () => Promise.resolve(text(idsIn(String(init?.body))[0])),
        } as unknown as Response);
    const short = client(
      api,
      http("http://127.0.0.1:1/", {
        maxAnswerBytes: 100,
        fetch: answering((id) => `{"jsonrpc":"2.0","result":3,"id":${String(id)}}`),
      }),
    );
    expect(await short.add(1, 2)()).toStrictEqual(E.right(3));
    const long = client(
      api,
      http("http://127.0.0.1:1/", { maxAnswerBytes: 100, fetch: answering(() => " ".repeat(101)) }),
    );
    expect(await long.add(1, 2)()).toStrictEqual(E.left({ _tag: "TransportError", reason: "tooLarge", limit: 100 }));
  });

  test("maxAnswerBytes must be a positive integer or Infinity", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => http("http://127.0.0.1:1/", { maxAnswerBytes: bad })).toThrow(RangeError);
    }
    expect(() => http("http://127.0.0.1:1/", { maxAnswerBytes: Infinity })).not.toThrow();
  });
});

describe("http follows no redirect (issue 32, item 6)", () => {
  /** A server on 127.0.0.1 that records the body of each request reaching it and answers 1000. */
  const recordingServer = async () => {
    const seen: string[] = [];
    const server = await httpServer((body, res) => {
      seen.push(body);
      const [id] = idsIn(body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", result: 1000, id }));
    });
    return { ...server, seen };
  };

  test.each([301, 302, 303, 307, 308])(
    "a %i to another origin: a TransportError naming the redirect; the other origin receives nothing",
    async (status) => {
      const other = await recordingServer();
      const redirecting = await httpServer((_body, res) => {
        res.writeHead(status, { location: `${other.url}stolen` });
        res.end();
      });
      try {
        const c = client(api, http(redirecting.url, { headers: { "x-api-key": "secret" } }));
        expect(await c.add(1, 2)()).toStrictEqual(
          E.left({ _tag: "TransportError", reason: "redirect", status, location: `${other.url}stolen` }),
        );
        // Not the body, not the API key: nothing reached the other origin.
        expect(other.seen).toEqual([]);
      } finally {
        await redirecting.close();
        await other.close();
      }
    },
  );

  test("a relative Location is given resolved against the client's URL; a same-origin redirect is refused too", async () => {
    const seen: string[] = [];
    const server = await httpServer((body, res) => {
      seen.push(body);
      res.writeHead(307, { location: "/v2/rpc" });
      res.end();
    });
    try {
      const c = client(api, http(`${server.url}rpc`));
      expect(await c.add(1, 2)()).toStrictEqual(
        E.left({ _tag: "TransportError", reason: "redirect", status: 307, location: `${server.url}v2/rpc` }),
      );
      // Sent once, to the URL given: not again to where the answer pointed.
      expect(seen).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  test("an opaque redirect (what a browser's fetch gives for redirect: manual) is the same failure, status 0", async () => {
    const opaque: typeof fetch = () =>
      Promise.resolve({ type: "opaqueredirect", ok: false, status: 0, headers: new Headers(), body: null } as Response);
    expect(await client(api, http("http://127.0.0.1:1/", { fetch: opaque })).add(1, 2)()).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "redirect", status: 0 }),
    );
  });

  test("fetch is asked not to follow (redirect: manual)", async () => {
    const inits: Array<RequestInit | undefined> = [];
    const spy: typeof fetch = (_url, init) => {
      inits.push(init);
      const [id] = idsIn(String(init?.body));
      return Promise.resolve(new Response(JSON.stringify({ jsonrpc: "2.0", result: 3, id })));
    };
    expect(await client(api, http("http://127.0.0.1:1/", { fetch: spy })).add(1, 2)()).toStrictEqual(E.right(3));
    expect(inits.map((init) => init?.redirect)).toEqual(["manual"]);
  });
});
