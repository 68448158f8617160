/**
 * Every TypeScript example in the README runs against the BUILT package, and prints what its
 * `// => ` comments say it prints, line by line.
 */
import { transformSync } from "@swc/core";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(__dirname, "..");

/** The ```ts blocks of a Markdown file, each with the lines its `// => ` comments promise. */
export const examples = (markdown: string): Array<{ code: string; expected: string[] }> =>
  [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => {
    const code = match[1] ?? "";
    const expected = [...code.matchAll(/^\/\/ => (.*)$/gm)].map((line) => line[1] ?? "");
    return { code, expected };
  });

const run = (code: string, name: string): string[] => {
  const dir = join(root, ".tmp", "doctest");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.cjs`);
  const { code: js } = transformSync(code, {
    jsc: { parser: { syntax: "typescript" }, target: "es2022" },
    module: { type: "commonjs" },
  });
  writeFileSync(file, js);
  const out = execFileSync(process.execPath, [file], { cwd: root, encoding: "utf8" });
  return out.split("\n").filter((line) => line !== "");
};

const readme = examples(readFileSync(join(root, "README.md"), "utf8"));

test("the README has examples that promise output", () => {
  expect(readme.length).toBeGreaterThanOrEqual(4);
  for (const example of readme) expect(example.expected.length).toBeGreaterThan(0);
});

test.each(readme.map((example, index) => [index + 1, example] as const))(
  "README example %i prints what it says",
  (index, example) => {
    expect(run(example.code, `readme-${index}`)).toEqual(example.expected);
  },
);
