// The package build: ESM (dist/esm/*.js) and CommonJS (dist/cjs/*.cjs). Each entry is a small file
// that re-exports from chunks under internal/, and every module is in exactly one chunk, so every
// subpath shares one copy of each module: one globalMethods, one JsonRpcError class, one NODATA.
// Declarations come from `tsc`, one per source file (scripts/build.mjs).
//
// Why chunks and not one output file per source module (preserveModules, as before issue 23): Node
// pays for every file it loads, and the split into src/internal/<part>/ made `import "rpcserver"`
// load 48 files instead of 29, and about a third slower. One chunk per part makes it 9 files
// (bench/import-time.mjs; docs/benchmarks.md). The parts are cut so that no entry loads code it
// did not load before: see `chunkOf`.
import { existsSync } from "node:fs";
import { basename, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import typescript from "@rollup/plugin-typescript";

const { SOURCES: INSPECTOR_SOURCES, moduleSource: inspectorAssets } = createRequire(import.meta.url)(
  "./scripts/inspector-page.cjs",
);

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
  "http",
  "fetch",
  "transport",
  "pipeline",
  "client",
  "connection",
  "nats",
  "otel",
  "mcp",
  "inspector",
  "node-http",
  "types",
  "cli",
];

const input = Object.fromEntries(
  entries.filter((name) => existsSync(`src/${name}.ts`)).map((name) => [name, `src/${name}.ts`]),
);

// The NATS packages are optional peers that only rpcserver/nats loads (internal/nats is reached by no other entry);
// @opentelemetry/api likewise, loaded by rpcserver/otel alone.
const external = (id) => /^(fp-ts|io-ts|@nats-io\/[^/]+|@opentelemetry\/api)(\/|$)/.test(id) || id.startsWith("node:");

// fp-ts ships no exports map and its `fp-ts/Either` is a folder: Node's ESM loader cannot import it,
// so both builds name the file itself (`fp-ts/lib/Either.js`), which every runtime and bundler resolves.
const fpTsPath = (extension) => (id) =>
  id.startsWith("fp-ts/") && !id.startsWith("fp-ts/lib/") ? `fp-ts/lib/${id.slice(6)}${extension}` : id;

const INTERNAL = fileURLToPath(new URL("src/internal/", import.meta.url));

/** The inspector page's assets: src/internal/inspector/assets.ts declares them, and the build makes them. */
const ASSETS = `${INTERNAL}inspector${sep}assets.ts`;

/**
 * `./assets` of the inspector page is its script and style sheet with their hashes, assembled from
 * src/internal/inspector/page/ (scripts/inspector-page.cjs): four strings in the built package, no
 * file read at run time. The module is loaded here, before the TypeScript plugin, which would
 * compile the file on disk (types only, no value).
 */
const inspectorPage = () => ({
  name: "rpcserver-inspector-page",
  load(id) {
    if (id !== ASSETS) return null;
    for (const source of INSPECTOR_SOURCES) this.addWatchFile(source);
    return inspectorAssets("esm");
  },
});

/**
 * The Node part's chunks, by file. `serve` (what the main entry exports) is a chunk of its own
 * that loads the development server with `import()` when called, and the server is loaded by no
 * other browser-safe entry, so importing `rpcserver` loads no Node module (scripts/build-browser.mjs
 * and tests/server.test.ts hold this). A file not listed gets a chunk of its own.
 */
const NODE_CHUNKS = {
  "serve.ts": "serve",
  "server.ts": "server",
  "node-exchange.ts": "server",
  "request-log.ts": "server",
  "client-fin.ts": "server",
  "body-writer.ts": "server",
  "serve-options.ts": "server",
  "cli.ts": "cli",
  "cli-arguments.ts": "cli",
  "http-client.ts": "http-client",
};

/**
 * Files of a part that get a chunk of their own, by file, whatever loads them: the http part's
 * whole-server pieces, which `rpcserver/fetch` and the development server load beside `answerHttp`
 * but the main entry does not (with `answerHttp`'s chunk, they would bring the inspector page and
 * the documents part into `import "rpcserver"`).
 */
const OWN_CHUNKS = {
  http: {
    "fetch-handler.ts": "fetch",
    "exchange.ts": "serving",
    "handler-service.ts": "serving",
    "route.ts": "serving",
    "browser-guard.ts": "serving",
    "inspector-route.ts": "serving",
    "discovery.ts": "serving",
  },
};

/**
 * The module at the heart of each part: whatever of the part that only the entries loading the
 * heart load goes in the part's chunk (see `chunkOf`). Renaming one of these files fails the build.
 */
const HEARTS = {
  core: "pipeline/dispatcher.ts",
  documents: "openrpc.ts",
  contract: "contract.ts",
  http: "answer.ts",
  client: "client.ts",
  connection: "connect.ts",
  nats: "serve.ts",
  otel: "server.ts",
  mcp: "server.ts",
  inspector: "page.ts",
};

/**
 * What the module graph says about each module: the roots that load it (the entries, and the
 * targets of an `import()`, each loaded on its own), and whether loading it loads a package.
 */
