/**
 * Type tests of issue 32, item 10: a contract entry's declared `errors` bind its server, as they
 * bind its client (which reports them `declared: true`). A handler of an entry that declares
 * `errors` answers each declared code with its declared data, a standard code (-32768 to -32000),
 * or an `UndeclaredError(...)`, the visible opt-in; anything else does not compile, and the
 * compiler's message names the code given and what the entry allows (`ErrorOf<404, { id: number }>`,
 * the `UndeclaredError` mark). An entry without `errors` declares nothing: any error, as before.
 * `tsc -p tsconfig.json --noEmit` compiles the `typeOnly` bodies (each `@ts-expect-error` must be
 * needed); the tests run what the valid cases answer, unchanged at run time.
 */
import * as E from "fp-ts/Either";
import * as TE from "fp-ts/TaskEither";
import * as t from "io-ts";
import {
  contract,
  dispatch,
  Error,
  implement,
  InvalidParams,
  JsonRpcError,
  RpcError,
  server,
  UndeclaredError,
  type ErrorOf,
  type ErrorsOf,
  type StandardCode,
  type UndeclaredErrorOf,
} from "../src";
import { client, local } from "../src/client";

/** `true` exactly when A and B are the same type. */
type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;
/** Compiles `body` (so its `@ts-expect-error` lines are checked) without running it. */
const typeOnly = (body: () => void): void => void body;

const api = contract({
  // The entry: 404 carries an { id }.
  get: {
    params: t.tuple([t.number]),
    result: t.string,
    errors: [{ code: 404, message: "No such item", data: t.type({ id: t.number }) }],
  },
  // A declared code without a data schema: any data.
  busy: { result: t.string, errors: [{ code: 409, message: "Busy" }] },
  // Declares that it answers no error of its own.
  closed: { result: t.string, errors: [] },
  // Declares nothing: any error, as before.
  free: { params: t.tuple([t.number]), result: t.string },
});

/** Handlers that fit, to vary one at a time. */
const fits = {
  get: (id: number) => (id > 0 ? E.right(`item ${id}`) : RpcError(404, "No such item", { id })),
  busy: () => RpcError(409, "Busy", "anything"),
  closed: () => E.right("open"),
  free: (n: number) => RpcError(n, "any code"),
};

describe("a handler answers the errors its entry declares", () => {
  test("the issue's two cases, and each way to break a declaration, do not compile", () => {
    typeOnly(() => {
      implement(api, {
        ...fits,
        // @ts-expect-error the issue's case: 404 declares { id: number }, not { name }
        get: (id) => (id > 0 ? E.right("x") : RpcError(404, "No such item", { name: "wrong shape" })),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error the issue's case: 999 is not declared
        get: (id) => (id > 0 ? E.right("x") : RpcError(999, "Teapot")),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error 404 declares data: an error without it is not the declared one
        get: () => Error(404, "No such item"),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error the same in a TaskEither
        get: (id) => TE.left({ code: 405 as const, message: "No", data: { id } }),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error ... and in a Promise of an Either
        get: async (id) => (id > 0 ? E.right("x") : RpcError(404, "No such item", { id: String(id) })),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error errors: [] declares none of its own
        closed: () => RpcError(1, "No"),
      });
      implement(api, {
        ...fits,
        // @ts-expect-error a code typed number cannot be checked: answer a literal one, or UndeclaredError
        get: (id) => E.left({ code: id, message: "computed" }),
      });
      server(api)
        .context<{ user: string }>()
        .implement({
          get: (_ctx, id) => (id > 0 ? E.right("x") : RpcError(404, "No such item", { id })),
          busy: () => E.right("b"),
          // @ts-expect-error a server's handlers are held to the same
          closed: () => RpcError(403, "Forbidden"),
          free: () => E.right("f"),
        });
    });
    expect(fits.get(0)).toStrictEqual(E.left({ code: 404, message: "No such item", data: { id: 0 } }));
  });

  test("declared codes with their data, standard codes, UndeclaredError, and entries without errors compile", async () => {
    const methods = implement(api, {
      get: (id) =>
        id > 0
          ? E.right(`item ${id}`)
          : id === 0
            ? RpcError(404, "No such item", { id })
            : id === -1
              ? InvalidParams("a positive id")
              : id === -2
                ? Error(-32000, "Server error")
                : UndeclaredError(999, "Teapot", { brewing: true }),
      busy: () => TE.left({ code: 409 as const, message: "Busy", data: [1, 2] }),
      closed: () => RpcError(-32603, "Internal error"),
      free: (n) => RpcError(n, "any code", { n }),
    });
    const call = (id: number) => dispatch(`{"jsonrpc":"2.0","method":"get","params":[${id}],"id":1}`, methods);
    expect(call(0)).toBe('{"jsonrpc":"2.0","error":{"code":404,"message":"No such item","data":{"id":0}},"id":1}');
    expect(call(-3)).toBe('{"jsonrpc":"2.0","error":{"code":999,"message":"Teapot","data":{"brewing":true}},"id":1}');
    // The client trusts the declared one (declared: true); the opted-in one is a plain server error.
    const get = client(api, local(methods)).get;
    expect(await get(0)()).toStrictEqual(
      E.left({ _tag: "ServerError", declared: true, code: 404, message: "No such item", data: { id: 0 } }),
    );
    expect(await get(-3)()).toStrictEqual(
      E.left({ _tag: "ServerError", code: 999, message: "Teapot", data: { brewing: true } }),
    );
  });

  test("a thrown JsonRpcError is not checked, and the client holds it to the declarations (docs/contract.md)", async () => {
    const methods = implement(api, {
      ...fits,
      // Compiles: a throw has no type. What the docs say the client does with it follows.
      get: (id) => {
        if (id === 1) throw new JsonRpcError(404, "No such item", { name: "wrong shape" });
        if (id === 2) throw new JsonRpcError(999, "Teapot");
        throw new JsonRpcError(404, "No such item", { id });
      },
    });
    const get = client(api, local(methods)).get;
    expect(await get(1)()).toStrictEqual(
      E.left({ _tag: "ServerError", code: 404, message: "No such item", data: { name: "wrong shape" } }),
    );
    expect(await get(2)()).toStrictEqual(E.left({ _tag: "ServerError", code: 999, message: "Teapot" }));
    expect(await get(3)()).toStrictEqual(
      E.left({ _tag: "ServerError", declared: true, code: 404, message: "No such item", data: { id: 3 } }),
    );
  });

  test("the types: what an entry allows, the standard codes, the errors' own types", () => {
    same<
      ErrorsOf<(typeof api)["methods"]["get"]>,
      ErrorOf<404, { id: number }> | ErrorOf<StandardCode, unknown> | UndeclaredErrorOf
    >(true);
    same<ErrorsOf<(typeof api)["methods"]["free"]>, import("../src").ErrorResult>(true);
    const codes: StandardCode[] = [-32768, -32700, -32602, -32099, -32000];
    typeOnly(() => {
      // @ts-expect-error -32769 is below the reserved range
      const below: StandardCode = -32769;
      // @ts-expect-error -31999 is above it
      const above: StandardCode = -31999;
      void [below, above];
    });
    same<ReturnType<typeof RpcError<404, { id: number }>>, E.Either<ErrorOf<404, { id: number }>, never>>(true);
    expect(codes).toHaveLength(5);
    expect(UndeclaredError(999, "Teapot")).toStrictEqual(Error(999, "Teapot"));
  });
});
