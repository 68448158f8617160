/**
 * rpcserver/mcp under the 2.x SDK's `Client` (`@modelcontextprotocol/client` 2.4.0), in both the
 * eras it speaks: its default, the 2025 `initialize` handshake (it negotiates 2025-11-25), and
 * 2026-07-28 when pinned (`versionNegotiation: { mode: { pin: "2026-07-28" } }`: `server/discover`,
 * the `_meta` envelope on each request, `input_required`, `subscriptions/listen`). Over stdio
 * (examples/mcp/server.mjs, spawned by its `StdioClientTransport`) and Streamable HTTP
 * (examples/mcp/http.mjs, and examples/mcp/everything.mjs with sessions on, each a child process on
 * a free port). The calls are made by tests/fixtures/mcp-client2.mjs, a script (the client is
 * ESM-first), which prints what it saw. The package says Node 20 or later (`engines`), and runs all
 * of this on Node 18 too. The built package must exist (`npm run build`).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { EXAMPLE_TOOLS } from "./helpers/mcp-example";

const ROOT = join(__dirname, "..");
type Era = "legacy" | "modern";
const VERSION: Record<Era, string> = { legacy: "2025-11-25", modern: "2026-07-28" };

const drive = async (wire: "stdio" | "http" | "everything", era: Era): Promise<Record<string, unknown>> => {
  if (!existsSync(join(ROOT, "dist/esm/mcp.js"))) throw new Error("run `npm run build` first");
  const { stdout } = await promisify(execFile)(process.execPath, ["tests/fixtures/mcp-client2.mjs", wire, era], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split("\n").pop() as string) as Record<string, unknown>;
};

/** A tool's text result as the client returns it: in the 2026 era with the server's `_meta`. */
const answer =
  (era: Era, server: string) =>
  (text: string, isError?: true): unknown => ({
    ...(era === "modern"
      ? { _meta: { "io.modelcontextprotocol/serverInfo": { name: server, version: "1.0.0" } } }
      : {}),
    content: [{ type: "text", text }],
    ...(isError ? { isError } : {}),
  });

describe.each([
  ["stdio", "legacy"],
  ["stdio", "modern"],
  ["http", "legacy"],
  ["http", "modern"],
] as const)("examples/mcp under the 2.x Client over %s, %s era", (wire, era) => {
  let seen: Record<string, unknown> = {};
  const result = answer(era, "rpcserver-mcp-example");
  beforeAll(async () => {
    seen = await drive(wire, era);
  });

  test("connects in the era it asked for: the 2025 handshake by default, server/discover when pinned", () => {
    expect(seen["era"]).toBe(era);
    expect(seen["protocolVersion"]).toBe(VERSION[era]);
    expect(seen["server"]).toEqual({ name: "rpcserver-mcp-example", version: "1.0.0" });
  });

  test("tools/list: the example's three tools, add's input schema from its io-ts codec", () => {
    expect(seen["tools"]).toEqual(EXAMPLE_TOOLS);
  });

  test("tools/call: add answers; bad arguments an isError result naming each failing path", () => {
    expect(seen["add"]).toEqual(result("5"));
    expect(seen["invalid"]).toEqual(
      result(
        'Invalid arguments: arguments.a: expected number, got "x"; arguments.b: expected number, got undefined',
        true,
      ),
    );
  });

  test("count with onprogress: every value it yields, in order, then its result", () => {
    expect(seen["count"]).toEqual(result("counted to 5"));
    expect(seen["steps"]).toEqual([1, 2, 3, 4, 5].map((progress) => ({ progress, total: 5 })));
  });

  test("a call aborted by its signal: rejected on the client, the next call answered", () => {
    // The client's own error for a call it aborted, carrying the abort's reason.
    expect(seen["cancelled"]).toEqual(expect.objectContaining({ name: "SdkError", message: "changed my mind" }));
    expect(seen["after"]).toEqual(result("2"));
  });

  // Over stdio the client sends notifications/cancelled on the connection; in the 2026 era over
  // HTTP it closes the call's POST; either aborts the tool's signal. In the 2025 era over HTTP it
  // keeps the POST open and sends notifications/cancelled in a POST of its own: a stateless server
  // has nothing tying that id to the other POST's call (any client may use the same id), so the
  // tool runs to its end and answers, and the client reports an answer to a call it dropped.
  const stopped = wire === "http" && era === "legacy" ? "answered" : "signal aborted";
  test(`the aborted call on the server: ${stopped}`, () => {
    expect(seen["onServer"]).toBe(stopped);
    expect(seen["errors"]).toEqual(
      stopped === "answered" ? [expect.stringContaining("Received a response for an unknown message ID")] : [],
    );
  });
});

describe.each(["legacy", "modern"] as const)("examples/mcp/everything.mjs under the 2.x Client, %s era", (era) => {
  let seen: Record<string, unknown> = {};
  const result = answer(era, "rpcserver-everything");
  beforeAll(async () => {
    seen = await drive("everything", era);
  });

  test(`connects in the era it asked for (${era === "legacy" ? "a session: Mcp-Session-Id" : "stateless"})`, () => {
    expect(seen["era"]).toBe(era);
    expect(seen["protocolVersion"]).toBe(VERSION[era]);
    expect(seen["session"]).toBe(era === "legacy" ? "an Mcp-Session-Id" : "none");
    expect(seen["errors"]).toEqual([]);
  });

  test(
    era === "legacy"
      ? "a list change made by another client's call reaches this one on its session's GET stream"
      : "a list change made by another client's call reaches this one's client.listen stream, which it then closes",
    () => {
      expect(seen["trigger"]).toEqual(result("test_simple_text declared again"));
      expect(seen["changes"]).toEqual(["notifications/tools/list_changed"]);
      if (era === "modern") {
        expect(seen["honoredFilter"]).toEqual({ toolsListChanged: true });
        expect(seen["closed"]).toBe("local");
      }
    },
  );

  if (era === "legacy")
    test("elicitation: a server-to-client request on the call's event stream, answered by the client's handler", () => {
      expect(seen["elicited"]).toEqual(["Your name?"]);
      expect(seen["asked"]).toEqual(result('User response: action=accept, content={"name":"ada"}'));
    });
  else
    test("elicitation: input_required results, fulfilled by the client's handler and retried with requestState, one round and two", () => {
      expect(seen["elicited"]).toEqual(["What is your name?", "What is your name?", "What is your name?"]);
      expect(seen["asked"]).toEqual(result('Received: {"name":"ada"}'));
      expect(seen["askedTwice"]).toEqual(result('Rounds: {"name":"ada"}, {"name":"ada"}'));
    });
});
