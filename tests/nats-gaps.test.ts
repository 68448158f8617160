/**
 * A streamed call over NATS is all its values, in order, or a Left that says it is not (issue 32,
 * item 2): core NATS delivers at most once, and a nats-server restart mid-stream lost values that
 * the call then answered `Right` without. The wire numbers the value messages and the answer
 * counts them (docs/scale-out.md); `natsTransport` fails the call with `TransportError` `gap` at a
 * missing, duplicated or out-of-order message, or an answer that counts more or fewer. On a real
 * nats-server: restarted under a stream, and a peer that answers with crafted messages.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { contract, implement } from "../src";
import { client, open, type ClientError } from "../src/client";
import { natsRelay, natsTransport, serveNats, type NatsHeaders, type NatsMessage } from "../src/nats";
import { connect, headersOf, nextStatus, type TestConnection } from "./fixtures/nats.cjs";
import { startNatsServer, type NatsServer } from "./fixtures/nats-server.cjs";
import { bounded, until } from "./helpers/processes";

/** What should settle soon fails the test after this, rather than hang it. */
const SAFETY_MS = 15_000;

const api = contract({ count: { params: t.tuple([t.number]), stream: t.number, result: t.string } });

/** Every value of a streamed call, and its result. */
const drained = async (
  run: ReturnType<typeof open<number, string, ClientError>>,
  values: number[] = [],
): Promise<{ values: number[]; result: E.Either<ClientError, string> }> => {
  for await (const value of run) values.push(value);
  return { values, result: await run.result };
};

const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

/** A gate a method waits at: `reached` once it is there, `open()` lets it go on. */
const gate = () => {
  let open = (): void => undefined;
  let arrive = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  return {
    wait: () => {
      arrive();
      return opened;
    },
    reached,
    open: () => open(),
  };
};

describe("a nats-server restarted under a stream of 300 values", () => {
  let first: NatsServer | undefined;
  let second: NatsServer | undefined;
  const connections: TestConnection[] = [];

  afterAll(async () => {
    await Promise.all(connections.filter((nc) => !nc.isClosed()).map((nc) => nc.close()));
    await first?.stop();
    await second?.stop();
  });

  test("the call ends Left `gap` or with all 300 values in order: never a short Right", async () => {
    first = await startNatsServer();
    const { url, port } = first;
    // The worker's connection comes back within a few ms of the restart, and sends at once what
    // its method streamed meanwhile; the caller's comes back up to 2 s later, its inbox
    // subscription with it. What went in between reached nobody.
    const serving = await connect(url, { reconnectTimeWait: 20, maxReconnectAttempts: -1 });
    const calling = await connect(url, { reconnectTimeWait: 2_000, maxReconnectAttempts: -1 });
    connections.push(serving, calling);
    const [down, up] = [gate(), gate()];
    const methods = implement(api, {
      count: async function* (to) {
        for (let i = 1; i <= to; i += 1) {
          if (i === 101) await down.wait();
          if (i === 111) await up.wait();
          yield i;
        }
        return E.right(`counted to ${to}`);
      },
    });
    const service = await serveNats(serving, methods, { name: "restart", version: "1.0.0", subject: "rpc.restart" });
    const rpc = client(api, natsTransport(calling, "rpc.restart", { timeoutMs: 30_000 }));

    const values: number[] = [];
    const call = drained(open(rpc.count(300)), values);
    await down.reached;
    await until(() => values.length === 100, "the first 100 values to reach the consumer");

    // Both are listened for before the server stops: neither can come before the listener.
    const servingBack = nextStatus(serving, "reconnect");
    const callingBack = nextStatus(calling, "reconnect");
    await first.stop();
    // Values 101 to 110 go out while no server runs: the worker's connection holds them. (Fewer
    // than the 64 between two of the worker's flushes: a flush fails while the connection is down,
    // and fails the method, whose error answer would be lost in the outage as well.)
    down.open();
    await bounded(up.reached, "the method to stream up to 110", SAFETY_MS);
    second = await startNatsServer(undefined, { args: ["-p", String(port)] });
    await bounded(servingBack, "the worker's connection to come back", SAFETY_MS);
    await bounded(callingBack, "the caller's connection to come back", SAFETY_MS);
    await calling.flush();
    up.open();

    const { result } = await bounded(call, "the call to end", SAFETY_MS);
    if (E.isRight(result)) {
      expect(values).toEqual(upTo(300));
      expect(result.right).toBe("counted to 300");
    } else {
      expect(result.left).toEqual({
        _tag: "TransportError",
        reason: "gap",
        expected: values.length + 1,
        came: expect.any(Number),
      });
      expect(values).toEqual(upTo(values.length));
      expect(values.length).toBeLessThan(300);
    }
    await service.stop();
  }, 60_000);
});

