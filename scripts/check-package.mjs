// Checks what users of the published package feel, on the package as `npm pack` makes it (run
// after `npm run build`):
//
// 1. publint: the package.json fields, the exports map and the files they name agree (every
//    message, suggestions included, fails the check).
// 2. arethetypeswrong (`attw --pack`): every entry point resolves to types of the right module
//    format under each TypeScript module resolution.
// 3. A bundle-size ceiling for the ESM entry and for the client's (rpcserver/client, which a
//    browser loads): dist/esm/index.js and dist/esm/client.js each bundled with rollup (fp-ts,
//    io-ts and `node:` modules left external, as a user's bundler would share them), minified
//    with terser, gzipped at level 9.
// 3b. The inspector page's size (rpcserver/inspector's HTML, which the development server
//    serves): what a browser downloads, gzipped at level 9, under the issue's budget.
// 4. `npm pack` never ships a half-built package: in a copy of the sources with no dist/, `npm pack
//    --dry-run` builds first (the `prepack` script) and lists every file the exports map names.
// 5. What importing each entry of dist/esm loads before it runs: its files (the entry and the
//    chunks it imports statically, followed from file to file) and packages. Node pays for every
//    file (issue 23: 48 files made `import "rpcserver"` about a third slower than 29 did;
//    bench/import-time.mjs), so the main entries have a ceiling of files, and the entries that
//    need no package load none.
//
// The checks pack with --ignore-scripts (the package is built already): only check 4 runs prepack,
// and in its copy, never on the dist/ that the rest of the suite reads.
//
// npm test builds once: its build step is this script's `--pack-build FILE` (below), an `npm pack
// --dry-run` of the tree whose prepack builds dist/ from nothing (scripts/build.mjs removes it
// first), its listing written to FILE; its package step passes `--listing FILE`, and check 4 reads
// that listing instead of building a copy a second time (a build is about 23 CPU-seconds).
//
// Exits 1 if any check fails, after running them all.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { rollup } from "@rollup/wasm-node";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { minify } from "terser";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

/**
 * The ceiling for the ESM entry, minified and gzipped, in bytes. About 5.5 KiB for the dispatch
 * library alone, 7.6 KiB with the public pipeline and stages, 11.6 KiB with OpenRPC (the
 * document and io-ts -> JSON Schema, exported from the main entry so that the dev server can
 * answer `rpc.discover`), 13.4 KiB with contracts, their servers and the typed context (issue
 * 14), 14.5 KiB with Standard Schemas beside io-ts (issue 16: the adapter, async schemas waited
 * for, their JSON Schema read), 15.75 KiB with streamed values (issue 24: a method's async
 * generator drained through its stream codec; stream schemas in contracts and OpenRPC), 18.0 KiB with
 * `answerHttp` (issue 24: server-sent events, and the LSP and MCP progress messages a connection
 * shares), 19.1 KiB with issue 32 (a stream's turns of the event loop, every source of abort
 * followed into the method's signal, log kinds bounded by what the server defines, declared
 * errors), 19.5 KiB with issue 33 (one abort per request, one sink of streamed values for every
 * wire, the HTTP part's own modules), 20.4 KiB with issue 34 (nested contracts: the tree of names,
 * `lazy` branches, `merge`), 21.8 KiB with the heartbeat, 22.5 KiB with the review of 2026-12-01
 * (a lazy load's waiters that leave at their signal, a request's cut heard by `traced`, a relay's
 * failure answered per request, a cancelled request's abort not logged), whence a ceiling of 23 KiB. The development server is loaded only when `serve` is called (a
 * chunk of its own, not counted): the headroom leaves room for features, and a jump past it (a
 * dependency bundled by mistake, a Node polyfill) still fails.
 */
const MAX_MIN_GZIP_BYTES = 23 * 1024;

