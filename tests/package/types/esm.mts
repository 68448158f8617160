// Compiled against the PACKED package's ESM types (dist/esm/*.d.ts) under strict NodeNext resolution, with
// Node's types.
import type { Server } from "node:http";
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import * as T from "fp-ts/lib/Task.js";
import {
  asyncDispatch,
  contract,
  dispatch,
  dispatchToResponse,
  Error as RpcError,
  fromResult,
  implement,
  lazy,
  merge,
  method,
  NODATA,
  serve as serveDev,
  server as contractServer,
  Success,
  withContext,
  withParams,
  type Call,
  type DevServer,
  type Response,
  type Result,
} from "rpcserver";
import {
  batch,
  client,
  http,
  local,
  matchClientError,
  notify,
  withOptions,
  type ClientError,
  type RpcCall,
} from "rpcserver/client";
import { ERROR_METHOD_NOT_FOUND } from "rpcserver/codes";
import { NODATA as NODATA2 } from "rpcserver/sentinels";
import { toDict } from "rpcserver/response";
import { serve } from "rpcserver/server";
import type { ContextOf, HandlerArgs, Refused } from "rpcserver/types";
import { pipe } from "fp-ts/lib/function.js";
import {
  Async,
  environment,
  observe,
  pipeline,
  Sync,
  timeout,
  toJson,
  type Answer,
  type Env,
  type Later,
  type Stage,
} from "rpcserver/pipeline";

const add = method({ name: "add", params: t.tuple([t.number, t.number]) })((a, b) => Success(a + b));
const sum: number = add.length;
const typed = withParams(t.type({ name: t.string }), ({ name }) => Success(name.toUpperCase()));
const ping = method(function ping(): Result {
  return Success("pong");
});
// @ts-expect-error a method must return a Result
method(function notAResult(): number {
  return 1;
});
const text: string = dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', { ping, typed });
const later: Promise<string> = asyncDispatch("[]");
const response = dispatchToResponse("{}") as Response;
const code: number = E.isLeft(response) ? response.left.code : ERROR_METHOD_NOT_FOUND;
const same: typeof NODATA = NODATA2;
const error: Result = RpcError(1, "x", NODATA);
const dict = toDict(response);
// rpcserver/server's serve resolves to node:http's Server with its url and port; the main entry's to
// DevServer, which that server is.
const server = await serve("localhost", 0);
const node: Server = server;
const dev: DevServer = server;
const where: string = `${server.url} ${server.port}`;
// @ts-expect-error the main entry's serve promises a DevServer, not node:http's Server
const notNode: Server = await serveDev("localhost", 0);

// rpcserver/pipeline: the composition, typed stages given to dispatch.
const env: Env = environment({ ping }, undefined, false);
const piped: string = pipe('{"jsonrpc":"2.0","method":"ping","id":1}', pipeline(Sync)(env), toJson(env));
const answered: Later<Answer> = pipeline(Async)(environment({ ping }, undefined, true))("[]");
const adminsOnly: Stage<{ role: string }> = (call) =>
  call.context.role === "admin" ? E.right(call) : E.left({ code: 403, message: "Forbidden", data: NODATA });
const staged: string = dispatch(
  '{"jsonrpc":"2.0","method":"ping","id":1}',
  { ping },
  {
    context: { role: "admin" },
    stages: [adminsOnly, observe((o) => void o.durationMs)],
  },
);
const timed: Promise<string> = asyncDispatch("[]", { ping }, { stages: [timeout(5)] });
// @ts-expect-error a Stage returns an Either
const notAStage: Stage = () => 42;
// The contract names of the main entry and rpcserver/client: one contract typing both ends.
const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  greet: { params: t.type({ name: t.string }), result: t.string },
});
const implemented = implement(api, {
  add: (a, b) => E.right(a + b),
  greet: ({ name }) => (name === "" ? RpcError(404, "No such person") : E.right(`hi ${name}`)),
});
implement(api, {
  // @ts-expect-error the contract types the handlers: add answers a number
  add: (a, b) => E.right(`${a + b}`),
  greet: fromResult(({ name }: { name: string }) => Success(name)),
});
const calc = client(api, http("http://localhost:5000", { headers: async () => ({ authorization: "Bearer t" }) }));
const sum2: RpcCall<number> = calc.add(1, 2);
const greeting: Promise<E.Either<ClientError, string>> = calc.greet({ name: "ann" })();
// @ts-expect-error positional params are arguments
calc.add([1, 2]);
const both: T.Task<[E.Either<ClientError, number>, E.Either<ClientError, void>]> = batch([
  calc.add(1, 2),
  notify(calc.greet({ name: "x" })),
]);
const local1 = client(api, local(implemented)).add(1, 2);
const app = contractServer(api)
  .context<{ token: string }>()
  .use((call: Call<{ token: string }>) => E.right({ request: call.request, context: { user: call.context.token } }))
  .implement({ add: (ctx, a, b) => E.right(a + b + ctx.user.length), greet: (ctx) => E.right(ctx.user) });
const viaServer: Promise<string> = app.dispatch("[]", { token: "t" });
const { withCodecs: withCodecsIn } = withContext<{ user: string }>();
const whoami = withCodecsIn({ params: t.type({}) }, (ctx) => Success(ctx.user));
const asUser: string = dispatch("[]", { whoami }, { context: { user: "ann" } });
const describe = matchClientError({
  ServerError: (e) => e.message,
  TransportError: (e) => e.reason,
  InvalidAnswer: (e) => e.reason,
  InvalidCall: (e) => e.method,
});
const timedOut = pipe(calc.add(1, 2), withOptions({ timeoutMs: 100 }));

// rpcserver/types: the type-level helpers, types only.
type TokenContext = ContextOf<{ context: { token: string } }>;
const token: TokenContext = { token: "t" };
const handlerArgs: HandlerArgs<{ params: t.TupleC<[t.NumberC]> }, TokenContext> = [token, 1];
const refused: Refused<number> = { "a stage refuses the context": 1 };

export { token, handlerArgs, refused };
export {
  sum,
  text,
  later,
  code,
  same,
  error,
  dict,
  server,
  node,
  dev,
  where,
  notNode,
  piped,
  answered,
  staged,
  timed,
  notAStage,
};
export { sum2, greeting, both, local1, viaServer, asUser, describe, timedOut };

// Nested contracts (issue 34): the tree of handlers and of client functions, typed by the full names.
const usersApi = contract({ get: { params: t.tuple([t.number]), result: t.string } });
const nestedApi = contract({
  users: usersApi,
  admin: contract({ ban: { params: t.tuple([t.string]), result: t.boolean } }),
});
const usersTable = implement(usersApi, { get: (id) => E.right(`user ${id}`) });
const nestedMethods = implement(nestedApi, {
  users: usersTable,
  admin: lazy(async () => ({
    default: implement(merge(contract({ ban: { params: t.tuple([t.string]), result: t.boolean } })), {
      ban: () => E.right(true),
    }),
  })),
});
const nestedRemote = client(nestedApi, local(nestedMethods));
const nestedCall: Promise<E.Either<unknown, string>> = nestedRemote.users.get(1)();
// @ts-expect-error a handler of the wrong type in a branch: `users.get` answers a string
implement(nestedApi, { users: { get: (id) => E.right(id) }, admin: { ban: () => E.right(true) } });
// @ts-expect-error a wrong branch
void nestedRemote.admins;
export { nestedCall };
