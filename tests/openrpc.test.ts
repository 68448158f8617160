/**
 * OpenRPC (src/openrpc.ts) and result codecs:
 *
 * 1. Result codecs: the value in `Success` is encoded before it is sent (sync and async dispatch,
 *    in a batch, `DateFromISOString`); an encode that throws is that request's -32603; the types.
 * 2. `openRpcDocument`: params by name and by position, methods without codecs, codecs that cannot
 *    be split, recursive codecs in `components.schemas`, errors, examples, tags, order, info.
 * 3. The document of examples/methods.mjs (printed by the built command's `--openrpc`) and of a
 *    table with every codec kind, validated against the official meta-schema
 *    (`@open-rpc/meta-schema`, with ajv as draft 07) and by `@open-rpc/schema-utils-js`.
 * 4. `rpc.discover`: through dispatch (opt-in, no warning), through `serve` and through the
 *    `rpcserver` command; `--openrpc`.
 * 5. The context is never a param: `openRpcDocument(methods, info, { context: true })`, methods
 *    made to take one, and `rpc.discover` describing the table it is dispatched with (wherever it
 *    is put), the context left out when dispatch (or `serve`) has one.
 */
import * as jsonSchemaTools from "@json-schema-tools/meta-schema";
import * as openRpcMeta from "@open-rpc/meta-schema";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { DateFromISOString, NonEmptyString, NumberFromString, UUID } from "io-ts-types";
import {
  asyncDispatch,
  contract,
  discover,
  DISCOVER,
  dispatch,
  dispatchToSerializable,
  Error as RpcError,
  globalMethods,
  InvalidParams,
  method,
  openRpcDocument,
  OPENRPC_VERSION,
  serve,
  server as contractServer,
  Success,
  toJsonSchema,
  withCodecs,
  withContext,
  withParams,
  type Method,
  type Methods,
  type OpenRpcDocument,
  type Result,
} from "../src";
import { validateOpenRPCDocument } from "./helpers/openrpc";
import { HOST, killAll, requireBuild, runCli, startCli } from "./helpers/processes";
import { recordLogs, recordWarnings } from "./support";

/** `true` exactly when A and B are the same type. */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;
/** Compiles `body` (so its `@ts-expect-error` lines are checked) without running it. */
const typeOnly = (body: () => void): void => void body;

const INFO = { title: "Test service", version: "1.2.3" } as const;

const request = (method: string, params?: unknown, id: number | null = 1): Record<string, unknown> => ({
  jsonrpc: "2.0",
  method,
  ...(params === undefined ? {} : { params }),
  ...(id === null ? {} : { id }),
});
const body = (...requests: Array<Record<string, unknown>>): string =>
  JSON.stringify(requests.length === 1 ? requests[0] : requests);

/** A codec whose `encode` throws: the method's value cannot be sent. */
const Unsendable = new t.Type<number, number, unknown>("Unsendable", t.number.is, t.number.validate, () => {
  throw new globalThis.Error("cannot encode this");
});

let logs: ReturnType<typeof recordLogs>;

beforeEach(() => {
  logs = recordLogs();
});

afterEach(() => {
  logs.restore();
  for (const name of Object.keys(globalMethods)) delete globalMethods[name];
});

afterAll(() => {
  killAll();
});

// ---------------------------------------------------------------------------------------------
// 1. result codecs

