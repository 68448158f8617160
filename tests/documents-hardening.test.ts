/**
 * Issue 21, items 13 and 10 (its schema part): documents built from Standard Schemas whose own
 * JSON Schema is recursive or not JSON at all, and `StandardCodec.is` on an async schema.
 *
 * 1. A recursive zod schema (self-referring `#`, or its own `definitions`) gives a document whose
 *    every `$ref` resolves in it, that the official parser accepts (and dereferences, where its
 *    dereferencer can: not recursion), and whose
 *    schemas validate what the zod schema accepts; `toJsonSchema` alone stays a standalone schema.
 * 2. A `jsonSchema` answer that is not JSON (a cycle, a function, a bigint) is no JSON Schema:
 *    describing never throws.
 * 3. `is` on a schema whose `validate` answers a rejecting Promise leaves no unhandled rejection.
 */
import Ajv from "ajv";
import { execFileSync } from "node:child_process";
import { EventEmitter } from "node:events";
import * as E from "fp-ts/Either";
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { z } from "zod";
import {
  contract,
  discover,
  dispatch,
  implement,
  openRpcDocument,
  Success,
  toJsonSchema,
  withCodecs,
  withParams,
  type OpenRpcDocument,
  type StandardSchemaV1,
} from "../src";
import { client, local } from "../src/client";
import type { JsonSchema } from "../src/internal/documents/schema-walk";
import { toCodec, type StandardCodec } from "../src/internal/core/schema";
import { ROOT } from "./helpers/processes";
import { validateOpenRPCDocument } from "./helpers/openrpc";

const info = { title: "documents", version: "1.0.0" };

/** Every `$ref` string in a JSON value, with where it was found. */
const refsIn = (value: unknown, at = ""): Array<{ ref: string; at: string }> => {
  if (Array.isArray(value)) return value.flatMap((item, i) => refsIn(item, `${at}/${i}`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, member]) =>
    key === "$ref" && typeof member === "string" ? [{ ref: member, at }] : refsIn(member, `${at}/${key}`),
  );
};

/** The value a local JSON pointer (`#/a/b`) names in `root`, or `undefined`. */
const resolve = (root: unknown, ref: string): unknown => {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let here: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof here !== "object" || here === null || !Object.prototype.hasOwnProperty.call(here, key)) {
      return undefined;
    }
    here = (here as Record<string, unknown>)[key];
  }
  return here;
};

/** Every `$ref` of `root` names a schema (an object) inside `root` itself. */
const expectEveryRefResolves = (root: unknown): void => {
  const unresolved = refsIn(root).filter(({ ref }) => {
    const target = resolve(root, ref);
    return typeof target !== "object" || target === null || Array.isArray(target);
  });
  expect(unresolved).toEqual([]);
};

/**
 * `parseOpenRPCDocument` of `@open-rpc/schema-utils-js`, in a child process for the reason
 * `helpers/openrpc.ts` gives: it validates the document and, with `dereference`, replaces every
 * `$ref` by what it names. Answers the parsed document's methods, or the parser's message.
 */
const parseOpenRPCDocument = (document: unknown, dereference: boolean): unknown => {
  const script = `
    const { parseOpenRPCDocument } = require("@open-rpc/schema-utils-js");
    let text = "";
    process.stdin.on("data", (chunk) => (text += chunk)).on("end", () => {
      parseOpenRPCDocument(JSON.parse(text), { dereference: ${String(dereference)} }).then(
        (parsed) => process.stdout.write(JSON.stringify({ methods: parsed.methods })),
        (error) => process.stdout.write(JSON.stringify(String(error && error.message ? error.message : error))),
      );
    });`;
  const node = process.env["npm_node_execpath"] ?? process.execPath;
  const output = execFileSync(node, ["-e", script], {
    cwd: ROOT,
    input: JSON.stringify(document),
    encoding: "utf8",
    // Its dereferencer never ends on a recursive schema (see below): fail, rather than wait.
    timeout: 30_000,
  });
  return JSON.parse(output) as unknown;
};

/** A schema of the document, compiled by ajv with `#/components/...` read in the document's components. */
const compiler = (document: OpenRpcDocument): ((schema: JsonSchema) => (value: unknown) => boolean) => {
  const ajv = new Ajv({ strict: false });
  ajv.addSchema({ $id: "doc", components: document.components ?? {} }, "doc");
  return (schema) => {
    const validate = ajv.compile(
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as object,
    );
    return (value) => validate(value) === true;
  };
};

// -------------------------------------------------------------------------------------------------
// 1. recursive zod schemas

