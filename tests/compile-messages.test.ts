/**
 * What a compile error says, not only that there is one: a name the contract refuses, a handler for
 * a name it does not have, a context a handler of a server does not take. A `@ts-expect-error`
 * passes whatever the error's text; these read the text tsc prints, so that a message that said
 * only "not assignable to type 'never'" would fail. The snippet is type-checked under the
 * repository's own strict options, against src, from a folder of the ignored `.tmp` (no tracked file
 * changes).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const repo = join(__dirname, "..");
const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");

/** Each line of the snippet that must fail, keyed by a word of its own, with what its error must say. */
const CASES = {
  unknownHandler: 'implement: \\"sub\\" is not a method or a branch of the contract',
  unknownNested: 'implement: \\"del\\" is not a method or a branch of the contract',
  then: 'contract: \\"then\\" cannot be a name: a part named \\"then\\" would make the contract (or a branch) a thenable',
  rpcName: 'contract: \\"rpc.x\\" cannot be a name: \\"rpc.\\" begins the protocol\'s own methods',
  emptyPart: 'contract: \\"a..b\\" cannot be a name: no part of a dotted name may be empty',
  rpcBranch: 'contract: a branch cannot be named \\"rpc\\"',
  dottedBranch: 'contract: a branch cannot be named \\"a.b\\"',
  wrongContext: "Type '{ usr: string; }' is not assignable to type",
  missingContext: "ContextNeeded<{ user: string; }>",
} as const;

const snippet = (src: string): string => `import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { contract, implement, server } from "${src}";
import { fetchHandler } from "${src}/fetch";
import { nodeHandler } from "${src}/server";
const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  users: contract({ get: { result: t.string } }),
});
const inner = contract({ x: { result: t.number } });
const app = server(contract({ whoami: { result: t.string } }))
  .context<{ user: string }>()
  .implement({ whoami: (ctx) => E.right(ctx.user) });
export const handlers = [
  /* unknownHandler */ implement(api, { add: (a, b) => E.right(a + b), users: { get: () => E.right("x") }, sub: (a: number) => E.right(a) }),
  /* unknownNested */ implement(api, { add: (a, b) => E.right(a + b), users: { get: () => E.right("x"), del: () => E.right(1) } }),
];
export const contracts = [
  /* then */ contract({ then: { result: t.number } }),
  /* rpcName */ contract({ "rpc.x": { result: t.number } }),
  /* emptyPart */ contract({ "a..b": { result: t.number } }),
  /* rpcBranch */ contract({ rpc: inner }),
  /* dottedBranch */ contract({ "a.b": inner }),
];
/* wrongContext */ nodeHandler(app, { context: () => ({ usr: "x" }) });
/* wrongContext */ fetchHandler(app, { context: () => ({ usr: "x" }) });
/* missingContext */ fetchHandler(app);
/* missingContext */ nodeHandler(app);
`;

test("each refusal's compile error names what is wrong, on its own line of the snippet", () => {
  // Inside the repository (its ignored .tmp), so that fp-ts, io-ts and the types resolve as for src.
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  const dir = mkdtempSync(join(repo, ".tmp", "messages-"));
  try {
    const file = join(dir, "messages.ts");
    const text = snippet(join(repo, "src").replaceAll("\\", "/"));
    writeFileSync(file, text);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: join(repo, "tsconfig.json"),
        compilerOptions: { noEmit: true, skipLibCheck: true },
        files: [file],
      }),
    );
    let output = "";
    try {
      execFileSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.json"), "--pretty", "false"], {
        encoding: "utf8",
      });
    } catch (failed) {
      output = String((failed as { stdout?: unknown }).stdout);
    }
    const lines = text.split("\n");
    // Each error, by the case named on its line, with its whole text (its first line and those under it).
    const errors = output.split(/\n(?=\S)/).filter((error) => error.includes("error TS"));
    const byCase = new Map<string, string[]>();
    for (const error of errors) {
      const at = /messages\.ts\((\d+),\d+\)/.exec(error);
      expect(at).not.toBeNull();
      const name = /\/\* (\w+) \*\//.exec(lines[Number(at?.[1]) - 1] ?? "")?.[1] ?? "(no case)";
      byCase.set(name, [...(byCase.get(name) ?? []), error]);
    }
    expect([...byCase.keys()].sort()).toStrictEqual(Object.keys(CASES).sort());
    for (const [name, said] of Object.entries(CASES)) {
      for (const error of byCase.get(name) ?? []) expect(error).toContain(said);
    }
    expect([byCase.get("wrongContext"), byCase.get("missingContext")].map((found) => found?.length)).toStrictEqual([
      2, 2,
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