describe("result codecs encode what a method returns", () => {
  const start = new Date("2024-02-28T00:00:00.000Z");
  const methods = {
    day: withCodecs({ result: DateFromISOString }, () => Success(start)),
    later: withCodecs({ params: t.tuple([DateFromISOString, t.number]), result: DateFromISOString }, (d, days) =>
      Success(new Date(d.getTime() + days * 86_400_000)),
    ),
    asyncDay: withCodecs({ result: DateFromISOString }, async () => Success(start)),
    count: withCodecs({ result: NumberFromString }, () => Success(42)),
    nested: withCodecs({ result: t.type({ at: DateFromISOString, tags: t.array(t.string) }) }, () =>
      Success({ at: start, tags: ["a"] }),
    ),
    failing: withCodecs({ result: DateFromISOString }, () => RpcError(7, "no date", { why: "test" })),
    unsendable: withCodecs({ result: Unsendable }, () => Success(1)),
    asyncUnsendable: withCodecs({ result: Unsendable }, () => Promise.resolve(Success(1))),
    nothing: withCodecs({ result: t.void }, () => Success(undefined)),
    plain: () => Success(start),
  };

  test("sync dispatch: a Date through DateFromISOString is sent as its ISO text", () => {
    expect(JSON.parse(dispatch(body(request("day")), methods))).toEqual({
      jsonrpc: "2.0",
      result: "2024-02-28T00:00:00.000Z",
      id: 1,
    });
    expect(JSON.parse(dispatch(body(request("later", ["2024-02-28T00:00:00.000Z", 2])), methods))).toEqual({
      jsonrpc: "2.0",
      result: "2024-03-01T00:00:00.000Z",
      id: 1,
    });
  });

  test("async dispatch: a method returning a Promise is encoded too", async () => {
    expect(JSON.parse(await asyncDispatch(body(request("asyncDay")), methods))).toEqual({
      jsonrpc: "2.0",
      result: "2024-02-28T00:00:00.000Z",
      id: 1,
    });
    expect(JSON.parse(await asyncDispatch(body(request("day")), methods))).toMatchObject({
      result: "2024-02-28T00:00:00.000Z",
    });
  });

  test("the encoding is the codec's own: NumberFromString sends text, a type encodes its members", () => {
    expect(dispatchToSerializable(body(request("count")), methods)).toEqual({ jsonrpc: "2.0", result: "42", id: 1 });
    expect(dispatchToSerializable(body(request("nested")), methods)).toEqual({
      jsonrpc: "2.0",
      result: { at: "2024-02-28T00:00:00.000Z", tags: ["a"] },
      id: 1,
    });
  });

  test("an encode that gives undefined sends null; an error Result is not encoded", () => {
    expect(dispatchToSerializable(body(request("nothing")), methods)).toEqual({ jsonrpc: "2.0", result: null, id: 1 });
    expect(dispatchToSerializable(body(request("failing")), methods)).toEqual({
      jsonrpc: "2.0",
      error: { code: 7, message: "no date", data: { why: "test" } },
      id: 1,
    });
  });

  test("without a result codec the value is sent as before (JSON.stringify's Date)", () => {
    expect(JSON.parse(dispatch(body(request("plain")), methods))).toEqual({
      jsonrpc: "2.0",
      result: "2024-02-28T00:00:00.000Z",
      id: 1,
    });
  });

  test("in a batch, each member is encoded by its own method's codec, a failing encode answers alone", async () => {
    const batch = body(
      request("day", undefined, 1),
      request("unsendable", undefined, 2),
      request("count", undefined, 3),
    );
    const expected = [
      { jsonrpc: "2.0", result: "2024-02-28T00:00:00.000Z", id: 1 },
      { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: 2 },
      { jsonrpc: "2.0", result: "42", id: 3 },
    ];
    expect(JSON.parse(dispatch(batch, methods))).toEqual(expected);
    expect(JSON.parse(await asyncDispatch(batch, methods))).toEqual(expected);
    const asyncBatch = body(request("asyncDay", undefined, 1), request("asyncUnsendable", undefined, 2));
    expect(JSON.parse(await asyncDispatch(asyncBatch, methods))).toEqual(expected.slice(0, 2));
  });

  test("an encode that throws is -32603, logged as the method's exception; its message in data only under debug", async () => {
    expect(dispatchToSerializable(body(request("unsendable")), methods)).toEqual({
      jsonrpc: "2.0",
      error: { code: -32603, message: "Internal error" },
      id: 1,
    });
    expect(dispatchToSerializable(body(request("unsendable")), methods, { debug: true })).toEqual({
      jsonrpc: "2.0",
      error: { code: -32603, message: "Internal error", data: "cannot encode this" },
      id: 1,
    });
    expect(JSON.parse(await asyncDispatch(body(request("asyncUnsendable")), methods, { debug: true }))).toEqual({
      jsonrpc: "2.0",
      error: { code: -32603, message: "Internal error", data: "cannot encode this" },
      id: 1,
    });
    const logged = logs.entries.filter((entry) => entry.level === "error").map((entry) => String(entry.args[0]));
    expect(logged).toContain('rpcserver: method "unsendable" raised an exception');
    expect(logged).toContain('rpcserver: method "asyncUnsendable" raised an exception');
  });

  test("a notification runs its method but builds no answer: nothing to encode, nothing sent", () => {
    let calls = 0;
    const table = { tick: withCodecs({ result: Unsendable }, () => Success(++calls)) };
    expect(dispatch(body(request("tick", undefined, null)), table)).toBe("");
    expect(calls).toBe(1);
  });

  test("method({ name, params, result }) registers the codecs: dispatch over globalMethods encodes", () => {
    method({ name: "tomorrow", params: t.tuple([DateFromISOString]), result: DateFromISOString })((d) =>
      Success(new Date(d.getTime() + 86_400_000)),
    );
    method(() => Success(start), { name: "today", result: DateFromISOString });
    expect(JSON.parse(dispatch(body(request("tomorrow", ["2024-12-31T00:00:00.000Z"]))))).toMatchObject({
      result: "2025-01-01T00:00:00.000Z",
    });
    expect(JSON.parse(dispatch(body(request("today"))))).toMatchObject({ result: "2024-02-28T00:00:00.000Z" });
  });

  test("withCodecs adds to what withParams gave, and returns the function itself", () => {
    const f = (n: number): Result<number> => Success(n * 2);
    expect(withParams(t.tuple([t.number]), f)).toBe(f);
    expect(withCodecs({ result: NumberFromString, summary: "doubles" }, f)).toBe(f);
    expect(dispatchToSerializable(body(request("f", ["x"])), { f })).toMatchObject({ error: { code: -32602 } });
    expect(dispatchToSerializable(body(request("f", [2])), { f })).toMatchObject({ result: "4" });
    expect(openRpcDocument({ f }, INFO).methods[0]).toMatchObject({
      summary: "doubles",
      params: [{ name: "param0", schema: { type: "number" } }],
      result: { schema: { type: "string" } },
    });
  });

  test("a result or params that is not a codec is a TypeError when the method is made", () => {
    expect(() => withCodecs({ result: {} as t.Any }, () => Success(1))).toThrow(
      new TypeError("withCodecs: result must be an io-ts codec or a Standard Schema"),
    );
    expect(() => method({ name: "x", result: 3 as unknown as t.Any })(() => Success(1))).toThrow(
      new TypeError("method: result must be an io-ts codec or a Standard Schema"),
    );
    expect(() => withCodecs({ params: null as unknown as t.Any }, () => Success(1))).toThrow(
      new TypeError("withCodecs: params must be an io-ts codec or a Standard Schema"),
    );
    expect(globalMethods["x"]).toBeUndefined();
  });
});

test("types: with a result codec, the Success value must be of its type", () => {
  const a = method({ name: "a", params: t.tuple([t.number, t.number]), result: t.number })((x, y) => Success(x + y));
  same<Parameters<typeof a>, [number, number]>(true);
  const d = withCodecs({ result: DateFromISOString }, () => Success(new Date(0)));
  same<ReturnType<typeof d>, Result<Date>>(true);
  expect(d()).toStrictEqual(Success(new Date(0)));
  expect(a(1, 2)).toStrictEqual(Success(3));
  // Failures are Result<never>: they fit every result type.
  method({ name: "b", params: t.tuple([t.number]), result: t.string })((n) =>
    n > 0 ? Success(String(n)) : n === 0 ? InvalidParams("zero") : RpcError(1, "negative"),
  );
  method({ name: "c", result: t.number })(async () => Success(1));
  method((n: number) => Success(n), { name: "d", params: t.tuple([t.number]), result: t.number });
  same<ReturnType<typeof Success<string>>, Result<string>>(true);
  typeOnly(() => {
    // @ts-expect-error the result codec says number
    method({ name: "x", params: t.tuple([t.number]), result: t.number })((n) => Success(String(n)));
    // @ts-expect-error a Date codec: the method returns Dates, not their text
    method({ name: "x", result: DateFromISOString })(() => Success("2024-01-01T00:00:00.000Z"));
    // @ts-expect-error withCodecs checks the result too, async included
    withCodecs({ result: t.string }, async () => Success(1));
    // @ts-expect-error method(f, options): f's result against the codec
    method((n: number) => Success(n), { name: "x", params: t.tuple([t.number]), result: t.string });
    // @ts-expect-error examples are in the wire form: params as the codec's output
    method({ name: "x", params: t.tuple([t.number]), result: t.number, examples: [{ params: ["1"], result: 1 }] });
    // @ts-expect-error examples are in the wire form: a Date is sent as text
    method({ name: "x", result: DateFromISOString, examples: [{ params: [], result: new Date() }] });
  });
  expect(Object.keys(globalMethods)).toEqual(["a", "b", "c", "d"]);
});

