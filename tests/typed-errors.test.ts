/**
 * Typed errors (issue 22, item 7). A contract entry's declared `errors` type the client's Left: a
 * `DeclaredError` per declared code, whose `data` is what the declared schema (an io-ts codec or a
 * Standard Schema) decodes; `declared`, then `code`, narrow to one (a server may answer any code
 * with any data, so `declared` is what says the data passed the schema). `ErrorResult.data` may be
 * left out in what users write, and `RpcError` is `Error` under a name that does not shadow the
 * global one. Type rules are compiled by `tsc -p tsconfig.json --noEmit` (jest only transpiles),
 * each `@ts-expect-error` with why it must fail; the runtime tests decode real answers.
 */
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as TE from "fp-ts/TaskEither";
import * as t from "io-ts";
import { DateFromISOString } from "io-ts-types";
import { z } from "zod";
import {
  asyncDispatch,
  contract,
  dispatch,
  Error as SpecError,
  implement,
  openRpcDocument,
  RpcError,
  Success,
  type ErrorResult,
  type Outcome,
} from "../src";
import {
  batch,
  client,
  local,
  matchClientError,
  type CallError,
  type ClientError,
  type DeclaredError,
  type Transport,
  type UndeclaredError,
} from "../src/client";
import { recordLogs } from "./support";

type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;
/** Compiles `body` (so its `@ts-expect-error` lines are checked) without running it. */
const typeOnly = (body: () => void): void => void body;

const api = contract({
  greet: {
    params: t.type({ name: t.string }),
    result: t.string,
    errors: [
      { code: 404, message: "No such person", data: t.type({ name: t.string, since: DateFromISOString }) },
      { code: 409, message: "Busy", data: z.object({ retryAfter: z.string().transform((s) => Number(s)) }) },
      { code: 410, message: "Gone" },
    ],
  },
  ping: { result: t.literal("pong") },
});

/** A transport that answers every request with this error object. */
const answering =
  (error: object): Transport =>
  (body) =>
  async () => {
    const id = (JSON.parse(body) as { id: number }).id;
    return E.right(JSON.stringify({ jsonrpc: "2.0", error, id }));
  };

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

