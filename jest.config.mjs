/**
 * Jest runs the TypeScript sources through ts-jest in transpile-only mode (`isolatedModules`):
 * fast, and pure JavaScript (no native binary). Types are checked separately by `tsc --noEmit`.
 * The inspector page's assets (src/internal/inspector/assets.ts, a placeholder for types) are the
 * module the build makes of the page's sources (scripts/jest-inspector-assets.cjs): the first
 * pattern that matches a file transforms it.
 */
export default {
  testEnvironment: "node",
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "src/internal/inspector/assets\\.ts$": "<rootDir>/scripts/jest-inspector-assets.cjs",
    "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/tsconfig.jest.json" }],
  },
  moduleFileExtensions: ["ts", "js", "mjs", "cjs", "json"],
  testTimeout: 60000,
  reporters: ["default", "<rootDir>/scripts/summary-reporter.cjs"],
};