/**
 * One message a crafted peer sends to the caller's reply subject: a value numbered `n` (the
 * `Rpc-Value` header; `null`: none), carrying `value` ($/progress on the call's id, or on another
 * token with `other`), or the answer with `count` (the `Rpc-Value-Count` header; `null`: none).
 */
type Step =
  { readonly n: string | null; readonly value: number; readonly other?: true } | { readonly count: string | null };

describe("a peer that answers a streamed call with crafted messages", () => {
  let server: NatsServer;
  let peer: TestConnection;
  let calling: TestConnection;
  let script: readonly Step[] = [];

  beforeAll(async () => {
    server = await startNatsServer();
    [peer, calling] = await Promise.all([connect(server.url), connect(server.url)]);
    peer.subscribe("rpc.crafted", {
      callback: (_error, request: NatsMessage) => {
        const { id } = JSON.parse(request.string()) as { id: number };
        const reply = request.reply ?? "";
        const send = (body: string, headers: Record<string, string>): void => {
          const options: { headers?: NatsHeaders } =
            Object.keys(headers).length > 0 ? { headers: headersOf(headers) } : {};
          peer.publish(reply, body, options);
        };
        for (const step of script) {
          if ("count" in step) {
            send(
              JSON.stringify({ jsonrpc: "2.0", result: "done", id }),
              step.count === null ? {} : { "Rpc-Value-Count": step.count },
            );
          } else {
            const token = step.other === true ? id + 1_000 : id;
            const body = JSON.stringify({ jsonrpc: "2.0", method: "$/progress", params: { token, value: step.value } });
            send(body, step.n === null ? {} : { "Rpc-Value": step.n });
          }
        }
      },
    });
    await peer.flush();
  });

  afterAll(async () => {
    await Promise.all([peer.close(), calling.close()]);
    await server.stop();
  });

  const call = async (steps: readonly Step[]) => {
    script = steps;
    const rpc = client(api, natsTransport(calling, "rpc.crafted", { timeoutMs: SAFETY_MS }));
    return bounded(drained(open(rpc.count(3))), "the crafted call", SAFETY_MS);
  };
  const value = (n: number): Step => ({ n: String(n), value: n });
  const gap = (expected: number, came: number) => E.left({ _tag: "TransportError", reason: "gap", expected, came });

  test("values numbered 1, 2, 3 and an answer that counts 3: all three, Right", async () => {
    expect(await call([value(1), value(2), value(3), { count: "3" }])).toEqual({
      values: [1, 2, 3],
      result: E.right("done"),
    });
  });

  test("a numbered message that is no value of the call (another token) counts, and is not handed on", async () => {
    const other: Step = { n: "2", value: 99, other: true };
    expect(await call([value(1), other, value(3), { count: "3" }])).toEqual({
      values: [1, 3],
      result: E.right("done"),
    });
  });

  test("an answer with no count and no value before it (a server that streams nothing): Right", async () => {
    expect(await call([{ count: null }])).toEqual({ values: [], result: E.right("done") });
  });

  test.each([
    ["a value lost (1, 3)", [value(1), value(3), { count: "3" }], [1], gap(2, 3)],
    ["a value duplicated (1, 2, 2)", [value(1), value(2), value(2), { count: "3" }], [1, 2], gap(3, 2)],
    ["values out of order (2, 1)", [value(2), value(1), { count: "2" }], [], gap(1, 2)],
    ["the old wire's `Rpc-Value: 1` on every value", [value(1), { n: "1", value: 2 }, { count: "2" }], [1], gap(2, 1)],
    ["the answer before the values it counts (2 of 3)", [value(1), value(2), { count: "3" }], [1, 2], gap(3, 4)],
    ["an answer that counts fewer than came", [value(1), value(2), value(3), { count: "2" }], [1, 2, 3], gap(4, 3)],
    ["an answer with no count after values", [value(1), { count: null }], [1], gap(2, 0)],
    ["an answer whose count is no number", [value(1), { count: "one" }], [1], gap(2, 0)],
    ["a value numbered 0", [{ n: "0", value: 1 }, { count: "1" }], [], gap(1, 0)],
    ["a value numbered 01", [{ n: "01", value: 1 }, { count: "1" }], [], gap(1, 0)],
    ["a value numbered with no digits", [{ n: "first", value: 1 }, { count: "1" }], [], gap(1, 0)],
  ] as const)("%s: Left gap, the values before it handed on", async (_what, steps, values, result) => {
    expect(await call(steps)).toEqual({ values, result });
  });

  /** The same crafted messages to `natsRelay` (raw: each message's text handed on as it came), `count(3)` its body. */
  const relayed = async (steps: readonly Step[], maxAnswerBytes?: number) => {
    script = steps;
    const relay = natsRelay(calling, "rpc.crafted", {
      timeoutMs: SAFETY_MS,
      ...(maxAnswerBytes === undefined ? {} : { maxAnswerBytes }),
    });
    const texts: string[] = [];
    const body = new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", method: "count", params: [3], id: 7 }));
    try {
      const answer = relay(body, {
        headers: {},
        signal: new AbortController().signal,
        onMessage: (text) => void texts.push(text),
      });
      const settled = await bounded(
        answer.then(
          (text) => ({ answer: text }),
          (error: Error) => ({ refused: error.message }),
        ),
        "the relayed call",
        SAFETY_MS,
      );
      return { values: texts.map((text) => (JSON.parse(text) as { params: { value: number } }).params.value), settled };
    } finally {
      relay.close();
    }
  };

  test("natsRelay: values numbered 1, 2, 3 and an answer that counts 3: each message's text, then the answer's", async () => {
    expect(await relayed([value(1), value(2), value(3), { count: "3" }])).toEqual({
      values: [1, 2, 3],
      settled: { answer: JSON.stringify({ jsonrpc: "2.0", result: "done", id: 7 }) },
    });
  });

  test.each([
    ["a value lost (1, 3)", [value(1), value(3), { count: "3" }], [1], "2 expected, 3 came"],
    ["a value duplicated (1, 2, 2)", [value(1), value(2), value(2), { count: "3" }], [1, 2], "3 expected, 2 came"],
    ["an answer that counts more than came", [value(1), value(2), { count: "3" }], [1, 2], "3 expected, 4 came"],
    ["an answer with no count after values", [value(1), { count: null }], [1], "2 expected, 0 came"],
  ] as const)(
    "natsRelay, %s: the messages before the gap handed on, then a rejection that names it",
    async (_what, steps, values, which) => {
      expect(await relayed(steps)).toEqual({
        values,
        settled: { refused: `natsRelay: no answer on rpc.crafted: gap (message ${which})` },
      });
    },
  );

  test("natsRelay: a message past maxAnswerBytes is not handed on, and the rejection says which limit", async () => {
    // Each crafted value message is some 80 bytes: past a limit of 50.
    expect(await relayed([value(1), value(2), value(3), { count: "3" }], 50)).toEqual({
      values: [],
      settled: { refused: "natsRelay: no answer on rpc.crafted: tooLarge (past maxAnswerBytes, 50)" },
    });
  });

  test("a value with no number is the answer, so the call fails as one that got no answer of its own", async () => {
    const { values, result } = await call([{ n: null, value: 1 }, value(2), { count: "2" }]);
    expect(values).toEqual([]);
    expect(result).toMatchObject(E.left({ _tag: "InvalidAnswer" }));
  });
});