describe("types: declared errors narrow by declared and code", () => {
  test("the Left of a call with declared errors is a CallError of them", () => {
    typeOnly(() => {
      const calls = client(api, local({}));
      void pipe(
        calls.greet({ name: "Ann" }),
        TE.mapLeft((e) => {
          same<
            typeof e,
            CallError<
              | DeclaredError<404, { name: string; since: Date }>
              | DeclaredError<409, { retryAfter: number }>
              | DeclaredError<410, unknown>
            >
          >(true);
          if (e._tag === "ServerError" && e.declared) {
            if (e.code === 404) same<typeof e.data, { name: string; since: Date }>(true);
            if (e.code === 409) same<typeof e.data, { retryAfter: number }>(true); // a Standard Schema's output
            if (e.code === 410) same<typeof e.data, unknown>(true); // no data schema: the data as sent
            // @ts-expect-error 500 is not a declared code: no declared error has it
            if (e.code === 500) return e;
          }
          if (e._tag === "ServerError" && e.code === 404) {
            // @ts-expect-error without `declared`, a 404 may be any server's 404: its data is unknown
            void e.data.since;
            same<typeof e.declared, boolean | undefined>(true);
          }
          // Every CallError is a ClientError: code written for ClientError takes it.
          const plain: ClientError = e;
          return plain;
        }),
      );
    });
  });

  test("an entry without errors keeps ClientError; matchClientError gets the declared errors from where it is used", () => {
    typeOnly(() => {
      const calls = client(api, local({}));
      void pipe(
        calls.ping(),
        TE.mapLeft((_e) => same<typeof _e, ClientError>(true)),
      );
      void pipe(
        calls.greet({ name: "Ann" }),
        TE.mapLeft(
          matchClientError({
            ServerError: (e) => (e.declared && e.code === 404 ? e.data.since.toISOString() : e.message),
            TransportError: (e) => e.reason,
            InvalidAnswer: (e) => e.reason,
            InvalidCall: (e) => e.method,
          }),
        ),
      );
      // A fold typed for ClientError alone still fits (every CallError is one)...
      const describe = matchClientError({
        ServerError: (e) => e.code,
        TransportError: () => -1,
        InvalidAnswer: () => -2,
        InvalidCall: () => -3,
      });
      void pipe(calls.greet({ name: "Ann" }), TE.mapLeft(describe));
      // ...but it sees plain ServerErrors: their data is unknown.
      matchClientError({
        // @ts-expect-error a fold typed for ClientError: `data` is unknown, even for a 404
        ServerError: (e) => (e.code === 404 ? e.data.since : undefined),
        TransportError: () => undefined,
        InvalidAnswer: () => undefined,
        InvalidCall: () => undefined,
      });
      // A batch keeps each member's errors.
      const _both = batch([calls.greet({ name: "a" }), calls.ping()]);
      type Answers = Awaited<ReturnType<typeof _both>>;
      same<
        Answers[0],
        E.Either<
          CallError<
            | DeclaredError<404, { name: string; since: Date }>
            | DeclaredError<409, { retryAfter: number }>
            | DeclaredError<410, unknown>
          >,
          string
        >
      >(true);
      same<Answers[1], E.Either<ClientError, "pong">>(true);
      const undeclared: UndeclaredError = { _tag: "ServerError", code: 1, message: "x" };
      // @ts-expect-error an undeclared error is never `declared: true`
      const wrong: UndeclaredError = { _tag: "ServerError", code: 1, message: "x", declared: true };
      void [undeclared, wrong];
    });
  });

  test("errors[].data takes a Standard Schema; a non-schema is refused", () => {
    typeOnly(() => {
      contract({ m: { errors: [{ code: 1, message: "m", data: z.object({ n: z.number() }) }] } });
      // @ts-expect-error errors[].data is an io-ts codec or a Standard Schema, not a plain object
      contract({ m: { errors: [{ code: 1, message: "m", data: { n: 1 } }] } });
    });
  });

  test("ErrorResult.data may be left out in what users write; RpcError is Error, and does not shadow it", () => {
    typeOnly(() => {
      const gone: ErrorResult = { code: 410, message: "Gone" };
      const answer: Outcome<string> = E.left({ code: 404, message: "No such person" });
      // @ts-expect-error a message is still required
      const noMessage: ErrorResult = { code: 1 };
      implement(api, {
        greet: ({ name }) => (name === "" ? E.left({ code: 410, message: "Gone" }) : E.right(name)),
        ping: () => E.right("pong" as const),
      });
      same<typeof RpcError, typeof SpecError>(true);
      void [gone, answer, noMessage];
    });
  });
});

