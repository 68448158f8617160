/**
 * `fetchHandler` and `nodeHandler` for a methods table with typed `stages` and a `context(request)`
 * function whose parameter is not annotated: `request` is typed `Request` by its place, the context
 * it makes is inferred and checked against the stages and the methods. It failed to compile
 * (TS2769, no overload matches) until the stages' check moved from `stages` to `context`: the
 * compiler first checks such a call without the function, its context at the default, and the
 * stages refused that. The `@ts-expect-error` lines are compiled by `tsc`; the calls run too.
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { Success, withContext, type Call } from "../src";
import { fetchHandler } from "../src/fetch";
import { nodeHandler } from "../src/server";

const whoami = withContext<{ user: string }>().withCodecs({ result: t.string }, (ctx) => Success(ctx.user));
const plain = { ping: () => Success("pong") };
const authenticate = (call: Call<{ token: string }>) =>
  call.context.token === ""
    ? E.left({ code: 401, message: "Unauthorized" })
    : E.right({ ...call, context: { user: call.context.token } });

const post = (text: string, token: string) =>
  new Request("http://localhost/rpc", { method: "POST", headers: { "X-Token": token }, body: text });
const call = (method: string) => JSON.stringify({ jsonrpc: "2.0", method, id: 1 });

describe("a context function whose `request` is not annotated, with typed stages", () => {
  test("compiles, `request` a Request, and the stages turn the context it makes", async () => {
    const handler = fetchHandler(
      { whoami },
      {
        stages: [authenticate],
        context: (request) => ({ token: request.headers.get("x-token") ?? "" }),
      },
    );
    expect(await (await handler(post(call("whoami"), "ann"))).text()).toBe('{"jsonrpc":"2.0","result":"ann","id":1}');
    expect(await (await handler(post(call("whoami"), ""))).text()).toBe(
      '{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized"},"id":1}',
    );
  });

  test("an async one, and nodeHandler's, compile too", () => {
    expect(
      typeof fetchHandler(
        { whoami },
        {
          stages: [authenticate],
          context: async (request) => ({ token: request.headers.get("x-token") ?? "" }),
        },
      ),
    ).toBe("function");
    expect(
      typeof nodeHandler(
        { whoami },
        {
          stages: [authenticate],
          context: (request) => ({ token: request.headers.get("x-token") ?? "" }),
        },
      ),
    ).toBe("function");
    // A table that needs no context, with a stage that takes one.
    expect(typeof fetchHandler(plain, { stages: [authenticate], context: (request) => ({ token: request.url }) })).toBe(
      "function",
    );
  });
});

describe("the types", () => {
  test("a context the stages refuse, or none where they need one, does not compile", () => {
    // Compiled, never run.
    void (() => {
      fetchHandler(
        { whoami },
        {
          stages: [authenticate],
          // @ts-expect-error `request` is a Request: it has no `token`
          context: (request) => ({ token: request.token as string }),
        },
      );
      // @ts-expect-error the stage takes { token }, the function makes { tok }
      fetchHandler({ whoami }, { stages: [authenticate], context: (request) => ({ tok: request.url }) });
      // @ts-expect-error the same, annotated
      fetchHandler({ whoami }, { stages: [authenticate], context: (request: Request) => ({ tok: request.url }) });
      // @ts-expect-error the same for a table that needs no context: the stage still takes { token }
      fetchHandler(plain, { stages: [authenticate], context: (request) => ({ tok: request.url }) });
      // @ts-expect-error a stage that takes { token }, and no context function
      fetchHandler(plain, { stages: [authenticate] });
      // @ts-expect-error nodeHandler the same
      nodeHandler({ whoami }, { stages: [authenticate], context: (request) => ({ tok: request.url }) });
      // @ts-expect-error nodeHandler, and no context function
      nodeHandler(plain, { stages: [authenticate] });
    });
  });
});
