/**
 * The official MCP conformance suites against examples/mcp/everything.mjs, served on a free port:
 * `@modelcontextprotocol/conformance` 0.1.16 (its active server suite, 30 scenarios: the 2025-11-25
 * era) and 0.2.0-alpha.12 (`conformance-next`) with `--spec-version 2026-07-28` (its active suite,
 * 20 scenarios, and `--suite all`, 40: the 2026-07-28 era), both against the one server, and the
 * 2026 suite again against two processes of it behind a round-robin proxy (no sticky sessions).
 * The example serves with sessions on for the 2025 era (server-sse-multiple-streams asks for an
 * `Mcp-Session-Id`); the 2026 era has none. The suites need Node 22 or newer: they run on the
 * runtime matrix's Node 22 (runtimes/node_modules/node22), which must be there. Each scenario
 * listed passing must pass with at least one check and none failed; the scenarios a suite runs that
 * are not listed are named here, with why, so the test fails when the suite's list changes. The
 * built package must exist (`npm run build`).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(__dirname, "..");
const NODE22 = join(ROOT, "runtimes/node_modules/node22/bin/node");
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const SUITE_NEXT = join(ROOT, "node_modules/@modelcontextprotocol/conformance-next/dist/index.js");

/** The scenarios of the active suite that pass, checked one by one. */
const PASSING = [
  "server-initialize",
  "logging-set-level",
  "ping",
  "completion-complete",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-sampling",
  "tools-call-elicitation",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
  "resources-list",
  "resources-read-text",
  "resources-read-binary",
  "resources-templates-read",
  "resources-subscribe",
  "resources-unsubscribe",
  "prompts-list",
  "prompts-get-simple",
  "prompts-get-with-args",
  "prompts-get-embedded-resource",
  "prompts-get-with-image",
  "dns-rebinding-protection",
  "server-sse-multiple-streams",
];

/** A suite's summary line: `✓ name: 3 passed, 0 failed`. */
const SUMMARY_LINE = /^[✓✗] (\S+): (\d+) passed, (\d+) failed/;

const summaryOf = (output: string): Map<string, { passed: number; failed: number }> =>
  new Map(
    output
      .split("\n")
      .map((line) => SUMMARY_LINE.exec(line.trim()))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1] ?? "", { passed: Number(match[2]), failed: Number(match[3]) }]),
  );

const runSuite = (url: string, ...more: string[]): Promise<string> => runWith(SUITE, url, ...more);

const runWith = async (suite: string, url: string, ...more: string[]): Promise<string> =>
  (await runExiting(suite, url, ...more)).stdout;

/** A suite's run: what it wrote, and its exit code. */
const runExiting = (suite: string, url: string, ...more: string[]): Promise<{ stdout: string; code: number }> =>
  new Promise((settle) => {
    // The suite's exit code is 1 while any scenario fails or warns: the summary says which.
    execFile(
      NODE22,
      [suite, "server", "--url", url, ...more],
      { cwd: ROOT, timeout: 240_000, maxBuffer: 1 << 26 },
      (error, stdout) =>
        settle({ stdout, code: typeof error?.code === "number" ? error.code : error === null ? 0 : -1 }),
    );
  });

const servers: ChildProcess[] = [];
let url = "";

/** examples/mcp/everything.mjs in a process of its own, on a free port: its URL once it listens. */
const everything = async (): Promise<string> => {
  // Node 18 has WebCrypto (for requestState) behind a flag; later versions have it on.
  const flags = process.versions.node.startsWith("18.") ? ["--experimental-global-webcrypto"] : [];
  const child = spawn(process.execPath, [...flags, "examples/mcp/everything.mjs"], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  servers.push(child);
  return new Promise<string>((settle, fail) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const found = /listening on (\S+)/.exec(out);
      if (found?.[1] !== undefined) settle(found[1]);
    });
    child.once("exit", (code) => fail(new Error(`everything.mjs exited (${String(code)}) before listening`)));
  });
};

