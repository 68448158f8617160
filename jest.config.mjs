/** Jest runs the TypeScript sources through swc (types are checked separately by `tsc --noEmit`). */
export default {
  testEnvironment: "node",
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.(t|j)sx?$": [
      "@swc/jest",
      { jsc: { target: "es2022", parser: { syntax: "typescript" } }, module: { type: "commonjs" } },
    ],
  },
  moduleFileExtensions: ["ts", "js", "mjs", "cjs", "json"],
  testTimeout: 60000,
};