describe("at run time: the client decodes declared errors' data", () => {
  const call = (error: object) => client(api, answering(error)).greet({ name: "Ann" })();

  test("a declared io-ts data codec: decoded (a Date), declared: true", async () => {
    expect(
      await call({ code: 404, message: "No such person", data: { name: "Ann", since: "2020-01-02T00:00:00.000Z" } }),
    ).toStrictEqual(
      E.left({
        _tag: "ServerError",
        declared: true,
        code: 404,
        message: "No such person",
        data: { name: "Ann", since: new Date("2020-01-02T00:00:00.000Z") },
      }),
    );
  });

  test("a declared Standard Schema (zod, with a transform): decoded by it", async () => {
    expect(await call({ code: 409, message: "Busy", data: { retryAfter: "30" } })).toStrictEqual(
      E.left({ _tag: "ServerError", declared: true, code: 409, message: "Busy", data: { retryAfter: 30 } }),
    );
  });

  test("a declared code without a data schema: declared, its data as sent (or none)", async () => {
    expect(await call({ code: 410, message: "Gone", data: [1] })).toStrictEqual(
      E.left({ _tag: "ServerError", declared: true, code: 410, message: "Gone", data: [1] }),
    );
    expect(await call({ code: 410, message: "Gone" })).toStrictEqual(
      E.left({ _tag: "ServerError", declared: true, code: 410, message: "Gone" }),
    );
  });

  test("data the declared schema refuses, or no data where it wants some: not declared, as sent", async () => {
    expect(await call({ code: 404, message: "No such person", data: { name: 1 } })).toStrictEqual(
      E.left({ _tag: "ServerError", code: 404, message: "No such person", data: { name: 1 } }),
    );
    expect(await call({ code: 404, message: "No such person" })).toStrictEqual(
      E.left({ _tag: "ServerError", code: 404, message: "No such person" }),
    );
    expect(await call({ code: 409, message: "Busy", data: { retryAfter: 30 } })).toStrictEqual(
      E.left({ _tag: "ServerError", code: 409, message: "Busy", data: { retryAfter: 30 } }),
    );
  });

  test("an undeclared code: not declared", async () => {
    expect(await call({ code: -32603, message: "Internal error" })).toStrictEqual(
      E.left({ _tag: "ServerError", code: -32603, message: "Internal error" }),
    );
  });

  test("an async data schema cannot decode at once: not declared, data as sent", async () => {
    const slow = contract({
      m: { errors: [{ code: 1, message: "m", data: z.object({ n: z.number() }).refine(async () => true) }] },
    });
    expect(await client(slow, answering({ code: 1, message: "m", data: { n: 1 } })).m()()).toStrictEqual(
      E.left({ _tag: "ServerError", code: 1, message: "m", data: { n: 1 } }),
    );
  });

  test("a whole batch's error is no member's declared error", async () => {
    const lists = contract({ m: { errors: [{ code: -32600, message: "Invalid Request" }] } });
    const transport: Transport = () => async () =>
      E.right('{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}');
    const calls = client(lists, transport);
    const [a] = await batch([calls.m(), calls.m()])();
    expect(a).toStrictEqual(E.left({ _tag: "ServerError", code: -32600, message: "Invalid Request" }));
    // The same error answering the call alone is its declared one.
    expect(await calls.m()()).toStrictEqual(
      E.left({ _tag: "ServerError", declared: true, code: -32600, message: "Invalid Request" }),
    );
  });

  test("end to end: a handler's Left { code, message } without data, and with data, through local", async () => {
    const methods = implement(api, {
      greet: ({ name }) =>
        name === "gone"
          ? E.left({ code: 410, message: "Gone" })
          : RpcError(404, "No such person", { name, since: "2020-01-02T00:00:00.000Z" }),
      ping: () => E.right("pong" as const),
    });
    expect(dispatch('{"jsonrpc":"2.0","method":"greet","params":{"name":"gone"},"id":1}', methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":410,"message":"Gone"},"id":1}',
    );
    expect(await asyncDispatch('{"jsonrpc":"2.0","method":"greet","params":{"name":"gone"},"id":1}', methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":410,"message":"Gone"},"id":1}',
    );
    const calls = client(api, local(methods));
    const answer = await calls.greet({ name: "Ann" })();
    if (E.isRight(answer) || answer.left._tag !== "ServerError" || answer.left.declared !== true) {
      throw new globalThis.Error("expected a declared error");
    }
    expect(answer.left.code === 404 && answer.left.data.since.getUTCFullYear()).toBe(2020);
  });

  test("RpcError is Error; the global Error is untouched where it is imported", () => {
    expect(RpcError).toBe(SpecError);
    expect(RpcError(1, "x")).toStrictEqual(SpecError(1, "x"));
    expect(new globalThis.Error("e")).toBeInstanceOf(globalThis.Error);
    expect(Success(1)).toStrictEqual(E.right({ result: 1 }));
  });

  test("the OpenRPC document describes a Standard Schema error data", () => {
    const methods = implement(api, {
      greet: ({ name }) => E.right(name),
      ping: () => E.right("pong" as const),
    });
    const doc = openRpcDocument(methods, { title: "t", version: "1" });
    const errors = doc.methods.find((m) => m.name === "greet")?.errors ?? [];
    expect(errors.map((e) => e.code)).toStrictEqual([404, 409, 410]);
    expect(errors[1]?.data).toMatchObject({ type: "object", properties: { retryAfter: { type: "string" } } });
  });
});