/**
 * The ceiling for rpcserver/client, minified and gzipped, in bytes. Measured at 7.9 KiB: the calls,
 * their errors, the transports and the stubs, and the async dispatcher with its pipeline, which
 * `local` runs in-process; 9.0 KiB with Standard Schemas (issue 16: the client decodes results
 * with them, and `local`'s pipeline waits for async ones); 11.0 KiB with `local`'s value path (no
 * JSON text either way) and the default logger's sampling of floods (issue 22); 11.6 KiB with streamed
 * values (issue 24: `local`'s pipeline drains a method's async generator); 13.9 KiB with streamed
 * calls (issue 24: `open`'s buffer, the event-stream parser of `http`, `local`'s sink; the core's
 * `answerHttp` is made lazily so that it stays out); 15.1 KiB with issue 32 (the drain's turns and
 * followed signal in `local`'s pipeline, log kinds, the `redirect` refusal of `http`); 16.1 KiB with
 * the review of 2026-12-01 (`batch`'s one transport, `StreamError` for a loop over a failed stream,
 * the cuts `local`'s pipeline tells, a cancelled request's abort not logged). A jump past it (the OpenRPC document or the dev server pulled
 * in, a Node polyfill) fails.
 */
const MAX_CLIENT_MIN_GZIP_BYTES = 16.5 * 1024;

/**
 * The ceiling for the inspector page (issue 26: "about 30 KiB min+gzip"), gzipped, in bytes. It is
 * one HTML document with its script and style sheet inline, written readable rather than minified
 * (its policy's hashes are of that text): measured at 13.2 KiB.
 */
const MAX_INSPECTOR_GZIP_BYTES = 30 * 1024;

/**
 * The most files that importing these entries may load (measured: 9, 8 and 7; 7, 7 and 6 before the
 * http part had its chunks; with one output file per source module, as before rollup.config.mjs
 * made chunks of each part, 48, 47 and 50).
 */
const MAX_FILES = { index: 10, client: 10, connection: 10 };

/** The entries that need no package: they load neither fp-ts nor io-ts (nor a `node:` module). */
const NO_PACKAGE = ["codes", "sentinels", "http", "transport", "types", "inspector"];

/** The entries for every runtime (Bun, Deno, workers, browsers): they load no `node:` module. */
const NO_NODE = [...NO_PACKAGE, "fetch", "client", "connection"];

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** `--name FILE`'s FILE, or undefined. */
const fileFlag = (name) => {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return undefined;
  const file = process.argv[at + 1];
  if (file === undefined) throw new Error(`check-package: --${name} wants a file`);
  return file;
};

/** `npm pack --dry-run --json` in `cwd`: prepack builds first; its listing's text (the build's lines before it). */
const packDryRun = (cwd) =>
  execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

// `--pack-build FILE`: the build, as npm pack makes it (npm test's build step), and nothing else.
const packBuild = fileFlag("pack-build");
if (packBuild !== undefined) {
  try {
    writeFileSync(packBuild, packDryRun(ROOT));
  } catch (thrown) {
    process.stderr.write(`${thrown.stdout ?? ""}${thrown.stderr ?? String(thrown)}`);
    process.exit(1);
  }
  process.exit(0);
}

/**
 * attw's "strict" profile also checks TypeScript's legacy `node10` resolution, which ignores the
 * exports map: subpaths (`rpcserver/main`, ...) resolve there only through `typesVersions`. Without
 * that field the check runs the `node16` profile (node16 from CJS and ESM, bundler) and says so.
 */
const ATTW_PROFILE = pkg.typesVersions === undefined ? "node16" : "strict";

const failures = [];
const kib = (bytes) => `${(bytes / 1024).toFixed(2)} KiB`;

if (!existsSync(join(ROOT, "dist/esm/index.js")) || !existsSync(join(ROOT, "dist/cjs/index.cjs"))) {
  console.error("check-package: dist/ is missing; run `npm run build` first");
  process.exit(1);
}

// 1. publint
{
  console.log("publint:");
  const { messages, pkg: linted } = await publint({ pkgDir: ROOT, level: "suggestion", strict: true, pack: "npm" });
  if (messages.length === 0) console.log("  no errors, warnings or suggestions");
  for (const message of messages) {
    console.log(`  ${message.type}: ${formatMessage(message, linted, { color: false }) ?? message.code}`);
  }
  if (messages.length > 0) failures.push(`publint: ${messages.length} message(s)`);
}

