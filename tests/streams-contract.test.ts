/**
 * Issue 24, the handler side, for contracts: an entry's `stream` member, its handler as an
 * `async function*` returning an Either, the `x-stream` extension of the OpenRPC document, and the
 * types (`tsc -p tsconfig.json --noEmit` checks each `@ts-expect-error`). The dispatch of streaming
 * methods itself is tested in tests/streams-core.test.ts.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { DateFromISOString } from "io-ts-types";
import { z } from "zod";
import {
  asyncDispatch,
  contract,
  implement,
  method,
  openRpcDocument,
  Success,
  withCodecs,
  withContext,
  type Call,
  type ErrorResult,
} from "../src";
import { streamTo } from "../src/pipeline";

/** Compiles `body` (so its `@ts-expect-error` lines are checked) without running it. */
const typeOnly = (body: () => void): void => void body;

const request = (name: string, params: unknown, id: number): string =>
  JSON.stringify({ jsonrpc: "2.0", method: name, params, id });

/** A stage that hands every request's values to `seen`. */
const collecting =
  (seen: unknown[]) =>
  (call: Call): E.Either<ErrorResult, Call> => {
    streamTo(call.request, (value) => void seen.push(value));
    return E.right(call);
  };

describe("a contract entry with `stream`", () => {
  const api = contract({
    count: { params: t.tuple([t.number]), stream: DateFromISOString, result: t.string },
    plain: { result: t.number },
  });

  test("its handler is an async function* returning an Either; values encoded by the entry's codec", async () => {
    const methods = implement(api, {
      count: async function* (to) {
        for (let day = 1; day <= to; day++) yield new Date(Date.UTC(2024, 0, day));
        return to > 1 ? E.right(`counted to ${to}`) : E.left({ code: 1, message: "too few" });
      },
      plain: () => E.right(1),
    });
    const seen: unknown[] = [];
    const stages = [collecting(seen)];
    expect(await asyncDispatch(request("count", [2], 1), methods, { stages })).toBe(
      '{"jsonrpc":"2.0","result":"counted to 2","id":1}',
    );
    expect(await asyncDispatch(request("count", [1], 2), methods, { stages })).toBe(
      '{"jsonrpc":"2.0","error":{"code":1,"message":"too few"},"id":2}',
    );
    expect(seen).toEqual(["2024-01-01T00:00:00.000Z", "2024-01-02T00:00:00.000Z", "2024-01-01T00:00:00.000Z"]);
  });

  test("a generator returning something other than an Either is -32603, as a handler's value is", async () => {
    const methods = implement(api, {
      // @ts-expect-error the generator must return an Either of the result type
      count: async function* () {
        yield new Date(0);
        return "not an Either";
      },
      plain: () => E.right(1),
    });
    expect(await asyncDispatch(request("count", [1], 1), methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"The method did not return an Either"},"id":1}',
    );
  });

  test("the OpenRPC document shows the stream as x-stream, in its wire form", () => {
    const methods = implement(api, {
      count: async function* () {
        yield new Date(0);
        return E.right("ok");
      },
      plain: () => E.right(1),
    });
    const described = openRpcDocument(methods, { title: "t", version: "1" }).methods;
    expect(described[0]?.["x-stream"]).toEqual({ name: "stream", schema: { type: "string", format: "date-time" } });
    expect(described[1]).not.toHaveProperty("x-stream");
  });

  test("contract and withCodecs refuse a stream that is not a codec or a Standard Schema", () => {
    expect(() => contract({ m: { stream: 1 as never } })).toThrow(
      "contract: m.stream must be an io-ts codec or a Standard Schema",
    );
    expect(() => withCodecs({ stream: {} as never }, () => Success(1))).toThrow(
      "withCodecs: stream must be an io-ts codec or a Standard Schema",
    );
  });

  test("types: what a handler may yield and return", () => {
    typeOnly(() => {
      implement(api, {
        // @ts-expect-error a value of the wrong type: the entry streams Dates
        count: async function* () {
          yield "2024-01-01";
          return E.right("ok");
        },
        plain: () => E.right(1),
      });
      implement(api, {
        count: () => E.right("a handler of a streaming entry need not stream"),
        // @ts-expect-error an entry without `stream` takes no generator
        plain: async function* () {
          yield 1;
          return E.right(1);
        },
      });
      withCodecs({ stream: t.number }, async function* () {
        yield 1;
        return Success("ok");
      });
      // @ts-expect-error a plain method yielding a value of the wrong type
      withCodecs({ stream: t.number }, async function* () {
        yield "one";
        return Success("ok");
      });
      // @ts-expect-error without `stream`, withCodecs takes no generator
      withCodecs({ result: t.number }, async function* () {
        yield 1;
        return Success(1);
      });
      // @ts-expect-error a stream schema that transforms: the client checks the server's output with it again
      contract({ m: { stream: z.string().transform((text) => text.length) } });
      contract({ m: { stream: z.number().int() } });
      method(
        async function* streamer() {
          yield 1;
          return Success(1);
        },
        { stream: t.number },
      );
      const { withCodecs: withUser } = withContext<{ user: string }>();
      withUser({ stream: t.string }, async function* (ctx) {
        yield ctx.user;
        return Success(null);
      });
    });
    expect(true).toBe(true);
  });
});
