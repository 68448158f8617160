/**
 * The import rule of docs/architecture.md is held by lint, not by review: these tests plant each
 * kind of wrong import in a real file's text and check that the repository's own lint
 * configuration (eslint.config.mjs, .dependency-cruiser.cjs, both built from the table of parts in
 * architecture.cjs) refuses it, and that the same text without the plant passes. A rule that cannot
 * fail would show here as a planted import let through. The last tests hold docs/architecture.md to
 * the code: its drawing of the graph is the table, and it names every file of src/.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const ROOT = join(__dirname, "..");

/** The table of parts (architecture.cjs): what each part of src/internal may import. */
const architecture = createRequire(__filename)(join(ROOT, "architecture.cjs")) as {
  PARTS: Readonly<Record<string, readonly string[]>>;
  problemsOf: (parts: Readonly<Record<string, readonly string[]>>, folders: readonly string[]) => string[];
};
const PARTS = architecture.PARTS;
const PART_NAMES = Object.keys(PARTS);
/** The parts that `part` may not import, by the table. */
const forbiddenFor = (part: string): string[] =>
  PART_NAMES.filter((other) => other !== part && !(PARTS[part] ?? []).includes(other));

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
 * What dependency-cruiser reports for the files under `dir`/src, with the repository's own
 * configuration (loaded from the root, so that it reads the root's table): its output, or
 * `FAILED` and its output when it finds an error.
 */
const cruise = (dir: string, outputType = "err"): string => {
  writeFileSync(
    join(dir, ".dependency-cruiser.cjs"),
    `module.exports = require(${JSON.stringify(join(ROOT, ".dependency-cruiser.cjs"))});\n`,
  );
  try {
    return execFileSync(
      LINT_NODE,
      [
        join(ROOT, "node_modules", ".bin", "depcruise"),
        "src",
        "--config",
        ".dependency-cruiser.cjs",
        "--output-type",
        outputType,
      ],
      { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 26 },
    );
  } catch (failed) {
    return `FAILED ${String((failed as { stdout?: string }).stdout)}`;
  }
};

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
const fileIn = (part: string): string => `src/internal/${part}/${fileOf(part)}.ts`;
const nodeFile = (): string => fileIn("node");

/** A part's file with an import of every other part planted in it. */
const plantedEverywhere = (part: string): { path: string; text: string } => ({
  path: fileIn(part),
  text:
    textOf(fileIn(part)) +
    PART_NAMES.filter((other) => other !== part)
      .map(
        (other) =>
          `\nimport * as planted_${other} from "../${other}/${fileOf(other)}";\nexport const __planted_${other} = planted_${other};\n`,
      )
      .join(""),
});

/** The parts that the import rules refused in a text: those named by an `Unexpected path "../<part>/..."`. */
const refusedIn = (lines: readonly string[]): string[] => [
  ...new Set(
    lines.flatMap((line) => {
      const match = /^import-x\/no-restricted-paths: Unexpected path "\.\.\/([^/"]+)\//.exec(line);
      return match?.[1] === undefined ? [] : [match[1]];
    }),
  ),
];

