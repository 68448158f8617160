// Lint: typescript-eslint's type-aware rules, and the architecture's import graph.
//
// - src/: `recommendedTypeChecked` (with `no-floating-promises` and `no-misused-promises`: the
//   library promises that no rejection goes unhandled).
// - tests, benchmarks and TypeScript examples: the syntactic `recommended` rules plus the type-aware
//   promise rules. Tests throw non-errors and read `any` on purpose (hostile inputs); a floating or
//   misused promise there is still a bug, since it hides a failing assertion.
// - Each part of src/internal imports only the parts its row in architecture.cjs names (the graph
//   of docs/architecture.md), and only the Node part (and the Node-only entries) may import a
//   `node:` module. `import-x/no-restricted-paths` holds the graph, `import-x/no-cycle` forbids
//   circles of value imports (it skips `import type`; .dependency-cruiser.cjs counts those);
//   tests/architecture.test.ts plants wrong imports and checks that these rules fail on them.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import importX from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import architecture from "./architecture.cjs";

/** The repository root (`import.meta.dirname` is Node 20.11+; the suite also runs on Node 18). */
const ROOT = dirname(fileURLToPath(import.meta.url));

/** The entries that run only on Node: they may import `node:` modules (everything else is browser-safe). */
const NODE_ENTRIES = ["src/server.ts", "src/node-http.ts", "src/cli.ts"];

/** Each part may import its own files and the parts its row names: any other part is refused. */
const partZones = Object.entries(architecture.PARTS).map(([part, imports]) => ({
  target: `./src/internal/${part}`,
  from: "./src/internal",
  except: [part, ...imports].map((name) => `./${name}`),
  message: architecture.messageOf(part),
}));

/**
 * The browser-safe entries never reach the Node part; the main entry only through its one door,
 * `serve` (a lazy import that the browser build replaces: scripts/build-browser.mjs).
 */
const browserEntriesZones = [
  {
    target: readdirSync(join(ROOT, "src"))
      .filter((file) => file.endsWith(".ts") && !NODE_ENTRIES.includes(`src/${file}`))
      .map((file) => `./src/${file}`),
    from: "./src/internal/node",
    except: ["./serve.ts"],
    message:
      "a browser-safe entry reaches the Node part only through src/internal/node/serve.ts (the main entry's serve)",
  },
];

/** A part reached only through its own entry (`src/<part>.ts`): no other part and no other entry imports it. */
const doorZone = (door, message) => ({
  target: [
    ...Object.keys(architecture.PARTS)
      .filter((part) => part !== door)
      .map((part) => `./src/internal/${part}`),
    ...readdirSync(join(ROOT, "src"))
      .filter((file) => file.endsWith(".ts") && file !== `${door}.ts`)
      .map((file) => `./src/${file}`),
  ],
  from: `./src/internal/${door}`,
  message,
});

/** The NATS part is reached only through its entry: no other entry loads the optional NATS packages. */
const natsZone = doorZone(
  "nats",
  "only src/nats.ts imports the NATS part: no other entry may load the optional NATS packages",
);

/** The OpenTelemetry part likewise: no other entry loads the optional `@opentelemetry/api`. */
const otelZone = doorZone(
  "otel",
  "only src/otel.ts imports the OpenTelemetry part: no other entry may load @opentelemetry/api",
);

/** The MCP part likewise: an MCP server is what rpcserver/mcp loads, and nothing else loads it. */
const mcpZone = doorZone("mcp", "only src/mcp.ts imports the MCP part: no other entry loads an MCP server");

const entriesZone = {
  target: "./src/internal",
  from: "./src",
  except: ["./internal"],
  message: "the internals never import a public entry: the entries re-export the internals, not the reverse",
};

export default tseslint.config(
  { ignores: ["dist/", "coverage/", "node_modules/", "docs/api/", ".tmp/", "runtimes/**/node_modules/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["src/**/*.ts"],
    extends: [tseslint.configs.recommendedTypeCheckedOnly],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: ROOT } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
    },
  },
  {
    files: ["tests/**/*.ts", "bench/**/*.ts", "examples/**/*.ts"],
    ignores: ["examples/ts/**", "tests/package/types/**"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: ROOT } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
    },
  },
  {
    files: ["src/**/*.ts"],
    plugins: { "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json" })],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-restricted-paths": [
        "error",
        { zones: [...partZones, natsZone, otelZone, mcpZone, entriesZone, ...browserEntriesZones] },
      ],
      "import-x/no-self-import": "error",
    },
  },
  {
    // The inspector page's script (browser code, one script in the page: scripts/inspector-page.cjs).
    // What it reads from the service and its answers is any JSON, typed `Json` (`any`) and read by
    // checks at run time (page/dom.ts says why), so the rules against reading `any` are off here
    // and here only; every other value (the DOM's, the page's own) is typed. Its parts call each
    // other both ways, as functions of the one scope they share in the page do: no cycle rule.
    files: ["src/internal/inspector/page/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "import-x/no-cycle": "off",
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/internal/node/**", ...NODE_ENTRIES],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^node:",
              message: "only src/internal/node and the Node-only entries may import a node: module (browser-safe part)",
            },
          ],
        },
      ],
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
