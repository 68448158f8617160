import * as E from "fp-ts/Either";
import * as TE from "fp-ts/TaskEither";
import { pipe } from "fp-ts/function";
import * as t from "io-ts";
import { contract, Error, implement, serve, Success, withCodecs } from "../src";
import { batch, client, http, local, notify, withOptions, matchClientError } from "../src/client";

const DateFromISOString = new t.Type<Date, string, unknown>(
  "DateFromISOString",
  (u): u is Date => u instanceof Date,
  (u, c) => (typeof u === "string" && !Number.isNaN(new Date(u).getTime()) ? t.success(new Date(u)) : t.failure(u, c)),
  (a) => a.toISOString(),
);
const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  greet: {
    params: t.type({ name: t.string }),
    result: t.string,
    errors: [{ code: 404, message: "No such person", data: t.type({ name: t.string }) }],
  },
  now: { result: DateFromISOString },
  log: { params: t.tuple([t.string]) },
  slow: { result: t.string },
});
const logged: string[] = [];
const methods = implement(api, {
  add: (a, b) => E.right(a + b),
  greet: ({ name }) => (name === "" ? Error(404, "No such person", { name }) : E.right(`hi ${name}`)),
  now: () => E.right(new Date(0)),
  log: (line) => {
    logged.push(line);
    return E.right(null);
  },
  slow: () => () => new Promise((r) => setTimeout(() => r(E.right("late")), 200)),
});

test("local", async () => {
  const c = client(api, local(methods));
  expect(await c.add(1, 2)()).toEqual(E.right(3));
  expect(await c.greet({ name: "a" })()).toEqual(E.right("hi a"));
  expect(await c.greet({ name: "" })()).toEqual(
    E.left({ _tag: "ServerError", code: 404, message: "No such person", data: { name: "" } }),
  );
  const now = await c.now()();
  expect(E.isRight(now) && now.right instanceof Date).toBe(true);
  expect(await notify(c.log("x"))()).toEqual(E.right(undefined));
  expect(logged).toEqual(["x"]);
  expect(await pipe(c.slow(), withOptions({ timeoutMs: 20 }))()).toEqual(
    E.left({ _tag: "TransportError", reason: "timeout", timeoutMs: 20 }),
  );
  const [s, g, n] = await batch([c.add(1, 2), c.greet({ name: "b" }), notify(c.log("y"))])();
  expect([s, g, n]).toEqual([E.right(3), E.right("hi b"), E.right(undefined)]);
  const r = await batch({ x: c.add(1, 1), y: c.add(2, 2) })();
  expect(r).toEqual({ x: E.right(2), y: E.right(4) });
  expect(
    matchClientError({ ServerError: () => 1, TransportError: () => 2, InvalidAnswer: () => 3, InvalidCall: () => 4 })({
      _tag: "InvalidCall",
      method: "x",
      cause: 1,
    }),
  ).toBe(4);
  const doubled = await pipe(
    c.add(1, 2),
    TE.map((n) => n * 2),
  )();
  expect(doubled).toEqual(E.right(6));
});

test("http + table client", async () => {
  const table = {
    add: withCodecs({ params: t.tuple([t.number, t.number]) }, (a, b) => Success(a + b)),
    when: () => Success(new Date(0)),
  };
  const server = await serve("127.0.0.1", 0, { methods: { ...methods, ...table } });
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const c = client(api, http(url));
    expect(await c.add(1, 2)()).toEqual(E.right(3));
    const tc = client<typeof table>(http(url));
    const w = await tc.when()();
    expect(w).toEqual(E.right("1970-01-01T00:00:00.000Z"));
    const missing = client(api, http(url.replace(/:\d+$/, ":1")));
    const m = await missing.add(1, 2)();
    expect(E.isLeft(m) && m.left._tag).toBe("TransportError");
  } finally {
    server.close();
  }
});
