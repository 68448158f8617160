// Browser bundles (issue 22): the app in tests/runtime/bundle-app, which imports every browser entry
// of the PACKED package (rpcserver, rpcserver/client, rpcserver/connection, main, async_main,
// response, result, codes, methods, sentinels, transport, pipeline, inspector, fetch) and a shared contract module, is
// bundled for the browser by esbuild, Vite 8 (Rolldown), Vite 7 (Rollup) and webpack, each run as a
// user runs it the first time: its CLI, no configuration file, no externals, no plugin. Each bundle is
// then loaded into headless Chromium and must run (esbuild's must also hold one fp-ts, not its
// CommonJS files beside the ES modules the app imports): a contract's client over local() and over a
// connection on a MessageChannel, the dispatch core, and serve() refusing with the browser build's
// own message.
//
// The bundlers are in runtimes/package.json (installed by scripts/test-runtimes.mjs); Chromium is
// Debian's (/usr/bin/chromium, or CHROMIUM_PATH), driven by playwright-core. Prints one line per
// bundler, with the bundler's or the page's report for each that failed; ends with
// "browser bundles: N passed, N failed" and exits 1 when any failed. Run after `npm run build`;
// RPCSERVER_PACKAGE_DIR=<a built checkout> checks another tree instead.
import { execFile } from "node:child_process";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { chromium } from "playwright-core";
import { consumer, pack, ROOT, RUNTIMES } from "./packed.mjs";

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(executablePath)) {
  console.error(`no Chromium at ${executablePath}: apt-get install chromium, or set CHROMIUM_PATH`);
  process.exit(1);
}

/** Each bundler's first-run command in the app's folder; all write the app to dist/. */
const BUNDLERS = [
  [
    "esbuild",
    join(RUNTIMES, "esbuild", "bin", "esbuild"),
    ["src/index.js", "--bundle", "--outfile=dist/main.js", "--metafile=meta.json"],
  ],
  ["vite 8 (Rolldown)", process.execPath, [join(RUNTIMES, "vite", "bin", "vite.js"), "build"]],
  ["vite 7 (Rollup)", process.execPath, [join(RUNTIMES, "vite-7", "bin", "vite.js"), "build"]],
  ["webpack", process.execPath, [join(RUNTIMES, "webpack-cli", "bin", "cli.js")]],
];

/** What the app must report in every bundle. */
const expected = {
  hasProcess: false,
  local: { _tag: "Right", right: 5 },
  connection: { _tag: "Right", right: "hi, ann" },
  dispatched: '{"jsonrpc":"2.0","result":"pong","id":1}',
  main: '{"jsonrpc":"2.0","result":"pong","id":1}',
  asyncMain: '{"jsonrpc":"2.0","result":"pong","id":1}',
  missing: true,
  invalid: -32602,
  dict: { jsonrpc: "2.0", result: 1, id: 3 },
  nodata: true,
  registry: "object",
  http: 200,
  piped: '{"jsonrpc":"2.0","result":"pong","id":1}',
  served: "serve: the development server runs on Node.js, Bun or Deno (it needs node:http), not in a browser",
  inspector: { doctype: true, url: true, policy: true },
  fetched: { post: '{"jsonrpc":"2.0","result":"pong","id":1}', page: 200, doctype: true, url: true },
};

const run = (command, args, cwd) =>
  new Promise((resolve) =>
    execFile(
      command,
      args,
      { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) => resolve({ ok: error === null, report: `${stdout}${stderr}`.trim() }),
    ),
  );

const packed = pack();
const app = join(ROOT, "tests", "runtime", "bundle-app");
const results = [];
const browser = await chromium.launch({
  executablePath,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
try {
  for (const [name, command, args] of BUNDLERS) {
    const dir = consumer(packed.work, name.replace(/\W+/g, "-"), packed.tarball);
    cpSync(app, dir, { recursive: true });
    const bundled = await run(command, args, dir);
    if (!bundled.ok) {
      results.push({ name, failure: `the bundler failed:\n${bundled.report}` });
      continue;
    }
    const out = join(dir, "dist");
    // One fp-ts: the package's browser build imports fp-ts's ES modules, as the app does. Its
    // CommonJS files (fp-ts/lib) in a bundle are a second copy, whole (CommonJS is not tree-shaken).
    const meta = join(dir, "meta.json");
    const twice = existsSync(meta)
      ? Object.keys(JSON.parse(readFileSync(meta, "utf8")).inputs).filter((input) => input.includes("fp-ts/lib/"))
      : [];
    if (twice.length > 0) {
      results.push({ name, failure: `fp-ts bundled twice: its CommonJS files too (${twice.join(", ")})` });
      continue;
    }
    // esbuild and webpack write a script; the page that loads it is the app's own, pointed at it.
    if (!existsSync(join(out, "index.html"))) {
      writeFileSync(
        join(out, "index.html"),
        readFileSync(join(app, "index.html"), "utf8").replace(
          '<script type="module" src="/src/index.js">',
          '<script src="/main.js">',
        ),
      );
    }
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    // The page's origin is served from dist/, as any static host would serve the build.
    await page.route("http://rpcserver.test/**", (route) => {
      const path = new URL(route.request().url()).pathname;
      const file = join(out, path === "/" ? "index.html" : path);
      return existsSync(file) ? route.fulfill({ path: file }) : route.fulfill({ status: 404, body: "not found" });
    });
    await page.goto("http://rpcserver.test/");
    let seen;
    try {
      await page.waitForFunction(() => globalThis.rpcserverApp !== undefined, undefined, { timeout: 30_000 });
      seen = await page.evaluate(() => globalThis.rpcserverApp);
    } catch (error) {
      seen = { notRun: String(error) };
    }
    await page.close();
    const wrong = Object.keys({ ...expected, ...seen }).filter((key) => !isDeepStrictEqual(seen[key], expected[key]));
    results.push(
      wrong.length === 0 && errors.length === 0
        ? { name }
        : {
            name,
            failure: [
              ...wrong.map(
                (key) => `${key}: got ${JSON.stringify(seen[key])}, expected ${JSON.stringify(expected[key])}`,
              ),
              ...errors.map((error) => `page error: ${error}`),
            ].join("\n"),
          },
    );
  }
} finally {
  await browser.close();
  packed.remove();
}
for (const { name, failure } of results) {
  console.log(`${failure ? "FAIL" : "ok  "} ${name}${failure ? `\n${failure.replace(/^/gm, "     ")}` : ""}`);
}
const failed = results.filter((result) => result.failure).length;
console.log(`browser bundles (chromium ${browser.version()}): ${results.length - failed} passed, ${failed} failed`);
if (failed > 0) process.exitCode = 1;