interface TreeNode {
  readonly name: string;
  readonly children: readonly TreeNode[];
}
// Root-recursive: zod's JSON Schema refers to itself as `#`.
const Node: z.ZodType<TreeNode> = z.object({
  name: z.string(),
  get children() {
    return z.array(Node);
  },
});
// Recursive inside: zod's JSON Schema has `definitions` and refers to `#/definitions/__schema0`.
const Pair = z.object({ left: Node, right: Node });
// Named by `meta({ id })`: its root is a `$ref` to `#/definitions/Category`.
interface Category {
  readonly label: string;
  readonly sub: readonly Category[];
}
const Category: z.ZodType<Category> = z
  .object({
    label: z.string(),
    get sub() {
      return z.array(Category);
    },
  })
  .meta({ id: "Category" });

// valibot, through `toStandardJsonSchema`: its recursion is a `$ref` into its own `$defs`.
const ValibotNode: v.GenericSchema<TreeNode> = v.object({
  name: v.string(),
  children: v.array(v.lazy(() => ValibotNode)),
});
const ValibotTree = toStandardJsonSchema(ValibotNode);

const leaf = (name: string): TreeNode => ({ name, children: [] });
const tree: TreeNode = { name: "root", children: [leaf("a"), { name: "b", children: [leaf("c")] }] };
const badTree = { name: "root", children: [{ name: 7, children: [] }] };
const category: Category = { label: "x", sub: [{ label: "y", sub: [] }] };
const badCategory = { label: "x", sub: [{ label: "y" }] };

