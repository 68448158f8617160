// Jest's transform of src/internal/inspector/assets.ts: the module the build gives it (four string
// constants, scripts/inspector-page.cjs), so that the tests that import src/ get the page that the
// built package holds. Its cache key is the page's sources, not the placeholder's text.
"use strict";
const { createHash } = require("node:crypto");
const { readFileSync } = require("node:fs");
const { SOURCES, moduleSource } = require("./inspector-page.cjs");

module.exports = {
  process: () => ({ code: moduleSource("cjs") }),
  getCacheKey: () => {
    const hash = createHash("sha256");
    for (const file of [
      require.resolve("./jest-inspector-assets.cjs"),
      require.resolve("./inspector-page.cjs"),
      ...SOURCES,
    ])
      hash.update(readFileSync(file));
    return hash.digest("hex");
  },
};
