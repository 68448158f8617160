/**
 * Contract results with defaults (issue 22, item 6). A contract's result Standard Schema runs at
 * both ends: the server checks the handler's value and sends the schema's output, the client checks
 * that output again. A schema whose output it takes again unchanged is fine: a default (zod's
 * `.default()`, the MCP SDK's `CallToolResultSchema`) fills in on the server, and the client's
 * check fills in nothing. A transform to another type is refused at compile time, and the reason is
 * the first line of the error. Type checks are compiled by `tsc -p tsconfig.json --noEmit` (jest
 * only transpiles); the runtime tests run the calls end to end.
 */
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { z } from "zod";
import { contract, implement, type ResultOf } from "../src";
import type { ContractRefusal } from "../src/types";
import { client, local } from "../src/client";

type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;
/** Compiles `body` (so its `@ts-expect-error` lines are checked) without running it. */
const typeOnly = (body: () => void): void => void body;

const Page = z.object({ items: z.array(z.string()).default([]), next: z.string().optional() });

const api = contract({
  "tools/call": { params: t.type({ name: t.string }), result: CallToolResultSchema },
  page: { result: Page },
});

test("types: a result schema with defaults is a contract result; the handler may leave defaulted keys out", () => {
  typeOnly(() => {
    // The MCP SDK's own result schema, and a zod object with a default, compile as contract results.
    contract({ call: { result: CallToolResultSchema } });
    contract({ n: { result: z.number().default(0) } });
    contract({ n: { result: z.string().brand<"Id">() } });
    contract({ n: { result: z.number().int().positive() } });
    // The handler answers the schema's input: `items` may be left out...
    implement(api, { "tools/call": () => E.right({}), page: () => E.right({ next: "2" }) });
    // ...and the client gets its output: `items` is there.
    same<ResultOf<(typeof api.methods)["page"]>, { items: string[]; next?: string | undefined }>(true);
    const _calls = client(api, local({}));
    same<
      ReturnType<typeof _calls.page> extends { (): Promise<E.Either<unknown, infer A>> } ? A : never,
      {
        items: string[];
        next?: string | undefined;
      }
    >(true);
    same<ContractRefusal<{ n: { result: typeof Page } }>, never>(true);
  });
});

test("types: a transform to another type is refused, and the error's first line says why", () => {
  typeOnly(() => {
    // @ts-expect-error contract: the result schema of "len" gives a type it does not take (a transform)...
    contract({ len: { result: z.string().transform((s) => s.length) } });
    // @ts-expect-error the same in a contract of several methods: the reason names the method
    contract({ ok: { result: z.number() }, len: { result: z.string().transform((s) => s.length) } });
    // The reason is the parameter's type, so the compiler's first line names it (and what to use).
    type Why = ContractRefusal<{ len: { result: z.ZodPipe<z.ZodString, z.ZodTransform<number, string>> } }>;
    const why: Why =
      'contract: the result schema of "len" gives a type it does not take (a transform), and the client checks the server\'s output with it again; use an io-ts codec (encode on the server, decode on the client) or a schema that accepts its own output (defaults and refinements do)';
    void why;
    // A params schema may transform: the client sends its input.
    contract({ len: { params: z.tuple([z.string().transform((s) => s.length)]), result: z.number() } });
  });
});

describe("at run time: the server fills the defaults in, the client's check of its output changes nothing", () => {
  const methods = implement(api, {
    "tools/call": ({ name }) =>
      E.right(name === "empty" ? {} : { content: [{ type: "text" as const, text: `hello ${name}` }] }),
    page: () => E.right({ next: "2" }),
  });
  const calls = client(api, local(methods));

  test("CallToolResultSchema: content defaults to []", async () => {
    expect(await calls["tools/call"]({ name: "empty" })()).toStrictEqual(E.right({ content: [] }));
    expect(await calls["tools/call"]({ name: "ann" })()).toStrictEqual(
      E.right({ content: [{ type: "text", text: "hello ann" }] }),
    );
  });

  test("a zod default: the wire carries it, the client gets it", async () => {
    expect(await calls.page()()).toStrictEqual(E.right({ items: [], next: "2" }));
    const { asyncDispatch } = await import("../src");
    expect(await asyncDispatch('{"jsonrpc":"2.0","method":"page","id":1}', methods)).toBe(
      '{"jsonrpc":"2.0","result":{"items":[],"next":"2"},"id":1}',
    );
  });
});
