/**
 * The code blocks of the README and docs/*.md, against the BUILT package (`npm run build` first).
 *
 * - ```ts blocks type-check under strict settings (`strict`, `noUncheckedIndexedAccess`,
 *   `exactOptionalPropertyTypes`), with the frameworks' own types, resolved as a bundler resolves.
 *   Each one is run too, compiled to CommonJS, and prints what its `// => ` comments say, line by
 *   line; and again under Node's ES modules, as written (as a user runs it in an `.mjs` file, with
 *   `tsx` or `node --experimental-strip-types`), so its imports must resolve there. A block fenced
 *   ```ts compile-only (an HTTP handler: it would serve) is type-checked only.
 * - ```js and ```mjs blocks are taken where Node would run them: as an ES module, or as CommonJS when
 *   they call `require`. Each parses; every package it names loads there, its named imports
 *   included; one with `// => ` comments runs whole and prints them.
 * - examples/: every package a file names loads in the file's own module system.
 */
import ts from "typescript";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(__dirname, "..");
/** The pid's own: the suite may run beside itself on other Nodes (npm test). */
const tmp = join(root, ".tmp", `doctest-${process.pid}`);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });

type Lang = "ts" | "js" | "mjs";

interface Block {
  /** Where it is: `docs/recipes.md:120` (the line of its opening fence). */
  readonly name: string;
  /** The same, usable as a file name. */
  readonly file: string;
  readonly lang: Lang;
  readonly compileOnly: boolean;
  readonly code: string;
  /** The lines its `// => ` comments promise. */
  readonly expected: string[];
}

const blocksOf = (page: string): Block[] => {
  const markdown = readFileSync(join(root, page), "utf8");
  return [...markdown.matchAll(/^```(ts|js|mjs)( compile-only)?\n([\s\S]*?)^```$/gm)].map((match) => {
    const code = match[3] ?? "";
    const name = `${page}:${markdown.slice(0, match.index).split("\n").length}`;
    return {
      name,
      file: name.replace(/[^a-z0-9]+/gi, "-"),
      lang: match[1] as Lang,
      compileOnly: match[2] !== undefined,
      code,
      expected: [...code.matchAll(/^\/\/ => (.*)$/gm)].map((line) => line[1] ?? ""),
    };
  });
};

const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const blocks = pages.flatMap(blocksOf);
const tsBlocks = blocks.filter((block) => block.lang === "ts");
const runnableTs = tsBlocks.filter((block) => !block.compileOnly);
const jsBlocks = blocks.filter((block) => block.lang !== "ts");

