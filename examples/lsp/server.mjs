/**
 * An LSP-style server over stdio (`Content-Length` framing), built on an rpcserver connection:
 *
 *     node examples/lsp/server.mjs
 *
 * It serves `initialize`, `initialized`, `shutdown` and `exit` as a language server does, and two
 * methods that show what a connection adds to dispatch: `example/slow`, which the client can cancel
 * with `$/cancelRequest` (answered -32800 "Request cancelled" at once, its signal aborted), and
 * `example/configured`, which calls back to the client (`workspace/configuration`) before it
 * answers, and tells it so with a `window/logMessage` notification: calls in both directions on one
 * connection. A third streams: `example/count` (`{ to }`) yields `[1]`, `[2]`, ... `[to]`, each sent
 * as `$/progress` on the request's `partialResultToken` (the final result is then `[]`, as LSP
 * requires), or as a work-done report on its `workDoneToken` (between `begin` and `end`); without
 * a token it answers `[1, ..., to]` alone. tests/connection-interop.test.ts and
 * tests/streams-connection.test.ts drive it with vscode-jsonrpc's `MessageConnection`.
 */
import * as E from "fp-ts/lib/Either.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { pipe } from "fp-ts/lib/function.js";
import * as t from "io-ts";
import { contract, server } from "rpcserver";
import { client, notify, withOptions } from "rpcserver/client";
import { connect, contentLength, byteChannel } from "rpcserver/connection";

/** LSP's `ProgressToken`. */
const ProgressToken = t.union([t.number, t.string]);

/** Waits `ms` milliseconds: `true`, or `false` at once if `signal` aborts (the request was cancelled). */
const pause = (ms, signal) =>
  new Promise((settle) => {
    if (signal.aborted) return settle(false);
    const onAbort = () => {
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

let toEditor;
let shuttingDown = false;

const app = server(lsp)
  .context()
  .implement({
    initialize: () =>
      E.right({
        capabilities: { hoverProvider: false },
        serverInfo: { name: "rpcserver-lsp-example", version: "1.0.0" },
      }),
    initialized: () => E.right(null),
    shutdown: () => {
      shuttingDown = true;
      return E.right(null);
    },
    exit: () => {
      setImmediate(() => process.exit(shuttingDown ? 0 : 1));
      return E.right(null);
    },
    "example/slow":
      ({ signal }, { ms }) =>
      () =>
        new Promise((settle) => {
          const timer = setTimeout(() => settle(E.right(`slept ${ms} ms`)), ms);
          signal.addEventListener("abort", () => {
            clearTimeout(timer);
            process.stderr.write(`example/slow(${ms}) cancelled\n`);
          });
        }),
    // The call-back carries the request's signal: when the editor cancels this request (or the
    // connection closes), the call to the editor is cancelled too, and holds nothing.
    "example/configured": ({ signal }, { section }) =>
      pipe(
        toEditor["workspace/configuration"]({ items: [{ section }] }),
        withOptions({ signal }),
        TE.mapLeft((error) => ({ code: -32603, message: `the editor did not answer: ${error._tag}`, data: undefined })),
        TE.chainFirst(() =>
          pipe(
            notify(toEditor["window/logMessage"]({ type: 3, message: `read ${section}` })),
            TE.mapLeft(() => ({ code: -32603, message: "could not log", data: undefined })),
          ),
        ),
        TE.map(([value]) => value ?? null),
      ),
    // Partial results, a millisecond apart: the connection sends each on the request's token. A
    // cancelled request stops here at its signal, or at its next `yield` (its `finally` runs).
    "example/count": async function* ({ signal }, { to }) {
      let step = 0;
      try {
        while (step < to) {
          if (!(await pause(1, signal))) return E.left({ code: -32800, message: "Request cancelled", data: undefined });
          step += 1;
          yield [step];
        }
        return E.right(Array.from({ length: to }, (_, index) => index + 1));
      } finally {
        if (step < to) process.stderr.write(`example/count(${to}) stopped after ${step}\n`);
      }
    },
  });

const peer = connect(byteChannel(process.stdin, process.stdout, contentLength()), {
  methods: app.methods,
  context: {},
  cancellation: "lsp",
});
toEditor = client(editor, peer.transport);
peer.closed.then(() => process.exit(0));
