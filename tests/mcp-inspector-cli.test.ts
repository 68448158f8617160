/**
 * The MCP Inspector's CLI mode (`@modelcontextprotocol/inspector` 2.12, `mcp-inspector --cli`), a
 * client no one here wrote, listing and calling the tools of examples/mcp over stdio
 * (examples/mcp/server.mjs as its child) and Streamable HTTP (examples/mcp/http.mjs on a free port).
 * The Inspector needs Node 22.19 or newer: it runs on the runtime matrix's Node 22
 * (runtimes/node_modules/node22), which must be there. It writes nothing: `MCP_CATALOG_PATH` points
 * its catalog into a temporary folder. The built package must exist (`npm run build`).
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { EXAMPLE_TOOLS } from "./helpers/mcp-example";

const ROOT = join(__dirname, "..");
const NODE22 = join(ROOT, "runtimes/node_modules/node22/bin/node");
const INSPECTOR = join(ROOT, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
const HOME = mkdtempSync(join(tmpdir(), "rpcserver-inspector-"));
afterAll(() => rmSync(HOME, { recursive: true, force: true }));

/** What `mcp-inspector --cli <target> <args>` printed, as JSON, and whether it exited 0. */
const run = async (target: readonly string[], args: readonly string[]): Promise<{ ok: boolean; printed: unknown }> => {
  for (const needed of [NODE22, INSPECTOR, join(ROOT, "dist/esm/mcp.js")]) {
    if (!existsSync(needed)) {
      throw new Error(`missing ${needed}: run \`npm run test:runtimes -- --install\` and \`npm run build\``);
    }
  }
  const options = {
    cwd: ROOT,
    encoding: "utf8" as const,
    timeout: 60_000,
    env: { ...process.env, HOME, MCP_CATALOG_PATH: join(HOME, "mcp.json") },
  };
  try {
    const { stdout } = await promisify(execFile)(NODE22, [INSPECTOR, "--cli", ...target, ...args], options);
    return { ok: true, printed: JSON.parse(stdout) as unknown };
  } catch (failed) {
    const { stdout, stderr } = failed as { stdout?: string; stderr?: string };
    return { ok: false, printed: JSON.parse(stdout || stderr || "null") as unknown };
  }
};

/** What it printed, on a run that must succeed. */
const inspect = async (target: readonly string[], args: readonly string[]): Promise<unknown> => {
  const { ok, printed } = await run(target, args);
  expect({ ok, printed }).toEqual({ ok: true, printed: expect.anything() as unknown });
  return printed;
};

const TOOLS = { tools: EXAMPLE_TOOLS };

const checks = (target: () => readonly string[]) => {
  test("tools/list: the three tools, their input schemas from the io-ts codecs", async () => {
    expect(await inspect(target(), ["--method", "tools/list"])).toEqual(TOOLS);
  });

  test("tools/call add, its arguments from the command line", async () => {
    expect(
      await inspect(target(), ["--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "b=3"]),
    ).toEqual({
      content: [{ type: "text", text: "5" }],
    });
  });

  test("tools/call count: its result (the Inspector asks for no progress)", async () => {
    expect(await inspect(target(), ["--method", "tools/call", "--tool-name", "count", "--tool-arg", "to=3"])).toEqual({
      content: [{ type: "text", text: "counted to 3" }],
    });
  });

  test("bad arguments: an isError result naming the failing path, and the Inspector's run failed", async () => {
    expect(
      await run(target(), ["--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=true", "b=1"]),
    ).toEqual({
      ok: false,
      printed: {
        content: [{ type: "text", text: "Invalid arguments: arguments.a: expected number, got true" }],
        isError: true,
      },
    });
  });
};

describe("the MCP Inspector's CLI over stdio against examples/mcp/server.mjs", () => {
  checks(() => [NODE22, join(ROOT, "examples/mcp/server.mjs")]);
});

describe("the MCP Inspector's CLI over Streamable HTTP against examples/mcp/http.mjs", () => {
  let url = "";
  let stop = (): void => undefined;
  beforeAll(async () => {
    const child = spawn(process.execPath, ["examples/mcp/http.mjs"], {
      cwd: ROOT,
      env: { ...process.env, PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    stop = () => void child.kill();
    url = await new Promise<string>((settle, fail) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        const found = /listening on (\S+)/.exec(out);
        if (found?.[1] !== undefined) settle(found[1]);
      });
      child.once("exit", (code) => fail(new Error(`examples/mcp/http.mjs exited (${String(code)})`)));
    });
  });
  afterAll(() => stop());
  checks(() => [url]);
});
