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
 * - `stages` held in an array variable (not a tuple) whose stage changes the context: each of
 *   `dispatch`, `fetchHandler`, `nodeHandler` and `serveNats` names the mend, `StagesNotATuple` ("write the
 *   stages as a tuple (as const)"), where the handlers blamed the `context` function ("'{ token }'
 *   is not assignable to '{ user }'") and the dispatch a bare refusal; `as const` compiles.
 *
 * Compile-only (a TypeScript program, ~9 CPU-s; the compiler's answer does not depend on the Node),
 * so it runs once, on the npm Node (scripts/test-runtimes.mjs, ONCE).
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
    "stages.ts": `
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { dispatch, withContext, Success, type Call } from "../../src";
import { fetchHandler } from "../../src/fetch";
import { nodeHandler } from "../../src/server";
import { serveNats, type NatsConnection } from "../../src/nats";
const whoami = withContext<{ user: string }>().withCodecs({ result: t.string }, (ctx) => Success(ctx.user));
const login = (call: Call<{ token: string }>) => E.right({ ...call, context: { user: call.context.token } });
const stages = [login];
const tuple = [login] as const;
export const a = dispatch("", { whoami }, { stages, context: { token: "t" } });
export const b = fetchHandler({ whoami }, { stages, context: (request) => ({ token: request.url }) });
export const c = nodeHandler({ whoami }, { stages, context: (request) => ({ token: request.url }) });
export const d = dispatch("", { whoami }, { stages: tuple, context: { token: "t" } });
export const e = fetchHandler({ whoami }, { stages: tuple, context: (request) => ({ token: request.url }) });
export const f = nodeHandler({ whoami }, { stages: tuple, context: (request) => ({ token: request.url }) });
export const g = (nc: NatsConnection) =>
  serveNats(nc, { whoami }, { name: "s", version: "1.0.0", subject: "s", stages, context: (m) => ({ token: m.subject }) });
export const h = (nc: NatsConnection) =>
  serveNats(nc, { whoami }, { name: "s", version: "1.0.0", subject: "s", stages: tuple, context: (m) => ({ token: m.subject }) });
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

test("stages in an array variable that change the context: the error names the mend; as const compiles", () => {
  const stages = diagnostics["stages.ts"] ?? [];
  expect(stages.map((d) => d.file?.getLineAndCharacterOfPosition(d.start ?? 0).line)).toEqual([11, 12, 13, 18]);
  for (const diagnostic of stages) {
    const text = textOf(diagnostic);
    expect(text).toContain("StagesNotATuple<");
    expect(text).not.toMatch(/'\{ token: string; \}' is not assignable to type '\{ user: string; \}/);
  }
});
