/**
 * `local`'s direct path (issue 22, speed): a client given `local(...)` itself hands the request
 * over as a value and takes the responses back as values, skipping the JSON text both ways. Every
 * answer must be the one the text path gives: each case below runs through `local` and through a
 * wrapper of it (a plain function, which does not keep the direct path and so sends text), and the
 * two answers must be equal, strictly (the same members, `undefined` ones included).
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { DateFromISOString } from "io-ts-types";
import { contract, implement, Error as RpcError, Success, type Methods } from "../src";
import { DIRECT, NEVER, type Direct } from "../src/internal/client/transport";
import { batch, client, local, notify, withOptions, type Transport } from "../src/client";
import type { JsonOptions } from "../src/internal/core/options";
import { observe, timeout } from "../src/pipeline";
import { recordLogs } from "./support";

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

/** The same transport without its direct path: every call goes through text. */
const textOnly =
  (transport: Transport): Transport =>
  (body, options) =>
    transport(body, options);

/** What the server's methods received, in order (notifications leave only this). */
let seen: unknown[] = [];

/** A cycle: no JSON form. */
const cyclic: Record<string, unknown> = { a: 1 };
cyclic["self"] = cyclic;

/** A result the server keeps: a client must get a copy of it, not it. */
const kept = { list: [1, 2, 3], nested: { n: 1 } };

const table = {
  echo: (...params: unknown[]) => {
    seen.push(params);
    return Success(params);
  },
  named: (params: unknown) => {
    seen.push(params);
    return Success(params);
  },
  give: (what: string) => {
    const results: Record<string, unknown> = {
      minusZero: -0,
      nan: Number.NaN,
      infinity: Infinity,
      date: new Date(0),
      undefinedMembers: { a: undefined, b: 1, c: [undefined, () => 1] },
      undefined: undefined,
      toJSON: { toJSON: () => ({ replaced: true }) },
      bigint: BigInt(1),
      cycle: cyclic,
      nullProto: Object.assign(Object.create(null) as object, { x: 1 }),
      protoKey: JSON.parse('{"__proto__":{"polluted":true},"y":2}') as unknown,
      klass: new (class Point {
        constructor(
          readonly x = 1,
          readonly y = 2,
        ) {}
      })(),
      map: new Map([[1, 2]]),
      getterThrows: Object.defineProperty({}, "boom", {
        enumerable: true,
        get: () => {
          throw new globalThis.Error("getter");
        },
      }),
      deep: JSON.parse(`${"[".repeat(200)}1${"]".repeat(200)}`) as unknown,
      boxed: Object(5) as unknown,
      kept,
      string: "text \u2028 \ud800 é",
    };
    return Success(results[what]);
  },
  fail: (code: number) => RpcError(code, "failed", code === 1 ? { why: "because", at: new Date(0) } : undefined),
  failNaNData: () => RpcError(2, "nan", Number.NaN),
  throws: () => {
    throw new globalThis.Error("secret");
  },
  later: async (n: number) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return Success(n * 2);
  },
  mutates: (list: number[]) => {
    list.push(99);
    return Success(list.length);
  },
} as const;
const methods = table as unknown as Methods;

const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  wrong: { params: t.tuple([t.number]), result: t.string },
  at: { params: t.tuple([DateFromISOString]), result: DateFromISOString },
  declared: {
    params: t.tuple([t.number]),
    result: t.number,
    errors: [{ code: 404, message: "Not found", data: t.type({ id: t.number }) }],
  },
  throwsCodec: {
    result: new t.Type<number, number, unknown>(
      "Throws",
      (u): u is number => typeof u === "number",
      () => {
        throw new globalThis.Error("codec threw");
      },
      (n) => n,
    ),
  },
});
const apiMethods = implement(api, {
  add: (a, b) => E.right(a + b),
  wrong: (n) => E.right(n as unknown as string),
  at: (d) => E.right(new Date(d.getTime() + 1000)),
  declared: (id) => (id === 0 ? E.left({ code: 404, message: "Not found", data: { id } }) : E.right(id)),
  throwsCodec: () => E.right(1),
});

