/**
 * The `rpcserver` command (dist/esm/cli.js) as a user runs it: real child processes, real sockets
 * on 127.0.0.1, every failure with a message on stderr and a non-zero exit status.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "../src/internal/node/cli-arguments";
import { HOST, killAll, requireBuild, ROOT, runCli, startCli, until, type Serving } from "./helpers/processes";

const FIXTURES = join("tests", "helpers", "fixtures");

const post = async (cli: Serving, body: unknown): Promise<unknown> => {
  const response = await fetch(cli.url, { method: "POST", body: JSON.stringify(body) });
  return response.status === 204 ? undefined : response.json();
};

beforeAll(() => requireBuild());

afterAll(() => {
  killAll();
});

describe("rpcserver --help, --version", () => {
  test.each(["--help", "-h"])("%s prints the usage on stdout and exits 0", async (flag) => {
    const exit = await runCli([flag]);
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/^Usage: rpcserver <module> \[--host HOST\] \[--port PORT\]/);
    expect(exit.stdout).toContain("--port PORT");
    expect(exit.stdout).toContain("--allowed-host NAME");
    expect(exit.stdout).toContain("--allowed-origin ORIGIN");
    expect(exit.stdout).toContain("--cors");
    expect(exit.stdout).toContain("--no-inspector");
    expect(exit.stdout).toContain("development only");
    expect(exit.stderr).toBe("");
  });

  test("--version prints the version", async () => {
    const exit = await runCli(["--version"]);
    expect(exit.code).toBe(0);
    expect(exit.stdout).toBe("5.0.10\n");
  });
});

describe("usage errors: a message on stderr, exit status 2", () => {
  test("no module", async () => {
    const exit = await runCli([]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain("rpcserver: missing the module to serve");
    expect(exit.stderr).toContain("rpcserver --help");
  });

  test.each(["abc", "70000", "1.5", "", "0x10"])("bad --port value %j", async (port) => {
    const exit = await runCli(["examples/methods.mjs", "--port", port]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain(`rpcserver: bad --port value "${port}": expected an integer from 0 to 65535`);
  });

  test("an unknown option, two modules", async () => {
    const unknown = await runCli(["examples/methods.mjs", "--verbose"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--verbose");
    const two = await runCli(["examples/methods.mjs", "examples/methods.cjs"]);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("one module only");
  });

  test("a bad --allowed-origin or --allowed-host", async () => {
    const origin = await runCli(["examples/methods.mjs", "--allowed-origin", "https://app.example/path"]);
    expect(origin.code).toBe(2);
    expect(origin.stderr).toContain('rpcserver: --allowed-origin: "https://app.example/path" is not an origin');
    const host = await runCli(["examples/methods.mjs", "--allowed-host", ""]);
    expect(host.code).toBe(2);
    expect(host.stderr).toContain('rpcserver: --allowed-host: "" is not a host name');
  });
});

describe("failures: a message on stderr, exit status 1", () => {
  test("a module that cannot be found", async () => {
    const exit = await runCli(["./no/such/module.mjs", "--port", "0"]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/^rpcserver: cannot find module \.\/no\/such\/module\.mjs \(no file .*module\.mjs\)/);
  });

  test("a module that throws while loading", async () => {
    const exit = await runCli([join(FIXTURES, "throws.mjs"), "--port", "0"]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain("cannot load module");
    expect(exit.stderr).toContain("this module cannot be loaded");
  });

  test("a module with no methods", async () => {
    const exit = await runCli([join(FIXTURES, "no-methods.mjs"), "--host", HOST, "--port", "0"]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain("has no methods");
    expect(exit.stderr).not.toContain("listening");
  });

  test("a port in use", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, HOST, resolve));
    try {
      const { port } = blocker.address() as net.AddressInfo;
      const exit = await runCli(["examples/methods.mjs", "--host", HOST, "--port", String(port)]);
      expect(exit.code).toBe(1);
      expect(exit.stderr).toContain(
        `rpcserver: cannot listen on host ${HOST}, port ${port}: the port is already in use (EADDRINUSE)`,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe("serving", () => {
  test("an ESM module: method(...) registrations; SIGINT stops it with exit 0", async () => {
    const cli = await startCli(["examples/methods.mjs", "--host", HOST, "--port", "0"]);
    expect(cli.stderr()).toContain(
      "rpcserver: serving 11 method(s) from examples/methods.mjs (its method(...) registrations): " +
        "ping, add, divide, greet, sleep, addDays, getUser, withdraw, crash, log, count\n",
    );
    expect(cli.stderr()).toContain("rpcserver: rpc.discover answers with their OpenRPC document\n");
    expect(await post(cli, { jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 })).toEqual({
      jsonrpc: "2.0",
      result: 3,
      id: 1,
    });
    // A kept-alive connection must not hold the shutdown up.
    cli.child.kill("SIGINT");
    const exit = await cli.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.stderr).toContain("rpcserver: SIGINT, stopping");
  });

  test("a CommonJS module whose exports are plain functions; SIGTERM stops it with exit 0", async () => {
    const cli = await startCli(["examples/methods.cjs", "--host", HOST, "--port", "0"]);
    // Node gives a CommonJS module's module.exports as its default export.
    expect(cli.stderr()).toContain(
      "serving 3 method(s) from examples/methods.cjs (its default export): multiply, upper, now\n",
    );
    expect(await post(cli, { jsonrpc: "2.0", method: "multiply", params: [6, 7], id: 1 })).toEqual({
      jsonrpc: "2.0",
      result: 42,
      id: 1,
    });
    expect(await post(cli, { jsonrpc: "2.0", method: "upper", params: ["abc"], id: 2 })).toEqual({
      jsonrpc: "2.0",
      result: "ABC",
      id: 2,
    });
    cli.child.kill("SIGTERM");
    expect(await cli.exited).toMatchObject({ code: 0, signal: null });
  });

  test("exports: named functions and a default object's; no classes; a registered function once", async () => {
    const cli = await startCli([join(FIXTURES, "exports.mjs"), "--host", HOST, "--port", "0"]);
    const served = /serving \d+ method\(s\) from \S+ \((.*)\): (.*)\n/.exec(cli.stderr());
    expect(served?.[1]).toBe("its method(...) registrations, named exports and default export");
    expect(served?.[2]?.split(", ").sort()).toEqual(["bye", "fixtureAdd", "hello"]);
    const batch = [
      { jsonrpc: "2.0", method: "hello", params: ["you"], id: 1 },
      { jsonrpc: "2.0", method: "bye", id: 2 },
      { jsonrpc: "2.0", method: "fixtureAdd", params: [2, 2], id: 3 },
      { jsonrpc: "2.0", method: "NotAMethod", id: 4 },
      { jsonrpc: "2.0", method: "sum", id: 5 },
    ];
    expect(await post(cli, batch)).toEqual([
      { jsonrpc: "2.0", result: "hello you", id: 1 },
      { jsonrpc: "2.0", result: "bye", id: 2 },
      { jsonrpc: "2.0", result: 4, id: 3 },
      { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "NotAMethod" }, id: 4 },
      { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "sum" }, id: 5 },
    ]);
    cli.child.kill("SIGINT");
    expect((await cli.exited).code).toBe(0);
  });

  test.each([
    ["methods-export.mjs", "its methods export"],
    ["methods-export.cjs", "its methods export"],
    ["default-map.mjs", "its default export"],
    ["default-map.cjs", "its default export"],
    ["named.cjs", "its default export"],
  ])("the forms a module exports its methods in: %s (%s)", async (fixture, form) => {
    const cli = await startCli([join(FIXTURES, fixture), "--host", HOST, "--port", "0"]);
    // A `methods` export is the table: the helper exported beside it is not served.
    expect(cli.stderr()).toContain(`serving 2 method(s) from ${join(FIXTURES, fixture)} (${form}): shout, whisper\n`);
    const batch = [
      { jsonrpc: "2.0", method: "shout", params: ["hey"], id: 1 },
      { jsonrpc: "2.0", method: "whisper", params: ["HEY"], id: 2 },
    ];
    expect(await post(cli, batch)).toEqual([
      { jsonrpc: "2.0", result: "HEY", id: 1 },
      { jsonrpc: "2.0", result: "hey", id: 2 },
    ]);
    cli.child.kill("SIGINT");
    expect((await cli.exited).code).toBe(0);
  });

  test('a function exported under the name "" is skipped, with the reason on stderr; the others are served', async () => {
    const fixture = join(FIXTURES, "empty-name.mjs");
    const cli = await startCli([fixture, "--host", HOST, "--port", "0"]);
    expect(cli.stderr()).toContain(
      `rpcserver: skipping the function exported under the name "" by ${fixture}: ` +
        "a method served by the command needs a name, a non-empty string\n",
    );
    expect(cli.stderr()).not.toContain("has no name");
    expect(cli.stderr()).toContain(`serving 1 method(s) from ${fixture} (its default export): named\n`);
    expect(await post(cli, { jsonrpc: "2.0", method: "", id: 1 })).toMatchObject({ error: { code: -32601 } });
    cli.child.kill("SIGINT");
    expect((await cli.exited).code).toBe(0);
  });

  test("an absolute module path and the default port flag spelling -p", async () => {
    const cli = await startCli([join(ROOT, "examples", "methods.mjs"), "--host", HOST, "-p", "0"]);
    expect(await post(cli, { jsonrpc: "2.0", method: "ping", id: 1 })).toEqual({
      jsonrpc: "2.0",
      result: "pong",
      id: 1,
    });
    cli.child.kill("SIGINT");
    expect((await cli.exited).code).toBe(0);
  });
});

describe("--openrpc: the document on stdout, exit 0, no server", () => {
  test("--help mentions it", async () => {
    const exit = await runCli(["--help"]);
    expect(exit.stdout).toMatch(/^Usage: rpcserver <module> \[--host HOST\] \[--port PORT\] \[--openrpc\]/);
    expect(exit.stdout).toContain("--openrpc");
    expect(exit.stdout).toContain("--title TITLE");
    expect(exit.stdout).toContain("--api-version V");
  });

  test("prints the OpenRPC document of the module's methods as JSON and exits 0 without listening", async () => {
    const exit = await runCli(["examples/methods.mjs", "--openrpc", "--port", "1"]);
    expect(exit.code).toBe(0);
    expect(exit.stderr).toBe("");
    const document = JSON.parse(exit.stdout) as { openrpc: string; info: unknown; methods: Array<{ name: string }> };
    expect(document.openrpc).toBe("1.3.2");
    // The nearest package.json of examples/ is this package's own: its name and version.
    expect(document.info).toEqual({ title: "rpcserver", version: "5.0.10" });
    expect(document.methods.map((m) => m.name)).toContain("addDays");
    expect(document.methods.map((m) => m.name)).not.toContain("rpc.discover");
  });

  test("--title and --api-version set its info; the exported functions of a module are described by arity", async () => {
    const exit = await runCli([
      join(FIXTURES, "exports.mjs"),
      "--openrpc",
      "--title",
      "Fixture",
      "--api-version",
      "9.9.9",
    ]);
    expect(exit.code).toBe(0);
    expect(JSON.parse(exit.stdout)).toMatchObject({ info: { title: "Fixture", version: "9.9.9" } });
  });

  test("stdout is the document only: what the module prints (loading, from a timer) goes to stderr", async () => {
    const exit = await runCli([join(FIXTURES, "prints.mjs"), "--openrpc"]);
    expect(exit.code).toBe(0);
    const document = JSON.parse(exit.stdout) as { methods: Array<{ name: string }> };
    expect(document.methods.map((m) => m.name)).toEqual(["printed"]);
    expect(exit.stdout).toBe(`${JSON.stringify(document, null, 2)}\n`);
    expect(exit.stderr).toContain("loading the printing fixture\n");
    expect(exit.stderr).toContain("written to stdout directly\n");
  });

  test("the failures of loading are the same: no module, no methods (exit 1)", async () => {
    expect((await runCli(["./no/such/module.mjs", "--openrpc"])).code).toBe(1);
    const none = await runCli([join(FIXTURES, "no-methods.mjs"), "--openrpc"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("has no methods");
    expect(none.stdout).toBe("");
  });

  test("a served module answers rpc.discover with the same document, its URL added", async () => {
    const printed = JSON.parse((await runCli(["examples/methods.cjs", "--openrpc"])).stdout) as object;
    const cli = await startCli(["examples/methods.cjs", "--host", HOST, "--port", "0"]);
    expect(await post(cli, { jsonrpc: "2.0", method: "rpc.discover", id: 1 })).toEqual({
      jsonrpc: "2.0",
      result: { ...printed, servers: [{ name: "development server", url: cli.url }] },
      id: 1,
    });
    cli.child.kill("SIGTERM");
    expect((await cli.exited).code).toBe(0);
  });
});

describe("a context for the methods: the module's `context` export, or a refusal at start", () => {
  test("--help says so", async () => {
    const exit = await runCli(["--help"]);
    expect(exit.stdout).toContain('Its "context" export, if any, is not a method: every method receives it');
    expect(exit.stdout).toContain("is refused at start when the module exports no context");
  });

  test("an exported context: every method receives it first (plain, withContext, registered); it is no method", async () => {
    const fixture = join(FIXTURES, "context.mjs");
    const cli = await startCli([fixture, "--host", HOST, "--port", "0"]);
    expect(cli.stderr()).toContain(
      `serving 3 method(s) from ${fixture} (its method(...) registrations and named exports): registered, greet, whoami\n`,
    );
    expect(cli.stderr()).toContain("rpcserver: each receives the module's `context` export first\n");
    expect(
      await post(cli, [
        { jsonrpc: "2.0", method: "whoami", id: 1 },
        { jsonrpc: "2.0", method: "greet", params: ["hi"], id: 2 },
        { jsonrpc: "2.0", method: "registered", params: { n: 7 }, id: 3 },
        { jsonrpc: "2.0", method: "context", id: 4 },
      ]),
    ).toEqual([
      { jsonrpc: "2.0", result: "dev", id: 1 },
      { jsonrpc: "2.0", result: "hi, dev", id: 2 },
      { jsonrpc: "2.0", result: "dev:7", id: 3 },
      { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "context" }, id: 4 },
    ]);
    // The document leaves the context out, served and printed alike.
    const printed = await runCli([fixture, "--openrpc"]);
    expect(printed.code).toBe(0);
    const document = JSON.parse(printed.stdout) as { methods: Array<{ name: string; params: unknown[] }> };
    expect(document.methods.map((m) => [m.name, m.params.length])).toEqual([
      ["registered", 1],
      ["greet", 1],
      ["whoami", 0],
    ]);
    expect(await post(cli, { jsonrpc: "2.0", method: "rpc.discover", id: 1 })).toEqual({
      jsonrpc: "2.0",
      result: { ...document, servers: [{ name: "development server", url: cli.url }] },
      id: 1,
    });
    cli.child.kill("SIGINT");
    expect((await cli.exited).code).toBe(0);
  });

  test("a CommonJS module's context, a member of module.exports", async () => {
    const cli = await startCli([join(FIXTURES, "context.cjs"), "--host", HOST, "--port", "0"]);
    expect(cli.stderr()).toContain(
      `serving 1 method(s) from ${join(FIXTURES, "context.cjs")} (its default export): whoami\n`,
    );
    expect(await post(cli, { jsonrpc: "2.0", method: "whoami", id: 1 })).toEqual({
      jsonrpc: "2.0",
      result: "cjs",
      id: 1,
    });
    cli.child.kill("SIGINT");
    expect((await cli.exited).code).toBe(0);
  });

  test("methods made to take a context and no context (an export of undefined is none): exit 1 at start, naming them", async () => {
    const fixture = join(FIXTURES, "needs-context.mjs");
    const message =
      `rpcserver: the method(s) registered, greet of ${fixture} take a context first (made with ` +
      "withContext<Ctx>() or by a contract server with a context), and the module exports none: " +
      "export the value every method is to receive first as `context`";
    const served = await runCli([fixture, "--host", HOST, "--port", "0"]);
    expect(served.code).toBe(1);
    expect(served.stderr).toContain(message);
    expect(served.stderr).not.toContain("listening");
    const printed = await runCli([fixture, "--openrpc"]);
    expect(printed.code).toBe(1);
    expect(printed.stderr).toContain(message);
    expect(printed.stdout).toBe("");
  });
});

describe("the inspector page: on by default, --no-inspector turns it off", () => {
  const BROWSER = "text/html,application/xhtml+xml,*/*;q=0.8";

  test("the arguments: inspector unless --no-inspector; a value or --inspector is a usage error", async () => {
    expect(parse(["examples/methods.mjs"])).toMatchObject({ kind: "serve", inspector: true });
    expect(parse(["examples/methods.mjs", "--no-inspector"])).toMatchObject({ kind: "serve", inspector: false });
    expect(() => parse(["examples/methods.mjs", "--no-inspector=yes"])).toThrow(/--no-inspector/);
    const unknown = await runCli(["examples/methods.mjs", "--inspector"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--inspector");
  });

  test("served: a browser opening the URL gets the page, and the log says where it is", async () => {
    const cli = await startCli(["examples/methods.mjs", "--host", HOST, "--port", "0"]);
    const line = `rpcserver: inspector: open ${cli.url} in a browser to see and call the methods\n`;
    // The line after the listening line, which startCli waited for: it may come in a chunk of its own.
    await until(() => cli.stderr().includes(line), "the inspector's log line");
    const page = await fetch(cli.url, { headers: { Accept: BROWSER } });
    expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    expect(await page.text()).toContain('<meta name="rpcserver-url" content="/">');
    cli.child.kill("SIGINT");
    expect((await cli.exited).code).toBe(0);
  });

  test("--no-inspector: the same GET gets 405 with Allow: POST, and the log names no page", async () => {
    const cli = await startCli(["examples/methods.mjs", "--host", HOST, "--port", "0", "--no-inspector"]);
    const page = await fetch(cli.url, { headers: { Accept: BROWSER } });
    await page.arrayBuffer();
    expect([page.status, page.headers.get("allow")]).toEqual([405, "POST"]);
    // After a call's answer, the log has everything it says at start: no page.
    expect(await post(cli, { jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 })).toMatchObject({ result: 3 });
    expect(cli.stderr()).not.toContain("inspector");
    cli.child.kill("SIGINT");
    expect((await cli.exited).code).toBe(0);
  });
});

