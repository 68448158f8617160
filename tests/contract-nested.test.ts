/**
 * Nested contracts (issue 34, item 3): a contract holding contracts names its methods with full
 * dotted names (the wire, dispatch and OpenRPC see those), `implement` takes the handlers as a tree
 * (a branch's implemented table reused whole, or loaded on its first call with `lazy`), the
 * client calls them as a tree, and `merge` puts contracts or tables together, each name once. The
 * three-level service of tests/fixtures/nested is called by the typed client over `local`, over
 * HTTP against the development server, over a connection on a real TCP socket pair and over a real
 * nats-server. The type rules are tests/contract-nested-types.test.ts.
 */
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import * as E from "fp-ts/Either";
import * as TE from "fp-ts/TaskEither";
import * as t from "io-ts";
import {
  asyncDispatch,
  contract,
  discover,
  dispatch,
  DISCOVER,
  fromResult,
  implement,
  lazy,
  merge,
  openRpcDocument,
  serve,
  server,
  Success,
  type DevServer,
  type OpenRpcDocument,
} from "../src";
import { batch, client, foldStream, http, local, type Transport } from "../src/client";
import { adminApi, api, auditApi, usersApi } from "./fixtures/nested/api";
import { connect, type Connection } from "../src/connection";
import { natsTransport, serveNats, type NatsService } from "../src/nats";
import { connect as connectNats, type TestConnection } from "./fixtures/nats.cjs";
import { startNatsServer, type NatsServer } from "./fixtures/nats-server.cjs";
import { tcpPair, type RealPair } from "./helpers/real-channels";
import { recordLogs } from "./support";

const NAMES = ["users.get", "users.since", "users.missing", "admin.ban", "admin.audit.last", "ping"];

const usersTable = implement(usersApi, {
  get: (id) => E.right({ id, name: `user ${id}` }),
  since: (day) => E.right(new Date(day.getTime() + 1000)),
  missing: (id) => E.left({ code: 404, message: "No such user", data: id }),
});

/** The service: `users` reused whole, `admin` loaded from its module on its first call. */
const methods = implement(api, {
  users: usersTable,
  admin: lazy(() => import("./fixtures/nested/admin")),
  ping: () => E.right("pong" as const),
});

const loads = (): number => (globalThis as { nestedAdminLoads?: number }).nestedAdminLoads ?? 0;

const body = (method: string, params?: unknown, id: number = 1): string =>
  JSON.stringify(params === undefined ? { jsonrpc: "2.0", method, id } : { jsonrpc: "2.0", method, params, id });

describe("contract: a contract holding contracts", () => {
  test("names its methods with full dotted names, at any depth, in the order written", () => {
    expect(Object.keys(api.methods)).toEqual(NAMES);
    // The branch's entries themselves: their codecs and documentation are the branch's.
    expect(api.methods["admin.audit.last"]).toBe(auditApi.methods.last);
    expect(Object.isFrozen(api.methods)).toBe(true);
  });

  test("a method named __proto__ is a name like any other, flat or in a branch", () => {
    const odd = contract(JSON.parse('{"__proto__":{}}') as Record<string, object>);
    expect(Object.keys(odd.methods)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(odd.methods)).toBe(Object.prototype);
    expect(Object.keys(contract({ odd }).methods)).toEqual(["odd.__proto__"]);
  });

  test("refuses a full name defined twice, and a branch whose names JSON-RPC reserves", () => {
    expect(() => contract({ users: usersApi, "users.get": { result: t.string } })).toThrow(
      new TypeError('contract: "users.get" is defined twice'),
    );
    expect(() => contract({ rpc: usersApi } as never)).toThrow(/"rpc.get" cannot be a method name/);
  });
});