const graphOf = ({ getModuleIds, getModuleInfo }) => {
  const loaders = new Map();
  const ids = [...getModuleIds()];
  const roots = ids.filter((id) => {
    const info = getModuleInfo(id);
    return info.isEntry || info.dynamicImporters.length > 0;
  });
  for (const root of roots) {
    const stack = [root];
    while (stack.length > 0) {
      const id = stack.pop();
      const seen = loaders.get(id) ?? new Set();
      if (seen.has(root)) continue;
      seen.add(root);
      loaders.set(id, seen);
      stack.push(...getModuleInfo(id).importedIds);
    }
  }
  const loadsPackage = (id) => {
    const seen = new Set([id]);
    const stack = [id];
    while (stack.length > 0) {
      const info = getModuleInfo(stack.pop());
      if (info.isExternal) return true;
      for (const imported of info.importedIds) {
        if (seen.has(imported)) continue;
        seen.add(imported);
        stack.push(imported);
      }
    }
    return false;
  };
  return { loaders: (id) => loaders.get(id) ?? new Set(), loadsPackage };
};

/** One graph a build (the ESM and the CommonJS builds each have theirs), by its `getModuleInfo`. */
const graphs = new WeakMap();

/**
 * The chunk of each module, named for where it lands (`internal/core` is dist/esm/internal/core.js).
 *
 * - The Node part: `NODE_CHUNKS`.
 * - A file of `OWN_CHUNKS`: its chunk there (the http part's whole-server pieces).
 * - Any other part is one chunk, `internal/<part>`, holding the part's heart (`HEARTS`) and every
 *   module of the part that only entries loading the heart load. A module that some other entry
 *   loads goes in `internal/<part>/shared` instead, or in `internal/<part>/shared-plain` if one of
 *   the entries loading it loads no package at all. So `rpcserver/codes` loads one small chunk,
 *   not fp-ts, io-ts and the dispatch core; `rpcserver/result` the two shared ones; and
 *   `rpcserver/connection` the client's `Transport`, not the client. A module's imports are loaded
 *   by every entry that loads it, so a shared chunk never imports its part's chunk, shared-plain
 *   never imports shared, and no two chunks import each other (the parts import one way only).
 * - An entry that another entry imports (the main entry's `codes` namespace) goes with the module
 *   it re-exports, so that the namespace object is not a chunk of its own.
 */
const chunkOf = (id, meta) => {
  if (!graphs.has(meta.getModuleInfo)) graphs.set(meta.getModuleInfo, graphOf(meta));
  const graph = graphs.get(meta.getModuleInfo);
  if (!id.startsWith(INTERNAL)) {
    const info = meta.getModuleInfo(id);
    return info.isEntry && info.importers.length > 0 ? chunkOf(info.importedIds[0], meta) : undefined;
  }
  const [part, ...rest] = relative(INTERNAL, id).split(sep);
  const file = rest.join("/");
  if (part === "node") return `internal/node/${NODE_CHUNKS[file] ?? basename(file, ".ts")}`;
  const own = OWN_CHUNKS[part]?.[file];
  if (own !== undefined) return `internal/${part}/${own}`;
  const heart = HEARTS[part];
  if (heart === undefined) throw new Error(`rollup.config.mjs: no heart named for src/internal/${part}/ (HEARTS)`);
  const heartId = `${INTERNAL}${part}${sep}${heart.split("/").join(sep)}`;
  if (meta.getModuleInfo(heartId) === null) {
    throw new Error(`rollup.config.mjs: src/internal/${part}/${heart}, the heart of its part (HEARTS), is gone`);
  }
  const byHeart = graph.loaders(heartId);
  if ([...graph.loaders(id)].every((root) => byHeart.has(root))) return `internal/${part}`;
  const bare = [...graph.loaders(id)].some((root) => !graph.loadsPackage(root));
  return bare ? `internal/${part}/shared-plain` : `internal/${part}/shared`;
};

/**
 * The TypeScript plugin only transpiles (`noCheck`; `isolatedModules` makes each file's JavaScript
 * independent of types): the types are checked by `tsc` in the same build (the declarations,
 * scripts/build.mjs) and by `npm run typecheck`, and the plugin's own diagnostics were warnings that
 * `rollup --silent` never showed.
 */
const plugins = () => [
  inspectorPage(),
  typescript({
    tsconfig: "./tsconfig.build.json",
    removeComments: true,
    noCheck: true,
    declaration: false,
    emitDeclarationOnly: false,
    noEmit: false,
    outDir: undefined,
    rootDir: undefined,
  }),
];

/** Chunks land where `chunkOf` names them; one it did not name (none today) lands in internal/. */
const chunkFileNames = (extension) => (chunk) =>
  chunk.name.startsWith("internal/") ? `[name].${extension}` : `internal/[name].${extension}`;

// One module graph (each source transpiled once), written twice: ESM and CommonJS. A chunk imports
// only what it uses (`hoistTransitiveImports: false`): hoisted, every entry also named its chunks'
// imports as bare `import 'fp-ts/lib/Identity.js'` lines, which a bundler drops with a warning each
// (16 of them bundling a Worker with esbuild: the packages say `"sideEffects": false`); the load
// time of each entry was the same either way (bench/import-time.mjs, within its noise).
export default {
  input,
  external,
  plugins: plugins(),
  output: [
    {
      dir: "dist/esm",
      format: "es",
      manualChunks: chunkOf,
      entryFileNames: "[name].js",
      chunkFileNames: chunkFileNames("js"),
      paths: fpTsPath(".js"),
      hoistTransitiveImports: false,
    },
    {
      dir: "dist/cjs",
      format: "cjs",
      exports: "named",
      manualChunks: chunkOf,
      entryFileNames: "[name].cjs",
      chunkFileNames: chunkFileNames("cjs"),
      paths: fpTsPath(""),
      hoistTransitiveImports: false,
    },
  ],
};
