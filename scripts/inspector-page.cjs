// The inspector page's script and style sheet, assembled from their sources at build time, with the
// hashes that its Content-Security-Policy names them by.
//
// The sources (src/internal/inspector/page/) are browser TypeScript modules and a CSS file:
// type-checked with the DOM's types (their own tsconfig.json), linted, and unit-tested
// (tests/inspector-page/). The page has no module loader and no other asset: its script is the
// parts, in `PARTS`' order, stripped of their types, imports and `export`s and of their comments, in
// one function's scope (so none of it is a global of the page). The parts call each other both ways
// (a function of one part runs another's only when an event fires), which one scope allows.
//
// Two consumers, one assembly:
// - rollup.config.mjs: `inspectorPage`'s module imports `./assets`, which the build gives as a module
//   of four strings (`moduleSource`), so the built package holds the page as text, with no build
//   step and no file to read at run time, in every runtime;
// - jest (scripts/jest-inspector-assets.cjs): the same module, for the tests that import src/.
//
// The hashes are computed here, never written by hand: the policy names the very bytes the page
// carries.
"use strict";
const { createHash } = require("node:crypto");
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const ts = require("typescript");

/** The page's sources. */
const PAGE = join(__dirname, "..", "src", "internal", "inspector", "page");

/** The script's parts, in the page's order. */
const PARTS = ["dom", "form", "events", "wire", "views", "methods", "main"];

/** The style sheet. */
const STYLE = "style.css";

/** Every file the page is made of (what a cache of it depends on). */
const SOURCES = [...PARTS.map((part) => join(PAGE, `${part}.ts`)), join(PAGE, STYLE)];

const sha256 = (text) => `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;

/** A TypeScript transform: the part's imports and `export` keywords out, so that the parts share one scope. */
const unmodule = (context) => (file) => {
  const { factory } = context;
  const statements = file.statements
    .filter((statement) => !ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement))
    .map((statement) => {
      if (!ts.canHaveModifiers(statement)) return statement;
      const modifiers = ts.getModifiers(statement);
      if (modifiers === undefined || !modifiers.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return statement;
      // A type goes with the types; a value is an `export const` (a function would be hoisted).
      if (ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement)) return statement;
      if (!ts.isVariableStatement(statement)) {
        throw new Error(`inspector page: only \`export const\` may be exported (${file.fileName})`);
      }
      const kept = modifiers.filter((m) => m.kind !== ts.SyntaxKind.ExportKeyword);
      return factory.updateVariableStatement(statement, kept, statement.declarationList);
    });
  return factory.updateSourceFile(file, statements);
};

/** One part as plain JavaScript: no types, imports, exports or comments. */
const partScript = (part) => {
  const fileName = join(PAGE, `${part}.ts`);
  const { outputText, diagnostics } = ts.transpileModule(readFileSync(fileName, "utf8"), {
    fileName,
    reportDiagnostics: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      removeComments: true,
      newLine: ts.NewLineKind.LineFeed,
    },
    transformers: { before: [unmodule] },
  });
  if (diagnostics !== undefined && diagnostics.length > 0) {
    throw new Error(`inspector page: ${part}.ts: ${ts.flattenDiagnosticMessageText(diagnostics[0].messageText, "\n")}`);
  }
  // What is left of a module whose every import and export went: TypeScript's `export {};`.
  return outputText.replace(/^export \{\};\n/m, "");
};

/** The page's script and style sheet, and their hashes as a Content-Security-Policy names them. */
const assemble = () => {
  const script = `"use strict";\n(() => {\n${PARTS.map(partScript).join("")}})();\n`;
  const style = `\n${readFileSync(join(PAGE, STYLE), "utf8")}`;
  return { SCRIPT: script, SCRIPT_SHA256: sha256(script), STYLE: style, STYLE_SHA256: sha256(style) };
};

/** The module `./assets` is built as: four string constants, as ESM or CommonJS. */
const moduleSource = (format) => {
  const assets = assemble();
  const names = Object.keys(assets);
  if (format === "cjs") {
    return `"use strict";\n${names.map((name) => `exports.${name} = ${JSON.stringify(assets[name])};`).join("\n")}\n`;
  }
  return `${names.map((name) => `export const ${name} = ${JSON.stringify(assets[name])};`).join("\n")}\n`;
};

module.exports = { PAGE, SOURCES, assemble, moduleSource };
