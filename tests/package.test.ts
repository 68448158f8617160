/**
 * Tests of the BUILT package (run after `npm run build`): its exports map, the ESM and CommonJS
 * entries of every subpath loaded by the Node that runs this file, the two builds agreeing on
 * process-wide values, and the docs it ships. The packed package's types (what tsc reports of it,
 * the same on every Node) are tests/package-types.test.ts.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
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

describe("the deprecated names (issue 33, item 10), as the built package exports them", () => {
  /** What the Node that runs this file sees of each old name and its new one, through `loader`. */
  const aliases = (loader: "import" | "require"): unknown => {
    const load = loader === "import" ? "(s) => import(s)" : "async (s) => require(s)";
    const script = `
      const load = ${load};
      const [http, transport, connection] = await Promise.all(["rpcserver/http", "rpcserver/transport", "rpcserver/connection"].map(load));
      const names = (m) => Object.keys(m).filter((n) => n !== "__esModule" && n !== "default").sort();
      console.log(JSON.stringify({
        http: names(http),
        transport: names(transport),
        sameToHttp: transport.toHttp === http.toHttp,
        sameChannel: connection.streams === connection.byteChannel,
      }));`;
    const args = loader === "import" ? ["--input-type=module", "-e", script] : ["-e", `(async () => {${script}})()`];
    return JSON.parse(execFileSync(process.execPath, args, { cwd: here, encoding: "utf8" })) as unknown;
  };

  test.each(["import", "require"] as const)(
    "%s: rpcserver/transport gives rpcserver/http's functions, and streams is byteChannel",
    (loader) => {
      expect(aliases(loader)).toEqual({
        http: ["toHttp"],
        transport: ["toHttp"],
        sameToHttp: true,
        sameChannel: true,
      });
    },
  );
});

describe("rpcserver/fetch, built, answers through either loader", () => {
  /** A ping and a streamed count answered by the built handler, loaded through `loader`. */
  const answers = (loader: "import" | "require"): unknown => {
    const load = loader === "import" ? "(s) => import(s)" : "async (s) => require(s)";
    const script = `
      const load = ${load};
      const [{ fetchHandler }, { Success }] = await Promise.all(["rpcserver/fetch", "rpcserver"].map(load));
      const handler = fetchHandler({
        ping: () => Success("pong"),
        count: async function* (to) { for (let i = 1; i <= to; i++) yield i; return Success(to); },
      });
      const post = (body, accept) => handler(new Request("http://localhost/rpc", {
        method: "POST", body, headers: accept === undefined ? {} : { Accept: accept },
      }));
      const ping = await post('{"jsonrpc":"2.0","method":"ping","id":1}');
      const events = await post('{"jsonrpc":"2.0","method":"count","params":[2],"id":2}', "text/event-stream");
      console.log(JSON.stringify({
        ping: [ping.status, await ping.text()],
        events: [events.headers.get("content-type"), (await events.text()).split("\\n\\n").length],
      }));`;
    const args = loader === "import" ? ["--input-type=module", "-e", script] : ["-e", `(async () => {${script}})()`];
    return JSON.parse(execFileSync(process.execPath, args, { cwd: here, encoding: "utf8" })) as unknown;
  };

  test.each(["import", "require"] as const)("%s: a call and an event stream", (loader) => {
    expect(answers(loader)).toEqual({
      ping: [200, '{"jsonrpc":"2.0","result":"pong","id":1}'],
      events: ["text/event-stream", 4],
    });
  });
});

