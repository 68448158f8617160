/**
 * What the compiler says of two mistakes, read from its diagnostics (one program, both files):
 *
 * - `merge(a, a)`: one error on the arguments whose last line names the name defined twice. With
 *   an overload for contracts and one for tables, both failed, and the compiler said "No overload
 *   matches this call" (TS2769) with the refusal under the other overload's complaint (a contract
 *   "is not assignable to parameter of type 'Mergeable'").
 * - A branch of `implement` missing a method: the missing name, in the branch's own entries
 *   (`Handlers<{ readonly get: ...; readonly list: ... }, ...>`), where it showed the whole
 *   contract's flat table under `BranchOf<{ ...every name... }, "users">`.
 */
import ts from "typescript";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(__dirname, "..");
/** The pid's own: the suite may run beside itself on other Nodes (npm test). */
const dir = join(root, ".tmp", `type-error-messages-${process.pid}`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The compiler's diagnostics of each file of `files` (name to code), from one program. */
const diagnosticsOf = (files: Readonly<Record<string, string>>): Record<string, readonly ts.Diagnostic[]> => {
  mkdirSync(dir, { recursive: true });
  const paths = Object.keys(files).map((name) => join(dir, name));
  for (const [name, code] of Object.entries(files)) writeFileSync(join(dir, name), code);
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (config === undefined) throw new Error("tsconfig.json not read");
  const program = ts.createProgram(paths, { ...config.options, noEmit: true });
  const all = ts.getPreEmitDiagnostics(program);
  return Object.fromEntries(
    Object.keys(files).map((name) => [name, all.filter((d) => d.file?.fileName === join(dir, name))]),
  );
};

let diagnostics: Record<string, readonly ts.Diagnostic[]> = {};
beforeAll(() => {
  diagnostics = diagnosticsOf({
    "merge.ts": `
import * as t from "io-ts";
import { contract, merge } from "../../src";
const users = contract({ get: { result: t.string } });
export const both = merge(users, users);
`,
    "branch.ts": `
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { contract, implement } from "../../src";
const users = contract({ get: { params: t.tuple([t.number]), result: t.string }, list: { result: t.array(t.number) } });
const api = contract({ users, ping: { result: t.string } });
export const methods = implement(api, { users: { get: (id) => E.right(\`user \${id}\`) }, ping: () => E.right("pong") });
`,
  });
}, 120_000);

const textOf = (diagnostic: ts.Diagnostic | undefined): string =>
  diagnostic === undefined ? "" : ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");

test("merge(a, a): one error on the arguments, ending with the name defined twice", () => {
  const merge = diagnostics["merge.ts"] ?? [];
  expect(merge.map((d) => d.code)).toEqual([2345]);
  const text = textOf(merge[0]);
  expect(text.split("\n").at(-1)).toMatch(/is not assignable to type '"merge: \\"get\\" is defined twice"'\.$/);
  expect(text).not.toContain("Mergeable");
});

test("a branch missing a method: its name, in the branch's own entries", () => {
  const branch = diagnostics["branch.ts"] ?? [];
  expect(branch.map((d) => d.code)).toEqual([2322]);
  const text = textOf(branch[0]);
  expect(text).toContain("Property 'list' is missing in type");
  expect(text).toContain(
    "Handlers<{ readonly get: { readonly params: TupleC<[NumberC]>; readonly result: StringC; }; readonly list:",
  );
  expect(text).not.toContain("BranchOf");
  expect(text).not.toContain("ping");
});
