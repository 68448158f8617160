/**
 * A small Model Context Protocol server over stdio, built on an rpcserver connection
 * (examples/mcp/server.mjs, in TypeScript):
 *
 *     npm run build && npx tsc -p examples/ts
 *     node .tmp/examples-ts/mcp/server.js     # speaks MCP (newline-delimited JSON-RPC) on stdin/stdout
 *
 * It answers `initialize`, `ping`, `tools/list` (each tool's `inputSchema` is the JSON Schema of its
 * io-ts codec, from `toJsonSchema`) and `tools/call`, and takes MCP's `notifications/cancelled`: a
 * cancelled call's `ctx.signal` aborts (its reason is the one the client gave) and it is not
 * answered. Each tool's `run` is typed by its own codec. The tool `count` streams its progress: its
 * `run` is an `async function*` yielding MCP's `{ progress, total }`, `tools/call` hands what it
 * yields on (`yield*`), and the connection sends each value as `notifications/progress` on the
 * call's `_meta.progressToken` (a call without one gets only its result). The contract's `stream`
 * types what `tools/call` may yield: a tool yielding anything else does not compile. Logs go to
 * stderr (stdout is the protocol). tests/examples-ts.test.ts drives it with the official SDK's
 * `Client` and `StdioClientTransport`.
 */
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { contract, server, toJsonSchema, type JsonSchema } from "rpcserver";
import { connect, newlineDelimited, byteChannel, type ConnectionContext } from "rpcserver/connection";

/** What a tool reports while it runs: MCP's progress, sent as `notifications/progress` when the call asks for it. */
const Progress = t.intersection([t.type({ progress: t.number }), t.partial({ total: t.number, message: t.string })]);
type Progress = t.TypeOf<typeof Progress>;

/** A tool, as `tools/list` shows it and `tools/call` runs it. */
interface Tool {
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /**
   * Decodes the arguments with the tool's codec, then runs it, yielding its progress as it goes:
   * Left when they do not fit.
   */
  readonly call: (
    args: unknown,
    signal: AbortSignal,
  ) => AsyncGenerator<Progress, E.Either<"invalid arguments", string>>;
}

/**
 * A tool from an io-ts codec for its arguments and what running it answers (text), typed by the
 * codec: a Promise of the text, or an `async function*` that yields progress and returns the text.
 */
const tool = <A>(
  description: string,
  input: t.Decoder<unknown, A>,
  run: (args: A, signal: AbortSignal) => Promise<string> | AsyncGenerator<Progress, string>,
): Tool => ({
  description,
  inputSchema: toJsonSchema(input),
  call: async function* (args, signal) {
    const decoded = input.decode(args);
    if (E.isLeft(decoded)) return E.left("invalid arguments");
    const ran = run(decoded.right, signal);
    return E.right(ran instanceof Promise ? await ran : yield* ran);
  },
});

/** Waits `ms` milliseconds; fails at once if `signal` aborts. */
const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((settle, fail) => {
    if (signal.aborted) return fail(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      fail(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      settle();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });

const tools: Readonly<Record<string, Tool>> = {
  add: tool("Adds two numbers", t.type({ a: t.number, b: t.number }), ({ a, b }) => Promise.resolve(String(a + b))),
  sleep: tool(
    "Waits `ms` milliseconds, unless cancelled",
    t.type({ ms: t.number }),
    ({ ms }, signal) =>
      new Promise((settle, fail) => {
        const timer = setTimeout(() => settle(`slept ${ms} ms`), ms);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          const reason: unknown = signal.reason;
          console.error(`sleep(${ms}) cancelled (${reason instanceof Error ? reason.message : String(reason)})`);
          fail(new Error("cancelled"));
        });
      }),
  ),
  count: tool(
    "Counts from 1 to `to`, a few milliseconds apart, reporting each step as progress",
    t.type({ to: t.number }),
    async function* ({ to }, signal) {
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
  ),
};

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
    // What a tool reports while it runs: what `tools/call` may yield.
    stream: Progress,
  },
});

const SUPPORTED = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;
const text = (value: string, isError = false): Record<string, unknown> => ({
  content: [{ type: "text", text: value }],
  ...(isError ? { isError } : {}),
});

const app = server(mcp)
  .context<ConnectionContext>()
  .implement({
    initialize: (_ctx, { protocolVersion }) =>
      E.right({
        protocolVersion: SUPPORTED.find((version) => version === protocolVersion) ?? SUPPORTED[0],
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "rpcserver-mcp-example", version: "1.0.0" },
      }),
    "notifications/initialized": () => E.right(null),
    ping: () => E.right({}),
    "tools/list": () =>
      E.right({
        tools: Object.entries(tools).map(([name, { description, inputSchema }]) => ({
          name,
          description,
          inputSchema,
        })),
      }),
    // An `async function*`: what a streaming tool yields is handed on (`yield*`), then the result.
    "tools/call": async function* ({ signal }, { name, arguments: args = {} }) {
      const called = Object.hasOwn(tools, name) ? tools[name] : undefined;
      if (called === undefined) return E.left({ code: -32602, message: `Unknown tool: ${name}`, data: { name } });
      try {
        const answer = yield* called.call(args, signal);
        return E.right(E.isLeft(answer) ? text(`Invalid arguments for ${name}`, true) : text(answer.right));
      } catch (error) {
        return E.right(text(error instanceof Error ? error.message : String(error), true));
      }
    },
  });

const connection = connect(byteChannel(process.stdin, process.stdout, newlineDelimited()), {
  server: app,
  context: {},
  cancellation: "mcp",
});
void connection.closed.then(() => process.exit(0));