describe("implement: handlers as a tree", () => {
  test("a branch's implemented table is reused as it is; the names are the full ones", () => {
    expect(Object.keys(methods)).toEqual(NAMES);
    expect(methods["users.get"]).toBe(usersTable.get);
    expect(dispatch(body("users.get", [7]), methods)).toBe(
      '{"jsonrpc":"2.0","result":{"id":7,"name":"user 7"},"id":1}',
    );
  });

  test("nested handlers, flat handlers and an implemented table's methods as handlers all make the same table", async () => {
    const nested = implement(adminApi, {
      ban: (who) => E.right(`banned ${who}`),
      audit: { last: (n) => E.right([`${n}`]) },
    });
    const flat = implement(adminApi, { ban: nested.ban, "audit.last": nested["audit.last"] });
    // The case: an implemented table's handler given to implement again (it compiles).
    const again = implement(usersApi, { get: usersTable.get, since: usersTable.since, missing: usersTable.missing });
    expect(flat["audit.last"]).toBe(nested["audit.last"]);
    expect(await asyncDispatch(body("audit.last", [2]), flat)).toBe('{"jsonrpc":"2.0","result":["2"],"id":1}');
    expect(await asyncDispatch(body("get", [1]), again)).toBe(
      '{"jsonrpc":"2.0","result":{"id":1,"name":"user 1"},"id":1}',
    );
    // Under another entry, the same function keeps each entry's own codecs (a wrapper, not the method).
    const other = contract({ get: { params: t.tuple([t.number]), result: t.unknown } });
    const table = implement(other, { get: usersTable.get as never });
    expect(table.get).not.toBe(usersTable.get);
  });

  test("a Result-vocabulary handler in a branch", () => {
    const table = implement(auditApi, { last: fromResult((n: number) => Success([String(n)])) });
    const whole = implement(contract({ audit: auditApi }), { audit: table });
    expect(dispatch(body("audit.last", [3]), whole)).toBe('{"jsonrpc":"2.0","result":["3"],"id":1}');
  });

  test("a handler the contract does not name, a missing one, or one given twice is a TypeError", () => {
    const ok = { users: usersTable, admin: lazy(async () => ({})), ping: () => E.right("pong" as const) };
    expect(() => implement(api, { ...ok, users: { ...usersTable, nope: () => E.right(1) } } as never)).toThrow(
      new TypeError('implement: "users.nope" is not a method of the contract'),
    );
    const { missing: _, ...partial } = usersTable;
    expect(() => implement(api, { ...ok, users: partial } as never)).toThrow(
      new TypeError('implement: no handler for "users.missing"'),
    );
    expect(() => implement(api, { ...ok, "users.get": usersTable.get } as never)).toThrow(
      new TypeError('implement: "users.get" is given twice'),
    );
    expect(() => implement(api, { ...ok, ping: lazy(async () => ({})) } as never)).toThrow(
      new TypeError('implement: "ping" is not a branch of the contract'),
    );
  });

  test("a server with a context takes the tree; its handlers get the context", async () => {
    const app = server(contract({ users: contract({ me: { result: t.string } }) }))
      .context<{ user: string }>()
      .implement({ users: { me: (ctx) => E.right(ctx.user) } });
    expect(await app.dispatch(body("users.me"), { user: "ann" })).toBe('{"jsonrpc":"2.0","result":"ann","id":1}');
  });
});

