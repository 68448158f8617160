/**
 * Type tests of nested contracts (issue 34, item 3). jest (transpile only) does not check types:
 * `tsc -p tsconfig.json --noEmit` does, and fails if an assignment below does not compile or a
 * `// @ts-expect-error` line has no error. Each `@ts-expect-error` is a rule, with why it must
 * fail. The checks live in `typeOnly` bodies (compiled, never run); the runtime suite is
 * tests/contract-nested.test.ts.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { contract, implement, lazy, merge, server, type Contract } from "../src";
import { batch, client, local, type CallError, type RpcCall } from "../src/client";
import type { BranchNames, BranchOf } from "../src/types";
import { adminApi, api, auditApi, usersApi } from "./fixtures/nested/api";

/** `true` exactly when A and B are the same type. */
type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;
/** Compiles `body` (so its `@ts-expect-error` lines are checked) without running it. */
const typeOnly = (body: () => void): void => void body;

const usersTable = implement(usersApi, {
  get: (id) => E.right({ id, name: `user ${id}` }),
  since: (day) => E.right(day),
  missing: (id) => E.left({ code: 404, message: "No such user", data: id }),
});
const adminTable = implement(adminApi, { ban: (who) => E.right(who), audit: { last: () => E.right([]) } });
const methods = implement(api, { users: usersTable, admin: adminTable, ping: () => E.right("pong" as const) });

describe("the names of a nested contract", () => {
  test("are the full dotted names; a branch's are read back from them", () => {
    typeOnly(() => {
      same<
        keyof typeof api.methods,
        "users.get" | "users.since" | "users.missing" | "admin.ban" | "admin.audit.last" | "ping"
      >(true);
      same<BranchNames<keyof typeof api.methods>, "users" | "admin">(true);
      same<keyof BranchOf<typeof api.methods, "admin">, "ban" | "audit.last">(true);
      // The entry under a full name is the branch's own.
      same<(typeof api.methods)["admin.audit.last"], (typeof auditApi.methods)["last"]>(true);
      // A contract without branches is typed as before.
      const flat: Contract<{ readonly ping: { readonly result: t.LiteralC<"pong"> } }> = contract({
        ping: { result: t.literal("pong") },
      });
      void flat;
      // @ts-expect-error a branch named `rpc` would make rpc.* names, which JSON-RPC reserves
      contract({ rpc: usersApi });
      // @ts-expect-error a segment `then`: the client's branch `a` would hold a `then`, and be taken for a Promise
      contract({ "a.then": { result: t.string } });
      // @ts-expect-error an empty segment no client can carry
      contract({ "a..b": { result: t.string } });
      // @ts-expect-error a dotted branch name is two levels in one key: nest the contracts
      contract({ "a.b": usersApi });
      // A dotted method name is a name like any other.
      contract({ "a.b": { result: t.string } });
    });
    expect(Object.keys(api.methods)).toContain("admin.audit.last");
  });
});

