/**
 * Tests of the BUILT package (run after `npm run build`): its exports map, the ESM and CommonJS
 * entries of every subpath, the two builds agreeing on process-wide values, and the types of the
 * packed package compiling in strict consumers: with Node's types, and without them for every
 * entry but the Node-only `rpcserver/server`.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const here = join(__dirname, "package");
const node = (file: string): Record<string, unknown> =>
  JSON.parse(execFileSync(process.execPath, [join(here, file)], { encoding: "utf8" })) as Record<string, unknown>;

const nothingMissing = (missing: unknown): void => {
  for (const [specifier, names] of Object.entries(missing as Record<string, string[]>)) {
    expect({ specifier, names }).toEqual({ specifier, names: [] });
  }
};

/** What esm.mjs and cjs.cjs report of rpcserver/pipeline: the same in both formats. */
const pipelineReport = {
  identity: { timeout: true, observe: true },
  answer: '{"jsonrpc":"2.0","result":"pong","id":3}',
  asyncAnswer: '[{"jsonrpc":"2.0","result":"pong","id":4}]',
  stagedAnswer: '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeoutMs":5}},"id":5}',
  observed: ["slow 5"],
};

/** What client-report.cjs reports of rpcserver/client, through either loader: the same. */
const clientReport = {
  add: { _tag: "Right", right: 3 },
  now: "1970-01-01T00:00:00.000Z",
  half: "server 1",
  batch: { sum: { _tag: "Right", right: 4 }, note: { _tag: "Right" } },
  http: {
    add: { _tag: "Right", right: 5 },
    batch: [
      { _tag: "Right", right: 2 },
      { _tag: "Left", left: { _tag: "ServerError", code: 1, message: "odd", data: { n: 5 } } },
      { _tag: "Right" },
    ],
  },
  logged: ["over http", "batched"],
  server: '{"jsonrpc":"2.0","result":"bob","id":9}',
  overServer: { _tag: "Right", right: "cy" },
  table: { greet: { _tag: "Right", right: "hi, ann" }, then: "undefined", awaited: true },
};

beforeAll(() => {
  if (!existsSync(join(__dirname, "..", "dist", "esm", "index.js"))) {
    throw new globalThis.Error("dist/ is missing: run `npm run build` first (npm test does)");
  }
});

test("every subpath loads through the ESM entry with every public name", () => {
  const out = node("esm.mjs");
  nothingMissing(out["missing"]);
  expect(out["identity"]).toEqual({ dispatch: true, asyncDispatch: true, nodata: true, globalMethods: true });
  expect(out["answer"]).toBe('{"jsonrpc":"2.0","result":"pong","id":1}');
  expect(out["asyncAnswer"]).toBe('{"jsonrpc":"2.0","result":"pong","id":2}');
  expect(out["schemaTitle"]).toBe("JSON-RPC 2.0 request");
  expect(out["pipeline"]).toEqual(pipelineReport);
  expect(out["client"]).toEqual(clientReport);
});

test("every subpath loads through the CommonJS entry; internals are not exported; both builds share state", () => {
  const out = node("cjs.cjs");
  nothingMissing(out["missing"]);
  expect(out["internal"]).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED");
  expect(out["dual"]).toEqual({
    nodata: true,
    globalMethods: true,
    esmSeesCjsMethod: '{"jsonrpc":"2.0","result":"pong","id":1}',
    jsonRpcError: '{"jsonrpc":"2.0","error":{"code":7,"message":"from cjs"},"id":1}',
    clientAcrossBuilds: { _tag: "Right", right: 3 },
  });
  // The client's own modules, and the contract's, are reached through rpcserver and rpcserver/client only.
  expect(out["internals"]).toEqual({
    calls: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    stubs: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    clienterror: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    clienttransport: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    contract: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    implement: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    context: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    "internal/core/methods": "ERR_PACKAGE_PATH_NOT_EXPORTED",
    "internal/client/calls": "ERR_PACKAGE_PATH_NOT_EXPORTED",
    "internal/core/methods.js": "ERR_PACKAGE_PATH_NOT_EXPORTED",
  });
  expect(out["answer"]).toBe('{"jsonrpc":"2.0","result":"pong","id":1}');
  expect(out["schemaTitle"]).toBe("JSON-RPC 2.0 request");
  expect(out["pipeline"]).toEqual(pipelineReport);
  expect(out["client"]).toEqual(clientReport);
});

