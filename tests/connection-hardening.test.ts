/**
 * A connection under a hostile or careless peer (issue 21): each test here failed before its mend.
 * Call-backs while every slot is busy, abort listeners that throw, error answers without an id,
 * wrapped transports, a send that closes the connection, MCP cancels with the connection's own
 * serializer, the bound on outgoing calls, a context that throws, and `load()` after close.
 */
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as TE from "fp-ts/TaskEither";
import * as t from "io-ts";
import { contract, server, Success } from "../src";
import { batch, client, notify, withOptions, type Transport } from "../src/client";
import { connect, type Connection, type ConnectionContext } from "../src/connection";
import { lone, pair, settle } from "./helpers/channels";

const request = (method: string, params: unknown, id?: number | string): string =>
  JSON.stringify({ jsonrpc: "2.0", method, params, ...(id === undefined ? {} : { id }) });

const parsed = (sent: string[]): Array<Record<string, unknown>> =>
  sent.map((text) => JSON.parse(text) as Record<string, unknown>);

/** Waits until `check` holds, for at most about two seconds (the test then fails on what it asserts). */
const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 400 && !check(); i++) await settle(5);
};

/** Whether `promise` settles within about a second: a call that hangs is the defect. */
const settles = async (promise: Promise<unknown>): Promise<boolean> => {
  const late = Symbol("late");
  const first = await Promise.race([promise.then(() => true), settle(1000).then(() => late)]);
  return first === true;
};

const editor = contract({ config: { params: t.tuple([t.string]), result: t.string } });
const editorClient = (transport: Transport) => client(editor, transport);
/** Calls of any shape, for tests where only the wire matters. */
const loose = contract({
  slow: { result: t.number },
  sum: { params: t.array(t.number), result: t.number },
  ping: { params: t.array(t.number), result: t.unknown },
});
const lsp = contract({
  configured: { params: t.tuple([t.string]), result: t.string },
  sleep: { params: t.tuple([t.number]), result: t.number },
});

/** A server whose `configured` calls the editor back (through its request's connection) before it answers. */
const calling = server(lsp)
  .context<ConnectionContext>()
  .implement({
    configured: (ctx, section) =>
      pipe(
        editorClient(ctx.peer.transport).config(section),
        TE.mapLeft((error) => ({ code: -32603, message: error._tag })),
      ),
    sleep: (_ctx, ms) => TE.right(ms),
  });

describe("call-backs while every slot is busy (no deadlock)", () => {
  test("requests that each call back before answering are all answered, past maxInFlight", async () => {
    const [a, b] = pair({ holds: true });
    // The editor side serves `config`; the server side, with two slots, calls it back from each request.
    const editorSide = connect(a, {
      methods: server(editor)
        .context<object>()
        .implement({ config: (_ctx, section) => TE.right(`value of ${section}`) }).methods,
      context: {},
    });
    connect(b, { server: calling, context: {}, maxInFlight: 2 });
    const toServer = client(lsp, editorSide.transport);
    const calls = Array.from({ length: 12 }, (_, i) => toServer.configured(`s${i}`)());
    expect(await settles(Promise.all(calls))).toBe(true);
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 12 }, (_, i) => E.right(`value of s${i}`)));
    editorSide.close();
  });

  test("a cancellation is read while every slot awaits a call-back that never comes", async () => {
    const [a, b] = pair({ holds: true });
    // The editor never answers `config`.
    const editorSide = connect(a, { methods: { config: () => new Promise(() => undefined) } });
    connect(b, { server: calling, context: {}, maxInFlight: 2 });
    const controllers = [new AbortController(), new AbortController(), new AbortController()];
    const toServer = client(lsp, editorSide.transport);
    const calls = controllers.map((controller, i) =>
      pipe(toServer.configured(`s${i}`), withOptions({ signal: controller.signal }))(),
    );
    await settle(10);
    for (const controller of controllers) controller.abort();
    expect(await settles(Promise.all(calls))).toBe(true);
    // Each was cancelled by $/cancelRequest, which the busy side read and answered -32800.
    await until(() => parsed(b.sent).filter((m) => (m["error"] as { code?: number })?.code === -32800).length === 3);
    expect(parsed(b.sent).filter((m) => (m["error"] as { code?: number })?.code === -32800)).toHaveLength(3);
    editorSide.close();
  });

  test("a request cancelled while it waits for a slot never runs (lsp: answered -32800; mcp: not answered)", async () => {
    for (const cancellation of ["lsp", "mcp"] as const) {
      const end = lone();
      const ran: number[] = [];
      connect(end, {
        methods: { slow: (n: number) => (ran.push(n), new Promise((r) => setTimeout(() => r(Success(n)), 20))) },
        maxInFlight: 1,
        cancellation,
      });
      end.inject(request("slow", [1], 1));
      end.inject(request("slow", [2], 2));
      end.inject(
        cancellation === "lsp"
          ? JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 2 } })
          : JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } }),
      );
      await until(() => end.sent.length === (cancellation === "lsp" ? 2 : 1));
      await settle(40);
      expect(ran).toEqual([1]);
      expect(parsed(end.sent)).toEqual(
        cancellation === "lsp"
          ? [
              { jsonrpc: "2.0", error: { code: -32800, message: "Request cancelled" }, id: 2 },
              { jsonrpc: "2.0", result: 1, id: 1 },
            ]
          : [{ jsonrpc: "2.0", result: 1, id: 1 }],
      );
    }
  });
});

