// The package as a user installs it, for the type matrix and the browser bundles: `npm pack` of the
// repository (or of RPCSERVER_PACKAGE_DIR, another checkout's built tree, to show a check failing
// on an older commit), unpacked into node_modules/rpcserver of a folder outside the repository, with
// fp-ts and io-ts linked beside it. Nothing resolves from the repository's own node_modules.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The packages scripts/test-runtimes.mjs installs (runtimes/package.json). */
export const RUNTIMES = join(ROOT, "runtimes", "node_modules");

/** Packs the package once into a fresh temporary folder; resolves to the tarball and that folder. */
export const pack = () => {
  const source = process.env.RPCSERVER_PACKAGE_DIR ? resolve(process.env.RPCSERVER_PACKAGE_DIR) : ROOT;
  if (!existsSync(join(source, "dist", "esm", "index.js"))) {
    throw new Error(`${source}/dist is missing: run \`npm run build\` first`);
  }
  const work = mkdtempSync(join(tmpdir(), "rpcserver-packed-"));
  // --ignore-scripts: the package is built already; prepack would build it again under the suite.
  const out = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], {
    cwd: source,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const tarball = join(work, JSON.parse(out)[0].filename);
  return { source, work, tarball, remove: () => rmSync(work, { recursive: true, force: true }) };
};

/**
 * A consumer folder `work/name` with the tarball as node_modules/rpcserver, fp-ts and io-ts from the
 * repository, and `links` (node_modules name -> absolute path) beside them.
 */
export const consumer = (work, name, tarball, links = {}) => {
  const dir = join(work, name);
  mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
  execFileSync("tar", ["-xzf", tarball, "-C", join(dir, "node_modules")]);
  renameSync(join(dir, "node_modules", "package"), join(dir, "node_modules", "rpcserver"));
  const all = { "fp-ts": join(ROOT, "node_modules", "fp-ts"), "io-ts": join(ROOT, "node_modules", "io-ts"), ...links };
  for (const [link, target] of Object.entries(all)) symlinkSync(target, join(dir, "node_modules", link), "junction");
  return dir;
};

/** Runs `tasks` (functions returning promises) `width` at a time; resolves to their results in order. */
export const inParallel = async (tasks, width) => {
  const results = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, lane));
  return results;
};
