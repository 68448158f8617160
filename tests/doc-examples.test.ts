/**
 * Every TypeScript example in the README and in docs/*.md runs against the BUILT package, and
 * prints what its `// => ` comments say it prints, line by line.
 */
import ts from "typescript";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(__dirname, "..");

/** The ```ts blocks of a Markdown file, each with the lines its `// => ` comments promise. */
const examples = (markdown: string): Array<{ code: string; expected: string[] }> =>
  [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => {
    const code = match[1] ?? "";
    const expected = [...code.matchAll(/^\/\/ => (.*)$/gm)].map((line) => line[1] ?? "");
    return { code, expected };
  });

const run = (code: string, name: string): string[] => {
  const dir = join(root, ".tmp", "doctest");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.cjs`);
  const js = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  }).outputText;
  writeFileSync(file, js);
  const out = execFileSync(process.execPath, [file], { cwd: root, encoding: "utf8" });
  return out.split("\n").filter((line) => line !== "");
};

const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const all = pages.flatMap((page) =>
  examples(readFileSync(join(root, page), "utf8")).map((example, index) => [`${page} #${index + 1}`, example] as const),
);

test("the README has examples, and every example promises output", () => {
  expect(all.filter(([name]) => name.startsWith("README")).length).toBeGreaterThanOrEqual(4);
  for (const [name, example] of all)
    expect({ name, promises: example.expected.length > 0 }).toEqual({ name, promises: true });
});

test.each(all)("%s prints what it says", (name, example) => {
  expect(run(example.code, name.replace(/[^a-z0-9]+/gi, "-"))).toEqual(example.expected);
});