/** Runs a file with the Node.js that runs the tests, from the repository root; its stdout lines. */
const runNode = (file: string): string[] =>
  execFileSync(process.execPath, [file], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
    .split("\n")
    .filter((line) => line !== "");

const emit = (code: string, module: ts.ModuleKind): string =>
  ts.transpileModule(code, { compilerOptions: { module, target: ts.ScriptTarget.ES2022, esModuleInterop: true } })
    .outputText;

test("the README has examples; a ts block promises output unless it is compile-only", () => {
  expect(runnableTs.filter((block) => block.name.startsWith("README")).length).toBeGreaterThanOrEqual(4);
  for (const block of tsBlocks)
    expect({ block: block.name, promises: block.expected.length > 0 }).toEqual({
      block: block.name,
      promises: !block.compileOnly,
    });
});

// ---------------------------------------------------------------------------------------------------
// ts blocks: type-checked together, in one program

/**
 * The handlers of docs/integrations.md import `./methods.mjs`, the file the examples share: beside
 * the blocks, that name re-exports the examples' own.
 */
const shared = ["methods.mjs"];

/**
 * The blocks with the libs a project chooses: ES2022 alone (a Node project that says `lib`), and
 * with `DOM` beside it, which is what a tsconfig without `lib` gets (`tsc --init`'s default, and
 * most projects'): there, `MessagePort` is the DOM's (no `.on`) and the global `ReadableStream` is
 * the DOM's, which `Readable.fromWeb` of the newest `@types/node` refuses. A block copied into
 * either project must compile.
 */
const libs = {
  es2022: ["lib.es2022.d.ts"],
  dom: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts", "lib.dom.asynciterable.d.ts"],
} as const;
type Libs = keyof typeof libs;

const programs = new Map<Libs, ts.Program>();
const checked = (lib: Libs = "es2022"): ts.Program => {
  const known = programs.get(lib);
  if (known !== undefined) return known;
  const dir = join(tmp, `check-${lib}`);
  mkdirSync(dir, { recursive: true });
  for (const name of shared)
    writeFileSync(join(dir, name), `export * from "../../../examples/integrations/${name}";\n`);
  const files = tsBlocks.map((block) => {
    const file = join(dir, `${block.file}.ts`);
    writeFileSync(file, block.code);
    return file;
  });
  const program = ts.createProgram(files, {
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    allowJs: true, // the shared example files
    skipLibCheck: true,
    esModuleInterop: true,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    moduleDetection: ts.ModuleDetectionKind.Force,
    target: ts.ScriptTarget.ES2022,
    lib: [...libs[lib]],
    types: ["node"],
  });
  programs.set(lib, program);
  return program;
};

const problems = (diagnostics: readonly ts.Diagnostic[]): string[] =>
  diagnostics.map((diagnostic) => {
    const where =
      diagnostic.file !== undefined && diagnostic.start !== undefined
        ? `line ${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1}: `
        : "";
    return `${where}TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
  });

test.each(Object.keys(libs) as Libs[])(
  "the type-check itself has no problem of its own (options, the shared files), lib %s",
  (lib) => {
    const p = checked(lib);
    expect(problems([...p.getOptionsDiagnostics(), ...p.getGlobalDiagnostics()])).toEqual([]);
    const sharedFiles = p.getSourceFiles().filter((file) => file.fileName.includes("/examples/integrations/"));
    expect(sharedFiles.map((file) => file.fileName.replace(/.*\/examples\//, "examples/")).sort()).toEqual(
      shared.map((name) => `examples/integrations/${name}`),
    );
  },
);

const typeChecks = (lib: Libs, block: Block): void => {
  const p = checked(lib);
  const file = p.getSourceFile(join(tmp, `check-${lib}`, `${block.file}.ts`));
  if (file === undefined) throw new Error(`${block.name} is not in the program`);
  expect(problems([...p.getSyntacticDiagnostics(file), ...p.getSemanticDiagnostics(file)])).toEqual([]);
};

test.each(tsBlocks.map((block) => [block.name, block] as const))("%s type-checks (strict)", (_name, block) =>
  typeChecks("es2022", block),
);

test.each(tsBlocks.map((block) => [block.name, block] as const))(
  "%s type-checks (strict) in a project whose lib has DOM (a tsconfig without lib)",
  (_name, block) => typeChecks("dom", block),
);

// ---------------------------------------------------------------------------------------------------
// ts blocks: run

test.each(runnableTs.map((block) => [block.name, block] as const))("%s prints what it says", (_name, block) => {
  const file = join(tmp, `${block.file}.cjs`);
  writeFileSync(file, emit(block.code, ts.ModuleKind.CommonJS));
  expect(runNode(file)).toEqual(block.expected);
});

test("Node's ES modules refuse `fp-ts/Either` (why the docs import `fp-ts/lib/Either.js`)", () => {
  const file = join(tmp, "fp-ts-directory.mjs");
  writeFileSync(file, 'import * as E from "fp-ts/Either";\nconsole.log(E.right(1)._tag);\n');
  expect(() => runNode(file)).toThrow(/ERR_UNSUPPORTED_DIR_IMPORT/);
});

// As written, nothing rewritten: what a user copies into an .mjs file, a "type": "module" package,
// or runs with tsx or `node --experimental-strip-types` (issue 32, item 11: the README's quick start
// type-checked and ran as CommonJS, and crashed under plain node).
test.each(runnableTs.map((block) => [block.name, block] as const))(
  "%s prints the same under Node's ES modules, as written",
  (_name, block) => {
    const file = join(tmp, `${block.file}.esm.mjs`);
    writeFileSync(file, emit(block.code, ts.ModuleKind.ESNext));
    expect(runNode(file)).toEqual(block.expected);
  },
);

// ---------------------------------------------------------------------------------------------------
// js and mjs blocks, and examples/: what Node loads

interface Loads {
  readonly system: "module" | "commonjs";
  /** The import declarations naming a package, as written (named imports included). */
  readonly imports: string[];
  /** The packages named by `require(...)` or `import(...)`. */
  readonly packages: string[];
  readonly syntaxErrors: string[];
}

const isPackage = (specifier: string): boolean => !specifier.startsWith(".") && !specifier.startsWith("/");

/** What a piece of JavaScript loads by package name, and the module system Node runs it in. */
const loadsOf = (code: string, fileName: string): Loads => {
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const imports: string[] = [];
  const packages: string[] = [];
  let requires = false;
  const visit = (node: ts.Node): void => {
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      isPackage(node.moduleSpecifier.text)
    )
      imports.push(node.getText(source));
    if (ts.isCallExpression(node) && node.arguments.length === 1) {
      const [argument] = node.arguments;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === "require";
      if (isRequire) requires = true;
      if (
        (isRequire || node.expression.kind === ts.SyntaxKind.ImportKeyword) &&
        argument !== undefined &&
        ts.isStringLiteral(argument) &&
        isPackage(argument.text)
      )
        packages.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const { diagnostics = [] } = ts.transpileModule(code, {
    fileName,
    reportDiagnostics: true,
    compilerOptions: { allowJs: true, module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const system = fileName.endsWith(".cjs") || (requires && !fileName.endsWith(".mjs")) ? "commonjs" : "module";
  return { system, imports, packages, syntaxErrors: problems(diagnostics) };
};

/**
 * Loads, in one Node.js process, what each of `cases` names, each in its own module system: an ES
 * module made of its import declarations, or CommonJS `require`s. The names of the cases whose
 * loading failed, with the error.
 */
const failedLoads = (cases: ReadonlyArray<readonly [string, Loads]>): Record<string, string> => {
  const dir = join(tmp, "loads");
  mkdirSync(dir, { recursive: true });
  const files = cases.map(([name, loads], index) => {
    const file = join(dir, `${index}.${loads.system === "module" ? "mjs" : "cjs"}`);
    const lines =
      loads.system === "module"
        ? [...loads.imports, ...loads.packages.map((pkg) => `await import(${JSON.stringify(pkg)});`)]
        : loads.packages.map((pkg) => `require(${JSON.stringify(pkg)});`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    return [name, file] as const;
  });
  const runner = join(dir, "run.mjs");
  writeFileSync(
    runner,
    `const failed = {};
for (const [name, file] of ${JSON.stringify(files)}) {
  try {
    await import(file);
  } catch (error) {
    failed[name] = String(error.code ?? error.message);
  }
}
console.log(JSON.stringify(failed));
`,
  );
  return JSON.parse(runNode(runner).at(-1) ?? "{}") as Record<string, string>;
};

const jsLoads = jsBlocks.map((block) => [block.name, loadsOf(block.code, `${block.file}.${block.lang}`)] as const);

test("every js and mjs block parses as Node would run it", () => {
  expect(Object.fromEntries(jsLoads.map(([name, loads]) => [name, loads.syntaxErrors]))).toEqual(
    Object.fromEntries(jsLoads.map(([name]) => [name, []])),
  );
});

test("every package a js or mjs block names loads where the block runs (fp-ts/lib/*.js in an ES module)", () => {
  expect(jsLoads.some(([, loads]) => loads.imports.some((line) => line.includes('"fp-ts/lib/')))).toBe(true);
  expect(failedLoads(jsLoads)).toEqual({});
});

test.each(jsBlocks.filter((block) => block.expected.length > 0).map((block) => [block.name, block] as const))(
  "%s prints what it says",
  (_name, block) => {
    const system = loadsOf(block.code, `${block.file}.${block.lang}`).system;
    const file = join(tmp, `${block.file}.${system === "module" ? "mjs" : "cjs"}`);
    writeFileSync(file, block.code);
    expect(runNode(file)).toEqual(block.expected);
  },
);

const exampleFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? exampleFiles(`${dir}/${entry.name}`)
      : /\.(mjs|cjs)$/.test(entry.name)
        ? [`${dir}/${entry.name}`]
        : [],
  );

test("every package an example names loads in the example's own module system", () => {
  const loads = exampleFiles("examples").map(
    (file) => [file, loadsOf(readFileSync(join(root, file), "utf8"), file)] as const,
  );
  expect(loads.length).toBeGreaterThan(10);
  expect(failedLoads(loads)).toEqual({});
});

test("the README names every EBADENGINE warning `npm ci` prints on Node.js 20 (issue 32, item 15)", () => {
  // npm warns for each installed package whose `engines.node` the running Node.js does not satisfy:
  // those of the lock file (the packages npm ci installs), checked against the oldest Node.js 20
  // that can develop the package, as npm checks them.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const semver = require("semver") as { satisfies: (version: string, range: string) => boolean };
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version?: string; engines?: unknown; os?: unknown; cpu?: unknown }>;
  };
  const warned = Object.entries(lock.packages).flatMap(([path, entry]) => {
    const node = (entry.engines as { node?: unknown } | undefined)?.node;
    if (path === "" || typeof node !== "string" || entry.os !== undefined || entry.cpu !== undefined) return [];
    return semver.satisfies("20.19.0", node) ? [] : [`\`${path.replace(/.*node_modules\//, "")}@${entry.version}\``];
  });
  expect(warned.length).toBeGreaterThan(0);
  const readme = readFileSync(join(root, "README.md"), "utf8");
  expect(warned.filter((name) => !readme.includes(name))).toEqual([]);
});