describe("lazy: a branch loaded on its first call", () => {
  test("one load for concurrent first calls; rpc.discover lists the branch without loading it", async () => {
    let loaded = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const table = implement(adminApi, { ban: (who) => E.right(who), audit: { last: () => E.right([]) } });
    const gated = implement(api, {
      users: usersTable,
      admin: lazy(async () => {
        loaded += 1;
        await gate;
        return { default: table };
      }),
      ping: () => E.right("pong" as const),
    });
    const document = openRpcDocument(gated, { title: "t", version: "1" });
    expect(document.methods.map((m) => m.name)).toEqual(NAMES);
    expect(loaded).toBe(0);
    const answers = Promise.all([
      asyncDispatch(body("admin.ban", ["a"], 1), gated),
      asyncDispatch(body("admin.audit.last", [1], 2), gated),
      asyncDispatch(body("admin.ban", ["b"], 3), gated),
    ]);
    release();
    expect(await answers).toEqual([
      '{"jsonrpc":"2.0","result":"a","id":1}',
      '{"jsonrpc":"2.0","result":[],"id":2}',
      '{"jsonrpc":"2.0","result":"b","id":3}',
    ]);
    expect(await asyncDispatch(body("admin.ban", ["c"], 4), gated)).toBe('{"jsonrpc":"2.0","result":"c","id":4}');
    expect(loaded).toBe(1);
  });

  test("a load that fails answers its waiting calls -32603 (the cause logged) and is tried again at the next call", async () => {
    let attempts = 0;
    const table = implement(adminApi, { ban: (who) => E.right(who), audit: { last: () => E.right([]) } });
    const app = implement(api, {
      users: usersTable,
      admin: lazy(async () => {
        attempts += 1;
        if (attempts === 1) throw new Error("disk on fire");
        return table;
      }),
      ping: () => E.right("pong" as const),
    });
    const logs = recordLogs();
    try {
      const failed = await Promise.all([
        asyncDispatch(body("admin.ban", ["a"], 1), app, { debug: true }),
        asyncDispatch(body("admin.ban", ["b"], 2), app),
      ]);
      expect(failed).toEqual([
        '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"the branch \\"admin\\" could not be loaded: disk on fire"},"id":1}',
        '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":2}',
      ]);
      expect(logs.entries.map((entry) => String(entry.args[0]))).toEqual([
        'rpcserver: method "admin.ban" raised an exception',
        'rpcserver: method "admin.ban" raised an exception',
      ]);
    } finally {
      logs.restore();
    }
    expect(await asyncDispatch(body("admin.ban", ["c"], 3), app)).toBe('{"jsonrpc":"2.0","result":"c","id":3}');
    expect(attempts).toBe(2);
  });
  test("a streaming method of a lazy branch streams as it does loaded", async () => {
    const feed = contract({ count: { params: t.tuple([t.number]), stream: t.number, result: t.string } });
    const table = implement(feed, {
      count: async function* (n) {
        for (let i = 1; i <= n; i++) yield i;
        return E.right(`counted to ${n}`);
      },
    });
    const feeds = contract({ feed });
    const remote = client(feeds, local(implement(feeds, { feed: lazy(async () => table) })));
    const sum = foldStream(0, (total: number, n: number) => total + n);
    expect(await sum(remote.feed.count(4))()).toStrictEqual(E.right([10, "counted to 4"]));
  });
});

