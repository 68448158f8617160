/**
 * The one-way rule of docs/architecture.md is held by lint, not by review: these tests plant each
 * kind of wrong import in a real file's text and check that the repository's own lint
 * configuration (eslint.config.mjs, .dependency-cruiser.cjs) refuses it, and that the same text
 * without the plant passes. A rule that cannot fail would show here as a planted import let through.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(__dirname, "..");

/**
 * The Node that runs dependency-cruiser: this one, or (when the suite runs on Node 18, which
 * dependency-cruiser 17 does not support: it needs ^20.12) the Node that runs npm (`npm_node_execpath`,
 * which the runtime matrix hands on), else the `node` on PATH: the one that runs `npm run lint`.
 */
const LINT_NODE = (() => {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  return major > 20 || (major === 20 && minor >= 12) ? process.execPath : (process.env["npm_node_execpath"] ?? "node");
})();

/**
 * What lint reports (`ruleId: message`) for each text as if it were the file at its path (relative
 * to the root), from the repository's own configuration, in one child process
 * (tests/helpers/lint-text.mjs): one type-aware program for every case.
 */
const lintAll = (cases: ReadonlyArray<{ path: string; text: string }>): string[][] =>
  JSON.parse(
    execFileSync(process.execPath, [join(__dirname, "helpers", "lint-text.mjs"), ROOT], {
      input: JSON.stringify(cases),
      encoding: "utf8",
      maxBuffer: 1 << 26,
    }),
  ) as string[][];

/** A real file of a part, so that the planted import resolves to a file that exists. */
const fileOf = (part: string): string => {
  const name = readdirSync(join(ROOT, "src", "internal", part)).find((file) => file.endsWith(".ts"));
  if (name === undefined) throw new Error(`no file in src/internal/${part}`);
  return name.replace(/\.ts$/, "");
};

const RESULT = "src/internal/core/result.ts";
const resultText = readFileSync(join(ROOT, RESULT), "utf8");
const textOf = (path: string): string => readFileSync(join(ROOT, path), "utf8");
const importOf = (spec: string): string => `\nimport * as planted from "${spec}";\nexport const __planted = planted;\n`;
const NODE_FS = `\nimport { readFileSync as planted } from "node:fs";\nexport const __planted = planted;\n`;
const LADDER = [
  ["documents", "core"],
  ["contract", "documents"],
  ["client", "contract"],
  ["connection", "client"],
  ["node", "connection"],
] as const;
const lowerOf = (part: string): string => `src/internal/${part}/${fileOf(part)}.ts`;
const nodeFile = (): string => lowerOf("node");

/** Every planted text, linted once before the tests read their part. */
const CASES = (): Array<{ path: string; text: string }> => [
  { path: RESULT, text: resultText },
  ...LADDER.flatMap(([above, below]) => [
    { path: RESULT, text: resultText + importOf(`../${above}/${fileOf(above)}`) },
    { path: lowerOf(below), text: textOf(lowerOf(below)) + importOf(`../${above}/${fileOf(above)}`) },
  ]),
  { path: RESULT, text: resultText + importOf("../../index") },
  { path: RESULT, text: resultText + NODE_FS },
  { path: nodeFile(), text: textOf(nodeFile()) + NODE_FS },
  {
    path: RESULT,
    text: `${resultText}\nimport { JsonRpcError as planted } from "./exceptions";\nexport const __planted = planted;\n`,
  },
  {
    path: "src/client.ts",
    text: `${textOf("src/client.ts")}\nexport { serve as planted } from "./internal/node/server";\n`,
  },
  { path: "src/index.ts", text: textOf("src/index.ts") },
];
let found: string[][] = [];
const seen = (index: number): string[] => found[index] ?? [];
beforeAll(() => {
  found = lintAll(CASES());
}, 180_000);

