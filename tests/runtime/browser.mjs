// Runs the conformance cases in headless Chromium: bundles the BUILT ESM package (dist/esm) and its
// client (dist/esm/client.js) with fp-ts's and io-ts's own ES module builds into one script, loads
// it into a blank page, and runs the cases there, where there is no `process` and no Node module.
// Needs Debian's chromium (/usr/bin/chromium, or CHROMIUM_PATH) and playwright-core; ends with
// "N passed, N failed".
//
// The client's http cases call the development server at RPCSERVER_URL (scripts/test-runtimes.mjs
// starts one), or one this script starts. The page is at that server's origin, so that its calls
// are same-origin: the dev server sends no CORS headers and answers the preflight a cross-origin
// JSON POST needs (OPTIONS) with 405. The dev server serves no pages (a GET is 405), so Playwright
// answers the page's own URL, /conformance.html, with a blank HTML document; nothing else is
// intercepted, and the client's POSTs to / reach the real server.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rollup } from "@rollup/wasm-node";
import { chromium } from "playwright-core";
import { chromiumPath, es6Build } from "./chromium.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const executablePath = chromiumPath();

// fp-ts and io-ts ship ES modules in es6/, with extensionless specifiers a browser cannot resolve:
// point every fp-ts and io-ts import at those files.
const es6 = {
  name: "fp-ts-es6",
  resolveId(source) {
    return es6Build(source);
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

const given = process.env.RPCSERVER_URL || undefined;
const own = given ? undefined : await (await import("./devserver.mjs")).startDevServer();
const url = given ?? own.url;
const page$ = new URL("conformance.html", url).href;

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
  await page.route(page$, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>conformance</title>" }),
  );
  await page.goto(page$);
  await page.addScriptTag({ content: script });
  const result = await page.evaluate((server) => globalThis.rpcserverConformance(server), url);
  if (result.hasProcess) errors.push("the page has a `process` global: not a browser environment");
  if (result.origin !== new URL(url).origin) errors.push(`the page is at ${result.origin}, not the server's origin`);
  for (const failure of [...result.failures, ...errors]) console.log(`FAIL ${failure}`);
  const failed = result.failed + errors.length;
  console.log(
    `conformance on chromium ${browser.version()}: ${result.passed} passed, ${failed} failed ` +
      `(client: ${result.clientPassed} passed over local and http, ${own ? "its own" : "the harness's"} dev server at ${url})`,
  );
  if (failed > 0 || result.passed === 0) process.exitCode = 1;
} finally {
  await browser.close();
  await own?.close();
}