describe("abort listeners that throw", () => {
  const thrower = {
    hang: (ctx: { signal: AbortSignal }) =>
      new Promise(() => {
        ctx.signal.addEventListener("abort", () => {
          throw new Error("listener bug");
        });
      }),
    ping: () => Success("pong"),
  };
  let errors: unknown[] = [];
  const log = jest.spyOn(console, "error").mockImplementation((...args: unknown[]) => void errors.push(args));
  afterEach(() => {
    errors = [];
  });
  afterAll(() => log.mockRestore());

  test.each(["cancel", "close"] as const)("on %s: logged, and the host and the connection go on", async (how) => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown): void => void uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    try {
      const end = lone();
      const peer = connect(end, { methods: thrower as never, context: {} });
      end.inject(request("hang", [], 1));
      await settle(5);
      if (how === "cancel") {
        expect(() =>
          end.inject(JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } })),
        ).not.toThrow();
        end.inject(request("ping", [], 2));
      } else {
        expect(() => peer.close()).not.toThrow();
      }
      await settle(20);
      expect(uncaught).toEqual([]);
      expect(JSON.stringify(errors)).toContain("listener bug");
      if (how === "cancel") {
        const byId = (x: Record<string, unknown>, y: Record<string, unknown>): number =>
          Number(x["id"]) - Number(y["id"]);
        expect(parsed(end.sent).sort(byId)).toEqual([
          { jsonrpc: "2.0", error: { code: -32800, message: "Request cancelled" }, id: 1 },
          { jsonrpc: "2.0", result: "pong", id: 2 },
        ]);
      }
    } finally {
      process.off("uncaughtException", onUncaught);
    }
  });
});