/** Runs `make(transport)` once through `local` (direct) and once through text; both answers and what the server saw. */
const both = async (
  make: (transport: Transport) => () => Promise<unknown>,
  m: Methods = methods,
  options?: JsonOptions,
): Promise<{ direct: unknown; text: unknown; seenDirect: unknown[]; seenText: unknown[] }> => {
  seen = [];
  const direct = await make(local(m, options))();
  const seenDirect = seen;
  seen = [];
  const text = await make(textOnly(local(m, options)))();
  return { direct, text, seenDirect, seenText: seen };
};

const same = async (
  make: (transport: Transport) => () => Promise<unknown>,
  m?: Methods,
  options?: JsonOptions,
): Promise<unknown> => {
  const { direct, text, seenDirect, seenText } = await both(make, m, options);
  expect(direct).toStrictEqual(text);
  expect(seenDirect).toStrictEqual(seenText);
  return direct;
};

type Table = {
  echo: (...params: unknown[]) => unknown;
  named: (params: object) => unknown;
  give: (what: string) => unknown;
  fail: (code: number) => unknown;
  failNaNData: () => unknown;
  throws: () => unknown;
  later: (n: number) => unknown;
  mutates: (list: number[]) => unknown;
  missing: () => unknown;
};
const tableClient = (transport: Transport) => client<Table>(transport);

test("local has a direct path; a wrapper of it does not", () => {
  expect(typeof (local(methods) as { [DIRECT]?: unknown })[DIRECT]).toBe("function");
  expect((textOnly(local(methods)) as { [DIRECT]?: unknown })[DIRECT]).toBeUndefined();
});

test("the direct path writes and parses no JSON text for plain values", async () => {
  const c = client(api, local(apiMethods));
  await c.add(1, 2)(); // composed once
  const parse = jest.spyOn(JSON, "parse");
  const stringify = jest.spyOn(JSON, "stringify");
  try {
    expect(await c.add(1, 2)()).toStrictEqual(E.right(3));
    expect(await batch([c.add(1, 2), notify(c.add(3, 4))])()).toStrictEqual([E.right(3), E.right(undefined)]);
    expect(parse).not.toHaveBeenCalled();
    expect(stringify).not.toHaveBeenCalled();
  } finally {
    parse.mockRestore();
    stringify.mockRestore();
  }
});

test("a request value that is no request object is answered as its text is (-32600), plain or stoppable", async () => {
  const transport = local(methods);
  const direct = (transport as unknown as { readonly [DIRECT]: Direct })[DIRECT];
  for (const body of [
    "5",
    '"echo"',
    "null",
    "true",
    "[]",
    "[1,2]",
    '[null,{"jsonrpc":"2.0","method":"echo","id":1}]',
  ]) {
    const text = await transport(body, { signal: NEVER })();
    // local's text path answers text: the direct path, the values that text parses to.
    const expected = E.map((answer: unknown) =>
      answer === "" ? "" : { json: JSON.parse(answer as string) as unknown },
    )(text);
    expect(await direct(JSON.parse(body), { signal: NEVER })).toStrictEqual(expected);
    // A call that can be stopped goes the streamed way.
    expect(await direct(JSON.parse(body), { signal: new AbortController().signal, ids: [] })).toStrictEqual(expected);
  }
});

describe("results: the same answer as through text", () => {
  test.each([
    "minusZero",
    "nan",
    "infinity",
    "date",
    "undefinedMembers",
    "undefined",
    "toJSON",
    "bigint",
    "cycle",
    "nullProto",
    "protoKey",
    "klass",
    "map",
    "getterThrows",
    "deep",
    "boxed",
    "kept",
    "string",
  ])("%s", async (what) => {
    await same((transport) => tableClient(transport).give(what));
  });

  test("a few of them, spelled out", async () => {
    expect(await same((tr) => tableClient(tr).give("minusZero"))).toStrictEqual(E.right(0));
    expect(Object.is((await tableClient(local(methods)).give("minusZero")()) as E.Right<number>, -0)).toBe(false);
    expect(await same((tr) => tableClient(tr).give("date"))).toStrictEqual(E.right("1970-01-01T00:00:00.000Z"));
    expect(await same((tr) => tableClient(tr).give("undefinedMembers"))).toStrictEqual(
      E.right({ b: 1, c: [null, null] }),
    );
    expect(await same((tr) => tableClient(tr).give("nan"))).toStrictEqual(
      E.left({ _tag: "ServerError", code: -32603, message: "Internal error" }),
    );
    const proto = (await same((tr) => tableClient(tr).give("protoKey"))) as E.Right<Record<string, unknown>>;
    expect(Object.keys(proto.right)).toStrictEqual(["__proto__", "y"]);
    expect(Object.getPrototypeOf(proto.right)).toBe(Object.prototype);
  });

  test("a result the server keeps is copied: the caller changing it changes nothing there", async () => {
    const answer = (await tableClient(local(methods)).give("kept")()) as E.Right<typeof kept>;
    expect(answer.right).toStrictEqual(kept);
    expect(answer.right).not.toBe(kept);
    answer.right.list.push(4);
    answer.right.nested.n = 2;
    expect(kept).toStrictEqual({ list: [1, 2, 3], nested: { n: 1 } });
  });
});

