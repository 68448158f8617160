/**
 * Middleware where it belongs (issue 34, item 4): a branch given as a server of its own
 * (`server(adminApi).context<C>().use(stage).implement(...)`) brings stages for its methods alone,
 * run after the enclosing server's (the order written), at any depth, sync stages and `Around`
 * ones alike, through `dispatch` and through `fetchHandler`. What they add to the context is typed
 * in the branch's handlers and nowhere else: the `@ts-expect-error` lines are compiled by `tsc`.
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

const auditApi = contract({ last: { result: t.string } });
const adminApi = contract({ ban: { params: t.tuple([t.string]), result: t.string }, audit: auditApi });
const api = contract({ admin: adminApi, ping: { result: t.string } });

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
  const audit = server(auditApi)
    .context<{ user: User; since: number }>()
    .use(mark<{ user: User; since: number }>("audit"))
    .implement({ last: (ctx) => E.right(`${ctx.user.name} since ${ctx.since}`) });
  const admin = server(adminApi)
    .context<{ user: User }>()
    .use(adminsOnly)
    .use(observe((o) => seen.push(`observed ${o.method}`)))
    .implement({ ban: (ctx, who) => E.right(`${ctx.user.name} bans ${who} (since ${ctx.since})`), audit });
  return server(api)
    .context<{ token: string }>()
    .use(mark<{ token: string }>("first"))
    .use(authenticate)
    .implement({ admin, ping: (ctx) => E.right(`pong for ${ctx.user.name}`) });
};

describe("a branch server's stages", () => {
  test("run for its methods alone, after the enclosing server's, in the order written", async () => {
    const seen: string[] = [];
    const app = service(seen);
    expect(await app.dispatch(body("ping"), { token: "t2" })).toBe('{"jsonrpc":"2.0","result":"pong for bob","id":1}');
    expect(seen.splice(0)).toEqual(["first", "authenticate"]);
    expect(await app.dispatch(body("admin.ban", ["eve"]), { token: "t1" })).toBe(
      '{"jsonrpc":"2.0","result":"ann bans eve (since 2024)","id":1}',
    );
    expect(seen.splice(0)).toEqual(["first", "authenticate", "adminsOnly", "observed admin.ban"]);
  });

  test("refuse a call under the branch and no other", async () => {
    const seen: string[] = [];
    const app = service(seen);
    expect(await app.dispatch(body("admin.ban", ["eve"]), { token: "t2" })).toBe(
      '{"jsonrpc":"2.0","error":{"code":403,"message":"Forbidden","data":"bob"},"id":1}',
    );
    expect(await app.dispatch(body("ping"), { token: "t2" })).toBe('{"jsonrpc":"2.0","result":"pong for bob","id":1}');
  });

  test("a branch server in a branch server: each branch's stages, outermost first", async () => {
    const seen: string[] = [];
    const app = service(seen);
    expect(await app.dispatch(body("admin.audit.last"), { token: "t1" })).toBe(
      '{"jsonrpc":"2.0","result":"ann since 2024","id":1}',
    );
    expect(seen).toEqual(["first", "authenticate", "adminsOnly", "audit", "observed admin.audit.last"]);
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
    expect(await post("t2", body("admin.ban", ["eve"]))).toBe(
      '{"jsonrpc":"2.0","error":{"code":403,"message":"Forbidden","data":"bob"},"id":1}',
    );
    expect(await post("t1", body("admin.ban", ["eve"]))).toBe(
      '{"jsonrpc":"2.0","result":"ann bans eve (since 2024)","id":1}',
    );
  });

  test("implement, which makes a table without stages, refuses a branch server with stages; one without is a branch", () => {
    const withStages = server(adminApi)
      .use((call) => E.right(call))
      .implement({ ban: (who) => E.right(who), audit: { last: () => E.right("x") } });
    expect(() => implement(api, { admin: withStages, ping: () => E.right("pong") })).toThrow(
      new TypeError(
        "implement: a branch or method is a server with stages, which a methods table cannot run: use server(api).implement(...)",
      ),
    );
    const plain = server(adminApi).implement({ ban: (who) => E.right(who), audit: { last: () => E.right("x") } });
    expect(Object.keys(implement(api, { admin: plain, ping: () => E.right("pong") }))).toEqual([
      "admin.ban",
      "admin.audit.last",
      "ping",
    ]);
  });

  test("a branch server that takes a context where none is handed on (or the reverse) is a TypeError", () => {
    const contextual = server(adminApi)
      .context<{ user: User }>()
      .implement({ ban: (_ctx, who) => E.right(who), audit: { last: () => E.right("x") } });
    expect(() => server(api).implement({ admin: contextual as never, ping: () => E.right("pong") })).toThrow(
      new TypeError('implement: the branch "admin" is a server with a context, in one without'),
    );
    const plain = server(adminApi).implement({ ban: (who) => E.right(who), audit: { last: () => E.right("x") } });
    expect(() =>
      server(api)
        .context<{ user: User }>()
        .implement({ admin: plain as never, ping: () => E.right("pong") }),
    ).toThrow(new TypeError('implement: the branch "admin" is a server without a context, in one with'));
  });
});

describe("the types", () => {
  test("what a branch's stages add is typed in its handlers and nowhere else", () => {
    // Compiled, never run.
    void (() => {
      const admin = server(adminApi)
        .context<{ user: User }>()
        .use((call: Call<{ user: User }>) => E.right({ ...call, context: { ...call.context, since: 1 } }))
        .implement({
          ban: (ctx, who) => E.right(`${who} ${ctx.since}`),
          audit: { last: (ctx) => E.right(ctx.user.name) },
        });
      server(api)
        .context<{ user: User }>()
        .implement({
          admin,
          // @ts-expect-error `since` is added by the admin branch's stage, not here
          ping: (ctx) => E.right(String(ctx.since)),
        });
      server(api)
        .context<{ token: string }>()
        // @ts-expect-error the branch takes { user }, and this server hands on { token }
        .implement({ admin, ping: () => E.right("pong") });
      const noContext = server(adminApi).implement({ ban: (who) => E.right(who), audit: { last: () => E.right("x") } });
      server(api)
        .context<{ user: User }>()
        // @ts-expect-error a branch without a context, in a server whose handlers take one
        .implement({ admin: noContext, ping: () => E.right("pong") });
      // A server that hands on more than the branch takes is fine.
      server(api)
        .context<{ user: User; token: string }>()
        .implement({ admin, ping: (ctx) => E.right(ctx.token) });
    });
  });
});
