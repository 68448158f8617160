/**
 * The newcomer's MCP server (three tools, one with progress; stdio and Streamable HTTP) on
 * rpcserver/mcp (examples/mcp: app.mjs, server.mjs, http.mjs) and on the MCP SDK's `McpServer`
 * 1.32 (tests/fixtures/mcp-sdk-example.mjs, as the SDK's documentation writes it), driven by the
 * same client scripts: they must be seen alike by the SDK's own `Client`, where the two differ
 * only in what each library words for itself (an argument's error message, capabilities). And the
 * kit's is the shorter, by lines of code (docs/mcp.md shows the two side by side).
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const ROOT = join(__dirname, "..");
const SDK_TWIN = "tests/fixtures/mcp-sdk-example.mjs";
// The SDK's HTTP server uses the global `crypto`, which Node 18 has only behind this flag.
const WEB_CRYPTO = Number(process.versions.node.split(".")[0]) < 19 ? "--experimental-global-webcrypto " : "";

const drive = async (script: string, example?: string): Promise<Record<string, unknown>> => {
  if (!existsSync(join(ROOT, "dist/esm/mcp.js"))) throw new Error("run `npm run build` first");
  const { stdout } = await promisify(execFile)(process.execPath, [join("tests/fixtures", script)], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 30_000,
    env: example === undefined ? process.env : { ...process.env, MCP_EXAMPLE: example },
  });
  return JSON.parse(stdout.trim().split("\n").pop() as string) as Record<string, unknown>;
};

/** What a client sees that both servers must agree on: less each library's own wording. */
const shared = (seen: Record<string, unknown>): Record<string, unknown> => {
  const { capabilities: _c, invalid, tools, url: _u, stderr: _s, unknown: _n, ...rest } = seen;
  return {
    ...rest,
    invalid: (invalid as { isError?: boolean } | undefined)?.isError,
    tools: Array.isArray(tools)
      ? tools.map((tool: unknown) => (typeof tool === "string" ? tool : (tool as { name: string }).name))
      : tools,
  };
};

describe("the same server on rpcserver/mcp and on McpServer 1.32, under the SDK's Client", () => {
  test.each([
    ["stdio: tools, a call, bad arguments, a cancel", "mcp-client.mjs", SDK_TWIN],
    ["stdio: count's progress, quiet and cancelled", "mcp-stream-client.mjs", SDK_TWIN],
    [
      "Streamable HTTP: progress on the POST's event stream, GET 405",
      "mcp-http-client.mjs",
      `${WEB_CRYPTO}${SDK_TWIN} http`,
    ],
  ])("%s", async (_name, script, twin) => {
    const [kit, sdk] = await Promise.all([drive(script), drive(script, twin)]);
    expect(shared(kit)).toEqual(shared(sdk));
    // Both answered calls: a failure on both sides would also be "alike".
    expect(JSON.stringify(kit)).toContain('"content":[{"type":"text","text":"');
  });

  test("the kit's server is the shorter: lines of code, comments and blank lines left out", () => {
    const lines = (file: string): number =>
      readFileSync(join(ROOT, file), "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .split("\n")
        .filter((line) => line.trim() !== "" && !line.trim().startsWith("//")).length;
    const kit = ["examples/mcp/app.mjs", "examples/mcp/server.mjs", "examples/mcp/http.mjs"].map(lines);
    const sdk = lines(SDK_TWIN);
    expect(kit.reduce((a, b) => a + b, 0)).toBeLessThan(sdk);
  });
});