// ---------------------------------------------------------------------------------------------
// 2. the document

describe("openRpcDocument", () => {
  interface Tree {
    readonly value: number;
    readonly children: readonly Tree[];
  }
  const Tree: t.Type<Tree> = t.recursion("Tree", (self) =>
    t.type({ value: t.number, children: t.readonlyArray(self) }),
  );

  test("the frame: openrpc 1.3.2, the caller's info, servers at the top level, no components without recursion", () => {
    const document = openRpcDocument({}, { ...INFO, description: "d", servers: [{ url: "http://localhost:5000/" }] });
    expect(document).toEqual({
      openrpc: "1.3.2",
      info: { title: "Test service", version: "1.2.3", description: "d" },
      servers: [{ url: "http://localhost:5000/" }],
      methods: [],
    });
    expect(OPENRPC_VERSION).toBe("1.3.2");
  });

  test("tuple params are by position, named param0.. or by paramNames; trailing optional elements not required", () => {
    const methods = {
      add: withCodecs({ params: t.tuple([t.number, t.number]), result: t.number }, (a, b) => Success(a + b)),
      named: withCodecs(
        { params: t.tuple([t.string, t.union([t.number, t.undefined])]), paramNames: ["text", "times"] },
        (s, n) => Success(s.repeat(n ?? 1)),
      ),
      none: withCodecs({ params: t.tuple([] as unknown as [t.Mixed]) }, () => Success(null)),
    };
    const [add, named, none] = openRpcDocument(methods, INFO).methods;
    expect(add).toEqual({
      name: "add",
      paramStructure: "by-position",
      params: [
        { name: "param0", schema: { type: "number" }, required: true },
        { name: "param1", schema: { type: "number" }, required: true },
      ],
      result: { name: "result", schema: { type: "number" } },
    });
    expect(named?.params).toEqual([
      { name: "text", schema: { type: "string" }, required: true },
      { name: "times", schema: { type: "number" }, required: false },
    ]);
    expect(none).toMatchObject({ paramStructure: "by-position", params: [] });
  });

  test("object params are by name, one param per property; optional and partial properties are not required", () => {
    const Params = t.intersection([
      t.type({ name: t.string, age: t.union([t.number, t.undefined]) }),
      t.partial({ nick: t.string }),
    ]);
    const methods = {
      greet: withCodecs({ params: t.type({ name: t.string }) }, ({ name }) => Success(name)),
      person: withCodecs({ params: Params }, (p) => Success(p.name)),
      strict: withCodecs({ params: t.strict({ id: UUID }) }, ({ id }) => Success(id)),
    };
    const [greet, person, strict] = openRpcDocument(methods, INFO).methods;
    expect(greet).toMatchObject({
      paramStructure: "by-name",
      params: [{ name: "name", schema: { type: "string" }, required: true }],
    });
    expect(person?.params).toEqual([
      { name: "name", schema: { type: "string" }, required: true },
      { name: "age", schema: { type: "number" }, required: false },
      { name: "nick", schema: { type: "string" }, required: false },
    ]);
    expect(strict?.params[0]).toMatchObject({ name: "id", schema: { type: "string", format: "uuid" }, required: true });
  });

  test("a codec that cannot be split (an array, a union, a record) is one param, the whole params value", () => {
    const methods = {
      sum: withCodecs({ params: t.array(t.number) }, (...ns) => Success(ns.length)),
      either: withCodecs({ params: t.union([t.tuple([t.number]), t.type({ n: t.number })]) }, () => Success(1)),
      dict: withCodecs({ params: t.record(t.string, t.number), paramNames: ["scores"] }, () => Success(1)),
    };
    const [sum, either, dict] = openRpcDocument(methods, INFO).methods;
    expect(sum).toMatchObject({
      params: [{ name: "params", schema: { type: "array", items: { type: "number" } }, required: true }],
    });
    expect(sum).not.toHaveProperty("paramStructure");
    expect(either?.params[0]?.schema).toHaveProperty("anyOf");
    expect(dict?.params[0]).toMatchObject({
      name: "scores",
      schema: { type: "object", additionalProperties: { type: "number" } },
    });
  });

  test("a method without codecs appears with its arity: {} schemas by position, and a {} result", () => {
    const methods = {
      two: (a: unknown, b: unknown) => Success([a, b]),
      zero: () => Success(null),
      named: withCodecs({ paramNames: ["message"], summary: "logs" }, (m: unknown) => Success(m)),
    };
    const [two, zero, named] = openRpcDocument(methods, INFO).methods;
    expect(two).toEqual({
      name: "two",
      paramStructure: "by-position",
      params: [
        { name: "param0", schema: {}, required: true },
        { name: "param1", schema: {}, required: true },
      ],
      result: { name: "result", schema: {} },
    });
    expect(zero).toEqual({ name: "zero", params: [], result: { name: "result", schema: {} } });
    expect(named).toMatchObject({ summary: "logs", params: [{ name: "message", schema: {} }] });
  });

  test("metadata: summary, description, tags, deprecated, errors with data schemas, examples as pairings", () => {
    const methods = {
      getUser: withCodecs(
        {
          params: t.tuple([t.number]),
          paramNames: ["id"],
          result: t.type({ id: t.number, name: NonEmptyString }),
          summary: "A user",
          description: "By **id**.",
          tags: ["users", { name: "beta", description: "may change" }],
          deprecated: true,
          errors: [
            { code: 404, message: "No such user", data: t.type({ id: t.number }) },
            { code: 1, message: "Busy" },
          ],
          examples: [
            { name: "Ada", params: [1], result: { id: 1, name: "Ada" } },
            { params: [2], result: { id: 2, name: "Alan" }, summary: "s", description: "d" },
          ],
        },
        (id) => Success({ id, name: "Ada" as NonEmptyString }),
      ),
      greet: withCodecs(
        {
          params: t.type({ greeting: t.string, name: t.string }),
          examples: [{ params: { name: "Ada", greeting: "Hi" }, result: "Hi, Ada" }],
        },
        ({ greeting, name }) => Success(`${greeting}, ${name}`),
      ),
    };
    const [getUser, greet] = openRpcDocument(methods, INFO).methods;
    expect(getUser).toEqual({
      name: "getUser",
      summary: "A user",
      description: "By **id**.",
      tags: [{ name: "users" }, { name: "beta", description: "may change" }],
      paramStructure: "by-position",
      params: [{ name: "id", schema: { type: "number" }, required: true }],
      result: {
        name: "result",
        schema: {
          type: "object",
          properties: { id: { type: "number" }, name: { type: "string", minLength: 1 } },
          required: ["id", "name"],
        },
      },
      errors: [
        {
          code: 404,
          message: "No such user",
          data: { type: "object", properties: { id: { type: "number" } }, required: ["id"] },
        },
        { code: 1, message: "Busy" },
      ],
      examples: [
        {
          name: "Ada",
          params: [{ name: "id", value: 1 }],
          result: { name: "result", value: { id: 1, name: "Ada" } },
        },
        {
          name: "example2",
          summary: "s",
          description: "d",
          params: [{ name: "id", value: 2 }],
          result: { name: "result", value: { id: 2, name: "Alan" } },
        },
      ],
      deprecated: true,
    });
    // By-name examples list the params in the method's order, whatever the example's key order.
    expect(greet?.examples?.[0]?.params).toEqual([
      { name: "greeting", value: "Hi" },
      { name: "name", value: "Ada" },
    ]);
  });

  test("recursive codecs are defined once in components.schemas, shared by every method", () => {
    const methods = {
      sum: withCodecs({ params: t.tuple([Tree]), result: t.number }, () => Success(0)),
      grow: withCodecs({ params: t.type({ tree: Tree }), result: Tree }, ({ tree }) => Success(tree)),
      root: withCodecs({ params: Tree }, (tree) => Success(tree.value)),
    };
    const document = openRpcDocument(methods, INFO);
    const ref = { $ref: "#/components/schemas/Tree" };
    expect(document.components).toEqual({
      schemas: {
        Tree: {
          type: "object",
          properties: { value: { type: "number" }, children: { type: "array", items: ref } },
          required: ["value", "children"],
        },
      },
    });
    const [sum, grow, root] = document.methods;
    expect(sum?.params[0]?.schema).toEqual(ref);
    expect(grow?.params[0]?.schema).toEqual(ref);
    expect(grow?.result.schema).toEqual(ref);
    // A recursive params codec is followed once to see its shape: an object, so by name.
    expect(root).toMatchObject({ paramStructure: "by-name", params: [{ name: "value" }, { name: "children" }] });
  });

  test("a codec it cannot describe is {} with its name as description; the document never throws on it", () => {
    const Odd = { name: "Odd", decode: () => E.right(1), encode: (x: unknown) => x } as unknown as t.Any;
    const methods = { odd: withCodecs({ params: t.tuple([Odd]), result: Odd }, () => Success(1)) };
    const [odd] = openRpcDocument(methods, INFO).methods;
    expect(odd?.params[0]?.schema).toEqual({ description: "Odd" });
    expect(odd?.result.schema).toEqual({ description: "Odd" });
    expect(toJsonSchema(Odd)).toEqual({ description: "Odd" });
  });

  test("methods in the table's order (registration order for globalMethods, Map order), rpc.discover left out", () => {
    method(function b() {
      return Success(1);
    });
    method(function a() {
      return Success(1);
    });
    method(discover(INFO));
    method(function c() {
      return Success(1);
    });
    expect(openRpcDocument(INFO).methods.map((m) => m.name)).toEqual(["b", "a", "c"]);
    expect(openRpcDocument(undefined, INFO).methods.map((m) => m.name)).toEqual(["b", "a", "c"]);
    const map: Methods = new Map([
      ["z", () => Success(1)],
      [DISCOVER, () => Success(1)],
      ["y", () => Success(2)],
    ]);
    expect(openRpcDocument(map, INFO).methods.map((m) => m.name)).toEqual(["z", "y"]);
    // A discover method under another name is not a method of the table either.
    expect(openRpcDocument({ x: () => Success(1), d: discover(INFO) }, INFO).methods.map((m) => m.name)).toEqual(["x"]);
  });

  test("info without a string title and version is a TypeError", () => {
    expect(() => openRpcDocument({}, { title: "x" } as never)).toThrow(TypeError);
    expect(() => openRpcDocument({}, null as never)).toThrow(TypeError);
    expect(() => discover({ version: "1" } as never)).toThrow(TypeError);
  });
});

