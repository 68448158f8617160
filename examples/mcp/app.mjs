/**
 * A small Model Context Protocol server's methods, shared by its two transports: stdio
 * (server.mjs, on an rpcserver connection) and Streamable HTTP (http.mjs, with `answerHttp`).
 *
 * It answers `initialize`, `ping`, `tools/list` (each tool's `inputSchema` is the JSON Schema of its
 * io-ts codec, from `toJsonSchema`) and `tools/call`. The tool `count` streams its progress:
 * `tools/call` is an `async function*`, and each value it yields goes out as MCP's
 * `notifications/progress` on the call's `_meta.progressToken` (a call without one gets only its
 * result), on a connection and in an HTTP event stream alike. The tools read the `signal` their
 * context carries (give the methods a plain-object `context`, `{}`): it aborts when the call is
 * cancelled or its client goes away. Logs go to stderr (stdout is stdio's protocol).
 */
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { contract, server, toJsonSchema } from "rpcserver";

/** Waits `ms` milliseconds; fails at once if `signal` aborts. */
const pause = (ms, signal) =>
  new Promise((settle, fail) => {
    if (signal.aborted) return fail(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      fail(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      settle();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });

/**
 * The tools: an io-ts codec for the arguments, and what running one answers (text). A tool that
 * reports progress is an `async function*`: it yields MCP's `{ progress, total?, message? }`.
 */
const tools = {
  add: {
    description: "Adds two numbers",
    input: t.type({ a: t.number, b: t.number }),
    run: async ({ a, b }) => String(a + b),
  },
  sleep: {
    description: "Waits `ms` milliseconds, unless cancelled",
    input: t.type({ ms: t.number }),
    run: ({ ms }, signal) =>
      new Promise((settle, fail) => {
        const timer = setTimeout(() => settle(`slept ${ms} ms`), ms);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          console.error(`sleep(${ms}) cancelled`);
          fail(new Error("cancelled"));
        });
      }),
  },
  count: {
    description: "Counts from 1 to `to`, a few milliseconds apart, reporting each step as progress",
    input: t.type({ to: t.number }),
    run: async function* ({ to }, signal) {
      let step = 0;
      try {
        while (step < to) {
          await pause(3, signal);
          step += 1;
          yield { progress: step, total: to };
        }
        return `counted to ${to}`;
      } finally {
        // Cancelled (its signal), or stopped at a `yield` when the client has gone.
        if (step < to) console.error(`count(${to}) stopped after ${step}`);
      }
    },
  },
};

/** Is `ran` what an `async function*` returns? */
const isStream = (ran) => typeof ran?.next === "function" && typeof ran[Symbol.asyncIterator] === "function";

const mcp = contract({
  initialize: {
    params: t.type({ protocolVersion: t.string }),
    result: t.UnknownRecord,
    summary: "Starts the session: the protocol version and what this server can do",
  },
  "notifications/initialized": { summary: "The client is ready (a notification)" },
  ping: { result: t.UnknownRecord },
  "tools/list": { result: t.UnknownRecord },
  "tools/call": {
    params: t.intersection([t.type({ name: t.string }), t.partial({ arguments: t.UnknownRecord })]),
    result: t.UnknownRecord,
    // What a tool reports while it runs: sent as `notifications/progress` when the call asks for it.
    stream: t.intersection([t.type({ progress: t.number }), t.partial({ total: t.number, message: t.string })]),
  },
});

const SUPPORTED = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const text = (value, isError = false) => ({
  content: [{ type: "text", text: value }],
  ...(isError ? { isError } : {}),
});

export const app = server(mcp)
  .context()
  .implement({
    initialize: (_ctx, { protocolVersion }) =>
      E.right({
        protocolVersion: SUPPORTED.includes(protocolVersion) ? protocolVersion : SUPPORTED[0],
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "rpcserver-mcp-example", version: "1.0.0" },
      }),
    "notifications/initialized": () => E.right(null),
    ping: () => E.right({}),
    "tools/list": () =>
      E.right({
        tools: Object.entries(tools).map(([name, tool]) => ({
          name,
          description: tool.description,
          inputSchema: toJsonSchema(tool.input),
        })),
      }),
    // An `async function*`: what a streaming tool yields is handed on (`yield*`), then the result.
    "tools/call": async function* ({ signal }, { name, arguments: args = {} }) {
      const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
      if (tool === undefined) return E.left({ code: -32602, message: `Unknown tool: ${name}`, data: { name } });
      const decoded = tool.input.decode(args);
      if (E.isLeft(decoded)) return E.right(text(`Invalid arguments for ${name}`, true));
      try {
        const ran = tool.run(decoded.right, signal);
        return E.right(text(isStream(ran) ? yield* ran : await ran));
      } catch (error) {
        return E.right(text(error.message, true));
      }
    },
  });