describe("a lazy branch's table is taken as implement takes handlers", () => {
  const feedOf = (table: unknown) =>
    implement(api, {
      users: usersTable,
      admin: lazy(async () => table as never),
      ping: () => E.right("pong" as const),
    });
  const call = (methods: object, method: string, params: unknown, id = 1): Promise<string> =>
    asyncDispatch(body(method, params, id), methods as never);

  test("plain handlers, as a tree or flat, answering Eithers, TaskEithers or Promises of Eithers", async () => {
    const tree = feedOf({ ban: (who: string) => E.right(`e ${who}`), audit: { last: () => TE.right(["t"]) } });
    expect(await call(tree, "admin.ban", ["a"])).toBe('{"jsonrpc":"2.0","result":"e a","id":1}');
    expect(await call(tree, "admin.audit.last", [1])).toBe('{"jsonrpc":"2.0","result":["t"],"id":1}');
    const flat = feedOf({ ban: async () => E.left({ code: 403, message: "no" }), "audit.last": () => E.right([]) });
    expect(await call(flat, "admin.ban", ["a"])).toBe('{"jsonrpc":"2.0","error":{"code":403,"message":"no"},"id":1}');
    expect(await call(flat, "admin.audit.last", [1])).toBe('{"jsonrpc":"2.0","result":[],"id":1}');
  });

  test("a fromResult handler has its Right's result taken out", async () => {
    const loaded = feedOf({
      ban: fromResult((who: string) => Success(`r ${who}`)),
      audit: { last: () => E.right([]) },
    });
    expect(await call(loaded, "admin.ban", ["a"])).toBe('{"jsonrpc":"2.0","result":"r a","id":1}');
  });

  test("under server(api).context<C>(), the loaded handlers receive the context first", async () => {
    type Ctx = { readonly user: string };
    const adminServer = server(adminApi)
      .context<Ctx>()
      .implement({ ban: (ctx, who) => E.right(`${ctx.user} bans ${who}`), audit: { last: () => E.right([]) } });
    const app = server(api)
      .context<Ctx>()
      .implement({
        users: {
          get: () => E.left({ code: 1, message: "x" }),
          since: (_ctx, day) => E.right(day),
          missing: () => E.left({ code: 404, message: "No such user", data: 0 }),
        },
        admin: lazy(async () => adminServer.methods),
        ping: () => E.right("pong" as const),
      });
    expect(await app.dispatch(body("admin.ban", ["eve"]), { user: "ann" })).toBe(
      '{"jsonrpc":"2.0","result":"ann bans eve","id":1}',
    );
  });

  test("a load that never settles: each call whose signal aborts is answered -32800 and kept by nothing", async () => {
    type Ctx = { readonly signal: AbortSignal };
    let loads = 0;
    const small = contract({ admin: adminApi });
    const app = server(small)
      .context<Ctx>()
      .implement({
        admin: lazy(() => {
          loads += 1;
          return new Promise<never>(() => undefined);
        }),
      });
    const refs: Array<WeakRef<Ctx>> = [];
    for (let id = 1; id <= 50; id++) {
      const controller = new AbortController();
      const context = { signal: controller.signal };
      refs.push(new WeakRef(context));
      const answer = app.dispatch(body("admin.ban", ["eve"], id), context);
      if (id % 2 === 0) await new Promise((resolve) => setImmediate(resolve));
      controller.abort();
      expect(await answer).toBe(`{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":${id}}`);
    }
    expect(loads).toBe(1);
    // Nothing of the calls is held by the load that hangs: their contexts are collected.
    setFlagsFromString("--expose-gc");
    for (let turn = 0; turn < 3; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      (runInNewContext("gc") as () => void)();
    }
    // Two may stay, the first and the last: the kept composition of dispatch holds the context of
    // the call it was composed for, and the last call's may still be in a register or a cache.
    expect(refs.filter((ref) => ref.deref() !== undefined).length).toBeLessThanOrEqual(2);
  });

  test("callers of a slow load: the one that leaves is answered -32800, the others get the table, once", async () => {
    type Ctx = { readonly signal: AbortSignal };
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const adminServer = server(adminApi)
      .context<Ctx>()
      .implement({ ban: (_ctx, who) => E.right(who), audit: { last: () => E.right([]) } });
    const app = server(contract({ admin: adminApi }))
      .context<Ctx>()
      .implement({ admin: lazy(async () => (await gate, adminServer.methods)) });
    const leaving = new AbortController();
    const staying = { signal: new AbortController().signal };
    const left = app.dispatch(body("admin.ban", ["a"], 1), { signal: leaving.signal });
    const stayed = app.dispatch(body("admin.ban", ["b"], 2), staying);
    leaving.abort();
    expect(await left).toBe('{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}');
    release();
    expect(await stayed).toBe('{"jsonrpc":"2.0","result":"b","id":2}');
    expect(await app.dispatch(body("admin.ban", ["c"], 3), staying)).toBe('{"jsonrpc":"2.0","result":"c","id":3}');
  });

  test("a module Node's import() made of CommonJS ({ default: module.exports }, the table one default further)", async () => {
    const table = implement(adminApi, { ban: (who) => E.right(who), audit: { last: () => E.right([]) } });
    const loaded = feedOf({ default: { __esModule: true, default: table } });
    expect(await call(loaded, "admin.ban", ["cjs"])).toBe('{"jsonrpc":"2.0","result":"cjs","id":1}');
  });

  test("a load that answers no table, or a table lacking a method, is -32603 naming why", async () => {
    const logs = recordLogs();
    try {
      expect(await asyncDispatch(body("admin.ban", ["a"]), feedOf(42), { debug: true })).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"the branch \\"admin\\" could not be loaded: it answered no table (an object of methods, or a module whose default export is one)"},"id":1}',
      );
      expect(
        await asyncDispatch(body("admin.audit.last", [1]), feedOf({ ban: () => E.right("x") }), { debug: true }),
      ).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"the branch \\"admin\\" loaded has no method \\"audit.last\\""},"id":1}',
      );
    } finally {
      logs.restore();
    }
  });

  test("a handler given beside the lazy branch that holds it is a TypeError", () => {
    expect(() =>
      implement(api, {
        users: usersTable,
        admin: lazy(async () => ({})),
        "admin.ban": () => E.right("x"),
        ping: () => E.right("pong" as const),
      } as never),
    ).toThrow(new TypeError('implement: "admin.ban" is given twice (a handler, and in the lazy branch "admin")'));
  });
});

