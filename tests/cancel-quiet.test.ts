/**
 * A cancelled request is no error of its method's: a method that hands its signal on
 * (`await sleep(ms, undefined, { signal: ctx.signal })`, as docs/streams.md advises) throws the
 * abort once its request is cancelled, and nothing may be logged for it, on a real TCP connection
 * under both conventions and in dispatch with a caller's own signal. An exception thrown before
 * any cancel is still the method's, and logged.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import { asyncDispatch, Success } from "../src";
import { client, withOptions } from "../src/client";
import { connect, type ConnectionContext } from "../src/connection";
import * as t from "io-ts";
import { mcpHandler, mcpServer, mcpSessions, tool } from "../src/mcp";
import { postRequest } from "./helpers/mcp-http";
import { tcpPair } from "./helpers/real-channels";
import { recordLogs } from "./support";

/** A few macrotasks: for what follows an event (the pipeline's log of an exception) to happen. */
const turns = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Waits until `done` holds: a macrotask at a time, at most ten seconds. */
const until = async (done: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
};

let started = 0;
let ended = 0;
const methods = {
  wait: async (ctx: ConnectionContext) => {
    started += 1;
    try {
      await sleep(60_000, undefined, { signal: ctx.signal });
      return Success("done");
    } finally {
      ended += 1;
    }
  },
  boom: () => {
    throw new RangeError("a fault of the method's own");
  },
};

test.each(["lsp", "mcp"] as const)(
  "%s over TCP: a cancelled method that throws its abort logs nothing; a method's own exception is logged",
  async (cancellation) => {
    const logs = recordLogs();
    const tcp = await tcpPair(cancellation === "lsp" ? "contentLength" : "newline");
    const served = connect(tcp.channels[0], { methods, context: {}, cancellation });
    const calling = connect(tcp.channels[1], { cancellation });
    try {
      const remote = client<typeof methods, "context">(calling.transport);
      const controller = new AbortController();
      const [before, endedBefore] = [started, ended];
      const answer = pipe(remote.wait(), withOptions({ signal: controller.signal }))();
      await until(() => started > before, "the method to start");
      controller.abort();
      expect(await answer).toMatchObject(E.left({ _tag: "TransportError", reason: "aborted" }));
      // The cancel reached the method: its sleep threw, and the pipeline had its turn to log.
      await until(() => ended > endedBefore, "the cancelled method to end");
      await turns();
      expect(logs.entries).toEqual([]);
      expect(await remote.boom()()).toMatchObject(E.left({ _tag: "ServerError", code: -32603 }));
      expect(logs.entries.map((entry) => String(entry.args[0]))).toEqual([
        'rpcserver: method "boom" raised an exception',
      ]);
    } finally {
      logs.restore();
      calling.close();
      served.close();
      await tcp.dispose();
    }
  },
);

test("an error of the method's own after its request was cancelled is still logged: a cancel hides no error", async () => {
  const logs = recordLogs();
  try {
    const controller = new AbortController();
    let go!: () => void;
    const gate = new Promise<void>((resolve) => (go = resolve));
    const checks = {
      check: async () => {
        await gate;
        throw new globalThis.Error("signature check failed");
      },
    };
    const answer = asyncDispatch('{"jsonrpc":"2.0","method":"check","id":1}', checks, {
      context: { signal: controller.signal },
    });
    controller.abort();
    go();
    expect(JSON.parse(await answer)).toMatchObject({ error: { code: -32603 }, id: 1 });
    await turns();
    expect(logs.entries.map((entry) => [String(entry.args[0]), String(entry.args[1])])).toEqual([
      ['rpcserver: method "check" raised an exception', "Error: signature check failed"],
    ]);
  } finally {
    logs.restore();
  }
});

test("each form of a handed-on abort goes unlogged: the reason itself, an error it caused, an AbortError of no cause", async () => {
  const logs = recordLogs();
  try {
    const forms = [
      (signal: AbortSignal) => signal.reason as unknown,
      (signal: AbortSignal) => new globalThis.Error("timers", { cause: signal.reason }),
      () => new DOMException("The operation was aborted", "AbortError"),
    ];
    for (const [id, form] of forms.entries()) {
      const controller = new AbortController();
      const aborting = {
        go: async (ctx: { signal: AbortSignal }) => {
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
          throw form(ctx.signal);
        },
      };
      const answer = asyncDispatch(`{"jsonrpc":"2.0","method":"go","id":${id}}`, aborting, {
        context: { signal: controller.signal },
      });
      controller.abort();
      expect(await answer).toBe(`{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":${id}}`);
    }
    await turns();
    expect(logs.entries).toEqual([]);
  } finally {
    logs.restore();
  }
});

test("dispatch with the caller's own signal: aborted, the method's abort is answered -32800, and not logged", async () => {
  const logs = recordLogs();
  try {
    const controller = new AbortController();
    const before = started;
    const answer = asyncDispatch('{"jsonrpc":"2.0","method":"wait","id":1}', methods, {
      context: { signal: controller.signal },
    });
    await until(() => started > before, "the method to start");
    controller.abort();
    expect(await answer).toBe('{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}');
    expect(logs.entries).toEqual([]);
  } finally {
    logs.restore();
  }
});

test("an MCP tool cancelled by notifications/cancelled: its abort is not logged, an error of its own is", async () => {
  const logs = recordLogs();
  try {
    const waiting = (after: (signal: AbortSignal) => unknown) =>
      tool({
        description: "Waits for its cancel, then throws",
        input: t.type({}),
        run: async (_args, { signal }) => {
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          throw after(signal);
        },
      });
    const server = mcpServer({
      name: "cancelled",
      version: "1.0.0",
      tools: {
        abort: waiting((signal) => signal.reason),
        fault: waiting(() => new TypeError("a genuine db failure")),
      },
    });
    const handler = mcpHandler(server, { sessions: mcpSessions({ id: randomUUID }) });
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } },
    };
    const session = (await handler(postRequest(undefined, initialize))).headers.get("Mcp-Session-Id") ?? "";
    for (const [id, name] of [
      [2, "abort"],
      [3, "fault"],
    ] as const) {
      const call = handler(
        postRequest(session, { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } }),
      );
      await turns();
      await handler(
        postRequest(session, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } }),
      );
      await (await call).text();
      await turns();
    }
    expect(logs.entries.map((entry) => [String(entry.args[0]), String(entry.args[1])])).toEqual([
      ["rpcserver/mcp: a tool threw", "TypeError: a genuine db failure"],
    ]);
  } finally {
    logs.restore();
  }
});
