// Lints texts as if each were the file at its path, with the repository's own ESLint configuration,
// and prints each text's messages as JSON lines `ruleId: message`. A child process, because Jest's
// module sandbox cannot load ESLint's ESM configuration file. Input on stdin: [{ path, text }].
//
// Only the rules that tests/architecture.test.ts reads run (the import rules: `import-x/*` and
// `no-restricted-imports`), without type information: those rules need none, and a type-aware
// program of the whole repository (what `npm run lint` builds) was most of the test's time.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ESLint } from "eslint";

const root = process.argv[2];
const cases = JSON.parse(readFileSync(0, "utf8"));
const eslint = new ESLint({
  cwd: root,
  overrideConfig: [
    { files: ["**/*.ts"], languageOptions: { parserOptions: { projectService: false, project: null } } },
  ],
  ruleFilter: ({ ruleId }) => ruleId.startsWith("import-x/") || ruleId === "no-restricted-imports",
});
const out = [];
for (const { path, text } of cases) {
  const [result] = await eslint.lintText(text, { filePath: join(root, path) });
  out.push((result?.messages ?? []).map((m) => `${m.ruleId ?? "parse"}: ${m.message}`));
}
process.stdout.write(JSON.stringify(out));
