/**
 * A load test of the whole connection against vscode-jsonrpc's MessageConnection on the other side
 * of a real TCP socket on the loopback interface (Content-Length framing, `$/cancelRequest`), as
 * issue 21 asks: bursts of 10,000 requests each way, methods that call back before they answer,
 * and cancellations both ways, with nothing lost: every request answered once, every call
 * settled, the connection open throughout. No timing is asserted; each test is bounded by jest.
 */
import type * as net from "node:net";
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as t from "io-ts";
import {
  CancellationTokenSource,
  createMessageConnection,
  type CancellationToken,
  ResponseError,
  SocketMessageReader,
  SocketMessageWriter,
  type MessageConnection,
} from "vscode-jsonrpc/node";
import { contract, server } from "../src";
import { client, withOptions } from "../src/client";
import { connect, contentLength, byteChannel, type Connection, type ConnectOptions } from "../src/connection";
import { bounded, destroySocket, socketPair } from "./helpers/real-channels";

jest.setTimeout(180_000);

const N = 10_000;

/** What rpcserver serves. */
const served = contract({
  work: { params: t.tuple([t.number]), result: t.number },
  ask: { params: t.tuple([t.number]), result: t.number },
  hold: { params: t.tuple([t.number]), result: t.number },
});

/** What vscode-jsonrpc serves. */
const editor = contract({
  "vs/echo": { params: t.tuple([t.number]), result: t.number },
  "vs/hold": { params: t.tuple([t.number]), result: t.number },
});

interface Setup {
  readonly peer: Connection;
  readonly vs: MessageConnection;
  /** `hold` calls rpcserver has started, and those whose signal aborted. */
  readonly held: { started: number; aborted: number };
  /** `vs/echo` calls vscode has served, and `vs/hold` calls it saw cancelled. */
  readonly editorSeen: { echoed: number; cancelled: number };
  /** The connection's close reason, once it has closed. */
  readonly closedWith: () => unknown;
  readonly dispose: () => Promise<void>;
}

const setup = async (options: ConnectOptions = {}): Promise<Setup> => {
  const [near, far] = await socketPair();
  const held = { started: 0, aborted: 0 };
  const editorSeen = { echoed: 0, cancelled: 0 };
  const peerOf: { peer?: Connection } = {};
  const app = server(served)
    .context<object>()
    .implement({
      // Answers on a later turn of the event loop, so that requests stay in flight.
      work: (_ctx, n) => () => new Promise((resolve) => setImmediate(() => resolve(E.right(n)))),
      ask: (_ctx, n) => () => {
        const vs = client(editor, (peerOf.peer as Connection).transport);
        return vs["vs/echo"](n)().then((answer) =>
          E.isRight(answer)
            ? E.right(answer.right)
            : E.left({ code: -32000, message: `vs/echo failed: ${JSON.stringify(answer.left)}`, data: undefined }),
        );
      },
      // Never answers on its own: only its cancellation ends it.
      hold: (ctx) => () =>
        new Promise(() => {
          held.started += 1;
          (ctx as { signal: AbortSignal }).signal.addEventListener("abort", () => (held.aborted += 1), { once: true });
        }),
    });
  const peer = connect(byteChannel(far, far, contentLength()), { ...options, methods: app.methods, context: {} });
  peerOf.peer = peer;
  let closed: unknown = undefined;
  void peer.closed.then((reason) => (closed = reason ?? "closed"));
  const vs = createMessageConnection(new SocketMessageReader(near), new SocketMessageWriter(near));
  // vscode-jsonrpc spreads a request's params array into the handler's arguments.
  vs.onRequest("vs/echo", (n: number) => {
    editorSeen.echoed += 1;
    return n;
  });
  vs.onRequest(
    "vs/hold",
    (_n: number, token: CancellationToken) =>
      new Promise<number>((_resolve, reject) =>
        token.onCancellationRequested(() => {
          editorSeen.cancelled += 1;
          reject(new ResponseError(-32800, "cancelled"));
        }),
      ),
  );
  vs.listen();
  return {
    peer,
    vs,
    held,
    editorSeen,
    closedWith: () => closed,
    dispose: async () => {
      peer.close();
      vs.dispose();
      await Promise.all([destroySocket(near as net.Socket), destroySocket(far as net.Socket)]);
    },
  };
};

const range = (count: number): number[] => Array.from({ length: count }, (_, i) => i);

/**
 * `promise`, bounded, failing at once (with the reason) if the connection closes first: a closed
 * connection leaves vscode-jsonrpc's requests pending.
 */
const saying = <T>(run: Setup, promise: Promise<T>, what: string): Promise<T> =>
  bounded(
    Promise.race([
      promise,
      run.peer.closed.then((reason) => {
        throw new Error(`the connection closed before ${what}: ${String(reason)}`);
      }),
    ]),
    what,
    150_000,
  );

/** How a vscode request ended: its result, or its error's code. */
const outcome = (promise: Promise<unknown>): Promise<{ result: unknown } | { code: unknown }> =>
  promise.then(
    (result) => ({ result }),
    (error: unknown) => ({ code: (error as { code?: unknown }).code ?? String(error) }),
  );

