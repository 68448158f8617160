/**
 * The TSDoc `@example` blocks of src/, as modules that the compiler checks and Jest runs
 * (tests/tsdoc-examples.test.ts), as fp-ts runs its examples.
 *
 * The conventions an example follows (docs/architecture.md, "Examples that run"):
 * - It imports what it uses from the package's public names (`rpcserver`, `rpcserver/client`, ...),
 *   which resolve to the sources here; fp-ts and io-ts as users import them.
 * - A statement whose line ends in a comment that is a plain value (`// 3`, `// "pong"`,
 *   `// { _tag: "Right", right: 3 }`, `// undefined`, `// Infinity`) asserts it: the statement's
 *   value (awaited, if it is a Promise; the declared variable's for a `const`) must deep-equal that
 *   value. So does a statement without a comment on its line whose next line is a comment holding
 *   only a plain value (for a value too long to share the statement's line). A comment that is
 *   prose, or a value followed by prose (`// true: the call fails`), asserts nothing: put the prose
 *   on a line of its own, above.
 * - `export` in front of a statement (an example showing a module of the reader's) is dropped: the
 *   statement runs as the others do.
 * - An example whose first line is `// compile-only: <why>` is checked by the compiler but not run
 *   (one that listens on a port or spawns a process); the reason is required.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

export interface Example {
  /** `src/…/file.ts:line`, the line of its `@example` tag. */
  readonly where: string;
  /** The module's name in the generated folder. */
  readonly name: string;
  /** The generated module: the example's imports and types at the top, the rest in `run`. */
  readonly module: string;
  /** Why it is not run, when it is `// compile-only`. */
  readonly compileOnly: string | undefined;
  /** How many statements of it assert a value. */
  readonly assertions: number;
}

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );

/** The `@example` blocks of one file's doc comments, each with the line of its tag. */
const blocksOf = (text: string): Array<{ line: number; code: string }> => {
  const out: Array<{ line: number; code: string }> = [];
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const startLine = text.slice(0, comment.index).split("\n").length;
    const lines = comment[0]
      .replace(/^\/\*\*/, "")
      .replace(/\*\/$/, "")
      .split("\n")
      .map((line) => line.replace(/^\s*\* ?/, ""));
    for (let i = 0; i < lines.length; i++) {
      if (!/^\s*@example\b/.test(lines[i] ?? "")) continue;
      const code: string[] = [];
      let j = i + 1;
      for (; j < lines.length && !/^\s*@\w+/.test(lines[j] ?? ""); j++) code.push(lines[j] ?? "");
      const body = code
        .join("\n")
        .replace(/^\s*```\w*\n?|\n?```\s*$/g, "")
        .trim();
      if (body !== "") out.push({ line: startLine + i, code: body });
      i = j - 1;
    }
  }
  return out;
};