describe("params: the server sees what text would have given it", () => {
  test.each([
    ["numbers, -0 and strings", [1, -0, "a"]],
    ["a Date", [new Date(0)]],
    ["undefined and functions in a list", [undefined, () => 1, 3]],
    ["nested plain objects", [{ a: { b: [1, { c: null }] } }, true]],
    ["a toJSON", [{ toJSON: () => "as json" }]],
    ["a Map and a class", [new Map([[1, 2]]), new (class A {})()]],
    ["deep lists", [JSON.parse(`${"[".repeat(100)}1${"]".repeat(100)}`) as unknown]],
  ])("positional: %s", async (_name, params) => {
    await same((transport) => tableClient(transport).echo(...params));
  });

  test.each([
    ["members undefined", { a: undefined, b: 1 }],
    ["a __proto__ key", JSON.parse('{"__proto__":{"x":1},"b":2}') as object],
    ["a null prototype", Object.assign(Object.create(null) as object, { n: 1 })],
    ["NaN and Infinity", { n: Number.NaN, i: -Infinity }],
  ])("named: %s", async (_name, params) => {
    await same((transport) => tableClient(transport).named(params));
  });

  test("params that cannot be sent (a BigInt, a cycle): InvalidCall both ways, nothing sent", async () => {
    const bigint = await same((transport) => tableClient(transport).echo(BigInt(1)));
    expect(bigint).toMatchObject(E.left({ _tag: "InvalidCall", method: "echo" }));
    const cycle = await same((transport) => tableClient(transport).named(cyclic));
    expect(cycle).toMatchObject(E.left({ _tag: "InvalidCall", method: "named" }));
  });

  test("a method that changes its params does not change the caller's", async () => {
    const list = [1, 2];
    expect(await tableClient(local(methods)).mutates(list)()).toStrictEqual(E.right(3));
    expect(list).toStrictEqual([1, 2]);
  });
});

describe("errors, codecs, notifications and batches: the same answers", () => {
  test.each<[string, (transport: Transport) => () => Promise<unknown>]>([
    ["a success through the codecs", (tr) => client(api, tr).add(1, 2)],
    ["a result the codec refuses", (tr) => client(api, tr).wrong(1)],
    ["a result codec that throws", (tr) => client(api, tr).throwsCodec()],
    ["Dates through DateFromISOString both ways", (tr) => client(api, tr).at(new Date(0))],
    ["a declared error, its data decoded", (tr) => client(api, tr).declared(0)],
    ["invalid params (-32602)", (tr) => client(api, tr).add(1, "2" as unknown as number)],
    ["a server error with data", (tr) => tableClient(tr).fail(1)],
    ["a server error without data", (tr) => tableClient(tr).fail(2)],
    ["an error whose data is NaN (-32603)", (tr) => tableClient(tr).failNaNData()],
    ["a method that throws (-32603, no data)", (tr) => tableClient(tr).throws()],
    ["a method not found (-32601)", (tr) => tableClient(tr).missing()],
    ["an async method", (tr) => tableClient(tr).later(21)],
    ["a notification", (tr) => notify(tableClient(tr).echo(1, 2) as never)],
    ["a notification to a method that throws", (tr) => notify(tableClient(tr).throws() as never)],
    [
      "a batch: calls, an error, a notification, a refused result",
      (tr) =>
        batch([
          client(api, tr).add(1, 2),
          tableClient(tr).fail(1),
          notify(tableClient(tr).echo("n") as never),
          client(api, tr).wrong(3),
          tableClient(tr).later(2),
        ]),
    ],
    ["a batch as a record", (tr) => batch({ sum: client(api, tr).add(2, 3), missing: tableClient(tr).missing() })],
    [
      "a batch of notifications only",
      (tr) => batch([notify(tableClient(tr).echo(1) as never), notify(tableClient(tr).echo(2) as never)]),
    ],
    [
      "a batch with a member that cannot be sent",
      (tr) => batch([client(api, tr).add(1, 2), tableClient(tr).echo(BigInt(2))]),
    ],
  ])("%s", async (_name, make) => {
    await same(make, { ...methods, ...apiMethods } as Methods);
  });

  test("an already aborted signal: aborted, and nothing runs", async () => {
    const controller = new AbortController();
    controller.abort("stop");
    const answer = await same((tr) => pipe1(tableClient(tr).echo(1), controller.signal));
    expect(answer).toStrictEqual(E.left({ _tag: "TransportError", reason: "aborted", cause: "stop" }));
  });
});

