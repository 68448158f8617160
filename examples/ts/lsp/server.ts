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
 * connection.
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
import { connect, contentLength, streams, type ConnectionContext } from "rpcserver/connection";

/** What this server serves. */
const lsp = contract({
  initialize: { params: t.type({ processId: t.union([t.number, t.null]) }), result: t.UnknownRecord },
  initialized: {},
  shutdown: {},
  exit: {},
  "example/slow": { params: t.type({ ms: t.number }), result: t.string },
  "example/configured": { params: t.type({ section: t.string }), result: t.unknown },
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
  });

const connection = connect(streams(process.stdin, process.stdout, contentLength()), {
  server: app,
  context: { state: { shuttingDown: false } },
  cancellation: "lsp",
});
void connection.closed.then(() => process.exit(0));
