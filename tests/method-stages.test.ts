/**
 * Middleware where it belongs (issue 34, item 4), for one method: a method given as a server of its
 * own (`server(api.methods.ban).context<C>().use(stage).implement(handler)`) brings stages for it
 * alone, run after the enclosing server's and branches' (the order written: global, branch,
 * method), sync stages and `Around` ones alike, through `dispatch` and through `fetchHandler`. What
 * they add to the context is typed in its handler and nowhere else: the `@ts-expect-error` lines
 * are compiled by `tsc`.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { contract, implement, observe, server, type Call } from "../src";
import { fetchHandler } from "../src/fetch";

interface User {
  readonly name: string;
  readonly admin: boolean;
}
const USERS: Readonly<Record<string, User>> = { t1: { name: "ann", admin: true }, t2: { name: "bob", admin: false } };

const adminApi = contract({
  ban: { params: t.tuple([t.string]), result: t.string },
  list: { result: t.array(t.string) },
});
const api = contract({ admin: adminApi, ping: { result: t.string }, whoami: { result: t.string } });

const body = (method: string, params?: unknown): string =>
  JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }), id: 1 });

/** Builds the service, each stage writing its name to `seen` as it runs. */
const service = (seen: string[]) => {
  const mark =
    <C>(name: string) =>
    (call: Call<C>) => {
      seen.push(name);
      return E.right(call);
    };
  const authenticate = (call: Call<{ token: string }>) => {
    seen.push("authenticate");
    const user = USERS[call.context.token];
    return user === undefined
      ? E.left({ code: 401, message: "Unauthorized" })
      : E.right({ ...call, context: { user } });
  };
  const adminsOnly = (call: Call<{ user: User }>) => {
    seen.push("adminsOnly");
    return call.context.user.admin
      ? E.right({ ...call, context: { ...call.context, since: 2024 } })
      : E.left({ code: 403, message: "Forbidden", data: call.context.user.name });
  };
  const ban = server(api.methods["admin.ban"])
    .context<{ user: User }>()
    .use(mark<{ user: User }>("ban's own"))
    .use(observe((o) => seen.push(`observed ${o.method}`)))
    .implement((ctx, who) => E.right(`${ctx.user.name} bans ${who}`));
  const admin = server(adminApi)
    .context<{ user: User }>()
    .use(mark<{ user: User }>("admin"))
    .implement({ ban, list: (ctx) => E.right([ctx.user.name]) });
  const whoami = server(api.methods.whoami)
    .context<{ user: User }>()
    .use(adminsOnly)
    .implement((ctx) => E.right(`${ctx.user.name}, admin since ${ctx.since}`));
  return server(api)
    .context<{ token: string }>()
    .use(mark<{ token: string }>("first"))
    .use(authenticate)
    .implement({ admin, whoami, ping: (ctx) => E.right(`pong for ${ctx.user.name}`) });
};