beforeAll(async () => {
  if (!existsSync(NODE22)) throw new Error(`the suite needs Node 22: ${NODE22} is missing`);
  if (!existsSync(join(ROOT, "dist/esm/mcp.js"))) throw new Error("run `npm run build` first");
  url = await everything();
});

afterAll(() => {
  for (const child of servers) child.kill();
});

/** Every scenario listed passes with checks and none failed, and the suite ran exactly the scenarios named. */
const expectPassing = (
  summary: Map<string, { passed: number; failed: number }>,
  passing: readonly string[],
  notYet: Readonly<Record<string, string>>,
): void => {
  expect([...summary.keys()].sort()).toEqual([...passing, ...Object.keys(notYet)].sort());
  for (const scenario of passing) {
    expect({ scenario, ...summary.get(scenario) }).toEqual({
      scenario,
      passed: expect.any(Number) as number,
      failed: 0,
    });
    expect(summary.get(scenario)?.passed).toBeGreaterThan(0);
  }
};

describe("@modelcontextprotocol/conformance 0.1.16 against examples/mcp/everything.mjs", () => {
  test("the active suite: all 30 scenarios have checks and none failed", async () => {
    const output = await runSuite(url);
    const summary = summaryOf(output);
    expect(PASSING).toHaveLength(30);
    expectPassing(summary, PASSING, {});
    const failed = PASSING.reduce((sum, scenario) => sum + (summary.get(scenario)?.failed ?? 0), 0);
    expect(failed).toBe(0);
  });

  test("json-schema-2020-12 (pending in 0.1.16, run on its own): the tool's schema kept as written", async () => {
    const output = await runSuite(url, "--scenario", "json-schema-2020-12");
    expect(output).toMatch(/Passed: 4\/4, 0 failed, 0 warnings/);
  });
});

/** The 0.1.16 scenarios of the 2025 era alone (the handshake, ping, logging/setLevel, subscriptions, server-to-client requests). */
const ONLY_2025 = [
  "server-initialize",
  "logging-set-level",
  "ping",
  "tools-call-with-logging",
  "tools-call-sampling",
  "tools-call-elicitation",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
  "resources-subscribe",
  "resources-unsubscribe",
];

/**
 * The 2026-07-28 active suite of 0.2.0-alpha.12 (20 scenarios): the rest of 0.1.16's
 * (server-sse-multiple-streams among them, which asks no session in this era). Every one passes.
 */
const PASSING_2026_ACTIVE = PASSING.filter((scenario) => !ONLY_2025.includes(scenario));

/** What `--suite all` adds (20 more: 40), the 2026 era's own scenarios and the pending ones: every one passes. */
const PASSING_2026_MORE = [
  "server-stateless",
  "json-schema-2020-12",
  "sep-2164-resource-not-found",
  "caching",
  "http-header-validation",
  "http-custom-header-server-validation",
  ...[
    "basic-elicitation",
    "basic-sampling",
    "basic-list-roots",
    "request-state",
    "multiple-input-requests",
    "multi-round",
    "missing-input-response",
    "non-tool-request",
    "result-type",
    "unsupported-methods",
    "tampered-state",
    "capability-check",
    "ignore-extra-params",
    "validate-input",
  ].map((name) => `input-required-result-${name}`),
];

/** The 2026 scenarios that do not pass yet, and why: none. */
const NOT_YET_2026: Readonly<Record<string, string>> = {};

/** A suite's `Total: 41 passed, 0 failed` line. */
const totalOf = (output: string): { passed: number; failed: number } | undefined => {
  const found = /^Total: (\d+) passed, (\d+) failed/m.exec(output);
  return found === null ? undefined : { passed: Number(found[1]), failed: Number(found[2]) };
};

