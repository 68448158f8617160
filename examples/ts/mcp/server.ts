/**
 * The Model Context Protocol server of examples/mcp/app.mjs and server.mjs, in TypeScript: declared
 * with rpcserver/mcp, served over stdio on an rpcserver connection:
 *
 *     npm run build && npx tsc -p examples/ts
 *     node .tmp/examples-ts/mcp/server.js     # speaks MCP (newline-delimited JSON-RPC) on stdin/stdout
 *
 * Each tool's `run` is typed by its own input codec (a tool reading an argument its codec does not
 * declare does not compile), and a streaming tool yields MCP's `Progress` (anything else does not
 * compile). The connection takes MCP's `notifications/cancelled`: a cancelled call's `signal` aborts
 * (its reason is the one the client gave) and it is not answered. Logs go to stderr (stdout is the
 * protocol). tests/examples-ts.test.ts drives it with the official SDK's `Client` and
 * `StdioClientTransport`.
 */
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { byteChannel, connect, newlineDelimited } from "rpcserver/connection";
import { mcpServer, tool, type Progress } from "rpcserver/mcp";

/** Waits `ms` milliseconds; rejects with the signal's reason once it aborts. */
const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((settle, fail) => {
    const stop = (): void => (clearTimeout(timer), fail(signal.reason));
    const timer = setTimeout(() => (signal.removeEventListener("abort", stop), settle()), ms);
    signal.addEventListener("abort", stop, { once: true });
  });

const reasonOf = (reason: unknown): string => (reason instanceof Error ? reason.message : String(reason));

const app = mcpServer({
  name: "rpcserver-mcp-example",
  version: "1.0.0",
  tools: {
    add: tool({
      description: "Adds two numbers",
      input: t.type({ a: t.number, b: t.number }),
      run: ({ a, b }) => E.right(String(a + b)),
    }),
    sleep: tool({
      description: "Waits `ms` milliseconds, unless cancelled",
      input: t.type({ ms: t.number }),
      run: ({ ms }, { signal }) =>
        pause(ms, signal).then(
          () => E.right(`slept ${ms} ms`),
          (reason: unknown) => {
            console.error(`sleep(${ms}) cancelled (${reasonOf(reason)})`);
            return E.left("cancelled");
          },
        ),
    }),
    count: tool({
      description: "Counts from 1 to `to`, a few milliseconds apart, reporting each step as progress",
      input: t.type({ to: t.number }),
      run: async function* ({ to }, { signal }): AsyncGenerator<Progress, E.Either<string, string>> {
        let step = 0;
        try {
          while (step < to) {
            await pause(3, signal);
            step += 1;
            yield { progress: step, total: to };
          }
          return E.right(`counted to ${to}`);
        } finally {
          // Cancelled (its signal), or stopped at a `yield` when the client has gone.
          if (step < to) console.error(`count(${to}) stopped after ${step}`);
        }
      },
    }),
  },
});

const { methods, stages } = app;
const connection = connect(byteChannel(process.stdin, process.stdout, newlineDelimited()), {
  methods,
  stages,
  context: {},
  cancellation: "mcp",
});
void connection.closed.then(() => process.exit(0));
