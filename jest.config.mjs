/**
 * Jest runs the TypeScript sources through ts-jest in transpile-only mode (`isolatedModules`):
 * fast, and pure JavaScript (no native binary). Types are checked separately by `tsc --noEmit`.
 * The inspector page's assets (src/internal/inspector/assets.ts, a placeholder for types) are the
 * module the build makes of the page's sources (scripts/jest-inspector-assets.cjs): the first
 * pattern that matches a file transforms it.
 *
 * The environment and the order of the files know which files need what the install of npm test
 * brings (the runtimes, Chromium, nats-server): npm test starts jest before that install ends, and
 * those files come last and wait for it (scripts/jest-install-gate.cjs).
 */
export default {
  testEnvironment: "<rootDir>/scripts/jest-environment.cjs",
  testSequencer: "<rootDir>/scripts/jest-sequencer.cjs",
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
