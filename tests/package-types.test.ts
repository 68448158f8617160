/**
 * Tests of the BUILT package's types as a user installs them (run after `npm run build`): the packed
 * package compiling in strict consumers, with Node's types, and without them for every entry but the
 * Node-only `rpcserver/server`; and, in the consumer without any NATS package, every other entry
 * loading. Apart from tests/package.test.ts (the package loaded by the Node that runs it) because
 * what tsc reports does not depend on that Node: the runtime matrix runs this file once, on the
 * npm Node only (scripts/test-runtimes.mjs, ONCE).
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const here = join(__dirname, "package");

beforeAll(() => {
  if (!existsSync(join(__dirname, "..", "dist", "esm", "index.js"))) {
    throw new globalThis.Error("dist/ is missing: run `npm run build` first (npm test does)");
  }
});

describe("the packed package's types", () => {
  // The types as a user installs them: the tarball of `npm pack` unpacked into node_modules/rpcserver
  // of a consumer folder outside the repository, so that nothing resolves from the repository's own
  // node_modules (its @types/node would hide a declaration file that needs Node's types). fp-ts and
  // io-ts are linked beside it; @types/node only in the consumer that has Node's types.
  const repo = join(__dirname, "..");
  const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
  let work = "";

  const consumer = (name: string, links: readonly string[], tarball: string): string => {
    const dir = join(work, name);
    mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
    execFileSync("tar", ["-xzf", tarball, "-C", join(dir, "node_modules")]);
    renameSync(join(dir, "node_modules", "package"), join(dir, "node_modules", "rpcserver"));
    for (const link of links)
      symlinkSync(join(repo, "node_modules", link), join(dir, "node_modules", link), "junction");
    cpSync(join(here, "types"), dir, { recursive: true });
    return dir;
  };

  /** tsc's report for one tsconfig of a consumer: "" when it compiles. */
  const compile = (dir: string, tsconfig: string): string => {
    try {
      execFileSync(process.execPath, [tsc, "-p", join(dir, tsconfig)], { cwd: dir, encoding: "utf8" });
      return "";
    } catch (error) {
      return String((error as { stdout?: string }).stdout ?? error);
    }
  };

  let withNode = "";
  let withoutNode = "";
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "rpcserver-types-"));
    const packed = JSON.parse(
      // --ignore-scripts: built already; prepack would rebuild dist/ under the rest of the suite.
      execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], {
        cwd: repo,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }),
    ) as Array<{ filename: string }>;
    const tarball = join(work, packed[0]!.filename);
    withNode = consumer("with-node", ["fp-ts", "io-ts", "@types/node"], tarball);
    withoutNode = consumer("without-node", ["fp-ts", "io-ts"], tarball);
  });
  afterAll(() => {
    if (work !== "") rmSync(work, { recursive: true, force: true });
  });

  test("with @types/node: strict NodeNext, ESM and CommonJS; rpcserver/server's serve gives http.Server", () => {
    expect(compile(withNode, "tsconfig.json")).toBe("");
  });

  test("without Node's types: every entry but rpcserver/server, NodeNext ESM and CommonJS", () => {
    expect(compile(withoutNode, "tsconfig.portable.json")).toBe("");
  });

  test("values exported with inferred types compile with declarations on (the type-level helpers can be named)", () => {
    expect(compile(withoutNode, "tsconfig.inferred.json")).toBe("");
    const emitted = readFileSync(join(withoutNode, "out-inferred", "inferred.d.mts"), "utf8");
    expect(emitted).toContain('import("rpcserver/types").TypedAround');
    expect(emitted).not.toContain("internal/");
  });

  test("without Node's types: every entry but rpcserver/server, bundler resolution", () => {
    expect(compile(withoutNode, "tsconfig.bundler.json")).toBe("");
  });

  test("with no NATS package and no @opentelemetry/api installed, every other entry loads (ESM and CommonJS), and rpcserver/nats and rpcserver/otel say what they lack", () => {
    // The consumer without Node's types has only fp-ts and io-ts beside the package: no @nats-io/*, no @opentelemetry/*.
    const subpaths = Object.keys(
      JSON.parse(readFileSync(join(here, "subpaths.json"), "utf8")) as Record<string, unknown>,
    ).filter((subpath) => subpath !== "rpcserver/nats" && subpath !== "rpcserver/otel");
    expect(subpaths.length).toBeGreaterThan(10);
    const script = [
      "const { createRequire } = await import('node:module');",
      "const require = createRequire(import.meta.url);",
      `for (const s of ${JSON.stringify(subpaths)}) { await import(s); require(s); }`,
      "const failures = [];",
      "for (const load of [() => import('rpcserver/nats'), async () => require('rpcserver/nats')]) {",
      "  try { await load(); failures.push('loaded'); } catch (e) { failures.push(String(e.message).match(/@nats-io\\/[a-z-]+/)?.[0]); }",
      "}",
      "for (const load of [() => import('rpcserver/otel'), async () => require('rpcserver/otel')]) {",
      "  try { await load(); failures.push('loaded'); } catch (e) { failures.push(String(e.message).match(/@opentelemetry\\/api/)?.[0]); }",
      "}",
      "console.log(JSON.stringify(failures));",
    ].join("\n");
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: withoutNode,
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual([
      "@nats-io/services",
      "@nats-io/services",
      "@opentelemetry/api",
      "@opentelemetry/api",
    ]);
  });

  test("without Node's types, rpcserver/server does not compile: the check above can fail", () => {
    const report = compile(withoutNode, "tsconfig.server-without-node.json");
    expect(report).toMatch(
      /node_modules\/rpcserver\/dist\/esm\/internal\/node\/server\.d\.ts\(\d+,\d+\): error TS\d+: .*'node:http'/,
    );
  });
});