test("subpaths.json lists every public name the built rpcserver/pipeline exports", () => {
  const listed = (JSON.parse(readFileSync(join(here, "subpaths.json"), "utf8")) as Record<string, string[]>)[
    "rpcserver/pipeline"
  ];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const built = require(join(__dirname, "..", "dist", "cjs", "pipeline.cjs")) as Record<string, unknown>;
  const exported = Object.keys(built).filter((name) => name !== "__esModule");
  expect([...(listed ?? [])].sort()).toEqual(exported.sort());
  for (const name of [
    "parse",
    "validate",
    "resolve",
    "call",
    "pipeline",
    "serialize",
    "toObjects",
    "toResponses",
    "dispatcher",
  ]) {
    expect(listed).toContain(name);
  }
});

test("subpaths.json lists every public name the built rpcserver/connection exports", () => {
  const listed = (JSON.parse(readFileSync(join(here, "subpaths.json"), "utf8")) as Record<string, string[]>)[
    "rpcserver/connection"
  ];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const built = require(join(__dirname, "..", "dist", "cjs", "connection.cjs")) as Record<string, unknown>;
  expect([...(listed ?? [])].sort()).toEqual(
    Object.keys(built)
      .filter((name) => name !== "__esModule")
      .sort(),
  );
});

test("subpaths.json lists every public name the built rpcserver/client exports", () => {
  const listed = (JSON.parse(readFileSync(join(here, "subpaths.json"), "utf8")) as Record<string, string[]>)[
    "rpcserver/client"
  ];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const built = require(join(__dirname, "..", "dist", "cjs", "client.cjs")) as Record<string, unknown>;
  const exported = Object.keys(built).filter((name) => name !== "__esModule");
  expect([...(listed ?? [])].sort()).toEqual(exported.sort());
  for (const name of ["client", "http", "local", "batch", "notify", "withOptions", "matchClientError"]) {
    expect(listed).toContain(name);
  }
});

describe("rpcserver/client and rpcserver/connection reach no Node-only module (browsers, Deno, Bun, workers)", () => {
  /** The bare specifiers the module graph from `entry` imports, statically or dynamically. */
  const reached = (entry: string): string[] => {
    const seen = new Set<string>();
    const bare = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      const specifiers = [
        ...text.matchAll(/\bfrom\s*["']([^"']+)["']/g),
        ...text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g),
        ...text.matchAll(/\brequire\s*\(\s*["']([^"']+)["']\s*\)/g),
      ].map((match) => match[1] ?? "");
      for (const specifier of specifiers) {
        if (specifier.startsWith(".")) visit(join(file, "..", specifier));
        else bare.add(specifier);
      }
    };
    visit(entry);
    expect(seen.size).toBeGreaterThan(5);
    return [...bare].sort();
  };

  test.each([
    ["ESM", join("dist", "esm", "client.js")],
    ["CommonJS", join("dist", "cjs", "client.cjs")],
    ["ESM", join("dist", "esm", "connection.js")],
    ["CommonJS", join("dist", "cjs", "connection.cjs")],
  ])("%s %s: only fp-ts and io-ts", (_format, entry) => {
    const bare = reached(join(__dirname, "..", entry));
    expect(bare.filter((specifier) => !/^(fp-ts|io-ts)(\/|$)/.test(specifier))).toEqual([]);
  });

  test("the check can fail: rpcserver/server's graph reaches node:http", () => {
    expect(reached(join(__dirname, "..", "dist", "esm", "server.js"))).toContain("node:http");
  });

  test("the main entry's browser build (the `browser` condition) reaches only fp-ts and io-ts, and dist/esm's modules", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as {
      exports: Record<string, { browser?: { import?: { default?: string } } }>;
    };
    expect(pkg.exports["."]?.browser?.import?.default).toBe("./dist/browser/index.js");
    const entry = join(__dirname, "..", "dist", "browser", "index.js");
    expect(reached(entry).filter((specifier) => !/^(fp-ts|io-ts)(\/|$)/.test(specifier))).toEqual([]);
    // Only the modules on the way to node:http are its own: the rest is dist/esm's, one copy for both.
    const own = readFileSync(entry, "utf8").match(/from '\.\/[^']+'/g);
    expect(own).toEqual(["from './internal/node/serve.js'"]);
  });
});