describe("error answers with id null settle the calls they are about", () => {
  const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
  const methods = server(api).implement({ add: (a, b) => E.right(a + b) }).methods;

  test("the other side's maxBatchSize: every member of the batch gets its -32600", async () => {
    const [a, b] = pair();
    const left = connect(a);
    connect(b, { methods, maxBatchSize: 2 });
    const calc = client(api, left.transport);
    const answers = batch([calc.add(1, 2), calc.add(3, 4), calc.add(5, 6)])();
    expect(await settles(answers)).toBe(true);
    for (const answer of await answers) {
      expect(answer).toEqual(
        E.left({
          _tag: "ServerError",
          code: -32600,
          message: "Invalid Request",
          data: { size: 3, max: 2 },
        }),
      );
    }
    left.close();
  });

  test("the other side's maxBatchSize with another batch pending: its data.size (a count, not text) says which batch", async () => {
    const [a, b] = pair();
    const left = connect(a);
    const releases: Array<() => void> = [];
    const held = {
      ...methods,
      slow: () => new Promise((resolve) => releases.push(() => resolve(Success(1)))),
    } as never;
    connect(b, { methods: held, maxBatchSize: 2 });
    const calc = client(api, left.transport);
    const other = client(loose, left.transport);
    const pending = batch([other.slow(), other.slow()])();
    const refused = batch([calc.add(1, 2), calc.add(3, 4), calc.add(5, 6)])();
    expect(await settles(refused)).toBe(true);
    expect(await refused).toEqual(
      Array.from({ length: 3 }, () =>
        E.left({ _tag: "ServerError", code: -32600, message: "Invalid Request", data: { size: 3, max: 2 } }),
      ),
    );
    await until(() => releases.length === 2);
    for (const release of releases) release();
    expect(await pending).toEqual([E.right(1), E.right(1)]);
    left.close();
  });

  test("the other side's maxMessageLength: the call too long gets -32002, the others their answers", async () => {
    const [a, b] = pair();
    const left = connect(a);
    connect(b, {
      methods: { ...methods, slow: () => new Promise((r) => setTimeout(() => r(Success(1)), 30)) } as never,
      maxMessageLength: 100,
    });
    const calc = client(api, left.transport);
    const other = client(loose, left.transport);
    const slow = other.slow()();
    const small = calc.add(1, 2)();
    const long = other.sum(...Array.from({ length: 40 }, () => 12345))();
    expect(await settles(long)).toBe(true);
    expect(await long).toEqual(
      E.left({ _tag: "ServerError", code: -32002, message: "Message too large", data: expect.anything() }),
    );
    expect(await small).toEqual(E.right(3));
    expect(await slow).toEqual(E.right(1));
    left.close();
  });

  test("the other side's validator refuses the only message pending", async () => {
    const [a, b] = pair();
    const left = connect(a);
    connect(b, {
      methods,
      validator: () => {
        throw new Error("refused");
      },
    });
    const call = client(api, left.transport).add(1, 2)();
    expect(await settles(call)).toBe(true);
    const answer = await call;
    expect(E.isLeft(answer) && answer.left._tag === "ServerError" && answer.left.code).toBe(-32600);
    left.close();
  });
});

describe("ids on a connection", () => {
  const api = contract({ who: { params: t.tuple([t.string]), result: t.string } });
  const methods = server(api).implement({
    who: (name) => () => new Promise((r) => setTimeout(() => r(E.right(`it is ${name}`)), 5)),
  }).methods;

  test("a wrapped transport (headers, logging) keeps ids unique: every answer reaches its own call", async () => {
    const [a, b] = pair();
    const left = connect(a);
    connect(b, { methods });
    const logged: string[] = [];
    const wrapped: Transport = (body, options) => {
      logged.push(body);
      return left.transport(body, options);
    };
    const plain = client(api, left.transport);
    const logging = client(api, wrapped);
    const names = ["ada", "bob", "cy", "di"];
    const answers = await Promise.all(names.flatMap((name) => [plain.who(name)(), logging.who(`${name}!`)()]));
    expect(answers).toEqual(names.flatMap((name) => [E.right(`it is ${name}`), E.right(`it is ${name}!`)]));
    expect(logged).toHaveLength(4);
    left.close();
  });

  test("an id already awaiting an answer is refused, never overwritten", async () => {
    const [a, b] = pair();
    const left = connect(a);
    connect(b, { methods });
    const signal = new AbortController().signal;
    const first = left.transport(request("who", ["ada"], 7), { signal })();
    const clash = await left.transport(request("who", ["user-7"], 7), { signal })();
    expect(E.isLeft(clash) && clash.left.reason).toBe("network");
    expect(
      E.isLeft(clash) && clash.left._tag === "TransportError" && String((clash.left as { cause: unknown }).cause),
    ).toContain("id 7 is already awaiting an answer");
    expect(await first).toEqual(E.right({ json: { jsonrpc: "2.0", result: "it is ada", id: 7 } }));
    left.close();
  });
});