describe("recursive zod schemas in a document (issue 21, item 13a)", () => {
  const methods = {
    // The root-recursive schema, whole (a union cannot be split into params) and as a result.
    plant: withCodecs({ params: z.union([Node, z.null()]), result: Node }, () => Success(tree)),
    // By name: each param's schema refers into the lifted definitions.
    pair: withCodecs({ params: Pair, result: z.array(Node) }, () => Success([tree])),
    // A root that is a `$ref` to its own definitions, and the same schema described twice.
    browse: withCodecs({ params: z.tuple([Category]), result: Category }, () => Success(category)),
    again: withParams(Node, () => Success(1)),
    valibot: withCodecs({ params: ValibotTree, result: ValibotTree }, () => Success(tree)),
  };
  const document = openRpcDocument(methods, info);
  const json = JSON.parse(JSON.stringify(document)) as OpenRpcDocument;

  test("every $ref resolves in the document, into components.schemas", () => {
    expect(refsIn(json).length).toBeGreaterThan(0);
    expectEveryRefResolves(json);
    for (const { ref } of refsIn(json)) expect(ref).toMatch(/^#\/components\/schemas\/[a-zA-Z0-9._-]+(\/|$)/);
  });

  test("the official parser validates and parses it", () => {
    expect(validateOpenRPCDocument(json)).toBe("true");
    // Without dereferencing: its dereferencer (@json-schema-tools/dereferencer 1.6) never ends on
    // any recursive schema, io-ts's `t.recursion` too (open-rpc/generator#720). The refs are
    // checked above, and ajv follows them below.
    expect(parseOpenRPCDocument(json, false)).toEqual({ methods: json.methods });
  });

  test("the official parser dereferences the refs to lifted definitions that do not recur", () => {
    const Address = z.object({ street: z.string() }).meta({ id: "Address" });
    const move = withCodecs({ params: z.object({ from: Address, to: Address }), result: z.array(Address) }, () =>
      Success([]),
    );
    const moving = JSON.parse(JSON.stringify(openRpcDocument({ move }, info))) as OpenRpcDocument;
    const address = { type: "object", properties: { street: { type: "string" } }, required: ["street"] };
    const parsed = parseOpenRPCDocument(moving, true) as { methods: OpenRpcDocument["methods"] };
    expect(parsed.methods[0]?.params.map((p) => p.schema)).toEqual([address, address]);
    expect(parsed.methods[0]?.result.schema).toEqual({
      type: "array",
      items: { ...address, additionalProperties: false },
    });
  });

  test("ajv compiles the lifted schemas, which accept what zod accepts and refuse what it refuses", () => {
    const compile = compiler(json);
    const [plant, pair, browse, again, valibot] = json.methods;
    const plantParams = compile(plant!.params[0]!.schema);
    expect([plantParams(tree), plantParams(null), plantParams(badTree)]).toEqual([true, true, false]);
    const plantResult = compile(plant!.result.schema);
    expect([plantResult(tree), plantResult(badTree)]).toEqual([true, false]);
    expect(pair!.params.map((p) => p.name)).toEqual(["left", "right"]);
    const left = compile(pair!.params[0]!.schema);
    expect([left(tree), left(badTree)]).toEqual([true, false]);
    const pairResult = compile(pair!.result.schema);
    expect([pairResult([tree, leaf("z")]), pairResult([badTree])]).toEqual([true, false]);
    const browseParam = compile(browse!.params[0]!.schema);
    expect([browseParam(category), browseParam(badCategory)]).toEqual([true, false]);
    expect(again!.params.map((p) => p.name)).toEqual(["name", "children"]);
    const children = compile(again!.params[1]!.schema);
    expect([children([tree]), children([badTree])]).toEqual([true, false]);
    const valibotResult = compile(valibot!.result.schema);
    expect([valibotResult(tree), valibotResult(badTree)]).toEqual([true, false]);
    // The schemas agree with the document on these samples.
    expect([v.is(ValibotNode, tree), v.is(ValibotNode, badTree)]).toEqual([true, false]);
    expect([Node.safeParse(tree).success, Node.safeParse(badTree).success]).toEqual([true, false]);
    expect([Category.safeParse(category).success, Category.safeParse(badCategory).success]).toEqual([true, false]);
  });

  test("rpc.discover answers the same document", () => {
    const table = { ...methods, "rpc.discover": discover(info) };
    const answer = JSON.parse(dispatch('{"jsonrpc":"2.0","method":"rpc.discover","id":1}', table) as string) as {
      result: OpenRpcDocument;
    };
    expect(answer.result).toEqual(json);
  });

  test.each([
    ["root-recursive", Node, tree, badTree],
    ["with its own definitions", Pair, { left: tree, right: leaf("r") }, { left: tree, right: badTree }],
    ["a root $ref to its definitions", Category, category, badCategory],
    ["valibot, with its own $defs", ValibotTree, tree, badTree],
  ] as const)(
    "toJsonSchema alone (%s) stays a standalone schema: its refs resolve in it",
    (_name, schema, good, bad) => {
      const standalone = toJsonSchema(schema);
      expectEveryRefResolves(standalone);
      expect(JSON.stringify(standalone)).not.toContain("components");
      const validate = new Ajv({ strict: false }).compile(standalone);
      expect([validate(good), validate(bad)]).toEqual([true, false]);
    },
  );
});

describe("lifting a Standard Schema's own JSON Schema: what is rewritten and what is not", () => {
  /** A schema that accepts anything, whose `jsonSchema` answers `answer` on both sides. */
  const describing = (answer: Record<string, unknown>): StandardSchemaV1 =>
    ({
      "~standard": {
        version: 1,
        vendor: "mine",
        validate: (value: unknown) => ({ value }),
        jsonSchema: { input: () => answer, output: () => answer },
      },
    }) as StandardSchemaV1;
  const answer = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://example.com/list",
    title: "List",
    type: "object",
    properties: {
      // A property may be called `$ref` or `const`: its value is a schema, rewritten.
      $ref: { $ref: "#/$defs/a~1b" },
      const: { $ref: "#/properties/head" },
      head: { type: "string", const: { $ref: "#" }, enum: [{ $ref: "#" }], default: { $ref: "#" } },
      tail: { anyOf: [{ $ref: "#" }, { type: "null" }] },
      other: { $ref: "https://example.com/other.json" },
      anchor: { $ref: "#item" },
    },
    $defs: { "a/b": { type: "array", items: { $ref: "#/$defs/a~1b" } } },
  };

  test("defs and the root go to components under OpenRPC names; pointers into them follow; data is data", () => {
    const document = openRpcDocument({ m: withParams(describing(answer), () => Success(1)) }, info);
    expect(document.components?.schemas).toEqual({
      a_b: { type: "array", items: { $ref: "#/components/schemas/a_b" } },
      List: {
        title: "List",
        type: "object",
        properties: {
          $ref: { $ref: "#/components/schemas/a_b" },
          const: { $ref: "#/components/schemas/List/properties/head" },
          head: { type: "string", const: { $ref: "#" }, enum: [{ $ref: "#" }], default: { $ref: "#" } },
          tail: { anyOf: [{ $ref: "#/components/schemas/List" }, { type: "null" }] },
          other: { $ref: "https://example.com/other.json" },
          anchor: { $ref: "#item" },
        },
      },
    });
    // The root, lifted, is referred to (its `title` keeps it whole: only plain objects split).
    expect(document.methods[0]?.params.map((p) => [p.name, p.schema])).toEqual([
      ["params", { $ref: "#/components/schemas/List" }],
    ]);
    // Three schemas with the same names: each is lifted under names of its own, none overwritten.
    const twice = openRpcDocument(
      {
        m: withCodecs({ params: describing(answer), result: describing(answer) }, () => Success(1)),
        n: withParams(describing(answer), () => Success(1)),
      },
      info,
    );
    expect(Object.keys(twice.components?.schemas ?? {})).toEqual(["a_b", "List", "a_b_2", "List_2", "a_b_3", "List_3"]);
    // One schema described three times is lifted once per side.
    const same = describing(answer);
    const shared = openRpcDocument(
      { m: withCodecs({ params: same, result: same }, () => Success(1)), n: withParams(same, () => Success(1)) },
      info,
    );
    // What it takes (both methods' params), then what it gives (the result).
    expect(Object.keys(shared.components?.schemas ?? {})).toEqual(["a_b", "List", "a_b_2", "List_2"]);
  });
});

