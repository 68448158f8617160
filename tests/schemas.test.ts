/**
 * Standard Schema v1 validators beside io-ts: the same methods written with zod 4 and valibot 1,
 * through sync and async dispatch, a contract and its client, and the `validator` option.
 * (ArkType 2 and Effect 4 ship ES modules only, which this Jest setup does not load.)
 */
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import Ajv from "ajv";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import * as v from "valibot";
import { z } from "zod";
import {
  asyncDispatch,
  contract,
  dispatch,
  implement,
  isStandardSchema,
  method,
  openRpcDocument,
  Success,
  toJsonSchema,
  withCodecs,
  withContext,
  withParams,
  type StandardJSONSchemaV1,
  type StandardSchemaV1,
} from "../src";
import { client, local, type Transport } from "../src/client";
import type { type as ArkType } from "arktype";
import { validateOpenRPCDocument } from "./helpers/openrpc";
import { recordLogs } from "./support";

declare const arkType: typeof ArkType;

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;
const typeOnly = (body: () => void): void => void body;

const request = (method: string, params: unknown): string => JSON.stringify({ jsonrpc: "2.0", method, params, id: 1 });

const libraries = [
  {
    name: "zod",
    add: z.tuple([z.number(), z.number()]),
    greet: z.object({ name: z.string().min(2) }),
    int: z.number().int(),
  },
  {
    name: "valibot",
    add: v.tuple([v.number(), v.number()]),
    greet: v.object({ name: v.pipe(v.string(), v.minLength(2)) }),
    int: v.pipe(v.number(), v.integer()),
  },
] as const;

describe.each(libraries)("$name schemas", (library) => {
  const methods = {
    add: withCodecs({ params: library.add, result: library.int }, (a, b) => Success(a + b)),
    greet: withParams(library.greet, (p) => Success(`hi ${p.name}`)),
  };

  test.each([
    ["sync", (text: string) => Promise.resolve(dispatch(text, methods))],
    ["async", (text: string) => asyncDispatch(text, methods)],
  ] as const)("%s dispatch: accepted, refused params (-32602), refused result (-32603)", async (_name, run) => {
    expect(JSON.parse((await run(request("add", [1, 2]))) as string)).toEqual({ jsonrpc: "2.0", result: 3, id: 1 });
    expect(JSON.parse((await run(request("greet", { name: "ann" }))) as string).result).toBe("hi ann");
    const refused = JSON.parse((await run(request("add", [1, "x"]))) as string);
    expect(refused.error.code).toBe(-32602);
    expect(refused.error.data).toEqual([expect.stringMatching(/^params\[1\]: /)]);
    const named = JSON.parse((await run(request("greet", { name: "a" }))) as string);
    expect(named.error.data).toEqual([expect.stringMatching(/^params\.name: /)]);
    const logs = recordLogs();
    try {
      const result = JSON.parse((await run(request("add", [1.5, 1]))) as string);
      expect(result.error.code).toBe(-32603);
      expect(result.error.data).toEqual([expect.stringMatching(/^result: /)]);
    } finally {
      logs.restore();
    }
  });

  test("a contract's client decodes results with the schema", async () => {
    const api = contract({ add: { params: library.add, result: library.int } });
    const calc = client(api, local(implement(api, { add: (a, b) => E.right(a + b) })));
    expect(await calc.add(1, 2)()).toEqual(E.right(3));
  });

  test("the validator option: -32600 with the schema's lines", () => {
    const validator = library.name === "zod" ? z.object({ id: z.number() }).loose() : v.looseObject({ id: v.number() });
    const answer = JSON.parse(
      dispatch('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":"a"}', methods, { validator }) as string,
    );
    expect(answer.error.code).toBe(-32600);
    expect(answer.error.data).toMatch(/^request\.id: /);
  });
});

