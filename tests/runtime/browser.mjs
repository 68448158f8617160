// Runs the conformance cases in headless Chromium: bundles the BUILT ESM package (dist/esm) with
// fp-ts's and io-ts's own ES module builds into one script, loads it into a blank page, and runs
// the cases there, where there is no `process` and no Node module. Needs Debian's chromium
// (/usr/bin/chromium, or CHROMIUM_PATH) and playwright-core; ends with "N passed, N failed".
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rollup } from "@rollup/wasm-node";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(executablePath)) {
  console.error(`no Chromium at ${executablePath}: apt-get install chromium, or set CHROMIUM_PATH`);
  process.exit(1);
}

// fp-ts and io-ts ship ES modules in es6/, with extensionless specifiers a browser cannot resolve:
// point every fp-ts and io-ts import at those files.
const es6 = {
  name: "fp-ts-es6",
  resolveId(source) {
    const fp = /^fp-ts\/(?:lib|es6)\/([\w]+)(?:\.js)?$/.exec(source);
    if (fp) return join(dirname(require.resolve("fp-ts/package.json")), "es6", `${fp[1]}.js`);
    if (source === "io-ts") return join(dirname(require.resolve("io-ts/package.json")), "es6", "index.js");
    return null;
  },
};

const bundle = await rollup({
  input: join(here, "browser-entry.mjs"),
  plugins: [es6],
  external: (id) => id.startsWith("node:"),
  onwarn: () => undefined,
});
const { output } = await bundle.generate({ format: "iife", inlineDynamicImports: true });
const script = output[0].code;
if (/\brequire\(/.test(script)) throw new Error("the browser bundle still calls require()");

const browser = await chromium.launch({
  executablePath,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.addScriptTag({ content: script });
  const result = await page.evaluate(() => globalThis.rpcserverConformance());
  for (const failure of [...result.failures, ...errors]) console.log(`FAIL ${failure}`);
  if (result.hasProcess) errors.push("the page has a `process` global: not a browser environment");
  const failed = result.failed + errors.length;
  console.log(`conformance on chromium ${browser.version()}: ${result.passed} passed, ${failed} failed`);
  if (failed > 0 || result.passed === 0) process.exitCode = 1;
} finally {
  await browser.close();
}