/** The checks of a run (`-o dir`) that are neither a success, skipped (a feature not declared) nor information: by scenario. */
const unwellChecks = (dir: string): string[] =>
  readdirSync(dir).flatMap((scenario) =>
    (JSON.parse(readFileSync(join(dir, scenario, "checks.json"), "utf8")) as Array<{ id: string; status: string }>)
      .filter((check) => !["SUCCESS", "SKIPPED", "INFO"].includes(check.status))
      .map((check) => `${scenario.replace(/-\d{4}-\d\d-\d\dT.*$/, "")}: ${check.id} ${check.status}`),
  );

/** Runs the 2026 suite against `at`: its summary, and the checks that warned or failed. */
const run2026 = async (at: string, ...more: string[]) => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-2026-"));
  try {
    const output = await runWith(SUITE_NEXT, at, "--spec-version", "2026-07-28", "-o", dir, ...more);
    return { output, summary: summaryOf(output), total: totalOf(output), unwell: unwellChecks(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/**
 * A round-robin proxy over `targets` on 127.0.0.1 (each request to the next one, its `Host` and
 * `Origin` passed as they came, its answer streamed back as it comes): the 2026 era holds nothing
 * between requests, so two processes serve one client.
 */
const roundRobin = async (targets: readonly string[]): Promise<{ url: string; proxy: Server }> => {
  let next = 0;
  const proxy = createServer((req, res) => {
    const target = new URL(targets[next++ % targets.length] ?? "");
    const forwarded = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on("error", () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((settle) => proxy.listen(0, "127.0.0.1", settle));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`, proxy };
};

describe("@modelcontextprotocol/conformance 0.2.0-alpha.12 --spec-version 2026-07-28 against examples/mcp/everything.mjs", () => {
  test("the active suite (20 scenarios): every one has checks, none failed, none warned", async () => {
    const { summary, total, unwell } = await run2026(url);
    expectPassing(summary, PASSING_2026_ACTIVE, {});
    expect(summary.size).toBe(20);
    expect(total?.failed).toBe(0);
    expect(unwell).toEqual([]);
  });

  test("--suite all (40 scenarios: the 2026 era's own and the pending ones too): every one passes, none warned", async () => {
    const { summary, total, unwell } = await run2026(url, "--suite", "all");
    expectPassing(summary, [...PASSING_2026_ACTIVE, ...PASSING_2026_MORE], NOT_YET_2026);
    expect(summary.size).toBe(40);
    expect(total?.failed).toBe(0);
    expect(unwell).toEqual([]);
  });

  test("--requirements 2026-07-28 (37 scored scenarios; the tasks extension runs unscored): the suite exits 0", async () => {
    const { stdout, code } = await runExiting(SUITE_NEXT, url, "--requirements", "2026-07-28");
    expect(stdout).toMatch(/Not scored for 2026-07-28: 13 scenario\(s\) run/);
    expect(code).toBe(0);
  });

  test("two processes behind a round-robin proxy (no sticky sessions): --suite all passes, two list changes unheard across processes", async () => {
    const second = await everything();
    const { url: proxied, proxy } = await roundRobin([url, second]);
    try {
      const { summary, total, unwell } = await run2026(proxied, "--suite", "all");
      expectPassing(summary, [...PASSING_2026_ACTIVE, ...PASSING_2026_MORE], NOT_YET_2026);
      expect(total?.failed).toBe(0);
      // Two SHOULDs warn, and only through the proxy: the suite opens subscriptions/listen on one
      // process and changes a list on the other, whose change its own listeners alone hear (a
      // server's changes cross processes when carried: `onChange`, docs/mcp.md).
      expect(unwell).toEqual([
        "server-server-stateless: sep-2575-server-sends-prompts-list-changed-on-subscription WARNING",
        "server-server-stateless: sep-2575-server-sends-tools-list-changed-on-subscription WARNING",
      ]);
    } finally {
      proxy.close();
    }
  });
});