describe("a method server's stages", () => {
  test("run for that method alone, after the enclosing server's, adding to its context", async () => {
    const seen: string[] = [];
    const app = service(seen);
    expect(await app.dispatch(body("whoami"), { token: "t1" })).toBe(
      '{"jsonrpc":"2.0","result":"ann, admin since 2024","id":1}',
    );
    expect(seen.splice(0)).toEqual(["first", "authenticate", "adminsOnly"]);
    expect(await app.dispatch(body("ping"), { token: "t2" })).toBe('{"jsonrpc":"2.0","result":"pong for bob","id":1}');
    expect(seen.splice(0)).toEqual(["first", "authenticate"]);
  });

  test("refuse that method's calls and no other's", async () => {
    const app = service([]);
    expect(await app.dispatch(body("whoami"), { token: "t2" })).toBe(
      '{"jsonrpc":"2.0","error":{"code":403,"message":"Forbidden","data":"bob"},"id":1}',
    );
    expect(await app.dispatch(body("ping"), { token: "t2" })).toBe('{"jsonrpc":"2.0","result":"pong for bob","id":1}');
  });

  test("in a branch server: the order written, global, then branch, then method; the branch's other methods without them", async () => {
    const seen: string[] = [];
    const app = service(seen);
    expect(await app.dispatch(body("admin.ban", ["eve"]), { token: "t2" })).toBe(
      '{"jsonrpc":"2.0","result":"bob bans eve","id":1}',
    );
    expect(seen.splice(0)).toEqual(["first", "authenticate", "admin", "ban's own", "observed admin.ban"]);
    expect(await app.dispatch(body("admin.list"), { token: "t2" })).toBe('{"jsonrpc":"2.0","result":["bob"],"id":1}');
    expect(seen.splice(0)).toEqual(["first", "authenticate", "admin"]);
  });

  test("a method's stages are not a prefix's: `ping`'s do not run for `ping.x` or `pingx`", async () => {
    const seen: string[] = [];
    const wide = contract({ ping: { result: t.string }, pingx: { result: t.string }, more: contract({ x: {} }) });
    const app = server(wide).implement({
      ping: server(wide.methods.ping)
        .use((call) => {
          seen.push(call.request.method);
          return E.right(call);
        })
        .implement(() => E.right("pong")),
      pingx: () => E.right("pongx"),
      more: { x: () => E.right(null) },
    });
    await app.dispatch(body("pingx"));
    await app.dispatch(body("more.x"));
    expect(seen).toEqual([]);
    expect(await app.dispatch(body("ping"))).toBe('{"jsonrpc":"2.0","result":"pong","id":1}');
    expect(seen).toEqual(["ping"]);
  });

  test("through fetchHandler, which runs the server's stages", async () => {
    const handler = fetchHandler(service([]), {
      context: (request: Request) => ({ token: request.headers.get("x-token") ?? "" }),
    });
    const post = async (token: string, text: string) =>
      (
        await handler(
          new Request("http://localhost/rpc", { method: "POST", headers: { "X-Token": token }, body: text }),
        )
      ).text();
    expect(await post("t2", body("whoami"))).toBe(
      '{"jsonrpc":"2.0","error":{"code":403,"message":"Forbidden","data":"bob"},"id":1}',
    );
    expect(await post("t1", body("whoami"))).toBe('{"jsonrpc":"2.0","result":"ann, admin since 2024","id":1}');
  });

  test("implement, which makes a table without stages, refuses a method server with stages; one without is a handler", () => {
    const plainAdmin = { ban: (who: string) => E.right(who), list: () => E.right([]) };
    const withStages = server(api.methods.ping)
      .use((call) => E.right(call))
      .implement(() => E.right("pong"));
    expect(() => implement(api, { admin: plainAdmin, ping: withStages, whoami: () => E.right("me") })).toThrow(
      new TypeError(
        "implement: a branch or method is a server with stages, which a methods table cannot run: use server(api).implement(...)",
      ),
    );
    const plain = server(api.methods.ping).implement(() => E.right("pong"));
    const methods = implement(api, { admin: plainAdmin, ping: plain, whoami: () => E.right("me") });
    expect(Object.keys(methods)).toEqual(["admin.ban", "admin.list", "ping", "whoami"]);
  });

  test("a method server that takes a context where none is handed on (or the reverse) is a TypeError", () => {
    const plainAdmin = { ban: (who: string) => E.right(who), list: () => E.right([]) };
    const contextual = server(api.methods.ping)
      .context<{ user: User }>()
      .implement((ctx) => E.right(ctx.user.name));
    expect(() =>
      server(api).implement({ admin: plainAdmin, ping: contextual as never, whoami: () => E.right("me") }),
    ).toThrow(new TypeError('implement: the method "ping" is a server with a context, in one without'));
    const plain = server(api.methods.ping).implement(() => E.right("pong"));
    expect(() =>
      server(api)
        .context<{ user: User }>()
        .implement({
          admin: { ban: (_ctx, who) => E.right(who), list: () => E.right([]) },
          ping: plain as never,
          whoami: () => E.right("me"),
        }),
    ).toThrow(new TypeError('implement: the method "ping" is a server without a context, in one with'));
  });

  test("server() of something neither a contract nor an entry, and implement() of no function, are TypeErrors", () => {
    expect(() => server(undefined as never)).toThrow(
      new TypeError("server: expected a contract or one of its entries, got undefined"),
    );
    expect(() => server(api.methods.ping).implement("pong" as never)).toThrow(
      new TypeError("server(entry).implement: expected a function, got string"),
    );
  });
});

describe("the types", () => {
  test("what a method's stages add is typed in its handler and nowhere else", () => {
    // Compiled, never run.
    void (() => {
      const addsSince = (call: Call<{ user: User }>) => E.right({ ...call, context: { ...call.context, since: 1 } });
      const ping = server(api.methods.ping)
        .context<{ user: User }>()
        .use(addsSince)
        .implement((ctx) => E.right(`${ctx.user.name} ${ctx.since}`));
      const admin = { ban: (_ctx: { user: User }, who: string) => E.right(who), list: () => E.right([]) };
      server(api)
        .context<{ user: User }>()
        .implement({
          admin,
          ping,
          // @ts-expect-error `since` is added by ping's own stage, not here
          whoami: (ctx) => E.right(String(ctx.since)),
        });
      server(api.methods.ping)
        .context<{ user: User }>()
        // @ts-expect-error a handler that needs `since` without the stage that adds it
        .implement((ctx) => E.right(String(ctx.since)));
      server(api)
        .context<{ token: string }>()
        .implement({
          admin: { ban: (_ctx, who) => E.right(who), list: () => E.right([]) },
          // @ts-expect-error the method takes { user }, and this server hands on { token }
          ping,
          whoami: () => E.right("me"),
        });
      const noContext = server(api.methods.ping).implement(() => E.right("pong"));
      server(api)
        .context<{ user: User }>()
        // @ts-expect-error a method without a context, in a server whose handlers take one
        .implement({ admin, ping: noContext, whoami: () => E.right("me") });
      server(api)
        .context<{ user: User }>()
        .implement({
          admin,
          // @ts-expect-error a method server of another entry (`admin.ban` takes a string)
          ping: server(api.methods["admin.ban"])
            .context<{ user: User }>()
            .implement((_ctx, who) => E.right(who)),
          whoami: () => E.right("me"),
        });
      server(api.methods["admin.ban"])
        .context<{ user: User }>()
        // @ts-expect-error the handler's argument is the entry's (a string)
        .implement((_ctx, who: number) => E.right(String(who)));
      // A server that hands on more than the method takes is fine.
      server(api)
        .context<{ user: User; token: string }>()
        .implement({ admin, ping, whoami: (ctx) => E.right(ctx.token) });
    });
  });
});
