/**
 * Jest runs the TypeScript sources through ts-jest in transpile-only mode (`isolatedModules`):
 * fast, and pure JavaScript (no native binary). Types are checked separately by `tsc --noEmit`.
 */
export default {
  testEnvironment: "node",
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/tsconfig.jest.json" }],
  },
  moduleFileExtensions: ["ts", "js", "mjs", "cjs", "json"],
  testTimeout: 60000,
  reporters: ["default", "<rootDir>/scripts/summary-reporter.cjs"],
};
