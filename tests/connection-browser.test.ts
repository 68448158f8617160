/**
 * The WebSocket app of examples/websocket in headless Chromium (tests/runtime/browser-websocket.mjs,
 * against the built package): the page calls the server over the browser's own WebSocket, and the
 * server pushes notifications that the page serves. Chromium comes from `apt-get install chromium`
 * (scripts/test-runtimes.mjs --install, which `npm test` runs first).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

const ROOT = join(__dirname, "..");

// Playwright (which drives Chromium) needs Node 20 or later: on Node 18 the case is skipped, by name.
const major = Number(process.versions.node.split(".")[0]);
const run = major >= 20 ? test : test.skip;
const suffix = major >= 20 ? "" : ` (skipped on node ${process.versions.node}: Playwright needs Node 20 or later)`;

run(`a page in Chromium calls the server and is pushed notifications, on one WebSocket connection${suffix}`, () => {
  const out = execFileSync(process.execPath, ["tests/runtime/browser-websocket.mjs"], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  const seen = JSON.parse(out.trim().split("\n").pop() as string) as Record<string, unknown>;
  expect(seen["errors"]).toEqual([]);
  expect(seen["hasProcess"]).toBe(false);
  expect(seen["sum"]).toEqual({ _tag: "Right", right: 5 });
  expect(seen["subscribed"]).toEqual({ _tag: "Right", right: null });
  expect(seen["heard"]).toEqual([1, 2, 3].map((n) => ({ topic: "weather", n })));
});