describe("names no client can carry", () => {
  test("a segment then or empty, and a dotted branch, are refused", () => {
    for (const name of ["then", "a.then", "then.a", "a.then.b", "", "a.", ".a", "a..b"]) {
      expect(() => contract({ [name]: { result: t.string } } as never)).toThrow(
        new TypeError(
          `contract: "${name}" cannot be a method name (JSON-RPC reserves rpc.*; no client can carry a segment then or "")`,
        ),
      );
    }
    expect(() => contract({ a: contract({ then: { result: t.string } } as never) } as never)).toThrow(
      /"then" cannot be/,
    );
    expect(() => contract({ "a.b": usersApi } as never)).toThrow(
      new TypeError('contract: the branch "a.b" cannot hold a dot (nest it)'),
    );
  });

  test("a method that is also a branch: the client calls both", async () => {
    const both = merge(contract({ users: { result: t.string } }), contract({ users: usersApi }));
    const table = merge(
      implement(contract({ users: { result: t.string } }), { users: () => E.right("all") }),
      implement(contract({ users: usersApi }), { users: usersTable }),
    );
    const remote = client(both, local(table)) as unknown as {
      users: (() => () => Promise<E.Either<unknown, unknown>>) & {
        get: (id: number) => () => Promise<E.Either<unknown, unknown>>;
      };
    };
    expect(await remote.users()()).toStrictEqual(E.right("all"));
    expect(await remote.users.get(3)()).toStrictEqual(E.right({ id: 3, name: "user 3" }));
  });
});

describe("merge: contracts, or tables, each name once", () => {
  test("contracts into a contract, tables into a table", () => {
    const both = merge(usersApi, auditApi);
    expect(Object.keys(both.methods)).toEqual(["get", "since", "missing", "last"]);
    const table = merge(usersTable, implement(auditApi, { last: (n) => E.right([String(n)]) }));
    expect(dispatch(body("last", [5]), table)).toBe('{"jsonrpc":"2.0","result":["5"],"id":1}');
    expect(dispatch(body("get", [5]), table)).toBe('{"jsonrpc":"2.0","result":{"id":5,"name":"user 5"},"id":1}');
    // A merged contract is a contract: it nests, implements and has a client.
    const nested = contract({ all: both });
    expect(Object.keys(nested.methods)).toEqual(["all.get", "all.since", "all.missing", "all.last"]);
  });

  test("a name defined twice is refused, as is a mix of contracts and tables", () => {
    expect(() => merge(usersApi, usersApi as never)).toThrow(new TypeError('merge: "get" is defined twice'));
    expect(() => merge(usersTable, { get: usersTable.get } as never)).toThrow(
      new TypeError('merge: "get" is defined twice'),
    );
    expect(() => merge(usersApi, usersTable as never)).toThrow(/not both/);
    expect(() => merge(usersTable, new Map([["get", usersTable.get]]))).toThrow(
      new TypeError('merge: "get" is defined twice'),
    );
  });

  test("a Map of methods merges as an object of them does", () => {
    const table = merge(
      new Map([["last", implement(auditApi, { last: (n) => E.right([String(n)]) }).last]]),
      usersTable,
    );
    expect(Object.keys(table)).toEqual(["last", "get", "since", "missing"]);
    expect(dispatch(body("last", [5]), table)).toBe('{"jsonrpc":"2.0","result":["5"],"id":1}');
  });
});

