/**
 * A small Model Context Protocol server, declared with rpcserver/mcp and shared by its two wires:
 * stdio (server.mjs, on an rpcserver connection) and Streamable HTTP (http.mjs, `mcpHandler`).
 *
 * Three tools, their arguments decoded by io-ts codecs before they run (bad ones an `isError`
 * result naming each failing path): `add`; `sleep`, which stops when the call is cancelled or its
 * client goes away (its `signal`); and `count`, an `async function*` whose values are progress: each
 * goes out as `notifications/progress` on the call's `_meta.progressToken` (a call without one gets
 * its result alone). Logs go to stderr (stdout is stdio's protocol).
 */
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { mcpServer, tool } from "rpcserver/mcp";

/** Waits `ms` milliseconds; rejects with the signal's reason once it aborts. */
const pause = (ms, signal) =>
  new Promise((settle, fail) => {
    const stop = () => (clearTimeout(timer), fail(signal.reason));
    const timer = setTimeout(() => (signal.removeEventListener("abort", stop), settle()), ms);
    signal.addEventListener("abort", stop, { once: true });
  });

export const app = mcpServer({
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
          () => (console.error(`sleep(${ms}) cancelled`), E.left("cancelled")),
        ),
    }),
    count: tool({
      description: "Counts from 1 to `to`, a few milliseconds apart, reporting each step as progress",
      input: t.type({ to: t.number }),
      run: async function* ({ to }, { signal }) {
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