describe("bounds on the outgoing side", () => {
  test("a burst of our own notifications on a full channel: past maxQueued each fails overloaded, the connection stays", async () => {
    const end = lone({ fullAfter: 1 });
    const peer = connect(end, { maxQueued: 100 });
    const other = client(loose, peer.transport);
    const sent = await Promise.all(Array.from({ length: 150 }, (_, n) => notify(other.ping(n))()));
    expect(sent.filter(E.isRight)).toHaveLength(101);
    expect(sent.filter(E.isLeft)[0]).toEqual(E.left({ _tag: "TransportError", reason: "overloaded", limit: 100 }));
    expect(end.isClosed()).toBe(false);
    expect(peer.load().queued).toBe(100);
    peer.close();
  });

  test("past maxOutgoing a call fails overloaded at once, and nothing is sent", async () => {
    const end = lone();
    const peer = connect(end, { maxOutgoing: 2 });
    const other = client(loose, peer.transport);
    const pending = [other.ping(1)(), other.ping(2)()];
    const refused = await other.ping(3)();
    expect(refused).toEqual(E.left({ _tag: "TransportError", reason: "overloaded", limit: 2 }));
    expect(end.sent).toHaveLength(2);
    expect(peer.load().outgoing).toBe(2);
    peer.close();
    await Promise.all(pending);
  });
});

describe("the rest", () => {
  test("an MCP cancel in a batch keeps the connection's serializer for the rest of the batch", async () => {
    const end = lone();
    connect(end, {
      methods: {
        quick: () => Success(1),
        slow: () => new Promise((r) => setTimeout(() => r(Success(2)), 20)),
      },
      cancellation: "mcp",
      serializer: (value) => JSON.stringify(value, null, 1),
    });
    end.inject(`[${request("quick", [], 1)},${request("slow", [], 2)}]`);
    end.inject(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } }));
    await until(() => end.sent.length === 1);
    expect(end.sent).toEqual([`[${JSON.stringify({ jsonrpc: "2.0", result: 1, id: 1 }, null, 1)}]`]);
  });

  test("a context getter that throws leaves no registration behind (mcp: a later request with its id is answered)", async () => {
    const end = lone();
    let reads = 0;
    const context = {
      get user(): string {
        reads += 1;
        if (reads === 1) throw new Error("no user yet");
        return "ada";
      },
    };
    connect(end, { methods: { ping: () => Success("pong") }, context, cancellation: "mcp" });
    end.inject(request("ping", [], 1));
    await until(() => end.sent.length === 1);
    expect((parsed(end.sent)[0]?.["error"] as { code?: number })?.code).toBe(-32603);
    end.inject(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }));
    end.inject(request("ping", [], 1));
    await until(() => end.sent.length === 2);
    expect(parsed(end.sent)[1]).toEqual({ jsonrpc: "2.0", result: "pong", id: 1 });
  });

  test("load() is zero as soon as the connection closes", async () => {
    const end = lone();
    const peer: Connection = connect(end, {
      methods: { hang: () => new Promise(() => undefined) },
      maxInFlight: 1,
    });
    end.inject(request("hang", [], 1));
    end.inject(request("hang", [], 2));
    void client(loose, peer.transport).ping(1)();
    expect(peer.load()).toEqual({ incoming: 2, outgoing: 1, queued: 0 });
    peer.close();
    expect(peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
    await settle(5);
    expect(peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
  });
});