/** The table with rpc.discover, as the development server and serveNats answer it. */
const discoverable = { ...methods, [DISCOVER]: discover({ title: "t", version: "1" }, methods) };

let dev: DevServer;
let devUrl = "";
/** A connection each way over a real TCP socket pair: the server end serves the table. */
let tcp: RealPair;
let served: Connection;
let calling: Connection;
/** A real nats-server, `serveNats` on one connection, the client's transport on another. */
let nats: NatsServer;
let natsServing: TestConnection;
let natsCalling: TestConnection;
let service: NatsService;

beforeAll(async () => {
  const quiet = recordLogs();
  try {
    dev = await serve("127.0.0.1", 0, { methods });
  } finally {
    quiet.restore();
  }
  devUrl = `http://127.0.0.1:${(dev.address() as AddressInfo).port}/`;
  tcp = await tcpPair("newline");
  served = connect(tcp.channels[0], { methods: discoverable });
  calling = connect(tcp.channels[1]);
  nats = await startNatsServer();
  [natsServing, natsCalling] = await Promise.all([connectNats(nats.url), connectNats(nats.url)]);
  service = await serveNats(natsServing, methods, { name: "nested", version: "1.0.0", subject: "rpc.nested" });
});
afterAll(async () => {
  dev.closeAllConnections();
  dev.close();
  calling.close();
  served.close();
  await tcp.dispose();
  await service.stop();
  await Promise.all([natsServing.close(), natsCalling.close()]);
  await nats.stop();
});

describe.each([
  ["local", (): Transport => local(discoverable)],
  ["http (the development server)", (): Transport => http(devUrl)],
  ["a connection (TCP, newline-framed)", (): Transport => calling.transport],
  ["NATS (a real nats-server)", (): Transport => natsTransport(natsCalling, "rpc.nested")],
])("the typed client of a three-level service over %s", (_name, transport) => {
  test("calls as a tree, and by full name; codecs both ways; declared errors", async () => {
    const remote = client(api, transport());
    expect(await remote.users.get(1)()).toStrictEqual(E.right({ id: 1, name: "user 1" }));
    expect(await remote["users.get"](2)()).toStrictEqual(E.right({ id: 2, name: "user 2" }));
    expect(await remote.users.since(new Date(0))()).toStrictEqual(E.right(new Date(1000)));
    expect(await remote.admin.audit.last(2)()).toStrictEqual(E.right(["entry 0", "entry 1"]));
    expect(await remote.admin["audit.last"](1)()).toStrictEqual(E.right(["entry 0"]));
    expect(await remote.admin.ban("eve")()).toStrictEqual(E.right("banned eve"));
    expect(await remote.ping()()).toStrictEqual(E.right("pong"));
    expect(await remote.users.missing(9)()).toStrictEqual(
      E.left({ _tag: "ServerError", declared: true, code: 404, message: "No such user", data: 9 }),
    );
    // The lazy branch's module was loaded once, whichever transport called it first.
    expect(loads()).toBe(1);
  });

  test("a batch of nested calls", async () => {
    const remote = client(api, transport());
    const [user, last, pong] = await batch([remote.users.get(3), remote.admin.audit.last(1), remote.ping()])();
    expect([user, last, pong]).toStrictEqual([
      E.right({ id: 3, name: "user 3" }),
      E.right(["entry 0"]),
      E.right("pong"),
    ]);
  });

  test("rpc.discover lists the full names, the lazy branch's from the contract", async () => {
    const table = client<{ [DISCOVER]: () => E.Either<never, { result: OpenRpcDocument }> }>(transport());
    const discovered = await table[DISCOVER]()();
    expect(E.isRight(discovered) && discovered.right.methods.map((m) => m.name)).toEqual(NAMES);
  });
});
