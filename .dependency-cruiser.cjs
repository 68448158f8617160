// The import graph and circles, type-only imports included. ESLint's `import-x/no-cycle`
// (eslint.config.mjs) skips `import type` by design; a circle of types still ties two rooms
// together for a reader, so this check, run by `npm run lint`, counts every import TypeScript sees
// before it erases the types. The parts' rules are built from the same table as ESLint's zones
// (architecture.cjs): each part imports its own files and the parts its row names.
const { PARTS, messageOf } = require("./architecture.cjs");

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "src/ has no circle, type-only imports included (docs/architecture.md); the inspector page's script is one scope in the page, whose parts call each other both ways (scripts/inspector-page.cjs)",
      from: { path: "^src/", pathNot: "^src/internal/inspector/page/" },
      to: { circular: true },
    },
    ...Object.entries(PARTS).map(([part, imports]) => ({
      name: `part-${part}`,
      severity: "error",
      comment: messageOf(part),
      from: { path: `^src/internal/${part}/` },
      to: { path: "^src/internal/", pathNot: `^src/internal/(${[part, ...imports].join("|")})/` },
    })),
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(tests|bench|examples|dist|runtimes)/" },
  },
};
