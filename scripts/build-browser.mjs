// The browser build (dist/browser), run by scripts/build.mjs after the ESM build: what the exports
// map's `browser` condition gives a bundler targeting a browser (esbuild, Vite, webpack all set that
// condition by default), for every entry a browser may import.
//
// Why a build of its own:
// - The main entry re-exports `serve`, the development server, which loads `node:http` when called.
//   A browser bundler follows that dynamic import and fails (esbuild: `Could not resolve
//   "node:http"`; webpack: `UnhandledSchemeError`), so a contract module shared with a browser
//   client could not be bundled at all. Here each dynamic `import("node:…")` is replaced by a module
//   that throws a clear error (so `serve` rejects with it in a browser), and so is `serve`'s own
//   `import()` of the development server (any dynamic import of the Node part): a bundler inlines
//   what a dynamic import names (esbuild without --splitting) or emits it as a chunk, and the
//   server, which cannot run in a browser, would bring its whole HTTP path and the inspector page
//   (about 100 kB minified) into every app that imports `serve` or the main entry's namespace.
// - dist/esm imports fp-ts's CommonJS files (`fp-ts/lib/Either.js`: fp-ts has no exports map, and
//   Node's ESM loader can import no other file of it). A bundler then packed fp-ts twice: its
//   CommonJS files for us, whole (CommonJS is not tree-shaken), and its ES modules (`fp-ts/es6`,
//   what `fp-ts/Either` resolves to in a bundler) for the app. Here the same modules import
//   `fp-ts/es6/…`, so an app and rpcserver share one fp-ts.
// Every module a browser entry reaches is written here (the same tree as dist/esm), so that a bundle
// takes all of rpcserver from one build: one copy of each module (one globalMethods, one NODATA).
// A static `node:` import in a browser entry's graph fails this build, and a browser entry without
// its `browser` condition in package.json fails it too.
import { readFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { rollup } from "@rollup/wasm-node";
import { entries } from "../rollup.config.mjs";

/** The subpaths a browser may import: every entry but the Node-only ones (the server, its command, the client's node:http transport). */
const NODE_ONLY_ENTRIES = new Set(["server", "cli", "node-http", "nats"]);
const BROWSER_ENTRIES = entries.filter((entry) => !NODE_ONLY_ENTRIES.has(entry));

const ESM = resolve("dist/esm");
const BROWSER = resolve("dist/browser");
/** The Node part's chunks (rollup.config.mjs's NODE_CHUNKS): no browser module loads one. */
const NODE_PART = join(ESM, "internal", "node") + sep;
const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const subpath = (entry) => (entry === "index" ? "." : `./${entry}`);
for (const entry of BROWSER_ENTRIES) {
  const target = pkg.exports[subpath(entry)]?.browser?.import?.default;
  if (target !== `./dist/browser/${entry}.js`) {
    throw new Error(
      `build-browser: ${subpath(entry)} is a browser entry, so package.json's exports must give it ` +
        `"browser": { "import": { "types": "./dist/esm/${entry}.d.ts", "default": "./dist/browser/${entry}.js" } }`,
    );
  }
}

const NODE_ONLY = "\0node-only:";
const bundle = await rollup({
  input: Object.fromEntries(BROWSER_ENTRIES.map((entry) => [entry, join(ESM, `${entry}.js`)])),
  plugins: [
    {
      name: "browser-build",
      resolveId(source, importer) {
        if (source.startsWith(NODE_ONLY)) return source;
        if (importer === undefined) return null;
        if (source.startsWith("node:")) {
          this.error(`build-browser: ${importer} imports ${source} statically: a browser bundle cannot load it`);
        }
        if (source.startsWith("fp-ts/lib/")) return { id: `fp-ts/es6/${source.slice(10)}`, external: true };
        if (!source.startsWith(".")) return { id: source, external: true };
        return resolve(dirname(importer), source);
      },
      resolveDynamicImport(specifier, importer) {
        if (typeof specifier !== "string") return null;
        if (specifier.startsWith("node:")) return `${NODE_ONLY}${specifier}`;
        // `serve` loading the development server, which needs node:http: the same refusal, and
        // nothing of the server (its HTTP path, the inspector page) in the browser build.
        const target = specifier.startsWith(".") ? resolve(dirname(importer), specifier) : "";
        return target.startsWith(NODE_PART) ? `${NODE_ONLY}node:http` : null;
      },
      load(id) {
        if (!id.startsWith(NODE_ONLY)) return null;
        const specifier = id.slice(NODE_ONLY.length);
        const message = `serve: the development server runs on Node.js, Bun or Deno (it needs ${specifier}), not in a browser`;
        return `throw new Error(${JSON.stringify(message)});\n`;
      },
    },
  ],
  // rpcserver/types holds types only: its module is empty in both builds.
  onwarn: (warning) => {
    if (warning.code !== "EMPTY_BUNDLE" || warning.names?.join() !== "types") {
      console.warn(`build-browser: ${warning.message}`);
    }
  },
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
