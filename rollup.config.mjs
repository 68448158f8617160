// The package build: ESM (dist/esm/*.js) and CommonJS (dist/cjs/*.cjs), one output file per source
// module (preserveModules) so that every subpath entry shares one copy of each module: one
// globalMethods, one JsonRpcError class, one NODATA. Declarations come from `tsc` (scripts/build.mjs).
import { existsSync } from "node:fs";
import typescript from "@rollup/plugin-typescript";

/**
 * The public subpaths (typescript-mapping.md), plus the development server and its CLI. Node-only:
 * server, node-http, cli. `types` holds types only: its JavaScript is an empty module.
 */
export const entries = [
  "index",
  "main",
  "async_main",
  "response",
  "result",
  "codes",
  "methods",
  "sentinels",
  "server",
  "transport",
  "pipeline",
  "client",
  "connection",
  "node-http",
  "types",
  "cli",
];

const input = Object.fromEntries(
  entries.filter((name) => existsSync(`src/${name}.ts`)).map((name) => [name, `src/${name}.ts`]),
);

const external = (id) => /^(fp-ts|io-ts)(\/|$)/.test(id) || id.startsWith("node:");

// fp-ts ships no exports map and its `fp-ts/Either` is a folder: Node's ESM loader cannot import it,
// so both builds name the file itself (`fp-ts/lib/Either.js`), which every runtime and bundler resolves.
const fpTsPath = (extension) => (id) =>
  id.startsWith("fp-ts/") && !id.startsWith("fp-ts/lib/") ? `fp-ts/lib/${id.slice(6)}${extension}` : id;

const plugins = () => [
  typescript({
    tsconfig: "./tsconfig.build.json",
    removeComments: true,
    declaration: false,
    emitDeclarationOnly: false,
    noEmit: false,
    outDir: undefined,
    rootDir: undefined,
  }),
];

export default [
  {
    input,
    external,
    plugins: plugins(),
    output: {
      dir: "dist/esm",
      format: "es",
      preserveModules: true,
      preserveModulesRoot: "src",
      entryFileNames: "[name].js",
      paths: fpTsPath(".js"),
    },
  },
  {
    input,
    external,
    plugins: plugins(),
    output: {
      dir: "dist/cjs",
      format: "cjs",
      exports: "named",
      preserveModules: true,
      preserveModulesRoot: "src",
      entryFileNames: "[name].cjs",
      paths: fpTsPath(""),
    },
  },
];
