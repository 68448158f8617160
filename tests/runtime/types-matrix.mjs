// The type matrix (issue 22): the PACKED package's types compiled in strict consumers by TypeScript
// 5, 6 and 7 against @types/node 20, 22, 24 and the newest, under NodeNext and bundler resolution
// (tests/package/types: esm.mts, cjs.cts and node-channels.mts, whose byteChannel() lines @types/node 25
// and later once refused), and the consumers without Node's types (portable.mts, portable.cts) under
// each TypeScript. The compilers and Node's types are npm aliases in runtimes/package.json
// (typescript-5, types-node-26...), installed by scripts/test-runtimes.mjs.
//
// Declaration files are checked (skipLibCheck off) by TypeScript 7 everywhere, and by 5 and 6 against
// the newest @types/node and without Node's types; TypeScript 5 and 6 skip them against @types/node
// 20 to 24, where type-checking Node's own declarations is most of a 15-second compile and finds
// nothing of ours (tests/package-types.test.ts checks them too). The consumers' own lines, byteChannel() on
// Node's streams included, are checked in every compile.
//
// A case that tests/package-types.test.ts compiles already (the consumers without Node's types, by
// the repository's own TypeScript, when the matrix's TypeScript is that very version and the package
// is this tree's) is not compiled twice: its line says where it is compiled (`npm test` runs both).
//
// Compiles two at a time (CI has two cores). Prints one line per compile and tsc's report for each
// that failed; ends with "types matrix: N passed, N failed" and exits 1 when any failed. Run after
// `npm run build`; RPCSERVER_PACKAGE_DIR=<a built checkout> checks another tree instead.
import { execFile } from "node:child_process";
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { consumer, inParallel, pack, ROOT, RUNTIMES } from "./packed.mjs";

const TYPESCRIPTS = [5, 6, 7];
const NODE_TYPES = [20, 22, 24, 26];
const WITH_NODE = [
  ["NodeNext", "tsconfig.matrix-nodenext.json"],
  ["bundler", "tsconfig.matrix-bundler.json"],
];
const WITHOUT_NODE = [
  ["NodeNext, no Node types", "tsconfig.portable.json"],
  ["bundler, no Node types", "tsconfig.bundler.json"],
];

const version = (name) => JSON.parse(readFileSync(join(RUNTIMES, name, "package.json"), "utf8")).version;
for (const name of [...TYPESCRIPTS.map((v) => `typescript-${v}`), ...NODE_TYPES.map((v) => `types-node-${v}`)]) {
  if (!existsSync(join(RUNTIMES, name))) {
    console.error(`types matrix: ${name} is not installed: run node scripts/test-runtimes.mjs --install`);
    process.exit(1);
  }
}

const packed = pack();
const fixtures = join(ROOT, "tests", "package", "types");
const dirs = new Map();
for (const node of NODE_TYPES) {
  const dir = consumer(packed.work, `node-${node}`, packed.tarball, {
    "@types/node": join(RUNTIMES, `types-node-${node}`),
  });
  cpSync(fixtures, dir, { recursive: true });
  dirs.set(node, dir);
}
const portable = consumer(packed.work, "without-node", packed.tarball);
cpSync(fixtures, portable, { recursive: true });

/** tsc's exit and report for one tsconfig. */
const compile = (typescript, dir, tsconfig, skipLibCheck) =>
  new Promise((resolve) => {
    const tsc = join(RUNTIMES, `typescript-${typescript}`, "bin", "tsc");
    const args = [tsc, "-p", join(dir, tsconfig), ...(skipLibCheck ? ["--skipLibCheck"] : [])];
    execFile(process.execPath, args, { cwd: dir, encoding: "utf8" }, (error, stdout) =>
      resolve({ ok: error === null, report: `${stdout}${error && !stdout ? String(error) : ""}`.trim() }),
    );
  });

const NEWEST = NODE_TYPES[NODE_TYPES.length - 1];
/** The repository's own TypeScript, which tests/package-types.test.ts compiles the same consumers with. */
const OWN_TYPESCRIPT = JSON.parse(
  readFileSync(join(ROOT, "node_modules", "typescript", "package.json"), "utf8"),
).version;
const comparedByPackageTypes = (typescript) =>
  process.env.RPCSERVER_PACKAGE_DIR === undefined && version(`typescript-${typescript}`) === OWN_TYPESCRIPT;
const cases = TYPESCRIPTS.flatMap((typescript) => [
  ...NODE_TYPES.flatMap((node) =>
    WITH_NODE.map(([resolution, tsconfig]) => {
      const skipLibCheck = typescript < 7 && node !== NEWEST;
      return {
        name: `TypeScript ${version(`typescript-${typescript}`)}, @types/node ${version(`types-node-${node}`)}, ${resolution}${skipLibCheck ? " (skipLibCheck)" : ""}`,
        run: () => compile(typescript, dirs.get(node), tsconfig, skipLibCheck),
      };
    }),
  ),
  ...WITHOUT_NODE.map(([resolution, tsconfig]) => ({
    name: `TypeScript ${version(`typescript-${typescript}`)}, ${resolution}`,
    run: () => compile(typescript, portable, tsconfig, false),
    elsewhere: comparedByPackageTypes(typescript),
  })),
]);
const compiled = cases.filter((each) => !each.elsewhere);

console.log(`types matrix: ${compiled.length} compiles of the package packed from ${packed.source}`);
for (const each of cases.filter((one) => one.elsewhere))
  console.log(`same ${each.name}: the repository's own TypeScript, compiled by tests/package-types.test.ts`);
let failed = 0;
try {
  await inParallel(
    compiled.map((each) => async () => {
      const { ok, report } = await each.run();
      if (!ok) failed += 1;
      console.log(`${ok ? "ok  " : "FAIL"} ${each.name}${ok ? "" : `\n${report.replace(/^/gm, "     ")}`}`);
    }),
    2,
  );
} finally {
  packed.remove();
}
console.log(`types matrix: ${compiled.length - failed} passed, ${failed} failed`);
if (failed > 0) process.exitCode = 1;