describe("the import rules fail on a planted wrong import", () => {
  test("the file as it is passes the import rules", () => {
    expect(seen(0).filter((line) => /import-x|restricted/.test(line))).toEqual([]);
  });

  test.each(LADDER.map(([above, below], index) => [above, below, index] as const))(
    "core importing %s is refused, and so is %s importing it",
    (_above, _below, index) => {
      expect(seen(1 + 2 * index)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^import-x\/no-restricted-paths: .*the core part imports only core/),
        ]),
      );
      expect(seen(2 + 2 * index)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^import-x\/no-restricted-paths: /)]),
      );
    },
  );

  const after = 1 + 2 * LADDER.length;

  test("an internal file importing a public entry is refused", () => {
    expect(seen(after)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^import-x\/no-restricted-paths: .*never import a public entry/)]),
    );
  });

  test("a node: import outside the Node part is refused, and allowed inside it", () => {
    expect(seen(after + 1)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^no-restricted-imports: .*only src\/internal\/node/)]),
    );
    expect(seen(after + 2).filter((line) => line.startsWith("no-restricted-imports"))).toEqual([]);
  });

  test("a circle of value imports is refused by import-x/no-cycle", () => {
    // exceptions.ts imports checkError from result.ts: result.ts importing exceptions.ts closes a circle.
    expect(seen(after + 3)).toEqual(expect.arrayContaining([expect.stringMatching(/^import-x\/no-cycle: /)]));
  });

  test("a browser-safe entry re-exporting from the Node part is refused; the main entry's serve door is not", () => {
    expect(seen(after + 4)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^import-x\/no-restricted-paths: .*browser-safe entry/)]),
    );
    expect(seen(after + 5).filter((line) => /import-x|restricted/.test(line))).toEqual([]);
  });

  test("a Node global in a browser-safe part fails tsconfig.browser.json, and compiles with Node's types", () => {
    const dir = join(ROOT, ".tmp", `architecture-plant-${process.pid}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(join(dir, "planted.ts"), "export const planted: number = process.pid;\n");
      const compile = (base: string): string => {
        writeFileSync(
          join(dir, "tsconfig.json"),
          JSON.stringify({ extends: `../../${base}`, include: ["planted.ts"], exclude: [] }),
        );
        try {
          execFileSync(
            process.execPath,
            [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, "tsconfig.json")],
            {
              encoding: "utf8",
              stdio: ["ignore", "pipe", "pipe"],
            },
          );
          return "ok";
        } catch (failed) {
          return `FAILED ${String((failed as { stdout?: string }).stdout)}`;
        }
      };
      expect(compile("tsconfig.browser.json")).toMatch(/^FAILED[\s\S]*planted\.ts.*Cannot find name 'process'/);
      expect(compile("tsconfig.json")).toBe("ok");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  test("a circle of type-only imports is refused by dependency-cruiser", () => {
    const dir = mkdtempSync(join(tmpdir(), "rpcserver-arch-"));
    try {
      mkdirSync(join(dir, "src"));
      copyFileSync(join(ROOT, ".dependency-cruiser.cjs"), join(dir, ".dependency-cruiser.cjs"));
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true } }));
      writeFileSync(join(dir, "src", "a.ts"), 'import type { B } from "./b";\nexport type A = { b?: B };\n');
      const cruise = (): string => {
        try {
          return execFileSync(
            LINT_NODE,
            [join(ROOT, "node_modules", ".bin", "depcruise"), "src", "--config", ".dependency-cruiser.cjs"],
            {
              cwd: dir,
              encoding: "utf8",
              stdio: ["ignore", "pipe", "pipe"],
            },
          );
        } catch (failed) {
          return `FAILED ${String((failed as { stdout?: string }).stdout)}`;
        }
      };
      writeFileSync(join(dir, "src", "b.ts"), "export type B = { n: number };\n");
      expect(cruise()).not.toMatch(/^FAILED/);
      writeFileSync(join(dir, "src", "b.ts"), 'import type { A } from "./a";\nexport type B = { a?: A };\n');
      expect(cruise()).toMatch(/^FAILED[\s\S]*no-circular/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
