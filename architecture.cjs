// The parts of src/internal and what each may import: the import rule of docs/architecture.md,
// written once. eslint.config.mjs builds its `import-x/no-restricted-paths` zones from this table,
// .dependency-cruiser.cjs its rules (which count type-only imports as TypeScript sees them), and
// tests/architecture.test.ts plants every import the table forbids and checks that both refuse it,
// and that docs/architecture.md draws this graph.
//
// A row names the parts that its part imports, and nothing else: the rule is a graph, not a ladder.
// A part that no row names is imported by no part. A new capability is a new folder with its row.
// A folder without a row, a row without a folder, a row naming no part, and a circle in the table
// stop lint here, before any file is read.
const { readdirSync } = require("node:fs");
const { join } = require("node:path");

/** What each part of src/internal may import, besides its own files. */
const PARTS = {
  core: [],
  documents: ["core"],
  contract: ["core"],
  http: ["core", "documents", "contract", "inspector"],
  client: ["core", "contract", "http"],
  connection: ["core", "contract", "client"],
  nats: ["core", "documents", "client"],
  otel: ["core", "client"],
  mcp: ["core", "documents", "contract", "http", "connection"],
  inspector: [],
  node: ["core", "documents", "contract", "http", "client", "inspector"],
};

/** The folders under src/internal today. */
const foldersOf = (root) =>
  readdirSync(join(root, "src", "internal"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

/** What is wrong with a table against the folders (none: []). */
const problemsOf = (parts, folders) => {
  const names = Object.keys(parts);
  const problems = [
    ...folders.filter((folder) => !names.includes(folder)).map((folder) => `src/internal/${folder} has no row`),
    ...names
      .filter((name) => !folders.includes(name))
      .map((name) => `the row ${name} has no folder src/internal/${name}`),
    ...names.flatMap((name) =>
      parts[name]
        .filter((other) => !names.includes(other) || other === name)
        .map((other) => `the row ${name} names ${other}, which is ${other === name ? "itself" : "no part"}`),
    ),
  ];
  const done = new Set();
  const visit = (name, path) => {
    if (path.includes(name)) return [`a circle: ${[...path.slice(path.indexOf(name)), name].join(" -> ")}`];
    if (done.has(name) || parts[name] === undefined) return [];
    done.add(name);
    return parts[name].flatMap((other) => visit(other, [...path, name]));
  };
  return [...problems, ...names.flatMap((name) => visit(name, []))];
};

/** The table, once it holds for the folders at `root`. */
const checkedParts = (root) => {
  const problems = problemsOf(PARTS, foldersOf(root));
  if (problems.length > 0) {
    throw new Error(`architecture.cjs: the table of parts is wrong: ${problems.join("; ")} (docs/architecture.md)`);
  }
  return PARTS;
};

/** The one message that both tools give for a part's forbidden import. */
const messageOf = (part) =>
  `the ${part} part imports ${PARTS[part].length > 0 ? `only ${PARTS[part].join(", ")}` : "no other part"} (its row in architecture.cjs, docs/architecture.md)`;

module.exports = { PARTS: checkedParts(__dirname), problemsOf, messageOf };