describe("an async refinement", () => {
  const methods = {
    echo: withParams(
      z.tuple([z.string()]).refine(async ([s]) => s !== "no", "refused"),
      (s) => Success(s),
    ),
  };

  test("async dispatch waits for it", async () => {
    expect(JSON.parse((await asyncDispatch(request("echo", ["yes"]), methods)) as string).result).toBe("yes");
    const refused = JSON.parse((await asyncDispatch(request("echo", ["no"]), methods)) as string);
    expect(refused.error).toEqual({ code: -32602, message: "Invalid params", data: ["params: refused"] });
  });

  test("sync dispatch answers -32603, saying to use async dispatch", () => {
    const logs = recordLogs();
    try {
      const answer = JSON.parse(dispatch(request("echo", ["yes"]), methods) as string);
      expect(answer.error).toEqual({
        code: -32603,
        message: "Internal error",
        data: "The params schema returned a Promise; use asyncDispatch",
      });
    } finally {
      logs.restore();
    }
  });

  test("a contract handler behind one (a TaskEither) is called with what it gave; a rejected validate is -32603", async () => {
    const api = contract({ echo: { params: z.tuple([z.string()]).refine(async ([s]) => s !== "no", "refused") } });
    const table = implement(api, { echo: (s) => () => Promise.resolve(E.right(`<${s}>`)) });
    expect(JSON.parse((await asyncDispatch(request("echo", ["yes"]), table)) as string).result).toBe("<yes>");
    expect(JSON.parse((await asyncDispatch(request("echo", ["no"]), table)) as string).error.data).toEqual([
      "params: refused",
    ]);
    const rejecting: StandardSchemaV1<[string]> = {
      "~standard": { version: 1, vendor: "mine", validate: () => Promise.reject(new Error("store down")) },
    };
    const logs = recordLogs();
    try {
      const answer = JSON.parse(
        (await asyncDispatch(request("echo", ["x"]), { echo: withParams(rejecting, (s) => Success(s)) })) as string,
      );
      expect(answer.error).toEqual({ code: -32603, message: "Internal error" });
      expect(JSON.stringify(logs.entries)).toContain('params schema of method \\"echo\\" raised an exception');
    } finally {
      logs.restore();
    }
  });

  test("with a context, the method receives it first", async () => {
    const { withParams: withCtx } = withContext<{ user: string }>();
    const greet = {
      greet: withCtx(z.object({ greeting: z.string() }), (ctx, p) => Success(`${p.greeting}, ${ctx.user}`)),
    };
    const answer = await asyncDispatch(request("greet", { greeting: "hi" }), greet, { context: { user: "ann" } });
    expect(JSON.parse(answer as string).result).toBe("hi, ann");
  });
});

test("method(f, options) and method(options)(f) register a schema's methods in the global table", () => {
  method((a: number, b: number) => Success(a + b), {
    name: "schemasZodAdd",
    params: z.tuple([z.number(), z.number()]),
    result: z.number().int(),
  });
  method({ name: "schemasValibotGreet", params: v.object({ name: v.string() }) })((p: { name: string }) =>
    Success(`hi ${p.name}`),
  );
  expect(JSON.parse(dispatch(request("schemasZodAdd", [1, 2])) as string).result).toBe(3);
  expect(JSON.parse(dispatch(request("schemasZodAdd", [1, "x"])) as string).error).toMatchObject({
    code: -32602,
    data: [expect.stringMatching(/^params\[1\]: /)],
  });
  expect(JSON.parse(dispatch(request("schemasValibotGreet", { name: "ann" })) as string).result).toBe("hi ann");
  expect(JSON.parse(dispatch(request("schemasValibotGreet", { name: 1 })) as string).error.code).toBe(-32602);
});

test("toJsonSchema describes a schema's input by default and its output when asked", () => {
  const lengthOf: StandardSchemaV1<string, number> & StandardJSONSchemaV1<string, number> = {
    "~standard": {
      version: 1,
      vendor: "mine",
      validate: (value) => ({ value: String(value).length }),
      jsonSchema: {
        input: () => ({ $schema: "http://json-schema.org/draft-07/schema#", type: "string" }),
        output: () => ({ type: "integer" }),
      },
    },
  };
  expect(toJsonSchema(lengthOf)).toEqual({ type: "string" });
  expect(toJsonSchema(lengthOf, "output")).toEqual({ type: "integer" });
  const document = openRpcDocument(
    { len: withCodecs({ params: z.tuple([z.string()]), result: lengthOf }, (text) => Success(text)) },
    {
      title: "sides",
      version: "1.0.0",
    },
  );
  expect(document.methods[0]?.result).toMatchObject({ schema: { type: "integer" } });
});