// ---------------------------------------------------------------------------------------------
// 3. validated against the meta-schema

/**
 * The official meta-schema (`@open-rpc/meta-schema`), compiled by ajv as draft 07. Its schemas
 * refer to the JSON Schema meta-schema it is published with (`@json-schema-tools/meta-schema`, the
 * one `@open-rpc/schema-utils-js` uses); both name themselves in `$schema`, which ajv would try to
 * load, so that member is dropped.
 */
const validateDocument = (() => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const drop$schema = (schema: unknown): object => {
    const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
    return rest;
  };
  const jsonSchemaMeta = (jsonSchemaTools as unknown as { default: unknown }).default;
  ajv.addSchema(drop$schema(jsonSchemaMeta), "https://meta.json-schema.tools");
  return ajv.compile(drop$schema((openRpcMeta as unknown as { openrpcDocument: unknown }).openrpcDocument));
})();

/** Every schema in the document compiles as draft 07 (ajv refuses a malformed one). */
const schemasCompile = (document: OpenRpcDocument): void => {
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  ajv.addSchema({ $id: "doc", components: document.components ?? {} }, "doc");
  const schemas = document.methods.flatMap((m) => [
    ...m.params.map((p) => p.schema),
    m.result.schema,
    ...(m.errors ?? []).flatMap((e) => (e.data === undefined ? [] : [e.data])),
  ]);
  for (const schema of schemas) {
    const withRefs = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as object;
    expect(() => ajv.compile(withRefs)).not.toThrow();
  }
};

