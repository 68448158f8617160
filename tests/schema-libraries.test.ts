/**
 * One table of methods per Standard Schema library (zod 4, valibot 1 with `toStandardJsonSchema`,
 * ArkType 2, Effect Schema 4 through its standard adapters), run by tests/fixtures/schema-libraries.mjs
 * against the built package in a child process (ArkType and Effect ship ES modules only): sync and
 * async dispatch, a contract's client, and `rpc.discover`, its document checked by
 * `validateOpenRPCDocument` and by ajv against values each schema accepts and refuses.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { validateOpenRPCDocument } from "./helpers/openrpc";
import { ROOT } from "./helpers/processes";

interface Answer {
  readonly result?: unknown;
  readonly code?: number;
  readonly data?: unknown;
}

interface LibraryReport {
  readonly sync: Record<string, Answer>;
  readonly async: Record<string, Answer>;
  readonly client: Record<
    string,
    { _tag: string; right?: unknown; left?: { _tag: string; code: number; data: unknown } }
  >;
  readonly discover: {
    readonly sameAsDocument: boolean;
    readonly document: unknown;
    readonly addParams: ReadonlyArray<{ name: string; accepts: boolean[] }>;
    readonly addResult: boolean[];
    readonly greetParams: ReadonlyArray<{ name: string; accepts: boolean[] }>;
    readonly greetResult: boolean[];
    readonly greetNameMinLength?: number;
  };
}

const child = spawnSync(process.execPath, [join(ROOT, "tests", "fixtures", "schema-libraries.mjs")], {
  cwd: ROOT,
  encoding: "utf8",
});
const report = (): Record<string, LibraryReport> => {
  if (child.status !== 0) throw new Error(`the fixture failed (${String(child.status)}): ${child.stderr}`);
  return JSON.parse(child.stdout) as Record<string, LibraryReport>;
};

describe.each(["zod", "valibot", "arktype", "effect"])("%s", (name) => {
  const of = (): LibraryReport => {
    const library = report()[name];
    if (library === undefined) throw new Error(`no report for ${name}`);
    return library;
  };

  test.each(["sync", "async"] as const)("%s dispatch: results, -32602 and -32603 in io-ts's line shape", (kind) => {
    const answers = of()[kind];
    expect(answers["add"]).toEqual({ result: 3 });
    expect(answers["greet"]).toEqual({ result: "hi ann" });
    expect(answers["addRefused"]).toEqual({ code: -32602, data: [expect.stringMatching(/^params\[1\]: \S/)] });
    expect(answers["greetRefused"]).toEqual({ code: -32602, data: [expect.stringMatching(/^params\.name: \S/)] });
    expect(answers["hello"]).toEqual({ result: "hello ann" });
    expect(answers["helloRefused"]).toEqual({ code: -32602, data: [expect.stringMatching(/^params\.name: \S/)] });
    expect(answers["resultRefused"]).toEqual({ code: -32603, data: [expect.stringMatching(/^result: \S/)] });
  });

  test("the client: results decoded by the schema; the server's refusal as a ServerError", () => {
    const { client } = of();
    expect(client["add"]).toEqual({ _tag: "Right", right: 3 });
    expect(client["greet"]).toEqual({ _tag: "Right", right: "hi ann" });
    expect(client["greetRefused"]?.left).toMatchObject({ _tag: "ServerError", code: -32602 });
  });

  test("rpc.discover: a valid OpenRPC document from the schema's JSON Schema, which ajv checks", () => {
    const { discover } = of();
    expect(discover.sameAsDocument).toBe(true);
    expect(validateOpenRPCDocument(discover.document)).toBe("true");
    // by position: each number param accepts 1 and 2.5, refuses "x" and null
    expect(discover.addParams).toEqual([
      { name: "param0", accepts: [true, true, false, false] },
      { name: "param1", accepts: [true, true, false, false] },
    ]);
    // the integer result: 3, not 1.5 or "x"
    expect(discover.addResult).toEqual([true, false, false]);
    // by name: "ann", not "" or 42
    expect(discover.greetParams).toEqual([{ name: "name", accepts: [true, false, false] }]);
    expect(discover.greetResult).toEqual([true, false]);
  });
});

test("the length each library's JSON Schema gives a string of at least 2: Effect's counts code points", () => {
  const lengths = Object.fromEntries(
    Object.entries(report()).map(([name, library]) => [name, library.discover.greetNameMinLength]),
  );
  // Effect halves a length for JSON Schema, whose minLength counts code points where JavaScript
  // counts UTF-16 units (a surrogate pair is 2 of one, 1 of the other): a sound lower bound.
  expect(lengths).toEqual({ zod: 2, valibot: 2, arktype: 2, effect: 1 });
});