describe("an async result schema", () => {
  const positive = z.number().refine(async (n) => n > 0, "must be positive");
  const methods = {
    plain: withCodecs({ params: z.tuple([z.number()]), result: positive }, (n) => Success(n)),
    later: withCodecs({ params: z.tuple([z.number()]), result: positive }, async (n) => Success(n)),
    doubled: withCodecs({ result: z.number().transform(async (n) => n * 2) }, () => Success(21)),
  };
  const api = contract({ checked: { params: z.tuple([z.number()]), result: positive } });
  const table = { ...methods, ...implement(api, { checked: (n) => E.right(n) }) };

  test.each(["plain", "later", "checked"])(
    "async dispatch waits for it (%s): the value, or -32603 with its line",
    async (name) => {
      expect(JSON.parse((await asyncDispatch(request(name, [2]), table)) as string)).toEqual({
        jsonrpc: "2.0",
        result: 2,
        id: 1,
      });
      const logs = recordLogs();
      try {
        const refused = JSON.parse((await asyncDispatch(request(name, [-1]), table)) as string);
        expect(refused.error).toEqual({ code: -32603, message: "Internal error", data: ["result: must be positive"] });
        expect(JSON.stringify(logs.entries)).toContain("result schema");
      } finally {
        logs.restore();
      }
    },
  );

  test("what the schema gives is sent (an async transform)", async () => {
    expect(JSON.parse((await asyncDispatch(request("doubled", undefined), table)) as string).result).toBe(42);
  });

  test("in a batch, each member waits for its own", async () => {
    const body = `[${request("plain", [1])},${request("checked", [-1]).replace('"id":1', '"id":2')}]`;
    const logs = recordLogs();
    const answers = JSON.parse((await asyncDispatch(body, table)) as string);
    expect(answers).toEqual([
      { jsonrpc: "2.0", result: 1, id: 1 },
      { jsonrpc: "2.0", error: { code: -32603, message: "Internal error", data: ["result: must be positive"] }, id: 2 },
    ]);
    logs.restore();
  });

  test("sync dispatch answers -32603, saying to use async dispatch; the refused Promise is handled", async () => {
    const logs = recordLogs();
    try {
      for (const name of ["plain", "checked"]) {
        const answer = JSON.parse(dispatch(request(name, [-1]), table) as string);
        expect(answer.error).toEqual({
          code: -32603,
          message: "Internal error",
          data: "The result schema returned a Promise; use asyncDispatch",
        });
      }
      // A notification's refused result is waited for only to be logged.
      expect(await asyncDispatch('{"jsonrpc":"2.0","method":"checked","params":[-1]}', table)).toBe("");
      expect(JSON.stringify(logs.entries)).toContain('the result schema of method \\"checked\\" refused its value');
    } finally {
      logs.restore();
    }
  });
});