describe("the docs reachable from the installed package", () => {
  // What `npm pack` ships, and every relative link of the README and of the docs it ships: each must
  // name a shipped file, so that it resolves in node_modules/rpcserver (the package.json names no
  // repository that links could point to instead).
  const repo = join(__dirname, "..");
  const shipped = new Set(
    (
      JSON.parse(
        execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
          cwd: repo,
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
        }),
      ) as Array<{ files: Array<{ path: string }> }>
    )[0]!.files.map((file) => file.path),
  );
  /** The relative link targets of a shipped Markdown file, as paths inside the package. */
  const links = (file: string): string[] =>
    [...readFileSync(join(repo, file), "utf8").matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => (match[1] ?? "").replace(/#.*$/, ""))
      .filter((target) => target !== "" && !/^[a-z]+:/i.test(target))
      .map((target) => join(file, "..", target).replace(/\/$/, ""));
  const resolves = (target: string): boolean =>
    shipped.has(target) || [...shipped].some((path) => path.startsWith(`${target}/`));
  /** Links from the docs to the repository's tests, which the package does not ship: these only. */
  const intoTests = ["tests/integrations.test.ts", "tests/load/load.mjs", "tests/recipes.test.ts"];

  test("the README, the docs and the examples are shipped", () => {
    for (const file of ["README.md", "docs/README.md", "docs/getting-started.md", "examples/README.md"]) {
      expect(shipped).toContain(file);
    }
    expect([...shipped].filter((path) => path.startsWith("docs/api/"))).toEqual([]);
  });

  test("every relative link of the README names a shipped file", () => {
    const targets = links("README.md");
    expect(targets.length).toBeGreaterThan(10);
    expect(targets.filter((target) => !resolves(target))).toEqual([]);
  });

  test("every relative link of the shipped docs names a shipped file, but for the few into tests/", () => {
    const markdown = [...shipped].filter((path) => path.endsWith(".md") && path !== "README.md");
    const broken = [...new Set(markdown.flatMap(links).filter((target) => !resolves(target)))].sort();
    expect(broken).toEqual(intoTests);
  });
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

  test("with no NATS package installed, every other entry loads (ESM and CommonJS), and rpcserver/nats says what it lacks", () => {
    // The consumer without Node's types has only fp-ts and io-ts beside the package: no @nats-io/*.
    const subpaths = Object.keys(
      JSON.parse(readFileSync(join(here, "subpaths.json"), "utf8")) as Record<string, unknown>,
    ).filter((subpath) => subpath !== "rpcserver/nats");
    expect(subpaths.length).toBeGreaterThan(10);
    const script = [
      "const { createRequire } = await import('node:module');",
      "const require = createRequire(import.meta.url);",
      `for (const s of ${JSON.stringify(subpaths)}) { await import(s); require(s); }`,
      "const failures = [];",
      "for (const load of [() => import('rpcserver/nats'), async () => require('rpcserver/nats')]) {",
      "  try { await load(); failures.push('loaded'); } catch (e) { failures.push(String(e.message).match(/@nats-io\\/[a-z-]+/)?.[0]); }",
      "}",
      "console.log(JSON.stringify(failures));",
    ].join("\n");
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: withoutNode,
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual(["@nats-io/services", "@nats-io/services"]);
  });

  test("without Node's types, rpcserver/server does not compile: the check above can fail", () => {
    const report = compile(withoutNode, "tsconfig.server-without-node.json");
    expect(report).toMatch(
      /node_modules\/rpcserver\/dist\/esm\/internal\/node\/server\.d\.ts\(\d+,\d+\): error TS\d+: .*'node:http'/,
    );
  });
});