describe("rpcserver/client, rpcserver/connection and rpcserver/fetch reach no Node-only module (browsers, Deno, Bun, workers)", () => {
  /**
   * The module graph from `entry`, its static and dynamic imports (a bundler inlines what an
   * `import()` names, or emits it as a chunk): its files, and the bare specifiers they import.
   */
  /** The files `entry` loads and the bare specifiers it names: by `import()` too unless `dynamic` is false. */
  const graphOf = (entry: string, dynamic = true): { files: Set<string>; bare: Set<string> } => {
    const seen = new Set<string>();
    const bare = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      const specifiers = [
        ...text.matchAll(/\bfrom\s*["']([^"']+)["']/g),
        ...(dynamic ? text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g) : []),
        ...text.matchAll(/\brequire\s*\(\s*["']([^"']+)["']\s*\)/g),
      ].map((match) => match[1] ?? "");
      for (const specifier of specifiers) {
        if (specifier.startsWith(".")) visit(join(file, "..", specifier));
        else bare.add(specifier);
      }
    };
    visit(entry);
    return { files: seen, bare };
  };
  /** The bare specifiers `entry`'s graph imports, of at least `least` files (a check that it was walked). */
  const reached = (entry: string, least = 6): string[] => {
    const { files, bare } = graphOf(entry);
    expect(files.size).toBeGreaterThanOrEqual(least);
    return [...bare].sort();
  };

  test.each([
    ["ESM", join("dist", "esm", "client.js")],
    ["CommonJS", join("dist", "cjs", "client.cjs")],
    ["ESM", join("dist", "esm", "connection.js")],
    ["CommonJS", join("dist", "cjs", "connection.cjs")],
    ["ESM", join("dist", "esm", "fetch.js")],
    ["CommonJS", join("dist", "cjs", "fetch.cjs")],
  ])("%s %s: only fp-ts and io-ts", (_format, entry) => {
    const bare = reached(join(__dirname, "..", entry));
    expect(bare.filter((specifier) => !/^(fp-ts|io-ts)(\/|$)/.test(specifier))).toEqual([]);
  });

  test("the check can fail: rpcserver/server's graph reaches node:http", () => {
    expect(reached(join(__dirname, "..", "dist", "esm", "server.js"))).toContain("node:http");
  });

  test("every browser entry's build (the `browser` condition) stays in dist/browser and imports fp-ts's ES modules", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as {
      exports: Record<string, { browser?: { import?: { default?: string } }; import?: unknown } | null>;
    };
    const nodeOnly = ["./server", "./cli", "./node-http", "./nats"];
    const browserEntries = Object.entries(pkg.exports).filter(
      ([subpath, conditions]) => conditions?.import !== undefined && !nodeOnly.includes(subpath),
    );
    expect(browserEntries.length).toBeGreaterThan(15);
    for (const [subpath, conditions] of browserEntries) {
      const name = subpath === "." ? "index" : subpath.slice(2);
      expect([subpath, conditions?.browser?.import?.default]).toEqual([subpath, `./dist/browser/${name}.js`]);
      if (name === "types") continue; // types only: an empty module
      const bare = reached(join(__dirname, "..", "dist", "browser", `${name}.js`), 1);
      // fp-ts's CommonJS files beside the ES modules an app's bundle takes would be a second fp-ts.
      expect([
        subpath,
        bare.filter((specifier) => !/^(fp-ts\/es6\/|io-ts$|@opentelemetry\/api$)/.test(specifier)),
      ]).toEqual([subpath, []]);
    }
    // `serve`'s development server (it needs node:http) is a module that throws in its place.
    expect(readFileSync(join(__dirname, "..", "dist", "browser", "internal", "node", "serve.js"), "utf8")).toContain(
      "_node-only_node_http.js",
    );
  });

  test("no browser build but rpcserver/inspector loads the inspector page; fetch and mcp only on its first GET, `serve` never", () => {
    // A line of the page's Content-Security-Policy (src/internal/inspector/page.ts), in its chunk alone.
    const page = "require-trusted-types-for";
    const browser = join(__dirname, "..", "dist", "browser");
    const holding = (name: string, dynamic: boolean): string[] =>
      [...graphOf(join(browser, `${name}.js`), dynamic).files]
        .filter((file) => readFileSync(file, "utf8").includes(page))
        .map((file) => file.slice(browser.length + 1));
    // The check can fail: the page's own entry holds it.
    expect(holding("inspector", false)).toEqual(["internal/inspector.js"]);
    for (const name of ["fetch", "mcp"]) {
      // Their handlers serve the page, from a chunk that an import() loads (a bundler splits it off).
      expect([name, holding(name, false), holding(name, true)]).toEqual([name, [], ["internal/inspector.js"]]);
    }
    for (const name of ["index", "client", "connection", "main", "async_main", "pipeline", "otel"]) {
      expect([name, holding(name, true)]).toEqual([name, []]);
    }
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
  const prose = (markdown: string): string =>
    markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  const links = (file: string): string[] =>
    // Code is not prose: a call such as remote["users.get"](1) in a code block or span is no link.
    [...prose(readFileSync(join(repo, file), "utf8")).matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => (match[1] ?? "").replace(/#.*$/, ""))
      .filter((target) => target !== "" && !/^[a-z]+:/i.test(target))
      .map((target) => join(file, "..", target).replace(/\/$/, ""));
  const resolves = (target: string): boolean =>
    shipped.has(target) || [...shipped].some((path) => path.startsWith(`${target}/`));

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

  test("every relative link of the shipped docs names a shipped file (the repository's tests are named, not linked)", () => {
    const markdown = [...shipped].filter((path) => path.endsWith(".md") && path !== "README.md");
    expect(markdown.length).toBeGreaterThan(10);
    const broken = [...new Set(markdown.flatMap(links).filter((target) => !resolves(target)))].sort();
    expect(broken).toEqual([]);
  });
});