describe("the client: one argument, sent alone or as the list", () => {
  /** A transport over `local` that keeps the params of each body it sends. */
  const recording = (methods: Parameters<typeof local>[0]) => {
    const sent: unknown[] = [];
    const inner = local(methods);
    const transport: Transport = (body, options) => {
      sent.push((JSON.parse(body) as { params?: unknown }).params);
      return inner(body, options);
    };
    return { sent, transport };
  };
  const cases = [
    // Their JSON Schema says it once: an array spreads, an object goes alone, async or not.
    ["zod, an async tuple of one", z.tuple([z.string()]).refine(async () => true), ["x"], ["x"]],
    ["zod, an async object", z.object({ s: z.string() }).refine(async () => true), [{ s: "x" }], { s: "x" }],
    ["zod, a tuple of one", z.tuple([z.string()]), ["x"], ["x"]],
    // Without a JSON Schema, the schema is asked whether it takes the list.
    ["valibot without JSON Schema, a tuple of one", v.tuple([v.string()]), ["x"], ["x"]],
    ["valibot without JSON Schema, an object", v.object({ s: v.string() }), [{ s: "x" }], { s: "x" }],
  ] as const;

  test.each(cases)("%s", async (_name, params, args, wire) => {
    const api = contract({ echo: { params: params as StandardSchemaV1 } });
    const { sent, transport } = recording(implement(api, { echo: () => E.right("ok") }));
    const echo = client(api, transport).echo as unknown as (...xs: unknown[]) => () => Promise<unknown>;
    expect(await echo(...args)()).toEqual(E.right("ok"));
    expect(sent).toEqual([wire]);
  });
});

