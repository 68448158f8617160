// npm test starts the main jest run once the build is done, beside the install of the runtimes,
// Chromium and nats-server (scripts/test-runtimes.mjs --install), which takes a minute or two on a
// clean clone. Most test files need none of it; the others must not start before it ends. This
// module says which is which, for the two places that act on it:
//
// - scripts/jest-sequencer.cjs runs the files that need nothing installed first;
// - scripts/jest-environment.cjs, before a file that needs the install runs, waits until the file
//   named by RPCSERVER_INSTALL_DONE exists (npm test writes it when the install step ends: "ok", or
//   why it failed, which fails the file). Without RPCSERVER_INSTALL_DONE (jest run alone, the
//   runtime matrix, which starts after the install) nothing waits.
//
// "Needs the install" is decided from the text, conservatively: a test file needs it unless neither
// it nor any file of tests/ that it names (its imports, and the fixtures and helpers it names in a
// string, followed from file to file) mentions what the install brings or a way to reach it: the
// runtimes (runtimes/node_modules: other Nodes, Bun, Deno, TypeScript 5/6/7), Chromium (and
// playwright, which drives it), nats-server (and the NATS part, whose tests start one), or
// tests/integrations (whose Hono cases run on Bun and Deno). A file wrongly held back only waits;
// one wrongly let through would race, hence a wide net.
"use strict";
const { existsSync, readFileSync } = require("node:fs");
const { dirname, join, resolve } = require("node:path");

const ROOT = join(__dirname, "..");
const TESTS = join(ROOT, "tests");
const INSTALLED = /runtimes|chromium|playwright|nats|\bbun\b|\bdeno\b|integrations\/|RUNTIMES/i;
/** Names of local files in a file's text: relative imports and requires, and fixtures/helpers paths. */
const NAMED =
  /(?:from\s+|require\(\s*|import\(\s*)["'](\.{1,2}\/[^"']+)["']|["'`]([^"'`]*(?:fixtures|helpers)\/[\w./-]+)["'`]/g;
const EXTENSIONS = ["", ".ts", ".cjs", ".mjs", ".js", "/index.ts"];

/** The file a name in `from` means, if it is one of tests/. */
const fileOf = (from, name) => {
  const candidates = name.startsWith(".")
    ? [resolve(dirname(from), name)]
    : [
        resolve(dirname(from), name),
        resolve(ROOT, name),
        resolve(TESTS, name.replace(/^.*?(fixtures|helpers)\//, "$1/")),
      ];
  for (const base of candidates)
    for (const extension of EXTENSIONS) {
      const file = base + extension;
      if (file.startsWith(TESTS) && existsSync(file) && !file.endsWith("/")) {
        try {
          readFileSync(file);
          return file;
        } catch {
          // a directory
        }
      }
    }
  return undefined;
};

const memo = new Map();
/** Does this test file, or a file of tests/ it names, reach what the install brings? */
const needsInstall = (testPath) => {
  if (memo.has(testPath)) return memo.get(testPath);
  const seen = new Set();
  const pending = [testPath];
  let needs = false;
  while (pending.length > 0 && !needs) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    if (INSTALLED.test(text)) needs = true;
    for (const match of text.matchAll(NAMED)) {
      const named = fileOf(file, match[1] ?? match[2]);
      if (named !== undefined) pending.push(named);
    }
  }
  memo.set(testPath, needs);
  return needs;
};

module.exports = { needsInstall };
