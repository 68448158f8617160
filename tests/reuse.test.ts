/**
 * Dispatch keeps its last composition and reuses it while the methods and options (the context
 * aside) are the same. Options are still read at every call: these tests change them between
 * calls, in place and by new objects, and check that each call sees its own.
 */
import * as E from "fp-ts/Either";
import { asyncDispatch, dispatch, NODATA, setLogger, Success, type Logger, type Stage } from "../src";

// A method below throws on purpose: its exception is logged, here into nothing.
let previousLogger: Logger;
beforeAll(() => {
  previousLogger = setLogger({ error: () => undefined, warn: () => undefined, info: () => undefined });
});
afterAll(() => setLogger(previousLogger));

const request = '{"jsonrpc":"2.0","method":"whoami","id":1}';
const methods = { whoami: (context: unknown) => Success(context) };
const resultOf = (text: string): unknown => (JSON.parse(text) as { result?: unknown }).result;

test("each call gets its own context, with the same options otherwise", () => {
  const options = { context: "ann" };
  expect(resultOf(dispatch(request, methods, options))).toBe("ann");
  expect(resultOf(dispatch(request, methods, { context: "bob" }))).toBe("bob");
  options.context = "cid";
  expect(resultOf(dispatch(request, methods, options))).toBe("cid");
});

test("a stage added to the same array in place takes effect at the next call", () => {
  const refuse: Stage = () => E.left({ code: 1, message: "refused", data: NODATA });
  const stages: Stage[] = [];
  const options = { context: "ann", stages };
  expect(resultOf(dispatch(request, methods, options))).toBe("ann");
  stages.push(refuse);
  expect(dispatch(request, methods, options)).toBe('{"jsonrpc":"2.0","error":{"code":1,"message":"refused"},"id":1}');
  stages.pop();
  expect(resultOf(dispatch(request, methods, options))).toBe("ann");
});

test("a changed option is read: debug, maxBatchSize, serializer, validator, deserializer", () => {
  const boom = {
    boom: (): never => {
      throw new globalThis.Error("secret");
    },
  };
  const call = '{"jsonrpc":"2.0","method":"boom","id":1}';
  const options: { debug?: boolean } = {};
  expect(dispatch(call, boom, options)).not.toContain("secret");
  options.debug = true;
  expect(dispatch(call, boom, options)).toContain("secret");

  const batch = `[${request},${request}]`;
  expect(JSON.parse(dispatch(batch, methods, { maxBatchSize: 2 }))).toHaveLength(2);
  expect(JSON.parse(dispatch(batch, methods, { maxBatchSize: 1 }))).toMatchObject({ error: { code: -32600 } });

  expect(dispatch(request, methods, { serializer: () => "custom" })).toBe("custom");
  expect(dispatch(request, methods, { context: null })).toBe('{"jsonrpc":"2.0","result":null,"id":1}');

  const refuseAll = (): never => {
    throw new globalThis.Error("no");
  };
  expect(JSON.parse(dispatch(request, methods, { validator: refuseAll }))).toMatchObject({ error: { code: -32600 } });
  expect(
    dispatch(request, methods, { context: null, deserializer: () => ({ jsonrpc: "2.0", method: "whoami", id: 7 }) }),
  ).toBe('{"jsonrpc":"2.0","result":null,"id":7}');
});

test("another methods table is another composition", () => {
  const other = { whoami: () => Success("other") };
  expect(resultOf(dispatch(request, methods, { context: 1 }))).toBe(1);
  expect(resultOf(dispatch(request, other, { context: 1 }))).toBe("other");
});

test("a bad option still throws after a good call with the same methods", () => {
  expect(resultOf(dispatch(request, methods, { context: 1 }))).toBe(1);
  expect(() => dispatch(request, methods, { maxBatchSize: 0 })).toThrow(RangeError);
  expect(resultOf(dispatch(request, methods, { context: 2 }))).toBe(2);
});

test("a method that dispatches again, with another context, does not change its caller's batch", async () => {
  const inner = { whoami: (context: unknown) => Success(context) };
  const outer = {
    nested: async (context: unknown) => {
      const answer = await asyncDispatch(request, inner, { context: `inner of ${String(context)}` });
      return Success(resultOf(answer));
    },
    whoami: (context: unknown) => Success(context),
  };
  const batch = JSON.stringify([
    { jsonrpc: "2.0", method: "nested", id: 1 },
    { jsonrpc: "2.0", method: "whoami", id: 2 },
  ]);
  const answers = JSON.parse(await asyncDispatch(batch, outer, { context: "outer" })) as Array<{ result: unknown }>;
  expect(answers.map((a) => a.result)).toEqual(["inner of outer", "outer"]);
});
