/**
 * `connect` checks what it is given (issue 22): a `server(...)` app or a methods table that takes
 * a context must be given one that fits, or the call does not compile; handlers see the
 * connection (`ctx.peer`) and the request's `signal`, typed. The `@ts-expect-error` lines are
 * compiled by `tsc` (npm run typecheck): each fails to compile without its comment.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { asyncDispatch, contract, server } from "../src";
import { connect, type ConnectionContext } from "../src/connection";
import { lone, settle } from "./helpers/channels";

const api = contract({ whoami: { result: t.string } });
const app = server(api)
  .context<ConnectionContext<{ user: string }>>()
  .implement({
    whoami: (ctx) => E.right(`${ctx.user}, ${typeof ctx.peer.transport}, ${String(ctx.signal.aborted)}`),
  });

test("a server app that takes a context: the context is required and checked; ctx.peer and ctx.signal are there", async () => {
  // @ts-expect-error MissingContext<{ user: string }>: the app takes a context
  connect(lone(), { server: app }).close();
  // @ts-expect-error the context does not fit the app's
  connect(lone(), { server: app, context: { usr: "ada" } }).close();
  // @ts-expect-error MethodsWithoutContext: the methods take a context, and none is given
  connect(lone(), { methods: app.methods }).close();
  // @ts-expect-error MethodsWithoutContext: dispatch says the same
  void asyncDispatch('{"jsonrpc":"2.0","method":"whoami","id":1}', app.methods);
  const end = lone();
  const peer = connect(end, { server: app, context: { user: "ada" } });
  end.inject('{"jsonrpc":"2.0","method":"whoami","id":1}');
  await settle(5);
  expect(end.sent.map((text) => JSON.parse(text) as unknown)).toEqual([
    { jsonrpc: "2.0", result: "ada, function, false", id: 1 },
  ]);
  peer.close();
});

test("server and methods together are refused at run time", () => {
  expect(() => connect(lone(), { server: app, methods: {}, context: { user: "ada" } } as never)).toThrow(
    new TypeError("connect: give `server` or `methods`, not both"),
  );
});