/** The call with a signal of its own. */
const pipe1 = (call: ReturnType<ReturnType<typeof tableClient>["echo"]>, signal: AbortSignal) =>
  withOptions({ signal })(call);

describe("local's options", () => {
  test("debug, maxBatchSize, a context, stages: the same answers", async () => {
    const withContext = {
      whoami: (context: { user: string }) => Success(context.user),
    };
    const observed: unknown[] = [];
    const options: JsonOptions = {
      debug: true,
      maxBatchSize: 2,
      context: { user: "ada" },
      stages: [observe((o) => void observed.push(o.method)), timeout(1000)],
    };
    const m = { ...methods, ...withContext } as unknown as Methods;
    type T = Table & { whoami: () => unknown };
    const answer = await same((tr) => client<T>(tr).throws(), m, options);
    expect(answer).toStrictEqual(
      E.left({ _tag: "ServerError", code: -32603, message: "Internal error", data: "secret" }),
    );
    expect(await same((tr) => client<T>(tr).whoami(), m, options)).toStrictEqual(E.right("ada"));
    const tooMany = await same(
      (tr) => batch([client<T>(tr).echo(1), client<T>(tr).echo(2), client<T>(tr).echo(3)]),
      m,
      options,
    );
    // One error for the whole batch: every member's answer.
    const whole = E.left({ _tag: "ServerError", code: -32600 });
    expect(tooMany).toMatchObject([whole, whole, whole]);
    expect(observed.length).toBeGreaterThan(0);
  });

  test("a serializer of the user's: every response through it, as text", async () => {
    const serializer = jest.fn((response: unknown) => JSON.stringify(response));
    const answer = await same((tr) => tableClient(tr).echo(1, "a"), methods, { serializer });
    expect(answer).toStrictEqual(E.right([1, "a"]));
    expect(serializer).toHaveBeenCalledTimes(2);
  });

  test("a deserializer of the user's: given the request text", async () => {
    const texts: string[] = [];
    const deserializer = (text: string): unknown => {
      texts.push(text);
      return JSON.parse(text);
    };
    expect(await same((tr) => tableClient(tr).echo(1, { a: 2 }), methods, { deserializer })).toStrictEqual(
      E.right([1, { a: 2 }]),
    );
    expect(texts).toHaveLength(2);
    // The same text both ways, but for the id.
    expect(texts.map((text) => text.replace(/"id":\d+/, '"id":N'))).toStrictEqual([
      '{"jsonrpc":"2.0","method":"echo","params":[1,{"a":2}],"id":N}',
      '{"jsonrpc":"2.0","method":"echo","params":[1,{"a":2}],"id":N}',
    ]);
  });

  test("a bad option fails every call with network, as asyncDispatch rejects", async () => {
    const answer = await same((tr) => tableClient(tr).echo(1), methods, { maxBatchSize: -1 });
    expect(answer).toMatchObject(E.left({ _tag: "TransportError", reason: "network" }));
  });
});
