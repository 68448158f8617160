// What the headless-Chromium scripts share: where Debian's chromium is, and how fp-ts and io-ts
// resolve in a page's bundle.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** Debian's chromium (/usr/bin/chromium, or CHROMIUM_PATH); exits 1 with a message when it is missing. */
export const chromiumPath = () => {
  const path = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(path)) {
    console.error(`no Chromium at ${path}: apt-get install chromium, or set CHROMIUM_PATH`);
    process.exit(1);
  }
  return path;
};

/**
 * fp-ts and io-ts ship ES modules in es6/, with extensionless specifiers a browser cannot resolve:
 * the file each of their imports points at, or `null` for any other import.
 */
export const es6Build = (source) => {
  const fp = /^fp-ts\/(?:lib|es6)\/(\w+)(?:\.js)?$/.exec(source);
  if (fp) return join(dirname(require.resolve("fp-ts/package.json")), "es6", `${fp[1]}.js`);
  if (source === "io-ts") return join(dirname(require.resolve("io-ts/package.json")), "es6", "index.js");
  return null;
};
