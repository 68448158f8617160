// The browser build (dist/browser), run by scripts/build.mjs after the ESM build: what the exports
// map's `browser` condition gives a bundler targeting a browser (esbuild, Vite, webpack all set that
// condition by default).
//
// Why: the main entry re-exports `serve`, the development server, which loads `node:http` when
// called. A browser bundler follows that dynamic import and fails (esbuild: `Could not resolve
// "node:http"`; webpack: `UnhandledSchemeError`), so a contract module shared with a browser client
// could not be bundled at all. Here every file of dist/esm (an entry or a chunk) from which a
// browser entry reaches a `node:` import is built again (today: index.js, internal/node/serve.js
// and the development server's chunk, internal/node/server.js), with each dynamic
// `import("node:…")` replaced by a module that throws a clear error (so `serve` rejects with it in
// a browser); every other file is imported from dist/esm, so that both conditions share one copy
// of each module (one globalMethods, one NODATA). A static
// `node:` import in a browser entry's graph fails this build, and a browser entry that reaches one
// without a `browser` condition in package.json fails it too.
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { rollup } from "@rollup/wasm-node";
import { entries } from "../rollup.config.mjs";

/** The subpaths a browser may import: every entry but the Node-only ones (the server, its command, the client's node:http transport). */
const NODE_ONLY_ENTRIES = new Set(["server", "cli", "node-http", "nats"]);
const BROWSER_ENTRIES = entries.filter((entry) => !NODE_ONLY_ENTRIES.has(entry));

const ESM = resolve("dist/esm");
const BROWSER = resolve("dist/browser");
const specifiers = (file) => {
  const text = readFileSync(file, "utf8");
  return [
    ...[...text.matchAll(/(?:^|[;}\s])(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']/g)].map((m) => [
      m[1],
      "static",
    ]),
    ...[...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm)].map((m) => [m[1], "static"]),
    ...[...text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)].map((m) => [m[1], "dynamic"]),
  ];
};

/** Whether a `node:` import is reachable from each file of dist/esm, memoised. */
const reaches = new Map();
const reachesNode = (file, path = new Set()) => {
  if (reaches.has(file)) return reaches.get(file);
  if (path.has(file)) return false;
  path.add(file);
  const found = specifiers(file).some(([specifier]) =>
    specifier.startsWith("node:")
      ? true
      : specifier.startsWith(".") && reachesNode(resolve(dirname(file), specifier), path),
  );
  path.delete(file);
  reaches.set(file, found);
  return found;
};

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const subpath = (entry) => (entry === "index" ? "." : `./${entry}`);
const rebuilt = BROWSER_ENTRIES.filter((entry) => reachesNode(join(ESM, `${entry}.js`)));
for (const entry of rebuilt) {
  const target = pkg.exports[subpath(entry)]?.browser?.import?.default;
  if (target !== `./dist/browser/${entry}.js`) {
    throw new Error(
      `build-browser: ${subpath(entry)} reaches a node: module, so package.json's exports must give it ` +
        `"browser": { "import": { "types": "./dist/esm/${entry}.d.ts", "default": "./dist/browser/${entry}.js" } }`,
    );
  }
}

const NODE_ONLY = "\0node-only:";
const bundle = await rollup({
  input: Object.fromEntries(rebuilt.map((entry) => [entry, join(ESM, `${entry}.js`)])),
  plugins: [
    {
      name: "browser-build",
      resolveId(source, importer) {
        if (source.startsWith(NODE_ONLY)) return source;
        if (importer === undefined) return null;
        if (source.startsWith("node:")) {
          this.error(`build-browser: ${importer} imports ${source} statically: a browser bundle cannot load it`);
        }
        if (!source.startsWith(".")) return { id: source, external: true };
        const file = resolve(dirname(importer), source);
        if (reachesNode(file)) return file;
        // From where the importer lands in dist/browser to the module in dist/esm, as written.
        const from = dirname(join(BROWSER, relative(ESM, importer)));
        return { id: relative(from, file).replace(/^(?!\.)/, "./"), external: true };
      },
      resolveDynamicImport(specifier) {
        return typeof specifier === "string" && specifier.startsWith("node:") ? `${NODE_ONLY}${specifier}` : null;
      },
      load(id) {
        if (!id.startsWith(NODE_ONLY)) return null;
        const specifier = id.slice(NODE_ONLY.length);
        const message = `serve: the development server runs on Node.js, Bun or Deno (it needs ${specifier}), not in a browser`;
        return `throw new Error(${JSON.stringify(message)});\n`;
      },
    },
  ],
  onwarn: (warning) => console.warn(`build-browser: ${warning.message}`),
});
await bundle.write({
  dir: BROWSER,
  format: "es",
  preserveModules: true,
  preserveModulesRoot: ESM,
  entryFileNames: "[name].js",
  sanitizeFileName: (name) => name.replace(/[\0:?*]/g, "_"),
});
await bundle.close();