describe("the service's name: its package's, else a neutral one, never the library's (issue 32, item 13)", () => {
  /** A module of one method in a folder of its own under the system's temporary folder. */
  const MODULE = 'export function ping() { return { _tag: "Right", right: "pong" }; }\n';
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "rpcserver-cli-name-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes `files` under a fresh folder of `dir`; the path of its `methods.mjs`. */
  const project = (name: string, files: Readonly<Record<string, string>>): string => {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, file, ".."), { recursive: true });
      writeFileSync(join(dir, name, file), text);
    }
    return join(dir, name, Object.keys(files).find((file) => file.endsWith("methods.mjs")) ?? "methods.mjs");
  };
  const infoOf = async (args: readonly string[]): Promise<unknown> => {
    const exit = await runCli([...args, "--openrpc"]);
    expect(exit.stderr).toBe("");
    return (JSON.parse(exit.stdout) as { info: unknown }).info;
  };

  test("the nearest package.json with a name gives the title and version; a type-only one is passed over", async () => {
    const module = project("bank", {
      "package.json": JSON.stringify({ name: "@acme/bank", version: "2.1.0" }),
      "src/package.json": JSON.stringify({ type: "module" }),
      "src/methods.mjs": MODULE,
    });
    expect(await infoOf([module])).toEqual({ title: "@acme/bank", version: "2.1.0" });
    // --title and --api-version win, each on its own.
    expect(await infoOf([module, "--title", "Bank"])).toEqual({ title: "Bank", version: "2.1.0" });
    expect(await infoOf([module, "--api-version", "3"])).toEqual({ title: "@acme/bank", version: "3" });
  });

  test("no package.json naming it: JSON-RPC service, 0.0.0; a package without a version: 0.0.0", async () => {
    expect(await infoOf([project("bare", { "methods.mjs": MODULE })])).toEqual({
      title: "JSON-RPC service",
      version: "0.0.0",
    });
    const unversioned = project("unversioned", { "package.json": '{"name":"ledger"}', "methods.mjs": MODULE });
    expect(await infoOf([unversioned])).toEqual({ title: "ledger", version: "0.0.0" });
  });

  test("served: rpc.discover and the inspector page name the package, not rpcserver", async () => {
    const module = project("served", {
      "package.json": JSON.stringify({ name: "weather", version: "1.4.2" }),
      "methods.mjs": MODULE,
    });
    const cli = await startCli([module, "--host", HOST, "--port", "0"]);
    try {
      const discovered = (await post(cli, { jsonrpc: "2.0", method: "rpc.discover", id: 1 })) as {
        result: { info: unknown };
      };
      expect(discovered.result.info).toEqual({ title: "weather", version: "1.4.2" });
      const page = await fetch(cli.url, { headers: { accept: "text/html" } });
      const html = await page.text();
      expect(html).toContain("<title>weather (inspector)</title>");
      expect(html).not.toContain("<title>rpcserver");
    } finally {
      cli.child.kill();
      await cli.exited;
    }
  });
});

