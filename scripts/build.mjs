// Builds the package: rollup for the JavaScript (ESM + CommonJS), tsc for the declarations, then a
// CommonJS twin of every declaration file (`.d.cts`), so that each build has types of its own format.
//
// Why this way: declarations are emitted per source file (dist/esm/internal/<part>/*.d.ts mirrors
// src/internal/), beside the JavaScript chunks that rollup makes of those files (rollup.config.mjs),
// so the entries share declarations (NODATA declared once is one unique symbol for every subpath);
// each entry's declaration file sits beside its JavaScript (dist/esm/client.d.ts, client.js); and
// relative specifiers get explicit extensions (`./x.js` for ESM, `./x.cjs` for CommonJS) as Node's
// node16/nodenext resolution requires.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync, existsSync } from "node:fs";
import { join } from "node:path";

const run = (command, args) => execFileSync(command, args, { stdio: "inherit" });

rmSync("dist", { recursive: true, force: true });
run(process.execPath, ["node_modules/@rollup/wasm-node/dist/bin/rollup", "-c", "--silent"]);
run(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"]);

const relative = /(from\s+|import\s*\(\s*)(["'])(\.{1,2}\/[^"']+?)\2/g;
const withExtension = (text, extension) =>
  text.replace(
    relative,
    (_all, head, quote, spec) => `${head}${quote}${spec.replace(/\.(js|cjs)$/, "")}${extension}${quote}`,
  );

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );

for (const file of walk("dist/esm").filter((f) => f.endsWith(".d.ts"))) {
  const text = readFileSync(file, "utf8");
  writeFileSync(file, withExtension(text, ".js"));
  const twin = file.replace(/^dist\/esm/, "dist/cjs").replace(/\.d\.ts$/, ".d.cts");
  mkdirSync(join(twin, ".."), { recursive: true });
  writeFileSync(twin, withExtension(text, ".cjs"));
}

// The CLI is run directly (`npx rpcserver`): it needs its shebang and the executable bit.
for (const cli of ["dist/esm/cli.js", "dist/cjs/cli.cjs"]) {
  if (!existsSync(cli)) continue;
  const text = readFileSync(cli, "utf8");
  if (!text.startsWith("#!")) writeFileSync(cli, `#!/usr/bin/env node\n${text}`);
  chmodSync(cli, 0o755);
}

// The browser build of the entries that reach a `node:` module (the main entry, through `serve`):
// what the exports map's `browser` condition names (scripts/build-browser.mjs says why).
run(process.execPath, ["scripts/build-browser.mjs"]);