// -------------------------------------------------------------------------------------------------
// 2. a jsonSchema answer that is not JSON

/** A schema that accepts anything, whose `jsonSchema` answers `answer()`. */
const answering = (vendor: string, answer: () => Record<string, unknown>): StandardSchemaV1 =>
  ({
    "~standard": {
      version: 1,
      vendor,
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: answer, output: answer },
    },
  }) as StandardSchemaV1;

const cyclic = (): Record<string, unknown> => {
  const schema: Record<string, unknown> = { type: "object", properties: {} };
  (schema["properties"] as Record<string, unknown>)["self"] = schema;
  return schema;
};

describe("a jsonSchema answer that is not JSON is no JSON Schema (issue 21, item 13b)", () => {
  const cases = [
    ["a cycle", answering("cyclic", cyclic)],
    ["a function inside", answering("functional", () => ({ type: "string", format: () => "x" }))],
    ["a bigint inside", answering("bigintish", () => ({ type: "integer", maximum: 10n }))],
  ] as const;

  test.each(cases)(
    "%s: openRpcDocument, rpc.discover and toJsonSchema describe it as {} naming the vendor",
    (_, schema) => {
      const vendor = schema["~standard"].vendor;
      const description = `A ${vendor} schema, which gives no JSON Schema`;
      const methods = { a: withCodecs({ params: schema, result: schema }, () => Success(1)) };
      const document = openRpcDocument(methods, info);
      expect(document.methods[0]?.params).toEqual([
        {
          name: "params",
          schema: { description },
          // As for any schema that gives no JSON Schema: not `{}`, so taken for required.
          required: true,
          description: "The whole params value, which the method's params codec does not split into params",
        },
      ]);
      expect(document.methods[0]?.result).toEqual({ name: "result", schema: { description } });
      expect(validateOpenRPCDocument(document)).toBe("true");
      const table = { ...methods, "rpc.discover": discover(info) };
      const answer = JSON.parse(dispatch('{"jsonrpc":"2.0","method":"rpc.discover","id":1}', table) as string) as {
        result?: unknown;
      };
      expect(answer.result).toEqual(JSON.parse(JSON.stringify(document)));
      expect(toJsonSchema(schema)).toEqual({ description });
      expect(toJsonSchema(schema, "output")).toEqual({ description });
    },
  );
});

// -------------------------------------------------------------------------------------------------
// 3. `is` on an async schema

/** Node's own `process`: Jest's copy never hears the real `unhandledRejection` (see hostile.test.ts). */
const realProcess = (): NodeJS.Process =>
  new (EventEmitter as unknown as { constructor: FunctionConstructor }).constructor("return process")();

/** Runs `body`, then waits long enough for Node to report what it left unhandled: those reasons. */
const unhandledRejections = async (body: () => unknown): Promise<unknown[]> => {
  const real = realProcess();
  const others = real.listeners("unhandledRejection");
  real.removeAllListeners("unhandledRejection");
  const seen: unknown[] = [];
  const listener = (reason: unknown): void => void seen.push(reason);
  real.on("unhandledRejection", listener);
  try {
    await body();
    for (let i = 0; i < 3; i++) await new Promise((done) => setImmediate(done));
    await new Promise((done) => setTimeout(done, 20));
    return seen;
  } finally {
    real.off("unhandledRejection", listener);
    for (const other of others) real.on("unhandledRejection", other as (...args: unknown[]) => void);
  }
};

describe("StandardCodec.is on a schema whose validate answers a Promise (issue 21, item 10)", () => {
  const rejecting: StandardSchemaV1 = {
    "~standard": { version: 1, vendor: "mine", validate: () => Promise.reject(new Error("no store")) },
  };
  const resolving: StandardSchemaV1 = {
    "~standard": { version: 1, vendor: "mine", validate: (value) => Promise.resolve({ value }) },
  };

  test("a rejecting validate: is answers false and leaves no unhandled rejection", async () => {
    const answers: boolean[] = [];
    const seen = await unhandledRejections(() => {
      const is = (schema: StandardSchemaV1): boolean => (toCodec(schema) as StandardCodec).is("x");
      answers.push(is(rejecting), is(resolving));
    });
    expect(answers).toEqual([false, false]);
    expect(seen).toEqual([]);
  });

  test("the client, which asks is whether a schema without JSON Schema takes its one argument as the list", async () => {
    const api = contract({ echo: { params: rejecting } });
    const server = implement(api, { echo: () => E.right("ok") });
    const echo = client(api, local(server)).echo as unknown as (x: unknown) => () => Promise<unknown>;
    const seen = await unhandledRejections(() => echo("x")());
    expect(seen).toEqual([]);
  });
});