const expectValid = (document: OpenRpcDocument): void => {
  const copy = JSON.parse(JSON.stringify(document)) as OpenRpcDocument;
  const valid = validateDocument(copy);
  expect(validateDocument.errors ?? []).toEqual([]);
  expect(valid).toBe(true);
  expect(validateOpenRPCDocument(copy)).toBe("true");
  schemasCompile(copy);
};

describe("the document is valid OpenRPC", () => {
  test("a table with every codec kind, metadata and recursion", () => {
    interface Node {
      readonly name: string;
      readonly next: Node | null;
    }
    const Node: t.Type<Node> = t.recursion("Node", (self) => t.type({ name: t.string, next: t.union([self, t.null]) }));
    const everything = t.type({
      s: t.string,
      n: t.number,
      b: t.boolean,
      nil: t.null,
      u: t.union([t.string, t.undefined]),
      unk: t.unknown,
      lit: t.literal("x"),
      k: t.keyof({ a: null, b: null }),
      i: t.intersection([t.type({ a: t.string }), t.partial({ b: t.number })]),
      p: t.partial({ c: t.string }),
      st: t.strict({ d: t.string }),
      ex: t.exact(t.type({ e: t.string })),
      arr: t.array(t.number),
      ro: t.readonlyArray(t.string),
      tup: t.tuple([t.number, t.string]),
      rec: t.record(t.string, t.number),
      keyed: t.record(t.keyof({ x: null, y: null }), t.number),
      r: t.readonly(t.type({ f: t.string })),
      int: t.Int,
      date: DateFromISOString,
      num: NumberFromString,
      nes: NonEmptyString,
      uuid: UUID,
      node: Node,
    });
    const methods = {
      everything: withCodecs(
        {
          params: everything,
          result: t.array(Node),
          summary: "s",
          tags: ["t"],
          errors: [{ code: 1, message: "m", data: Node }],
          examples: [{ params: { s: "x" } as t.OutputOf<typeof everything>, result: [] }],
          deprecated: false,
        },
        () => Success([]),
      ),
      positional: withCodecs({ params: t.tuple([t.number, Node]), result: t.void }, () => Success(undefined)),
      whole: withCodecs({ params: t.array(t.number) }, () => Success(1)),
      bare: (a: unknown) => Success(a),
    };
    const document = openRpcDocument(methods, { ...INFO, servers: [{ url: "http://localhost:5000/", name: "dev" }] });
    expect(document.components?.schemas).toHaveProperty("Node");
    expectValid(document);
  });

  test('a method named "" is left out: OpenRPC names have at least one character', () => {
    const bare = (): Result<string> => Success("x");
    const document = openRpcDocument({ "": bare, kept: bare }, INFO);
    expect(document.methods.map((m) => m.name)).toEqual(["kept"]);
    const fromMap = openRpcDocument(new Map([["", bare]]), INFO);
    expect(fromMap.methods).toEqual([]);
    expectValid(document);
    expectValid(fromMap);
  });

  test('a params property named "" makes the object one param, the whole params value; examples keep valid names', () => {
    const methods = {
      nameless: withCodecs(
        {
          params: t.type({ "": t.string, a: t.number }),
          result: t.type({ "": t.string }),
          examples: [{ params: { "": "x", a: 1 }, result: { "": "x" } }],
        },
        () => Success({ "": "x" }),
      ),
      // An example's member named "" that is none of the params cannot be named: it is left out.
      named: withCodecs(
        { params: t.type({ a: t.number }), examples: [{ params: { a: 1, "": 2 } as { a: number }, result: 1 }] },
        () => Success(1),
      ),
    };
    const document = openRpcDocument(methods as unknown as Methods, INFO);
    const [nameless, named] = document.methods;
    expect(nameless?.paramStructure).toBeUndefined();
    expect(nameless?.params).toEqual([
      {
        name: "params",
        schema: { type: "object", properties: { "": { type: "string" }, a: { type: "number" } }, required: ["", "a"] },
        required: true,
        description: "The whole params value, which the method's params codec does not split into params",
      },
    ]);
    expect(nameless?.examples?.[0]?.params).toEqual([{ name: "params", value: { "": "x", a: 1 } }]);
    expect(named?.examples?.[0]?.params).toEqual([{ name: "a", value: 1 }]);
    expectValid(document);
  });

  test("the document of examples/methods.mjs, printed by `rpcserver examples/methods.mjs --openrpc`", async () => {
    requireBuild();
    const exit = await runCli(["examples/methods.mjs", "--openrpc"]);
    expect(exit.code).toBe(0);
    const document = JSON.parse(exit.stdout) as OpenRpcDocument;
    expectValid(document);
    // The nearest package.json of examples/ is this package's own: its name and version.
    expect(document.info).toEqual({ title: "rpcserver", version: "5.0.10" });
    expect(document.methods.map((m) => m.name)).toEqual([
      "ping",
      "add",
      "divide",
      "greet",
      "sleep",
      "addDays",
      "getUser",
      "withdraw",
      "crash",
      "log",
      "count",
    ]);
    const addDays = document.methods.find((m) => m.name === "addDays");
    expect(addDays).toMatchObject({
      paramStructure: "by-name",
      params: [
        { name: "date", schema: { type: "string", format: "date-time" }, required: true },
        { name: "days", schema: { type: "number" }, required: true },
      ],
      result: { name: "result", schema: { type: "string", format: "date-time" } },
    });
    // Every example's result validates against the method's result schema.
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    for (const m of document.methods) {
      for (const example of m.examples ?? []) {
        expect({
          method: m.name,
          example: example.name,
          valid: ajv.validate(m.result.schema, example.result.value),
        }).toEqual({
          method: m.name,
          example: example.name,
          valid: true,
        });
      }
    }
  });

  test("the document of a CommonJS module of plain functions: their arity, {} schemas", async () => {
    requireBuild();
    const exit = await runCli(["examples/methods.cjs", "--openrpc", "--title", "Plain", "--api-version", "0.1.0"]);
    expect(exit.code).toBe(0);
    const document = JSON.parse(exit.stdout) as OpenRpcDocument;
    expectValid(document);
    expect(document.info).toEqual({ title: "Plain", version: "0.1.0" });
    expect(document.methods).toEqual([
      {
        name: "multiply",
        paramStructure: "by-position",
        params: [
          { name: "param0", schema: {}, required: true },
          { name: "param1", schema: {}, required: true },
        ],
        result: { name: "result", schema: {} },
      },
      {
        name: "upper",
        paramStructure: "by-position",
        params: [{ name: "param0", schema: {}, required: true }],
        result: { name: "result", schema: {} },
      },
      { name: "now", params: [], result: { name: "result", schema: {} } },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// 4. rpc.discover

describe("rpc.discover through dispatch", () => {
  let warnings: ReturnType<typeof recordWarnings>;
  beforeEach(() => {
    warnings = recordWarnings();
  });
  afterEach(() => warnings.restore());

  test("method(discover(info)) registers rpc.discover without the rpc. warning; it answers with the document", () => {
    method({ name: "add", params: t.tuple([t.number, t.number]), result: t.number })((a, b) => Success(a + b));
    const registered = method(discover(INFO));
    expect(globalMethods[DISCOVER]).toBe(registered);
    expect(warnings.warnings()).toEqual([]);
    const answer = dispatchToSerializable(body(request(DISCOVER)));
    expect(answer).toEqual({ jsonrpc: "2.0", result: openRpcDocument(INFO), id: 1 });
    expect((answer as { result: OpenRpcDocument }).result.methods.map((m) => m.name)).toEqual(["add"]);
  });

  test("registering rpc.discover any other way still warns", () => {
    method(() => Success({}), DISCOVER);
    method(discover(INFO), "rpc.other");
    expect(warnings.warnings().map((w) => w.message)).toEqual([
      'method name "rpc.discover" starts with "rpc.", which JSON-RPC 2.0 reserves for its own extensions',
      'method name "rpc.other" starts with "rpc.", which JSON-RPC 2.0 reserves for its own extensions',
    ]);
  });

  test("the document is built at each call: methods registered later are in it", async () => {
    method(discover(INFO));
    const names = (text: string): string[] =>
      (JSON.parse(text) as { result: OpenRpcDocument }).result.methods.map((m) => m.name);
    expect(names(dispatch(body(request(DISCOVER))))).toEqual([]);
    method(function later() {
      return Success(1);
    });
    expect(names(dispatch(body(request(DISCOVER))))).toEqual(["later"]);
    expect(names(await asyncDispatch(body(request(DISCOVER))))).toEqual(["later"]);
  });

  test("for your own table, with params (ignored), with a context, in a batch", () => {
    const methods: Record<string, Method> = {
      ping: withCodecs({ result: t.string }, () => Success("pong")),
    };
    methods[DISCOVER] = discover(INFO, methods);
    const expected = openRpcDocument(methods, INFO);
    expect(expected.methods.map((m) => m.name)).toEqual(["ping"]);
    expect(dispatchToSerializable(body(request(DISCOVER, [])), methods)).toEqual({
      jsonrpc: "2.0",
      result: expected,
      id: 1,
    });
    expect(dispatchToSerializable(body(request(DISCOVER)), methods, { context: { user: "ada" } })).toEqual({
      jsonrpc: "2.0",
      result: expected,
      id: 1,
    });
    expect(
      dispatchToSerializable(body(request("ping", undefined, 1), request(DISCOVER, undefined, 2)), methods),
    ).toEqual([
      { jsonrpc: "2.0", result: "pong", id: 1 },
      { jsonrpc: "2.0", result: expected, id: 2 },
    ]);
    expect(warnings.warnings()).toEqual([]);
  });
});

describe("rpc.discover through the development server", () => {
  const post = async (url: string, payload: unknown): Promise<unknown> => {
    const response = await fetch(url, { method: "POST", body: JSON.stringify(payload) });
    return response.json();
  };

  test("serve() answers rpc.discover by default, for the methods it serves, with its URL in servers", async () => {
    const methods = {
      add: withCodecs({ params: t.tuple([t.number, t.number]), result: t.number }, (a, b) => Success(a + b)),
    };
    const server = await serve(HOST, 0, { methods });
    try {
      const url = `http://${HOST}:${(server.address() as { port: number }).port}/`;
      const answer = (await post(url, request(DISCOVER))) as { result: OpenRpcDocument };
      expect(answer.result).toEqual({
        ...openRpcDocument(methods, { title: "JSON-RPC service", version: "0.0.0" }),
        servers: [{ name: "development server", url }],
      });
      expectValid(answer.result);
      expect(await post(url, request("add", [1, 2]))).toEqual({ jsonrpc: "2.0", result: 3, id: 1 });
    } finally {
      server.close();
    }
  });

  test("serve() with openrpc info, over globalMethods registered after it started; openrpc: false turns it off", async () => {
    const server = await serve(HOST, 0, { openrpc: { title: "Mine", version: "2.0.0", description: "d" } });
    const off = await serve(HOST, 0, { openrpc: false, methods: {} });
    try {
      method(function hello() {
        return Success("hi");
      });
      const url = `http://${HOST}:${(server.address() as { port: number }).port}/`;
      const answer = (await post(url, request(DISCOVER))) as { result: OpenRpcDocument };
      expect(answer.result.info).toEqual({ title: "Mine", version: "2.0.0", description: "d" });
      expect(answer.result.methods.map((m) => m.name)).toEqual(["hello"]);
      expect(await post(url, request("hello"))).toEqual({ jsonrpc: "2.0", result: "hi", id: 1 });
      const offUrl = `http://${HOST}:${(off.address() as { port: number }).port}/`;
      expect(await post(offUrl, request(DISCOVER))).toEqual({
        jsonrpc: "2.0",
        error: { code: -32601, message: "Method not found", data: DISCOVER },
        id: 1,
      });
    } finally {
      server.close();
      off.close();
    }
  });

  test("a table's own rpc.discover wins over the server's", async () => {
    const server = await serve(HOST, 0, { methods: { [DISCOVER]: () => Success("mine") } });
    try {
      const url = `http://${HOST}:${(server.address() as { port: number }).port}/`;
      expect(await post(url, request(DISCOVER))).toEqual({ jsonrpc: "2.0", result: "mine", id: 1 });
    } finally {
      server.close();
    }
  });

  test("a bad openrpc option is refused before listening", async () => {
    await expect(serve(HOST, 0, { openrpc: { title: 1 } as never })).rejects.toThrow(
      new TypeError("serve: openrpc's title and version must be strings"),
    );
    await expect(serve(HOST, 0, { openrpc: "yes" as never })).rejects.toThrow(TypeError);
  });

  test("`rpcserver examples/methods.mjs` answers rpc.discover with the document --openrpc prints, plus its URL", async () => {
    requireBuild();
    const printed = JSON.parse((await runCli(["examples/methods.mjs", "--openrpc"])).stdout) as OpenRpcDocument;
    const cli = await startCli(["examples/methods.mjs", "--host", HOST, "--port", "0"]);
    expect(cli.stderr()).toContain(
      "serving 11 method(s) from examples/methods.mjs (its method(...) registrations): ping, add,",
    );
    expect(cli.stderr()).toContain("rpcserver: rpc.discover answers with their OpenRPC document\n");
    const answer = (await post(cli.url, request(DISCOVER))) as { result: OpenRpcDocument };
    expect(answer.result).toEqual({ ...printed, servers: [{ name: "development server", url: cli.url }] });
    // Its result codec at work through the real server: a Date sent as text.
    expect(await post(cli.url, request("addDays", { date: "2024-12-31T00:00:00.000Z", days: 1 }))).toEqual({
      jsonrpc: "2.0",
      result: "2025-01-01T00:00:00.000Z",
      id: 1,
    });
    cli.child.kill("SIGTERM");
    await cli.exited;
  });
});

// ---------------------------------------------------------------------------------------------
// 5. the context is never a param

describe("openRpcDocument(methods, info, { context: true }): the context is not a param", () => {
  interface Caller {
    readonly user: string;
  }
  const plain = {
    add: (_caller: Caller, a: number, b: number) => Success(a + b),
    whoami: (caller: Caller) => Success(caller.user),
    zero: () => Success(0),
    named: withCodecs(
      { paramNames: ["a", "b"], examples: [{ params: [1, 2], result: 3 }] },
      (_caller: Caller, a: number, b: number) => Success(a + b),
    ),
    coded: withCodecs({ params: t.tuple([t.number]), result: t.number }, (n) => Success(n)),
  };

  test("an uncoded (ctx, a, b) => ... lists a and b only; (ctx) => ... and () => ... list none", () => {
    const document = openRpcDocument(plain, INFO, { context: true });
    const [add, whoami, zero, named, coded] = document.methods;
    expect(add).toEqual({
      name: "add",
      paramStructure: "by-position",
      params: [
        { name: "param0", schema: {}, required: true },
        { name: "param1", schema: {}, required: true },
      ],
      result: { name: "result", schema: {} },
    });
    // Never below none: no paramStructure, as for any method without params.
    expect(whoami).toEqual({ name: "whoami", params: [], result: { name: "result", schema: {} } });
    expect(zero).toEqual({ name: "zero", params: [], result: { name: "result", schema: {} } });
    // paramNames name the params, not the arguments: the context is not one of them.
    expect(named?.params.map((p) => p.name)).toEqual(["a", "b"]);
    expect(named?.examples).toEqual([
      {
        name: "example1",
        params: [
          { name: "a", value: 1 },
          { name: "b", value: 2 },
        ],
        result: { name: "result", value: 3 },
      },
    ]);
    // A params codec never holds the context: the same with or without it.
    expect(coded).toEqual(openRpcDocument(plain, INFO).methods[4]);
    expectValid(document);
  });

  test("without a context (the default, or context: false), the first parameter is a param, as before", () => {
    const document = openRpcDocument(plain, INFO);
    expect(document.methods.map((m) => m.params.length)).toEqual([3, 1, 0, 3, 1]);
    expect(openRpcDocument(plain, INFO, { context: false })).toEqual(document);
    expect(openRpcDocument(plain, INFO, {})).toEqual(document);
  });

  test("a method made to take a context (withContext, a contract server with one) never lists it", () => {
    const { withCodecs: withCodecsCtx } = withContext<Caller>();
    const api = contract({ whoami: { result: t.string }, echo: { params: t.tuple([t.string]), result: t.string } });
    const app = contractServer(api)
      .context<Caller>()
      .implement({ whoami: (ctx) => E.right(ctx.user), echo: (_ctx, text) => E.right(text) });
    const methods = {
      greet: withCodecsCtx({ paramNames: ["greeting"] }, (ctx, greeting: unknown) =>
        Success(`${String(greeting)}, ${ctx.user}`),
      ),
      ...app.methods,
    };
    for (const context of [false, true]) {
      const [greet, whoami, echo] = openRpcDocument(methods, INFO, { context }).methods;
      // Dropped once, not twice, when the document is also built with a context.
      expect(greet?.params).toEqual([{ name: "greeting", schema: {}, required: true }]);
      expect(whoami?.params).toEqual([]);
      expect(echo?.params).toEqual([{ name: "param0", schema: { type: "string" }, required: true }]);
    }
  });

  test("openRpcDocument(undefined, info, { context: true }) describes globalMethods", () => {
    method(function whoami(caller: Caller) {
      return Success(caller.user);
    });
    expect(openRpcDocument(undefined, INFO, { context: true }).methods).toEqual([
      { name: "whoami", params: [], result: { name: "result", schema: {} } },
    ]);
    expect(openRpcDocument(INFO).methods[0]?.params).toHaveLength(1);
  });

  test("options that are not an object, or a context that is not a boolean, are a TypeError", () => {
    expect(() => openRpcDocument({}, INFO, null as never)).toThrow(TypeError);
    expect(() => openRpcDocument({}, INFO, { context: "yes" } as never)).toThrow(
      new TypeError("openRpcDocument: options must be an object whose context, if given, is a boolean"),
    );
    typeOnly(() => {
      // @ts-expect-error: a boolean
      openRpcDocument({}, INFO, { context: 1 });
      // @ts-expect-error: the one-argument form has no options
      openRpcDocument(INFO, { context: true });
    });
  });
});

describe("rpc.discover describes the table it is dispatched with, the context left out", () => {
  interface Caller {
    readonly user: string;
  }
  const methods = {
    add: (_caller: Caller, a: number, b: number) => Success(a + b),
    whoami: (caller: Caller) => Success(caller.user),
  };
  const table: Methods = { ...methods, [DISCOVER]: discover(INFO) };
  const caller = { context: { user: "ada" } };
  const discovered = (answer: unknown): OpenRpcDocument => (answer as { result: OpenRpcDocument }).result;

  test("{ ...methods, 'rpc.discover': discover(info) } answers the document of that table, with the context dropped", async () => {
    const withContext = openRpcDocument(methods, INFO, { context: true });
    expect(withContext.methods.map((m) => m.params.length)).toEqual([2, 0]);
    expect(discovered(dispatchToSerializable(body(request(DISCOVER)), table, caller))).toEqual(withContext);
    expect(discovered(JSON.parse(await asyncDispatch(body(request(DISCOVER)), table, caller)))).toEqual(withContext);
    // The methods still work, and are served with the context first.
    expect(dispatchToSerializable(body(request("add", [1, 2])), table, caller)).toMatchObject({ result: 3 });
  });

  test("without a context, the same table is described with every parameter (params given, or not, ignored)", () => {
    const plain = openRpcDocument(methods, INFO);
    expect(plain.methods.map((m) => m.params.length)).toEqual([3, 1]);
    expect(discovered(dispatchToSerializable(body(request(DISCOVER)), table))).toEqual(plain);
    // Params are not a context: an object or a list of params leaves the document as it is.
    expect(discovered(dispatchToSerializable(body(request(DISCOVER, {})), table))).toEqual(plain);
    expect(discovered(dispatchToSerializable(body(request(DISCOVER, [1])), table))).toEqual(plain);
  });

  test("a Map, a batch, a stage that passes: still the table dispatched with", () => {
    const map: Methods = new Map<string, Method>([...Object.entries(methods), [DISCOVER, discover(INFO)]]);
    const expected = openRpcDocument(map, INFO, { context: true });
    expect(expected.methods.map((m) => m.name)).toEqual(["add", "whoami"]);
    const stages = [(call: { context: unknown }) => E.right(call)] as never;
    const answers = dispatchToSerializable(
      body(request("whoami", undefined, 1), request(DISCOVER, undefined, 2)),
      map,
      {
        ...caller,
        stages,
      },
    );
    expect(answers).toEqual([
      { jsonrpc: "2.0", result: "ada", id: 1 },
      { jsonrpc: "2.0", result: expected, id: 2 },
    ]);
  });

  test("one discover method in two tables describes each", () => {
    const shared = discover(INFO);
    const one = { ping: () => Success("pong"), [DISCOVER]: shared };
    const two = { pong: (_a: unknown) => Success("ping"), [DISCOVER]: shared };
    expect(discovered(dispatchToSerializable(body(request(DISCOVER)), one)).methods.map((m) => m.name)).toEqual([
      "ping",
    ]);
    expect(discovered(dispatchToSerializable(body(request(DISCOVER)), two)).methods.map((m) => m.name)).toEqual([
      "pong",
    ]);
  });

  test("discover(info, methods) keeps describing the table it was given, the context still dropped", () => {
    const described = { whoami: methods.whoami };
    const elsewhere = { [DISCOVER]: discover(INFO, described), other: () => Success(1) };
    expect(discovered(dispatchToSerializable(body(request(DISCOVER)), elsewhere))).toEqual(
      openRpcDocument(described, INFO),
    );
    const withContext = discovered(dispatchToSerializable(body(request(DISCOVER)), elsewhere, caller));
    expect(withContext).toEqual(openRpcDocument(described, INFO, { context: true }));
    expect(withContext.methods).toEqual([{ name: "whoami", params: [], result: { name: "result", schema: {} } }]);
  });

  test("method(discover(info)) with dispatch given no table describes globalMethods, with or without a context", () => {
    method(function whoami(c: Caller) {
      return Success(c.user);
    });
    method(discover(INFO));
    expect(discovered(dispatchToSerializable(body(request(DISCOVER))))).toEqual(openRpcDocument(INFO));
    const withContext = discovered(dispatchToSerializable(body(request(DISCOVER)), undefined, caller));
    expect(withContext).toEqual(openRpcDocument(undefined, INFO, { context: true }));
    expect(withContext.methods.map((m) => m.params.length)).toEqual([0]);
    expect(openRpcDocument(INFO).methods.map((m) => m.params.length)).toEqual([1]);
  });

  test("called directly: globalMethods (or its table), and an argument is the context", () => {
    method(function whoami(c: Caller) {
      return Success(c.user);
    });
    const call = discover(INFO) as (...args: unknown[]) => Result;
    expect(call()).toEqual(Success(openRpcDocument(INFO)));
    expect(call({ user: "ada" })).toEqual(Success(openRpcDocument(undefined, INFO, { context: true })));
    expect((call({ user: "ada" }) as E.Right<{ result: OpenRpcDocument }>).right.result.methods[0]?.params).toEqual([]);
    expect((call() as E.Right<{ result: OpenRpcDocument }>).right.result.methods[0]?.params).toHaveLength(1);
    const given = discover(INFO, methods) as (...args: unknown[]) => Result;
    expect(given({ user: "ada" })).toEqual(Success(openRpcDocument(methods, INFO, { context: true })));
  });

  test("serve() with a context: rpc.discover leaves it out, and the methods receive it", async () => {
    const server = await serve(HOST, 0, { methods, context: { user: "dev" } });
    try {
      const url = `http://${HOST}:${(server.address() as { port: number }).port}/`;
      const post = async (payload: unknown): Promise<unknown> =>
        (await fetch(url, { method: "POST", body: JSON.stringify(payload) })).json();
      expect(discovered(await post(request(DISCOVER)))).toEqual({
        ...openRpcDocument(methods, { title: "JSON-RPC service", version: "0.0.0" }, { context: true }),
        servers: [{ name: "development server", url }],
      });
      expect(discovered(await post(request(DISCOVER))).methods.map((m) => m.params.length)).toEqual([2, 0]);
      expect(await post(request("whoami"))).toEqual({ jsonrpc: "2.0", result: "dev", id: 1 });
    } finally {
      server.close();
    }
  });
});