describe("an async validator schema", () => {
  const validator = z
    .object({ jsonrpc: z.literal("2.0"), method: z.string(), id: z.number().optional() })
    .loose()
    .refine(async (request) => request.method !== "forbidden", "forbidden");
  const methods = { ping: () => Success("pong"), forbidden: () => Success("ran") };

  test("async dispatch waits for it: passes, or -32600 with its line", async () => {
    expect(JSON.parse((await asyncDispatch(request("ping", undefined), methods, { validator })) as string).result).toBe(
      "pong",
    );
    const refused = JSON.parse(
      (await asyncDispatch(request("forbidden", undefined), methods, { validator })) as string,
    );
    expect(refused).toEqual({
      jsonrpc: "2.0",
      error: { code: -32600, message: "Invalid Request", data: "request: forbidden" },
      id: null,
    });
    const batch = `[${request("ping", undefined)},${request("forbidden", undefined)}]`;
    expect(JSON.parse((await asyncDispatch(batch, methods, { validator })) as string)).toEqual([
      { jsonrpc: "2.0", result: "pong", id: 1 },
      { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request", data: "request: forbidden" }, id: null },
    ]);
  });

  test("a validate that rejects is that request's -32600", async () => {
    const rejecting: StandardSchemaV1 = {
      "~standard": { version: 1, vendor: "mine", validate: () => Promise.reject(new Error("no store")) },
    };
    const answer = JSON.parse(
      (await asyncDispatch(request("ping", undefined), methods, { validator: rejecting })) as string,
    );
    expect(answer.error).toEqual({ code: -32600, message: "Invalid Request", data: "no store" });
  });

  test("sync dispatch answers -32603, saying to use async dispatch", () => {
    const logs = recordLogs();
    try {
      const answer = JSON.parse(dispatch(request("ping", undefined), methods, { validator }) as string);
      expect(answer).toEqual({
        jsonrpc: "2.0",
        error: { code: -32603, message: "Internal error", data: "The validator returned a Promise; use asyncDispatch" },
        id: null,
      });
    } finally {
      logs.restore();
    }
  });
});

test("io-ts codecs are not Standard Schemas; zod and valibot schemas are", () => {
  expect(isStandardSchema(t.number)).toBe(false);
  expect(isStandardSchema(z.number())).toBe(true);
  expect(isStandardSchema(v.number())).toBe(true);
});

test("types: handlers receive the schema's output; a result schema types the handler's value", () => {
  typeOnly(() => {
    withCodecs({ params: z.tuple([z.string().transform((s) => s.length)]) }, (n) => {
      same<typeof n, number>(true);
      return Success(n);
    });
    withParams(v.object({ name: v.string() }), (p) => {
      same<typeof p, { name: string }>(true);
      return Success(p.name);
    });
    // @ts-expect-error the result schema takes a number
    withCodecs({ params: z.tuple([z.number()]), result: z.number() }, (n) => Success(`${n}`));
    const api = contract({ len: { params: z.tuple([z.string()]), result: z.number() } });
    const _calc = client(api, local({}));
    same<Parameters<typeof _calc.len>, [string]>(true);
    const _mine: StandardSchemaV1<string, number> = z.string().transform((s) => s.length);
    same<StandardSchemaV1.InferOutput<typeof _mine>, number>(true);
  });
});

test("types: each library's inference, the client's arguments, and a contract's result schema that transforms", () => {
  typeOnly(() => {
    // ArkType: its own types, inferred through the interface (a value declared: ESM-only; Effect's
    // types need the DOM library, so its adapter's inference is left to tests/fixtures).
    const ark = arkType({ name: "string", age: "number.integer" });
    withParams(ark, (p) => {
      same<typeof p, { name: string; age: number }>(true);
      return Success(p.name);
    });
    // A params schema that transforms: the handler gets its output, the client sends its input.
    const api = contract({
      len: { params: z.tuple([z.string().transform((s) => s.length)]), result: z.number() },
      greet: { params: v.object({ name: v.optional(v.string(), "you") }), result: v.string() },
    });
    implement(api, {
      len: (n) => {
        same<typeof n, number>(true);
        return E.right(n);
      },
      greet: (p) => {
        same<typeof p, { name: string }>(true);
        return E.right(p.name);
      },
    });
    const calls = client(api, local({}));
    same<Parameters<typeof calls.len>, [string]>(true);
    same<Parameters<typeof calls.greet>, [{ name?: string | undefined }]>(true);
    // @ts-expect-error the client sends the schema's input: a string, not the number the handler gets
    calls.len(3);
    // @ts-expect-error a contract's result schema must not transform: the client would run it on its output
    contract({ len: { result: z.string().transform((s) => s.length) } });
    // @ts-expect-error the handler answers the result schema's type
    implement(contract({ n: { result: z.number() } }), { n: () => E.right("one") });
  });
});

describe("documents", () => {
  const ajv = new Ajv({ strict: false });
  const info = { title: "schemas", version: "1.0.0" };

  test.each([
    ["zod", z.object({ name: z.string().min(2) }), z.number().int()],
    [
      "valibot",
      toStandardJsonSchema(v.object({ name: v.pipe(v.string(), v.minLength(2)) })),
      toStandardJsonSchema(v.pipe(v.number(), v.integer())),
    ],
  ] as const)(
    "%s: params from jsonSchema.input, the result from its output; a valid document",
    (_name, params, result) => {
      const methods = { greet: withCodecs({ params, result }, () => Success(1)) };
      const document = openRpcDocument(methods, info);
      expect(validateOpenRPCDocument(document)).toBe("true");
      const method = document.methods[0]!;
      const schemaOf = (descriptor: unknown): object => (descriptor as { schema: object }).schema;
      const paramsSchema = ajv.compile(schemaOf(method.params[0]));
      // Object params are split by name: the first param is `name`.
      expect(method.params[0]).toMatchObject({ name: "name", required: true });
      expect(paramsSchema("ann")).toBe(true);
      expect(paramsSchema("a")).toBe(false);
      const resultSchema = ajv.compile(schemaOf(method.result));
      expect(resultSchema(3)).toBe(true);
      expect(resultSchema(1.5)).toBe(false);
    },
  );

  test("a schema without jsonSchema is {} with a description naming its vendor; one that throws too", () => {
    const bare: StandardSchemaV1<number> = {
      "~standard": { version: 1, vendor: "mine", validate: (value) => ({ value: value as number }) },
    };
    const throwing = {
      "~standard": {
        ...bare["~standard"],
        jsonSchema: {
          input: () => {
            throw new Error("no");
          },
          output: () => ({}),
        },
      },
    };
    const methods = {
      a: withCodecs({ params: bare, result: throwing }, () => Success(1)),
      b: withParams(throwing, () => Success(1)),
    };
    const document = openRpcDocument(methods, info);
    expect(validateOpenRPCDocument(document)).toBe("true");
    expect(JSON.stringify(document)).toContain("A mine schema, which gives no JSON Schema");
    expect(toJsonSchema(z.string())).toEqual({ type: "string" });
    expect(
      toJsonSchema(
        z.string().transform((s) => s.length),
        "input",
      ),
    ).toEqual({ type: "string" });
  });
});
