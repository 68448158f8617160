/**
 * Absent params (issue 22, item 5): JSON-RPC 2.0 lets a request leave `params` out. A method whose
 * params codec takes the empty list gets `[]`, as before; one whose codec refuses `[]` but takes
 * `{}` (all-optional named params: `t.partial`, an object schema with optional keys, MCP's
 * `tools/list { cursor? }`) gets `{}`; a codec that takes neither answers what it says of `[]`, as
 * before. Sync and async dispatch, io-ts codecs and Standard Schemas (sync and async).
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import * as v from "valibot";
import { z } from "zod";
import { asyncDispatch, contract, dispatch, implement, Success, withParams, type Methods } from "../src";
import { recordLogs } from "./support";

const absent = (method = "m", id = 1): string => JSON.stringify({ jsonrpc: "2.0", method, id });

/** A method that answers the arguments it was called with (a list spread, an object as one). */
const echo = (codec: Parameters<typeof withParams>[0]): Methods => ({
  m: withParams(codec, (...args: unknown[]) => Success(args)),
});

const both = async (methods: Methods): Promise<[string, string]> => [
  dispatch(absent(), methods),
  await asyncDispatch(absent(), methods),
];

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

describe("absent params decode as {} where the codec takes it, [] where it takes a list", () => {
  test.each([
    ["t.partial", t.partial({ cursor: t.string })],
    ["t.exact(t.partial)", t.exact(t.partial({ cursor: t.string }))],
    ["t.strict of optional members", t.intersection([t.type({}), t.partial({ cursor: t.string })])],
    ["zod object of optional keys", z.object({ cursor: z.string().optional() })],
    ["zod object with a default", z.object({ limit: z.number().default(10) })],
    ["valibot object of optional keys", v.object({ cursor: v.optional(v.string()) })],
  ] as const)("%s: absent params are {}", async (_name, codec) => {
    const [sync, async] = await both(echo(codec));
    expect(JSON.parse(sync)).toStrictEqual({ jsonrpc: "2.0", result: [expect.any(Object)], id: 1 });
    expect(Array.isArray((JSON.parse(sync) as { result: unknown[] }).result[0])).toBe(false);
    expect(async).toBe(sync);
  });

  test("the zod default fills in: the method gets { limit: 10 }", async () => {
    expect(await both(echo(z.object({ limit: z.number().default(10) })))).toStrictEqual([
      '{"jsonrpc":"2.0","result":[{"limit":10}],"id":1}',
      '{"jsonrpc":"2.0","result":[{"limit":10}],"id":1}',
    ]);
  });

  test("an async Standard Schema of optional keys: {} under asyncDispatch", async () => {
    const schema = z.object({ cursor: z.string().optional() }).refine(async () => true);
    expect(await asyncDispatch(absent(), echo(schema))).toBe('{"jsonrpc":"2.0","result":[{}],"id":1}');
  });

  test("a codec that takes a list keeps getting []; one that takes both gets [] (as before)", async () => {
    expect(await both(echo(t.array(t.string)))).toStrictEqual([
      '{"jsonrpc":"2.0","result":[],"id":1}',
      '{"jsonrpc":"2.0","result":[],"id":1}',
    ]);
    expect(await both(echo(t.unknown))).toStrictEqual([
      '{"jsonrpc":"2.0","result":[],"id":1}',
      '{"jsonrpc":"2.0","result":[],"id":1}',
    ]);
    expect(await both(echo(t.union([t.array(t.number), t.partial({ a: t.string })])))).toStrictEqual([
      '{"jsonrpc":"2.0","result":[],"id":1}',
      '{"jsonrpc":"2.0","result":[],"id":1}',
    ]);
  });

  test("a codec that requires something says what it says of [] (unchanged)", async () => {
    const expected = (line: string): string =>
      JSON.stringify({ jsonrpc: "2.0", error: { code: -32602, message: "Invalid params", data: [line] }, id: 1 });
    expect(await both(echo(t.type({ cursor: t.string })))).toStrictEqual([
      expected("params: expected { cursor: string }, got []"),
      expected("params: expected { cursor: string }, got []"),
    ]);
    const [sync] = await both(echo(z.object({ cursor: z.string() })));
    expect(JSON.parse(sync)).toMatchObject({ error: { code: -32602, data: [expect.stringMatching(/object/)] } });
    expect(sync).not.toMatch(/cursor/); // the report of [], not of {}
    expect(await asyncDispatch(absent(), echo(z.object({ cursor: z.string() }).refine(async () => true)))).toBe(sync);
  });

  test("a codec that throws on {} (a value the request did not send) answers its report of []", () => {
    const Picky = new t.Type<unknown, unknown, unknown>(
      "Picky",
      (_u): _u is unknown => false,
      (u, c) => {
        if (!Array.isArray(u)) throw new globalThis.Error("objects not expected");
        return t.failure(u, c, "a non-empty list");
      },
      (a) => a,
    );
    expect(dispatch(absent(), echo(Picky))).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":["params: expected a non-empty list, got []"]},"id":1}',
    );
  });

  test("present params are decoded as given: [] and {} are not swapped", async () => {
    const methods = echo(t.partial({ cursor: t.string }));
    const req = (params: unknown) => JSON.stringify({ jsonrpc: "2.0", method: "m", params, id: 1 });
    expect(dispatch(req([]), methods)).toMatch(/"code":-32602/);
    expect(dispatch(req({}), methods)).toBe('{"jsonrpc":"2.0","result":[{}],"id":1}');
  });

  test("a contract's all-optional named params (MCP's tools/list)", async () => {
    const api = contract({
      "tools/list": { params: t.partial({ cursor: t.string }), result: t.type({ tools: t.array(t.string) }) },
    });
    const methods = implement(api, {
      "tools/list": (p) => E.right({ tools: p.cursor === undefined ? ["first"] : ["next"] }),
    });
    const answer = '{"jsonrpc":"2.0","result":{"tools":["first"]},"id":1}';
    expect(dispatch(absent("tools/list"), methods)).toBe(answer);
    expect(await asyncDispatch(absent("tools/list"), methods)).toBe(answer);
  });

  test("a notification without params runs the method with {}", () => {
    const seen: unknown[] = [];
    const methods = { m: withParams(t.partial({ cursor: t.string }), (p) => (seen.push(p), Success(null))) };
    expect(dispatch('{"jsonrpc":"2.0","method":"m"}', methods)).toBe("");
    expect(seen).toStrictEqual([{}]);
  });
});
