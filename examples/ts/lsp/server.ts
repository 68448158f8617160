/**
 * An LSP-style server over stdio (`Content-Length` framing), built on an rpcserver connection
 * (examples/lsp/server.mjs, in TypeScript):
 *
 *     npm run build && npx tsc -p examples/ts && node .tmp/examples-ts/lsp/server.js
 *
 * It serves `initialize`, `initialized`, `shutdown` and `exit` as a language server does, and two
 * methods that show what a connection adds to dispatch: `example/slow`, which the client can cancel
 * with `$/cancelRequest` (answered -32800 "Request cancelled" at once, its signal aborted), and
 * `example/configured`, which calls back to the client (`workspace/configuration`) before it
 * answers, and tells it so with a `window/logMessage` notification: calls in both directions on one
 * connection. A third streams: `example/count` (`{ to }`) is an `async function*` yielding `[1]`,
 * `[2]`, ... `[to]`, each sent as `$/progress` on the request's `partialResultToken` (the final
 * result is then `[]`, as LSP requires), or as a work-done report on its `workDoneToken` (between
 * `begin` and `end`); without a token it answers `[1, ..., to]` alone. The contract's `stream` types
 * what it yields: a partial result of another type does not compile.
 *
 * The app declares its context as `ConnectionContext<Session>`: each handler receives `ctx.peer`
 * (this connection, to call the editor back) and `ctx.signal` (aborted when the request is
 * cancelled or the connection closes), typed, beside the session `connect` is given. `connect`
 * checks that session against the app: leaving `context` out does not compile.
 * tests/examples-ts.test.ts drives it with vscode-jsonrpc's `MessageConnection`.
 */
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { contract, server } from "rpcserver";
import { client, notify } from "rpcserver/client";
import { connect, contentLength, byteChannel, type ConnectionContext } from "rpcserver/connection";

/** LSP's `ProgressToken`. */
const ProgressToken = t.union([t.number, t.string]);

/** Waits `ms` milliseconds: `true`, or `false` at once if `signal` aborts (the request was cancelled). */
const pause = (ms: number, signal: AbortSignal): Promise<boolean> =>
  new Promise((settle) => {
    if (signal.aborted) return settle(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      settle(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      settle(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });

/** What this server serves. */
const lsp = contract({
  initialize: { params: t.type({ processId: t.union([t.number, t.null]) }), result: t.UnknownRecord },
  initialized: {},
  shutdown: {},
  exit: {},
  "example/slow": { params: t.type({ ms: t.number }), result: t.string },
  "example/configured": { params: t.type({ section: t.string }), result: t.unknown },
  "example/count": {
    params: t.intersection([
      t.type({ to: t.number }),
      t.partial({ partialResultToken: ProgressToken, workDoneToken: ProgressToken }),
    ]),
    result: t.array(t.number),
    // Each partial result: items of the result's type.
    stream: t.array(t.number),
  },
});

/** What it calls on the client. */
const editor = contract({
  "workspace/configuration": {
    params: t.type({ items: t.array(t.type({ section: t.string })) }),
    result: t.array(t.unknown),
  },
  "window/logMessage": { params: t.type({ type: t.number, message: t.string }) },
});

/**
 * What this side keeps for the connection: handlers see it, with `peer` and `signal` beside it.
 * Each request gets its own copy of the context (its own `signal`), so state that changes lives in
 * an object the context points to.
 */
interface Session {
  readonly state: { shuttingDown: boolean };
}

const app = server(lsp)
  .context<ConnectionContext<Session>>()
  .implement({
    initialize: () =>
      E.right({
        capabilities: { hoverProvider: false },
        serverInfo: { name: "rpcserver-lsp-example", version: "1.0.0" },
      }),
    initialized: () => E.right(null),
    shutdown: ({ state }) => {
      state.shuttingDown = true;
      return E.right(null);
    },
    exit: ({ state }) => {
      const status = state.shuttingDown ? 0 : 1;
      setImmediate(() => process.exit(status));
      return E.right(null);
    },
    "example/slow":
      ({ signal }, { ms }) =>
      () =>
        new Promise<E.Either<never, string>>((settle) => {
          const timer = setTimeout(() => settle(E.right(`slept ${ms} ms`)), ms);
          signal.addEventListener("abort", () => {
            clearTimeout(timer);
            process.stderr.write(`example/slow(${ms}) cancelled\n`);
          });
        }),
    // The call-back goes through this request's connection, `ctx.peer`, and carries the request's
    // signal: when the editor cancels this request (or the connection closes), the call to the
    // editor is cancelled too, and holds nothing.
    "example/configured": ({ peer, signal }, { section }) => {
      const toEditor = client(editor, peer.transport, { signal });
      return pipe(
        toEditor["workspace/configuration"]({ items: [{ section }] }),
        TE.mapLeft((error) => ({ code: -32603, message: `the editor did not answer: ${error._tag}` })),
        TE.chainFirst(() =>
          pipe(
            notify(toEditor["window/logMessage"]({ type: 3, message: `read ${section}` })),
            TE.mapLeft(() => ({ code: -32603, message: "could not log" })),
          ),
        ),
        TE.map(([value]) => value ?? null),
      );
    },
    // Partial results, a millisecond apart: the connection sends each on the request's token. A
    // cancelled request stops here at its signal, or at its next `yield` (its `finally` runs).
    "example/count": async function* ({ signal }, { to }) {
      let step = 0;
      try {
        while (step < to) {
          if (!(await pause(1, signal))) return E.left({ code: -32800, message: "Request cancelled" });
          step += 1;
          yield [step];
        }
        return E.right(Array.from({ length: to }, (_, index) => index + 1));
      } finally {
        if (step < to) process.stderr.write(`example/count(${to}) stopped after ${step}\n`);
      }
    },
  });

const connection = connect(byteChannel(process.stdin, process.stdout, contentLength()), {
  server: app,
  context: { state: { shuttingDown: false } },
  cancellation: "lsp",
});
void connection.closed.then(() => process.exit(0));
