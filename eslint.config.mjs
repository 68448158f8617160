// Lint: typescript-eslint's type-aware recommended rules over the sources, tests, examples and benchmarks.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "coverage/", "node_modules/", "docs/api/", ".tmp/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["**/*.mjs", "**/*.cjs", "**/*.js", "**/*.cts"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        require: "readonly",
        module: "writable",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        globalThis: "readonly",
        fetch: "readonly",
        Buffer: "readonly",
        performance: "readonly",
        __dirname: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        setImmediate: "readonly",
        AbortController: "readonly",
        MessageChannel: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
      },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