describe("implement: a nested contract's handlers", () => {
  test("as a tree, flat, or a branch's table; a wrong name, branch, missing or mistyped handler does not compile", () => {
    typeOnly(() => {
      const ping = () => E.right("pong" as const);
      implement(api, {
        users: usersTable,
        admin: { ban: (who) => E.right(who), audit: { last: (n) => E.right([String(n)]) } },
        ping,
      });
      implement(api, {
        users: usersTable,
        admin: { ban: (who) => E.right(who), "audit.last": (n) => E.right([`${n}`]) },
        ping,
      });
      implement(api, { users: usersTable, admin: lazy(() => import("./fixtures/nested/admin")), ping });
      implement(api, { users: usersTable, admin: lazy(async () => adminTable), ping });
      // import() of a CommonJS module compiled from `export default`, as "module": "nodenext" types it.
      implement(api, { users: usersTable, admin: lazy(async () => ({ default: { default: adminTable } })), ping });
      // A table whose method is named `default` is the table, not a module.
      const odd = contract({ default: { result: t.string }, other: { result: t.string } });
      const oddTable = implement(odd, { default: () => E.right("d"), other: () => E.right("o") });
      implement(contract({ odd }), { odd: lazy(async () => oddTable) });
      // The case: an implemented table's handlers given to implement again.
      implement(usersApi, { get: usersTable.get, since: usersTable.since, missing: usersTable.missing });
      // @ts-expect-error a wrong name: `users` has no `nope`
      implement(api, { users: { ...usersTable, nope: () => E.right(1) }, admin: adminTable, ping });
      // @ts-expect-error a wrong branch: `admin`'s handlers are not `users`'
      implement(api, { users: usersTable, admin: usersTable, ping });
      // @ts-expect-error a wrong branch loaded lazily: the module's table is `admin`'s, not `users`'
      implement(api, { users: lazy(() => import("./fixtures/nested/admin")), admin: adminTable, ping });
      // @ts-expect-error a missing handler: `admin.audit.last`
      implement(api, { users: usersTable, admin: { ban: (who) => E.right(who), audit: {} }, ping });
      implement(api, {
        users: usersTable,
        // @ts-expect-error a handler of the wrong type two levels down: `audit.last` answers strings
        admin: { ban: (who) => E.right(who), audit: { last: (n) => E.right(n) } },
        ping,
      });
      implement(api, {
        users: usersTable,
        // @ts-expect-error a handler's parameter typed by its nested entry: `ban` takes a string
        admin: { ban: (who: number) => E.right(`${who}`), audit: { last: adminTable["audit.last"] } },
        ping,
      });
      // @ts-expect-error a branch the contract does not have
      implement(api, { users: usersTable, admin: adminTable, ping, extra: { x: ping } });
      // Under a context, the handlers of a branch receive it first.
      server(api)
        .context<{ user: string }>()
        .implement({
          users: {
            get: (ctx, id) => E.right({ id, name: ctx.user }),
            since: (_ctx, day) => E.right(day),
            missing: (_ctx, id) => E.left({ code: 404, message: "No such user", data: id }),
          },
          admin: { ban: (ctx) => E.right(ctx.user), audit: { last: () => E.right([]) } },
          ping: () => E.right("pong" as const),
        });
    });
    expect(Object.keys(methods)).toHaveLength(6);
  });
});

describe("the client of a nested contract", () => {
  test("nests as the contract does; a wrong name, branch or argument does not compile", () => {
    const remote = client(api, local(methods));
    typeOnly(() => {
      const get: RpcCall<{ id: number; name: string }, CallError<never>> = remote.users.get(1);
      same<typeof remote.users.get, (typeof remote)["users.get"]>(true);
      const last: RpcCall<string[], CallError<never>> = remote.admin.audit.last(2);
      void [get, last, remote.admin["audit.last"](1), batch([remote.users.get(1), remote.ping()])];
      // @ts-expect-error a wrong name
      remote.users.nope(1);
      // @ts-expect-error a wrong branch
      remote.audit.last(1);
      // @ts-expect-error a wrong argument: `users.get` takes a number
      remote.users.get("1");
    });
    expect(typeof remote.admin.audit.last).toBe("function");
  });
});

describe("merge", () => {
  test("a name defined twice does not compile", () => {
    typeOnly(() => {
      const both = merge(usersApi, auditApi);
      void both;
      same<keyof typeof both.methods, "get" | "since" | "missing" | "last">(true);
      const table = merge(usersTable, implement(auditApi, { last: () => E.right([]) }));
      void table.last;
      // @ts-expect-error `get` is in both contracts
      merge(usersApi, contract({ get: { result: t.string } }));
      // @ts-expect-error `get` is in both tables
      merge(usersTable, usersTable);
      // A Map's names are known at run time only: merged, under any name.
      const withMap = merge(usersTable, new Map([["extra", usersTable.get]]));
      void withMap["extra"];
    });
    expect(Object.keys(merge(usersApi, auditApi).methods)).toHaveLength(4);
  });
});
