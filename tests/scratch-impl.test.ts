import * as E from "fp-ts/Either";
import * as TE from "fp-ts/TaskEither";
import * as t from "io-ts";
import {
  asyncDispatch,
  contract,
  dispatch,
  Error,
  fromResult,
  implement,
  server,
  Success,
  observe,
  timeout,
  type Call,
  openRpcDocument,
} from "../src";

const DateFromISOString = new t.Type<Date, string, unknown>(
  "DateFromISOString",
  (u): u is Date => u instanceof Date,
  (u, c) => (typeof u === "string" && !Number.isNaN(new Date(u).getTime()) ? t.success(new Date(u)) : t.failure(u, c)),
  (a) => a.toISOString(),
);

const api = contract({
  add: {
    params: t.tuple([t.number, t.number]),
    result: t.number,
    paramNames: ["a", "b"],
    examples: [{ params: [1, 2], result: 3 }],
  },
  greet: { params: t.type({ name: t.string }), result: t.string },
  now: { result: DateFromISOString },
  wrapped: { params: t.tuple([t.number]), result: t.type({ result: t.number }) },
  old: { params: t.tuple([t.number]), result: t.number },
});

test("implement", async () => {
  const methods = implement(api, {
    add: (a, b) => E.right(a + b),
    greet: ({ name }) => (name === "" ? Error(404, "No such person") : TE.right(`hi ${name}`)),
    now: () => Promise.resolve(E.right(new Date(0))),
    wrapped: (n) => E.right({ result: n }),
    old: fromResult((n: number) => Success(n * 2)),
  });
  expect(dispatch('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}', methods)).toBe(
    '{"jsonrpc":"2.0","result":3,"id":1}',
  );
  expect(await asyncDispatch('{"jsonrpc":"2.0","method":"greet","params":{"name":"a"},"id":1}', methods)).toBe(
    '{"jsonrpc":"2.0","result":"hi a","id":1}',
  );
  expect(await asyncDispatch('{"jsonrpc":"2.0","method":"greet","params":{"name":""},"id":1}', methods)).toBe(
    '{"jsonrpc":"2.0","error":{"code":404,"message":"No such person"},"id":1}',
  );
  expect(await asyncDispatch('{"jsonrpc":"2.0","method":"now","id":1}', methods)).toBe(
    '{"jsonrpc":"2.0","result":"1970-01-01T00:00:00.000Z","id":1}',
  );
  expect(await asyncDispatch('{"jsonrpc":"2.0","method":"wrapped","params":[5],"id":1}', methods)).toBe(
    '{"jsonrpc":"2.0","result":{"result":5},"id":1}',
  );
  expect(await asyncDispatch('{"jsonrpc":"2.0","method":"old","params":[5],"id":1}', methods)).toBe(
    '{"jsonrpc":"2.0","result":10,"id":1}',
  );
  expect(JSON.stringify(openRpcDocument(methods, { title: "x", version: "1" }).methods.map((m) => m.name))).toBe(
    '["add","greet","now","wrapped","old"]',
  );
});

test("server", async () => {
  const auth = (call: Call<{ token: string }>) =>
    call.context.token === "t1" ? E.right({ ...call, context: { user: "ann" } }) : Error(401, "Unauthorized");
  const seen: string[] = [];
  const app = server(api)
    .context<{ token: string }>()
    .use(observe((o) => seen.push(o.context.token)))
    .use(auth)
    .use(timeout(1000))
    .implement({
      add: (ctx, a, b) => E.right(a + b + ctx.user.length + (ctx.signal.aborted ? 1 : 0)),
      greet: (ctx, { name }) => E.right(`${name} ${ctx.user}`),
      now: () => E.right(new Date(0)),
      wrapped: (_ctx, n) => E.right({ result: n }),
      old: fromResult((_ctx: { user: string }, n: number) => Success(n)),
    });
  expect(await app.dispatch('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}', { token: "t1" })).toBe(
    '{"jsonrpc":"2.0","result":6,"id":1}',
  );
  expect(await app.dispatch('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}', { token: "x" })).toContain("401");
  expect(seen).toEqual(["t1", "x"]);
  expect(
    await asyncDispatch(
      '{"jsonrpc":"2.0","method":"greet","params":{"name":"b"},"id":1}',
      app.methods,
      app.options({ token: "t1" }),
    ),
  ).toBe('{"jsonrpc":"2.0","result":"b ann","id":1}');
});