describe("what the hostile review found", () => {
  const both = contract({
    outer: { params: t.tuple([t.number]), result: t.number },
    leaf: { params: t.tuple([t.number]), result: t.number },
  });
  const bothClient = (transport: Transport) => client(both, transport);

  test("call-backs in both directions with every slot busy: each side's waiting calls borrow the slots", async () => {
    const [a, b] = pair({ holds: true });
    const late: Array<ReturnType<typeof bothClient>> = [];
    const side = (me: 0 | 1) =>
      server(both)
        .context<object>()
        .implement({
          outer: (_ctx, n) =>
            pipe(
              (late[1 - me] as ReturnType<typeof bothClient>).leaf(n),
              TE.mapLeft((error) => ({ code: -32603, message: error._tag, data: undefined })),
            ),
          leaf: (_ctx, n) => TE.right(n * 10),
        }).methods;
    const peers = [
      connect(a, { methods: side(0), context: {}, maxInFlight: 4 }),
      connect(b, { methods: side(1), context: {}, maxInFlight: 4 }),
    ];
    late[0] = bothClient(peers[1]!.transport);
    late[1] = bothClient(peers[0]!.transport);
    const calls = [0, 1].flatMap((me) =>
      Array.from({ length: 4 }, (_, n) => (late[me] as ReturnType<typeof bothClient>).outer(n)()),
    );
    expect(await settles(Promise.all(calls))).toBe(true);
    expect(await Promise.all(calls)).toEqual(
      [0, 1].flatMap(() => Array.from({ length: 4 }, (_, n) => E.right(n * 10))),
    );
    peers[0]?.close();
  });

  test("a flood while one of our calls awaits its answer still pauses reading (back-pressure), and is served", async () => {
    const end = lone();
    const peer = connect(end, {
      methods: { quick: () => Promise.resolve(Success(1)) },
      maxInFlight: 1,
      maxWaitingLength: 4000,
    });
    const pending = client(loose, peer.transport).ping(0)();
    // A well-behaved peer: it writes while this side reads, and waits while it is paused.
    for (let id = 1; id <= 300;) {
      if (end.flow.paused > end.flow.resumed) await settle(1);
      else end.inject(request("quick", [], id++));
    }
    expect(end.flow.paused).toBeGreaterThan(0);
    // The call, and an answer to each of the 300.
    await until(() => end.sent.length === 301);
    expect(end.sent).toHaveLength(301);
    expect(end.isClosed()).toBe(false);
    peer.close();
    await pending;
  });

  test("an id-null -32002 about one of our answers does not settle an unrelated call of ours", async () => {
    const [a, b] = pair();
    const big = contract({ big: { result: t.string }, slow: { params: t.tuple([t.string]), result: t.number } });
    const strict = connect(a, {
      methods: server(big).implement({
        big: () => E.right(""),
        slow: (text) => () => new Promise((r) => setTimeout(() => r(E.right(text.length)), 30)),
      }).methods,
      maxMessageLength: 1000,
    });
    const loose_ = connect(b, {
      methods: server(big).implement({ big: () => E.right("x".repeat(1500)), slow: () => E.right(0) }).methods,
    });
    const slow = client(big, loose_.transport).slow("y".repeat(600))();
    // Its answer is too long for this side, which says so (-32002, id null): the call itself times out.
    const refused = await pipe(client(big, strict.transport).big(), withOptions({ timeoutMs: 100 }))();
    expect(refused).toEqual(E.left({ _tag: "TransportError", reason: "timeout", timeoutMs: 100 }));
    // The other side's pending call, of another length, still gets its own answer.
    expect(await slow).toEqual(E.right(600));
    strict.close();
  });

  test.each(["lsp", "mcp"] as const)(
    "%s: a request cancelled while it waits inside a batch never runs",
    async (cancellation) => {
      const end = lone();
      const ran: number[] = [];
      connect(end, {
        methods: { slow: (n: number) => (ran.push(n), new Promise((r) => setTimeout(() => r(Success(n)), 10))) },
        maxInFlight: 1,
        cancellation,
      });
      end.inject(request("slow", [1], 1));
      end.inject(`[${request("slow", [2], 2)},${request("slow", [3], 3)}]`);
      end.inject(
        cancellation === "lsp"
          ? JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 2 } })
          : JSON.stringify({
              jsonrpc: "2.0",
              method: "notifications/cancelled",
              params: { requestId: 2, reason: "no" },
            }),
      );
      await until(() => end.sent.length === 2);
      await settle(20);
      expect(ran).toEqual([1, 3]);
      expect(parsed(end.sent)[1]).toEqual(
        cancellation === "lsp"
          ? [
              { jsonrpc: "2.0", error: { code: -32800, message: "Request cancelled" }, id: 2 },
              { jsonrpc: "2.0", result: 3, id: 3 },
            ]
          : [{ jsonrpc: "2.0", result: 3, id: 3 }],
      );
    },
  );

  test("MCP's cancel reason reaches the method's signal.reason", async () => {
    const end = lone();
    const reasons: unknown[] = [];
    connect(end, {
      methods: {
        hang: (ctx: { signal: AbortSignal }) =>
          new Promise(() => ctx.signal.addEventListener("abort", () => reasons.push(ctx.signal.reason))),
      } as never,
      context: {},
      cancellation: "mcp",
    });
    end.inject(request("hang", [], 1));
    await settle(5);
    end.inject(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 1, reason: "user pressed stop" },
      }),
    );
    expect(reasons).toEqual([new Error("user pressed stop")]);
  });
});

