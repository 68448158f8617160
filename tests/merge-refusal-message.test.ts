/**
 * What the compiler says of `merge(a, a)`: one error on the arguments whose last line names the
 * name defined twice. With an overload for contracts and one for tables, both failed, and the
 * compiler said "No overload matches this call" (TS2769) with the refusal under the other
 * overload's complaint (a contract "is not assignable to parameter of type 'Mergeable'").
 */
import ts from "typescript";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(__dirname, "..");
/** The pid's own: the suite may run beside itself on other Nodes (npm test). */
const dir = join(root, ".tmp", `merge-message-${process.pid}`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const diagnosticsOf = (code: string): readonly ts.Diagnostic[] => {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "merge.ts");
  writeFileSync(file, code);
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
  const program = ts.createProgram([file], { ...config.options, noEmit: true });
  return ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === file);
};

test("merge(a, a): one error on the arguments, ending with the name defined twice", () => {
  const diagnostics = diagnosticsOf(`
import * as t from "io-ts";
import { contract, merge } from "../../src";
const users = contract({ get: { result: t.string } });
export const both = merge(users, users);
`);
  expect(diagnostics.map((d) => d.code)).toEqual([2345]);
  const text = ts.flattenDiagnosticMessageText(diagnostics[0]?.messageText, "\n");
  expect(text.split("\n").at(-1)).toMatch(/is not assignable to type '"merge: \\"get\\" is defined twice"'\.$/);
  expect(text).not.toContain("Mergeable");
}, 120_000);