/** Whether `text` is a plain value: literals, arrays and objects of them, `undefined`, `Infinity`, `NaN`, negative numbers. */
const literalOf = (text: string): string | undefined => {
  const source = ts.createSourceFile("x.ts", `(${text})`, ts.ScriptTarget.ES2022, true);
  const [statement] = source.statements;
  if (source.statements.length !== 1 || statement === undefined || !ts.isExpressionStatement(statement))
    return undefined;
  if ((source as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics.length > 0) return undefined;
  const plain = (node: ts.Node): boolean => {
    if (ts.isParenthesizedExpression(node)) return plain(node.expression);
    if (ts.isStringLiteral(node) || ts.isNumericLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return true;
    if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) return true;
    if (node.kind === ts.SyntaxKind.NullKeyword) return true;
    if (ts.isIdentifier(node)) return node.text === "undefined" || node.text === "Infinity" || node.text === "NaN";
    if (ts.isPrefixUnaryExpression(node)) return node.operator === ts.SyntaxKind.MinusToken && plain(node.operand);
    if (ts.isArrayLiteralExpression(node)) return node.elements.every(plain);
    if (ts.isObjectLiteralExpression(node))
      return node.properties.every((property) => ts.isPropertyAssignment(property) && plain(property.initializer));
    return false;
  };
  return plain(statement.expression) ? text : undefined;
};

const TOP_LEVEL = (statement: ts.Statement): boolean =>
  ts.isImportDeclaration(statement) ||
  ts.isTypeAliasDeclaration(statement) ||
  ts.isInterfaceDeclaration(statement) ||
  (ts.canHaveModifiers(statement) &&
    (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.DeclareKeyword));

/** `code` with every `rpcserver` module specifier (imports, `import("rpcserver").T` types, exports) re-pointed at src/. */
const repointed = (code: string, srcFrom: string): string => {
  const source = ts.createSourceFile("example.ts", code, ts.ScriptTarget.ES2022, true);
  const specifiers: ts.StringLiteral[] = [];
  const visit = (node: ts.Node): void => {
    const literal =
      ts.isImportDeclaration(node) || ts.isExportDeclaration(node)
        ? node.moduleSpecifier
        : ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)
          ? node.argument.literal
          : ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword
            ? node.arguments[0]
            : undefined;
    if (literal !== undefined && ts.isStringLiteral(literal)) specifiers.push(literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  let out = code;
  for (const literal of specifiers.sort((a, b) => b.getStart(source) - a.getStart(source))) {
    const match = /^rpcserver(?:\/(.+))?$/.exec(literal.text);
    if (match === null) continue;
    out = `${out.slice(0, literal.getStart(source))}"${srcFrom}/${match[1] ?? "index"}"${out.slice(literal.end)}`;
  }
  return out;
};

/** The plain value that a comment shows (`// 3`), if it is one. */
const valueOf = (code: string, range: ts.CommentRange | undefined): string | undefined =>
  range?.kind === ts.SyntaxKind.SingleLineCommentTrivia
    ? literalOf(
        code
          .slice(range.pos, range.end)
          .replace(/^\/\/\s?/, "")
          .trim(),
      )
    : undefined;

/**
 * The value a statement shows: its line's trailing comment, or, when its line has none, a comment
 * on the next line that holds only a value.
 */
const shownBy = (code: string, statement: ts.Statement): string | undefined => {
  const trailing = ts.getTrailingCommentRanges(code, statement.end)?.[0];
  if (trailing !== undefined) return valueOf(code, trailing);
  const next = /^[ \t]*\r?\n[ \t]*(\/\/[^\n]*)/.exec(code.slice(statement.end));
  if (next?.[1] === undefined) return undefined;
  const pos = statement.end + next[0].length - next[1].length;
  return valueOf(code, { pos, end: pos + next[1].length, kind: ts.SyntaxKind.SingleLineCommentTrivia });
};

/** `statement`'s text without an `export` in front. */
const unexported = (code: string, source: ts.SourceFile, statement: ts.Statement): string => {
  const text = code.slice(statement.getStart(source), statement.end);
  const exported = ts.canHaveModifiers(statement)
    ? ts.getModifiers(statement)?.find((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
    : undefined;
  if (exported === undefined) return text;
  const at = exported.getStart(source) - statement.getStart(source);
  return `${text.slice(0, at)}${text.slice(exported.end - statement.getStart(source)).trimStart()}`;
};

/** One example as a module: its imports (re-pointed at src/) and types on top, its statements in `run`. */
const moduleOf = (example: string, where: string, srcFrom: string): { module: string; assertions: number } => {
  const code = repointed(example, srcFrom);
  const source = ts.createSourceFile("example.ts", code, ts.ScriptTarget.ES2022, true);
  const top: string[] = [];
  const body: string[] = [];
  let assertions = 0;
  for (const statement of source.statements) {
    if (TOP_LEVEL(statement)) {
      top.push(code.slice(statement.getStart(source), statement.end));
      continue;
    }
    const text = unexported(code, source, statement);
    const expected = shownBy(code, statement);
    const at = JSON.stringify(`${where} (${text.split("\n")[0]})`);
    if (expected !== undefined && ts.isExpressionStatement(statement)) {
      body.push(
        `await expectValue(${code.slice(statement.expression.getStart(source), statement.expression.end)}, ${expected}, ${at});`,
      );
      assertions++;
    } else if (
      expected !== undefined &&
      ts.isVariableStatement(statement) &&
      statement.declarationList.declarations.length === 1 &&
      ts.isIdentifier(statement.declarationList.declarations[0]!.name)
    ) {
      body.push(
        text,
        `await expectValue(${statement.declarationList.declarations[0]!.name.text}, ${expected}, ${at});`,
      );
      assertions++;
    } else body.push(text);
  }
  const module = [
    `import { expectValue } from "${srcFrom}/../tests/helpers/expect-value";`,
    ...top,
    "export const run = async (): Promise<void> => {",
    ...body,
    "};",
    "",
  ].join("\n");
  return { module, assertions };
};

/** Every `@example` of the files under `srcDir`, as modules for the folder `outDir`. */
export const examplesOf = (srcDir: string, outDir: string): Example[] => {
  const srcFrom = relative(outDir, srcDir);
  return walk(srcDir)
    .sort()
    .flatMap((file) => {
      const path = relative(join(srcDir, ".."), file);
      return blocksOf(readFileSync(file, "utf8")).map(({ line, code }) => {
        const where = `${path}:${line}`;
        const compileOnly = /^\/\/\s*compile-only:\s*(.+)/.exec(code)?.[1];
        const { module, assertions } = moduleOf(code, where, srcFrom);
        const name = `${path.replace(/^src\//, "").replace(/[/.]/g, "_")}_${line}`;
        return { where, name, module, compileOnly, assertions };
      });
    });
};