describe("channels, from the hostile review", () => {
  test("a framing's own limit is the max a -32002 reports", async () => {
    const { PassThrough } = await import("node:stream");
    const { newlineDelimited, byteChannel } = await import("../src/connection");
    const input = new PassThrough();
    const output = new PassThrough();
    const written: string[] = [];
    output.on("data", (chunk: Buffer) => written.push(chunk.toString()));
    const peer = connect(byteChannel(input, output, newlineDelimited(100)));
    input.write(`${request("x", ["y".repeat(200)], 1)}\n`);
    await until(() => written.length === 1);
    expect(JSON.parse(written.join(""))).toEqual({
      jsonrpc: "2.0",
      error: { code: -32002, message: "Message too large", data: { length: 251, max: 100 } },
      id: null,
    });
    peer.close();
  });

  test("one message-size bound: maxMessageLength bounds a byte stream's messages in bytes, in its framing", async () => {
    const { PassThrough } = await import("node:stream");
    const { contentLength, newlineDelimited, byteChannel } = await import("../src/connection");
    for (const framing of [newlineDelimited(), contentLength()]) {
      const input = new PassThrough();
      const output = new PassThrough();
      const written: string[] = [];
      output.on("data", (chunk: Buffer) => written.push(chunk.toString()));
      const peer = connect(byteChannel(input, output, framing), { maxMessageLength: 200 });
      // 151 UTF-16 units, 251 bytes: past the bound as the stream carries it.
      const text = request("x", ["é".repeat(100)], 1);
      expect([text.length, Buffer.byteLength(text)]).toEqual([151, 251]);
      input.write(framing.encode(text));
      await until(() => written.length === 1);
      const [answer] = written.map((frame) => frame.slice(frame.indexOf("{")));
      expect(JSON.parse(answer as string)).toEqual({
        jsonrpc: "2.0",
        error: { code: -32002, message: "Message too large", data: { length: 251, max: 200 } },
        id: null,
      });
      peer.close();
    }
  });

  test("closing a connection over a Worker ends the worker", async () => {
    const { Worker } = await import("node:worker_threads");
    const { messagePort } = await import("../src/connection");
    const worker = new Worker("setInterval(() => {}, 1000)", { eval: true });
    const exited = new Promise<number>((resolve) => worker.once("exit", resolve));
    const peer = connect(messagePort(worker as never));
    peer.close();
    expect(await settles(exited)).toBe(true);
  });
});

describe("a stalled pause", () => {
  test("reads on after a second with nothing served, and once what waited is served, a new burst pauses again", async () => {
    const end = lone();
    const releases: Array<() => void> = [];
    connect(end, {
      methods: {
        hold: () => new Promise((resolve) => releases.push(() => resolve(Success("held")))),
        quick: () => Promise.resolve(Success(1)),
      },
      maxInFlight: 1,
      maxWaitingLength: 400,
    });
    const burst = (from: number): void => {
      end.inject(request("hold", [], from));
      for (let id = from + 1; id <= from + 5; id++) end.inject(request("quick", [], id));
    };
    burst(1);
    expect(end.flow).toEqual({ paused: 1, resumed: 0 });
    // Nothing is served while `hold` holds the only slot: the pause reads on.
    await until(() => end.flow.resumed === 1);
    expect(end.flow).toEqual({ paused: 1, resumed: 1 });
    releases.shift()?.();
    await until(() => end.sent.length === 6);
    burst(11);
    expect(end.flow).toEqual({ paused: 2, resumed: 1 });
    releases.shift()?.();
    await until(() => end.sent.length === 12);
    expect(end.sent).toHaveLength(12);
  });
});