// 2. arethetypeswrong on the packed package
{
  console.log(`\narethetypeswrong (attw --pack, profile ${ATTW_PROFILE}):`);
  if (ATTW_PROFILE !== "strict") {
    console.log("  note: node10 resolution not checked (package.json has no typesVersions for the subpaths)");
  }
  const attw = require.resolve("@arethetypeswrong/cli/package.json").replace(/package\.json$/, "dist/index.js");
  // attw's own --pack runs `npm pack`, and so prepack's build: it is given a tarball packed without scripts.
  const packDir = mkdtempSync(join(tmpdir(), "rpcserver-attw-"));
  try {
    const [{ filename }] = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", packDir], {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    const out = execFileSync(
      process.execPath,
      [
        attw,
        join(packDir, filename),
        "--profile",
        ATTW_PROFILE,
        "--format",
        "table-flipped",
        "--no-color",
        "--no-emoji",
      ],
      { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    console.log(out.trimEnd().replace(/^/gm, "  "));
  } catch (thrown) {
    console.log(
      String(thrown.stdout ?? "")
        .trimEnd()
        .replace(/^/gm, "  "),
    );
    console.log(
      String(thrown.stderr ?? "")
        .trimEnd()
        .replace(/^/gm, "  "),
    );
    failures.push("attw: problems found (above)");
  } finally {
    rmSync(packDir, { recursive: true, force: true });
  }
}

// 3. Bundle size of the ESM entry and of the client's
for (const [entry, ceiling] of [
  ["dist/esm/index.js", MAX_MIN_GZIP_BYTES],
  ["dist/esm/client.js", MAX_CLIENT_MIN_GZIP_BYTES],
]) {
  console.log(`\nbundle size of ${entry} (rollup, fp-ts/io-ts/node: external; terser; gzip -9):`);
  const bundle = await rollup({
    input: join(ROOT, entry),
    external: (id) => /^(fp-ts|io-ts)(\/|$)/.test(id) || id.startsWith("node:"),
    // Shown, not fatal: a warning (a circular import, say) is news, but not a size problem.
    onwarn: (warning) => console.log(`  rollup warning: ${warning.message}`),
  });
  const { output } = await bundle.generate({ format: "es" });
  await bundle.close();
  // What loading the entry loads: its chunk and the chunks it imports statically. A chunk reached
  // only by a dynamic import (the development server, loaded when `serve` is called) is not.
  const chunks = new Map(output.filter((file) => file.type === "chunk").map((chunk) => [chunk.fileName, chunk]));
  const loaded = new Set();
  const load = (name) => {
    if (loaded.has(name)) return;
    loaded.add(name);
    for (const imported of chunks.get(name)?.imports ?? []) load(imported);
  };
  load(output[0].fileName);
  const code = [...loaded].map((name) => chunks.get(name)?.code ?? "").join("\n");
  const lazy = [...chunks.keys()].filter((name) => !loaded.has(name));
  if (lazy.length > 0) console.log(`  loaded when needed (not counted): ${lazy.join(", ")}`);
  const minified = (await minify(code, { module: true, compress: true, mangle: true })).code ?? "";
  const gzip = (text) => gzipSync(Buffer.from(text), { level: 9 }).length;
  const minGzip = gzip(minified);
  console.log(`  bundled   ${kib(Buffer.byteLength(code))} (gzip ${kib(gzip(code))})`);
  console.log(`  minified  ${kib(Buffer.byteLength(minified))}`);
  console.log(`  min+gzip  ${kib(minGzip)} (${minGzip} bytes; ceiling ${kib(ceiling)})`);
  if (minGzip > ceiling) {
    failures.push(`bundle size: ${entry} is ${kib(minGzip)} min+gzip, over the ${kib(ceiling)} ceiling`);
  }
}

// 3b. The inspector page
{
  console.log("\nsize of the inspector page (dist/esm/inspector.js's inspectorPage; gzip -9):");
  const { inspectorPage } = await import(pathToFileURL(join(ROOT, "dist", "esm", "inspector.js")).href);
  const html = inspectorPage({ url: "/" });
  const gzip = gzipSync(Buffer.from(html), { level: 9 }).length;
  console.log(`  raw       ${kib(Buffer.byteLength(html))}`);
  console.log(`  gzip      ${kib(gzip)} (${gzip} bytes; ceiling ${kib(MAX_INSPECTOR_GZIP_BYTES)})`);
  if (gzip > MAX_INSPECTOR_GZIP_BYTES) {
    failures.push(`inspector page: ${kib(gzip)} gzipped, over the ${kib(MAX_INSPECTOR_GZIP_BYTES)} ceiling`);
  }
}

// 4. prepack: a pack of sources that were never built still ships the build
{
  const listing = fileFlag("listing");
  console.log(
    listing === undefined
      ? "\nnpm pack of the sources with no dist/ (prepack builds first):"
      : `\nnpm pack that built dist/ from nothing (prepack; its listing in ${listing}):`,
  );
  const copy = listing === undefined ? mkdtempSync(join(tmpdir(), "rpcserver-prepack-")) : undefined;
  try {
    /** The files of a fresh clone (tracked, or new and not ignored) in `copy`: no dist/, no node_modules. */
    const packCopy = (copy) => {
      const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
        cwd: ROOT,
        encoding: "utf8",
      });
      for (const file of files.split("\0").filter((name) => name !== "" && existsSync(join(ROOT, name)))) {
        cpSync(join(ROOT, file), join(copy, file));
      }
      symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"), "junction");
      return packDryRun(copy);
    };
    const out = copy === undefined ? readFileSync(listing, "utf8") : packCopy(copy);
    const listed = new Set(JSON.parse(out.slice(out.indexOf("[")))[0].files.map((file) => file.path));
    const targets = (value) =>
      typeof value === "string" ? [value] : Object.values(value ?? {}).flatMap((inner) => targets(inner));
    const named = [
      ...new Set([pkg.main, pkg.module, pkg.types, ...Object.values(pkg.bin ?? {}), ...targets(pkg.exports)]),
    ]
      .map((target) => target.replace(/^\.\//, ""))
      .sort();
    const missing = named.filter((file) => !listed.has(file));
    console.log(
      `  ${listed.size} files, ${named.length - missing.length} of the ${named.length} the package.json names`,
    );
    for (const file of missing) console.log(`  missing: ${file}`);
    if (missing.length > 0) failures.push(`prepack: npm pack of unbuilt sources ships without ${missing.join(", ")}`);
  } catch (thrown) {
    console.log(
      String(thrown.stderr ?? thrown)
        .trimEnd()
        .replace(/^/gm, "  "),
    );
    failures.push("prepack: npm pack of unbuilt sources failed (above)");
  } finally {
    if (copy !== undefined) rmSync(copy, { recursive: true, force: true });
  }
}

// 5. What importing each entry loads
{
  console.log("\nwhat importing each entry of dist/esm loads (static imports; `import()` not followed):");
  const esm = join(ROOT, "dist", "esm");
  const loads = (entry) => {
    const files = new Set();
    const packages = new Set();
    const visit = (file) => {
      if (files.has(file)) return;
      files.add(file);
      const text = readFileSync(file, "utf8");
      const specifiers = [
        ...text.matchAll(/(?:^|[;}\s])(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']/g),
        ...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
      ].map((match) => match[1]);
      for (const specifier of specifiers) {
        if (specifier.startsWith(".")) visit(join(dirname(file), specifier));
        else packages.add(specifier.replace(/^((?:@[^/]+\/)?[^/]+).*$/, "$1"));
      }
    };
    visit(join(esm, `${entry}.js`));
    return { files, packages };
  };
  const { entries } = await import("../rollup.config.mjs");
  for (const entry of entries.filter((name) => existsSync(join(esm, `${name}.js`)))) {
    const { files, packages } = loads(entry);
    const bytes = [...files].reduce((sum, file) => sum + readFileSync(file).length, 0);
    const ceiling = MAX_FILES[entry];
    console.log(
      `  ${entry.padEnd(11)} ${String(files.size).padStart(2)} files${ceiling === undefined ? "" : ` (ceiling ${ceiling})`}, ` +
        `${kib(bytes)}; imports ${[...packages].sort().join(", ") || "nothing else"}`,
    );
    if (ceiling !== undefined && files.size > ceiling) {
      failures.push(`import: dist/esm/${entry}.js loads ${files.size} files, over the ceiling of ${ceiling}`);
    }
    const node = [...packages].filter((name) => name.startsWith("node:"));
    if (NO_NODE.includes(entry) && node.length > 0) {
      failures.push(`import: dist/esm/${entry}.js loads ${node.join(", ")}, and it runs on every runtime`);
    }
    if (NO_PACKAGE.includes(entry) && packages.size > 0) {
      failures.push(`import: dist/esm/${entry}.js loads ${[...packages].join(", ")}, and it needs no package`);
    }
  }
}

if (failures.length > 0) {
  console.error(`\ncheck-package: FAILED\n${failures.map((failure) => `  - ${failure}`).join("\n")}`);
  process.exit(1);
}
console.log("\ncheck-package: ok");
