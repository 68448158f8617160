// Circles, type-only imports included. ESLint's `import-x/no-cycle` (eslint.config.mjs) skips
// `import type` by design; a circle of types still ties two rooms together for a reader, so this
// check, run by `npm run lint`, counts every import TypeScript sees before it erases the types.
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
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(tests|bench|examples|dist|runtimes)/" },
  },
};