/** Every planted text, linted once before the tests read their part. */
const CASES = (): Array<{ path: string; text: string }> => [
  { path: RESULT, text: resultText },
  ...PART_NAMES.map(plantedEverywhere),
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

  test.each(PART_NAMES.map((part, index) => [part, (PARTS[part] ?? []).join(", ") || "nothing", index] as const))(
    "the %s part may import %s: an import of every other part is refused, with its row's message",
    (part, _row, index) => {
      const lines = seen(1 + index);
      expect(refusedIn(lines).sort()).toEqual(forbiddenFor(part).sort());
      expect(lines).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(`^import-x/no-restricted-paths: .*the ${part} part imports `)),
        ]),
      );
    },
  );

  test("the graph is not a ladder: the inspector may not import the connection, nor NATS the connection, nor the core anything", () => {
    const refusedBy = (part: string): string[] => refusedIn(seen(1 + PART_NAMES.indexOf(part)));
    expect(refusedBy("inspector")).toContain("connection");
    expect(refusedBy("nats")).toContain("connection");
    expect(refusedBy("node")).toEqual(expect.arrayContaining(["connection", "nats"]));
    expect(refusedBy("core").sort()).toEqual(PART_NAMES.filter((part) => part !== "core").sort());
  });

  test.each([
    ["nats", "NATS"],
    ["otel", "OpenTelemetry"],
    ["mcp", "MCP"],
  ])("only src/%s.ts imports the %s part: a part importing it is refused by the door's own zone too", (door) => {
    for (const part of PART_NAMES.filter((name) => name !== door)) {
      expect(seen(1 + PART_NAMES.indexOf(part))).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(`^import-x/no-restricted-paths: .*only src/${door}\\.ts imports`)),
        ]),
      );
    }
  });

  const after = 1 + PART_NAMES.length;

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
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true } }));
      writeFileSync(join(dir, "src", "a.ts"), 'import type { B } from "./b";\nexport type A = { b?: B };\n');
      writeFileSync(join(dir, "src", "b.ts"), "export type B = { n: number };\n");
      expect(cruise(dir)).not.toMatch(/^FAILED/);
      writeFileSync(join(dir, "src", "b.ts"), 'import type { A } from "./a";\nexport type B = { a?: A };\n');
      expect(cruise(dir)).toMatch(/^FAILED[\s\S]*no-circular/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("dependency-cruiser holds the same graph for type-only imports: each part's import of a part its row does not name is refused", () => {
    const dir = mkdtempSync(join(tmpdir(), "rpcserver-arch-"));
    try {
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true } }));
      for (const part of PART_NAMES) {
        mkdirSync(join(dir, "src", "internal", part), { recursive: true });
        const others = PART_NAMES.filter((other) => other !== part);
        writeFileSync(
          join(dir, "src", "internal", part, "a.ts"),
          others.map((other) => `import type { T as T_${other} } from "../${other}/a";\n`).join("") +
            `export type T = number;\nexport type Planted = [${others.map((other) => `T_${other}`).join(", ")}];\n`,
        );
      }
      // The json reporter exits 0 whatever it finds: the violations are read from its report.
      const report = JSON.parse(cruise(dir, "json").replace(/^FAILED /, "")) as {
        summary: { violations: Array<{ from: string; to: string; rule: { name: string } }> };
      };
      const refused = report.summary.violations
        .filter((violation) => violation.rule.name.startsWith("part-"))
        .map(({ from, to, rule }) => `${rule.name}: ${from} -> ${to}`)
        .sort();
      const expected = PART_NAMES.flatMap((part) =>
        forbiddenFor(part).map((other) => `part-${part}: src/internal/${part}/a.ts -> src/internal/${other}/a.ts`),
      ).sort();
      expect(refused).toEqual(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("the table of parts (architecture.cjs)", () => {
  const folders = readdirSync(join(ROOT, "src", "internal")).filter((name) =>
    statSync(join(ROOT, "src", "internal", name)).isDirectory(),
  );

  test("has one row per folder of src/internal, and holds", () => {
    expect(PART_NAMES.slice().sort()).toEqual(folders.slice().sort());
    expect(architecture.problemsOf(PARTS, folders)).toEqual([]);
  });

  test("refuses a folder without a row, a row without a folder, a name that is no part, and a circle", () => {
    expect(architecture.problemsOf(PARTS, [...folders, "grpc"])).toEqual(["src/internal/grpc has no row"]);
    expect(architecture.problemsOf({ ...PARTS, grpc: ["core"] }, folders)).toEqual([
      "the row grpc has no folder src/internal/grpc",
    ]);
    expect(architecture.problemsOf({ ...PARTS, core: ["tracing"] }, folders)).toEqual([
      "the row core names tracing, which is no part",
    ]);
    const circles = architecture.problemsOf({ ...PARTS, core: ["client"] }, folders);
    expect(circles).toContain("a circle: core -> client -> core");
    expect(circles.every((problem) => problem.startsWith("a circle: "))).toBe(true);
  });
});

describe("docs/architecture.md holds to the code", () => {
  const doc = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8");

  test("its drawing of the graph has each part's arrows exactly as the part's row", () => {
    const rule = doc.slice(doc.indexOf("## The import rule"));
    const drawing = /```mermaid\n([\s\S]*?)```/.exec(rule)?.[1] ?? "";
    const id = (name: string): string => `p${name[0]?.toUpperCase() ?? ""}${name.slice(1)}`;
    const drawn = Object.fromEntries(
      PART_NAMES.map((part) => {
        const line = new RegExp(`^\\s*${id(part)} --> (.*)$`, "m").exec(drawing)?.[1] ?? "";
        return [part, line === "" ? [] : line.split("&").map((name) => name.trim())];
      }),
    );
    expect(drawn).toEqual(Object.fromEntries(PART_NAMES.map((part) => [part, (PARTS[part] ?? []).map(id)])));
    // No other arrow leaves a part: each part's arrows are on its one line.
    const lines = drawing.split("\n").filter((line) => /^\s*p[A-Z]\w* -->/.test(line));
    expect(lines).toHaveLength(PART_NAMES.filter((part) => (PARTS[part] ?? []).length > 0).length);
  });

  test("names every file of src/, each in its part's paragraph", () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? walk(path) : [path];
      });
    const files = walk(join(ROOT, "src")).map((path) => relative(join(ROOT, "src"), path).split("\\").join("/"));
    const parts = doc.slice(doc.indexOf("## The parts"), doc.indexOf("\n### ", doc.indexOf("## The parts")));
    /** The paragraph of a part (or of the entries): from its bold name to the next bold name that opens a line. */
    const paragraph = (opening: string): string => {
      const start = parts.indexOf(opening);
      if (start < 0) return "";
      const next = parts.slice(start + opening.length).search(/\n\*\*/);
      return next < 0 ? parts.slice(start) : parts.slice(start, start + opening.length + next);
    };
    const missing = files.filter((file) => {
      const inPart = /^internal\/([^/]+)\/(.*)$/.exec(file);
      if (inPart === null) return !paragraph("**The public entries**").includes(`\`${file}\``);
      const [, part = "", path = ""] = inPart;
      const name = path.split("/").pop() ?? "";
      const twins = files.filter((other) => other.startsWith(`internal/${part}/`) && other.endsWith(`/${name}`));
      const text = paragraph(`**${part}** (\`src/internal/${part}\`)`);
      return !(text.includes(`\`${path}\``) || (twins.length === 1 && text.includes(`\`${name}\``)));
    });
    expect(missing).toEqual([]);
  });
});