test("10,000 requests from vscode-jsonrpc at once: every one answered with its own result", async () => {
  const run = await setup();
  try {
    const answers = await saying(
      run,
      Promise.all(range(N).map((n) => outcome(run.vs.sendRequest("work", n)))),
      `${N} answers`,
    );
    const wrong = answers.filter((answer, n) => !("result" in answer) || answer.result !== n);
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(run.closedWith()).toBeUndefined();
    expect(run.peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
  } finally {
    await run.dispose();
  }
});

test("10,000 calls from rpcserver to vscode-jsonrpc at once (maxOutgoing 10,000): every one settles Right", async () => {
  const run = await setup({ maxOutgoing: N } as ConnectOptions);
  try {
    const vs = client(editor, run.peer.transport);
    const results = await saying(run, Promise.all(range(N).map((n) => vs["vs/echo"](n)())), `${N} calls to settle`);
    const wrong = results.filter((result, n) => !(E.isRight(result) && result.right === n));
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(run.editorSeen.echoed).toBe(N);
    expect(run.closedWith()).toBeUndefined();
    expect(run.peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
  } finally {
    await run.dispose();
  }
});

test("10,000 calls at once past the default maxOutgoing (1024): the rest fail overloaded at once, nothing sent for them", async () => {
  const run = await setup();
  try {
    const vs = client(editor, run.peer.transport);
    const results = await saying(run, Promise.all(range(N).map((n) => vs["vs/echo"](n)())), `${N} calls to settle`);
    const rights = results.filter((result, n) => E.isRight(result) && result.right === n).length;
    const overloaded = results.filter(
      (result) =>
        E.isLeft(result) &&
        (result.left as { reason?: unknown; limit?: unknown }).reason === "overloaded" &&
        (result.left as { limit?: unknown }).limit === 1024,
    ).length;
    expect({ rights, overloaded }).toEqual({ rights: 1024, overloaded: N - 1024 });
    expect(run.editorSeen.echoed).toBe(1024);
    expect(run.closedWith()).toBeUndefined();
    expect(run.peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
  } finally {
    await run.dispose();
  }
});

test("10,000 requests from vscode-jsonrpc whose methods call back into vscode before answering", async () => {
  const run = await setup();
  try {
    const answers = await saying(
      run,
      Promise.all(range(N).map((n) => outcome(run.vs.sendRequest("ask", n)))),
      `${N} answers after call backs`,
    );
    const wrong = answers.filter((answer, n) => !("result" in answer) || answer.result !== n);
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(run.editorSeen.echoed).toBe(N);
    expect(run.closedWith()).toBeUndefined();
    expect(run.peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
  } finally {
    await run.dispose();
  }
});

test("vscode cancels 1,000 held requests (64 running, the rest waiting) among 1,000 others: each held one answered -32800, the others their result", async () => {
  const run = await setup();
  try {
    const sources = range(1000).map(() => new CancellationTokenSource());
    const holds = sources.map((source, n) => outcome(run.vs.sendRequest("hold", n, source.token)));
    const works = range(1000).map((n) => outcome(run.vs.sendRequest("work", n)));
    // Every slot is taken by a held request before the cancellations are sent.
    await saying(
      run,
      (async () => {
        for (let i = 0; i < 20_000 && run.held.started < 64 && run.closedWith() === undefined; i++)
          await new Promise((resolve) => setTimeout(resolve, 5));
        if (run.held.started < 64) throw new Error(`only ${run.held.started} held requests started`);
      })(),
      "64 held requests to start",
    );
    for (const source of sources) source.cancel();
    const [held, worked] = await saying(run, Promise.all([Promise.all(holds), Promise.all(works)]), "every answer");
    expect(held.filter((answer) => !("code" in answer) || answer.code !== -32800).slice(0, 5)).toEqual([]);
    expect(worked.filter((answer, n) => !("result" in answer) || answer.result !== n).slice(0, 5)).toEqual([]);
    // The held requests that ran saw their signal abort; those still waiting never ran.
    expect(run.held.aborted).toBe(run.held.started);
    expect(run.closedWith()).toBeUndefined();
    expect(run.peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
    for (const source of sources) source.dispose();
  } finally {
    await run.dispose();
  }
});

test("rpcserver aborts 500 calls to vscode-jsonrpc: each settles aborted at once, vscode sees each $/cancelRequest", async () => {
  const run = await setup();
  try {
    const vs = client(editor, run.peer.transport);
    // 500 held and 500 echoes: 1,000 pending at most, within the default maxOutgoing.
    const controllers = range(500).map(() => new AbortController());
    const calls = controllers.map((controller, n) =>
      pipe(vs["vs/hold"](n), withOptions({ signal: controller.signal }))(),
    );
    const echoes = range(500).map((n) => vs["vs/echo"](n)());
    // Once every held call has reached vscode (the echoes sent after them have come back), abort them.
    const echoed = await saying(run, Promise.all(echoes), "500 echoes");
    expect(echoed.filter((result, n) => !(E.isRight(result) && result.right === n)).slice(0, 5)).toEqual([]);
    for (const controller of controllers) controller.abort(new Error("not needed"));
    const results = await saying(run, Promise.all(calls), "500 aborted calls to settle");
    expect(
      results.filter((result) => !(E.isLeft(result) && (result.left as { reason?: unknown }).reason === "aborted"))
        .length,
    ).toBe(0);
    await saying(
      run,
      (async () => {
        for (let i = 0; i < 20_000 && run.editorSeen.cancelled < 500; i++)
          await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
      "vscode to see 500 cancellations",
    );
    expect(run.editorSeen.cancelled).toBe(500);
    expect(run.closedWith()).toBeUndefined();
    expect(run.peer.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
  } finally {
    await run.dispose();
  }
});
