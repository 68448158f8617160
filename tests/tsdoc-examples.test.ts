/**
 * Every TSDoc `@example` in src/ is compiled with the project's strict settings and run, and each
 * `// value` comment in it is asserted (the conventions: tests/helpers/tsdoc-examples.ts). An
 * example that no longer compiles, throws, or shows a value it does not give fails here, by its
 * file and line.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { examplesOf, type Example } from "./helpers/tsdoc-examples";

const ROOT = join(__dirname, "..");
/** The pid's own: the suite may run beside itself on other Nodes (npm test). */
const OUT = join(ROOT, ".tmp", `tsdoc-examples-${process.pid}`);
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

const examples: Example[] = examplesOf(join(ROOT, "src"), OUT);
const runnable = examples.filter((example) => example.compileOnly === undefined);

/** The compiler's errors, by the example they are in. */
let errors: Record<string, string[]> = {};

beforeAll(() => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  for (const example of examples) writeFileSync(join(OUT, `${example.name}.ts`), example.module);
  writeFileSync(
    join(OUT, "tsconfig.json"),
    JSON.stringify({
      extends: "../../tsconfig.json",
      compilerOptions: { noEmit: true, noUnusedLocals: false, noUnusedParameters: false },
      include: ["*.ts"],
      exclude: [],
    }),
  );
  let report = "";
  try {
    execFileSync(
      process.execPath,
      [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(OUT, "tsconfig.json")],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
  } catch (failed) {
    report = String((failed as { stdout?: string }).stdout ?? failed);
  }
  errors = {};
  for (const line of report.split("\n").filter((l) => /error TS\d+/.test(l))) {
    // `name.ts(3,1): error TS...` for an example; another file (the library's, when an example
    // reaches a file that does not compile) by its path.
    const file = /^(.*?)\(\d+,\d+\): error/.exec(line)?.[1] ?? "";
    const example = examples.find((e) => basename(file) === `${e.name}.ts`);
    const key = example?.where ?? `elsewhere: ${file}`;
    (errors[key] ??= []).push(line.replace(/^.*?error /, "error "));
  }
}, 240_000);

describe("the TSDoc examples of src/", () => {
  test("there are examples, and most assert what they show", () => {
    expect(examples.length).toBeGreaterThan(140);
    expect(examples.reduce((sum, example) => sum + example.assertions, 0)).toBeGreaterThanOrEqual(125);
  });

  test("every example compiles under the project's strict settings", () => {
    expect(errors).toEqual({});
  });

  test("an example not run says why", () => {
    const notRun = examples.filter((example) => example.compileOnly !== undefined);
    for (const example of notRun) expect(example.compileOnly?.trim().length).toBeGreaterThan(10);
    expect(notRun.length).toBeLessThan(examples.length / 4);
  });

  test.each(runnable.map((example) => [example.where, example] as const))(
    "%s runs",
    async (_where, example) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const module = require(join(OUT, `${example.name}.ts`)) as { run: () => Promise<void> };
      // What an example prints (the development server's "listening" line, a `console.log` it
      // shows) is kept out of the report, and shown with its failure when it fails.
      const printed: string[] = [];
      const spies = (["log", "info", "warn", "error"] as const).map((level) =>
        jest.spyOn(console, level).mockImplementation((...args: unknown[]) => {
          printed.push(`console.${level}: ${args.map(String).join(" ")}`);
        }),
      );
      try {
        await module.run();
      } catch (failure) {
        if (printed.length === 0) throw failure;
        throw new Error(`${String(failure)}\nIt printed:\n${printed.join("\n")}`, { cause: failure });
      } finally {
        for (const spy of spies) spy.mockRestore();
      }
    },
    10_000,
  );
});