describe("a TypeScript module: served where Node.js strips types, else one line says how (issue 32, item 14)", () => {
  const SOURCE =
    'export function ping(): { _tag: "Right"; right: string } {\n  return { _tag: "Right", right: "pong" };\n}\n';
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "rpcserver-cli-ts-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "typed", version: "1.0.0", type: "module" }));
    writeFileSync(join(dir, "methods.ts"), SOURCE);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `rpcserver <dir>/methods.ts --openrpc` run by the Node.js at `node`. */
  const run = (node: string): { status: number | null; stdout: string; stderr: string } =>
    spawnSync(node, [join(ROOT, "dist", "esm", "cli.js"), join(dir, "methods.ts"), "--openrpc"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000,
    });
  const strips = (node: string): boolean =>
    spawnSync(node, ["-p", "Boolean(process.features.typescript)"], { encoding: "utf8" }).stdout.trim() === "true";
  const expectServed = (node: string): void => {
    const exit = run(node);
    expect(exit.stderr.replace(/^.*ExperimentalWarning.*\n(.*--trace-warnings.*\n)?/gm, "")).toBe("");
    expect(JSON.parse(exit.stdout)).toMatchObject({ info: { title: "typed" }, methods: [{ name: "ping" }] });
  };

  test("with the Node.js running the tests", () => {
    if (strips(process.execPath)) return expectServed(process.execPath);
    const exit = run(process.execPath);
    expect(exit.status).toBe(1);
    const lines = exit.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`does not run TypeScript; run it with tsx: NODE_OPTIONS="--import tsx" npx rpcserver`);
    expect(lines[0]).toContain("--experimental-strip-types");
    // Node.js 22.18 strips types by default too (the runtime matrix's Node.js 22 does).
    expect(lines[0]).toContain("Node.js 22.18, 23.6 and later need neither");
  });

  test("--help says which Node.js serves a TypeScript module as it is", () => {
    const help = spawnSync(process.execPath, [join(ROOT, "dist", "esm", "cli.js"), "--help"], { encoding: "utf8" });
    expect(help.stdout.replace(/\s+/g, " ")).toContain(
      "a Node.js that strips types (22.18, 23.6 or later; else it says how: tsx)",
    );
  });

  // The runtime matrix's Node.js 22 (22.18 or later) and 24 (scripts/test-runtimes.mjs --install), when installed.
  const node22 = join(ROOT, "runtimes", "node_modules", "node22", "bin", "node");
  (existsSync(node22) ? test : test.skip)("with Node.js 22.18 or later, which strips types by default: served", () =>
    expectServed(node22),
  );
  const node24 = join(ROOT, "runtimes", "node_modules", "node24", "bin", "node");
  (existsSync(node24) ? test : test.skip)("with Node.js 24, which strips types by default: served", () =>
    expectServed(node24),
  );
});
