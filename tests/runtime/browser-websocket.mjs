// The WebSocket app of examples/websocket in headless Chromium: the page (examples/websocket/
// page.mjs, bundled with the BUILT package and fp-ts's and io-ts's ES module builds) connects with
// the browser's own WebSocket to examples/websocket/server.mjs (ws, on Node), calls the server, and
// serves the notifications the server pushes. Needs Debian's chromium (/usr/bin/chromium, or
// CHROMIUM_PATH) and playwright-core; prints one JSON line of what the page saw, and exits 1 on a
// failure (tests/connection-browser.test.ts runs it).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rollup } from "@rollup/wasm-node";
import { chromium } from "playwright-core";
import { chromiumPath, es6Build } from "./chromium.mjs";
import { start } from "../../examples/websocket/server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const executablePath = chromiumPath();

// The package by name to its built ES modules; fp-ts and io-ts to their ES module builds.
const resolve = {
  name: "browser-resolve",
  resolveId(source) {
    const own = /^rpcserver(?:\/(\w+))?$/.exec(source);
    if (own) return join(root, "dist", "esm", `${own[1] ?? "index"}.js`);
    return es6Build(source);
  },
};
const bundle = await rollup({
  input: join(root, "examples", "websocket", "page.mjs"),
  plugins: [resolve],
  external: (id) => id.startsWith("node:"),
  onwarn: () => undefined,
});
const { output } = await bundle.generate({ format: "iife", name: "websocketPage", inlineDynamicImports: true });
const script = output[0].code;
if (/\brequire\(/.test(script)) throw new Error("the browser bundle still calls require()");

// The page is about:blank, an opaque origin: Chromium's WebSocket sends `Origin: null`, which the
// example refuses unless it is listed (its DNS-rebinding guard).
const { wss, port } = await start(0, "127.0.0.1", { allowedOrigins: ["null"] });
const browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.addScriptTag({ content: script });
  const seen = await page.evaluate((url) => globalThis.websocketPage.run(url), `ws://127.0.0.1:${port}`);
  console.log(JSON.stringify({ ...seen, errors, chromium: browser.version() }));
  if (errors.length > 0) process.exitCode = 1;
} finally {
  await browser.close();
  await new Promise((settle) => wss.close(settle));
}
