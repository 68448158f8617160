/**
 * MCP workers over NATS: `mcpHandler` with `relay: natsRelay(...)` as the HTTP front, and workers
 * that serve the same `mcpServer` with `serveNats` and `relayedContext`, on a real nats-server.
 * In-process (the sources): a worker's progress and log messages streamed to the front's event
 * stream (on nodeHandler too), the HTTP request's headers reaching a tool, the 2025 era's asks
 * refused on a worker, the 2026 era's `input_required` answered by any worker (a shared
 * `stateKey`), the front's own checks made before any worker is asked, and no worker at all. In processes (the built package): the
 * official conformance suites against examples/mcp/nats.mjs, a front and two workers: the
 * 2026-07-28 suite passes whole, the 2025-11-25 one all but the four scenarios of a tool's requests
 * to the client (docs/mcp.md, "Workers over NATS"). The suites need the runtime matrix's Node 22.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { execFile } from "node:child_process";
import { webcrypto } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { mcpHandler, mcpServer, relayedContext, text, tool } from "../src/mcp";
import { natsRelay, serveNats, type NatsRelay, type NatsService } from "../src/nats";
import { nodeHandler } from "../src/server";
import { connect, type TestConnection } from "./fixtures/nats.cjs";
import { startNatsServer, type NatsServer } from "./fixtures/nats-server.cjs";
import { bounded, ROOT } from "./helpers/processes";

const SUBJECT = "mcp.unit";

// WebCrypto signs requestState: Node 18 has it only behind a flag, so there it is node:crypto's.
if ((globalThis.crypto as typeof globalThis.crypto | undefined)?.subtle === undefined) {
  Object.defineProperty(globalThis, "crypto", { value: webcrypto, configurable: true, writable: true });
}

const server = mcpServer({
  name: "workers",
  version: "1.0.0",
  stateKey: "the workers' shared key",
  tools: {
    whoami: tool({
      description: "The Authorization header of the HTTP request",
      run: (_args, ctx) => E.right([text(ctx.httpRequest?.headers.get("authorization") ?? "nobody")]),
    }),
    count: tool({
      description: "Counts to `to`, each step a progress and a log message",
      input: t.type({ to: t.number }),
      run: async function* ({ to }, { log }) {
        for (let i = 1; i <= to; i += 1) {
          log("info", `step ${i}`);
          yield { progress: i, total: to };
        }
        return E.right(`counted to ${to}`);
      },
    }),
    greet: tool({
      description: "Asks the user's name, then greets",
      run: async (_args, ctx) => {
        const answer = await ctx.elicit(
          {
            message: "Your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } } },
          },
          "name",
        )();
        return E.map((said: Record<string, unknown>) => [
          text(`hello ${String((said["content"] as { name?: string } | undefined)?.name)}`),
        ])(answer);
      },
    }),
  },
});

let nats: NatsServer;
let connections: TestConnection[] = [];
let workers: NatsService[] = [];
let front: (request: Request) => Promise<Response>;

beforeAll(async () => {
  nats = await startNatsServer();
  connections = await Promise.all([connect(nats.url), connect(nats.url), connect(nats.url)]);
  const [frontConnection, ...workerConnections] = connections as [TestConnection, ...TestConnection[]];
  workers = await Promise.all(
    workerConnections.map((nc, i) =>
      serveNats(nc, server.methods, {
        stages: server.stages,
        context: relayedContext,
        name: "workers",
        version: "1.0.0",
        subject: SUBJECT,
        openrpc: false,
        metadata: { worker: String(i) },
      }),
    ),
  );
  front = mcpHandler(server, { relay: natsRelay(frontConnection, SUBJECT, { timeoutMs: 10_000 }) });
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await Promise.all(connections.map((nc) => nc.close()));
  await nats?.stop();
});

const MODERN = "2026-07-28";
const envelope = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
};

/** A POST to the front: `body` as JSON, asking for events too, with `headers` besides. */
const post = (body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  front(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body),
    }),
  );

/** A 2026-07-28 `tools/call`, with the headers the era wants. */
const callModern = (id: number, name: string, params: Record<string, unknown> = {}): Promise<Response> =>
  post(
    { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {}, ...params, _meta: envelope } },
    { "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": name },
  );

/** The JSON-RPC messages of an event stream's text. */
const eventsOf = (body: string): unknown[] =>
  body
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)) as unknown);

const messages = (): number => workers.reduce((sum, worker) => sum + worker.figures().messages, 0);

describe("an MCP server's workers over NATS behind mcpHandler's relay", () => {
  test("a tool's progress and log messages, sent on a worker, come as the POST's events, then its result", async () => {
    const response = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "count", arguments: { to: 2 }, _meta: { progressToken: "p" } },
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(eventsOf(await response.text())).toEqual([
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "step 1" } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p", progress: 1, total: 2 } },
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "step 2" } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p", progress: 2, total: 2 } },
      { jsonrpc: "2.0", result: { content: [{ type: "text", text: "counted to 2" }] }, id: 1 },
    ]);
  });

  test("a client that takes JSON alone gets the result alone; initialize is answered by a worker", async () => {
    const plain = await front(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"to":3}}}',
      }),
    );
    expect(await plain.json()).toEqual({
      jsonrpc: "2.0",
      result: { content: [{ type: "text", text: "counted to 3" }] },
      id: 2,
    });
    const init = await post({
      jsonrpc: "2.0",
      id: 3,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    });
    expect(await init.json()).toMatchObject({ result: { serverInfo: { name: "workers" } }, id: 3 });
  });

  test("the tool on the worker sees the HTTP request's headers", async () => {
    const response = await post(
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "whoami", arguments: {} } },
      { Authorization: "Bearer ada" },
    );
    expect(await response.json()).toMatchObject({ result: { content: [{ type: "text", text: "Bearer ada" }] } });
  });

  test("2025 era: a tool's request to the client is refused on the worker, at once (its answer could not reach it)", async () => {
    const response = await post({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "greet" } });
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      result: {
        content: [{ type: "text", text: "the client cannot be asked here: the call was relayed to a worker" }],
        isError: true,
      },
      id: 5,
    });
  });

  test("2026 era: input_required on one worker, its answer taken by any (the shared stateKey); both workers serve", async () => {
    const before = workers.map((worker) => worker.figures().messages);
    for (let round = 0; round < 8; round += 1) {
      const asked = (await (await callModern(10 + round, "greet")).json()) as {
        result: { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
      };
      expect(asked.result.resultType).toBe("input_required");
      expect(Object.keys(asked.result.inputRequests)).toEqual(["name"]);
      const answered = await callModern(20 + round, "greet", {
        requestState: asked.result.requestState,
        inputResponses: { name: { action: "accept", content: { name: `ada ${round}` } } },
      });
      expect(await answered.json()).toMatchObject({
        result: { resultType: "complete", content: [{ type: "text", text: `hello ada ${round}` }] },
      });
    }
    // 16 requests in a queue group of two: each served some (all on one: a chance of 2 in 65,536).
    const served = workers.map((worker, i) => worker.figures().messages - (before[i] ?? 0));
    expect(served.reduce((a, b) => a + b, 0)).toBe(16);
    expect(served.every((count) => count > 0)).toBe(true);
  });

  test("on nodeHandler, on a real socket: the worker's progress as events, the request's headers to its tool", async () => {
    const handler = nodeHandler(front);
    const http = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const at = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
      const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
      const counted = await fetch(at, {
        method: "POST",
        headers,
        body: '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"count","arguments":{"to":1},"_meta":{"progressToken":7}}}',
      });
      expect(counted.headers.get("content-type")).toBe("text/event-stream");
      expect(eventsOf(await counted.text())).toHaveLength(3);
      const who = await fetch(at, {
        method: "POST",
        headers: { ...headers, Authorization: "Bearer grace" },
        body: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami"}}',
      });
      expect(await who.json()).toMatchObject({ result: { content: [{ type: "text", text: "Bearer grace" }] } });
    } finally {
      http.close();
      http.closeAllConnections();
    }
  });

  test("the front's own checks answer before any worker is asked", async () => {
    const before = messages();
    const mismatch = await post(
      { jsonrpc: "2.0", id: 30, method: "tools/call", params: { name: "whoami", arguments: {}, _meta: envelope } },
      { "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list", "Mcp-Name": "whoami" },
    );
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ error: { code: -32020 }, id: 30 });
    const foreign = await front(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "Content-Type": "application/json", Host: "evil.example" },
        body: '{"jsonrpc":"2.0","id":31,"method":"ping"}',
      }),
    );
    expect(foreign.status).toBe(403);
    const large = await post({ jsonrpc: "2.0", id: 32, method: "ping", params: { pad: "x".repeat(1024 * 1024) } });
    expect(large.status).toBe(413);
    expect(messages()).toBe(before);
  });

  /** A ping through `relay` that finds no answer: -32000 for the client, and what the front logged. */
  const failedPing = async (relay: NatsRelay): Promise<string> => {
    const said = jest.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const response = await mcpHandler(server, { relay })(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: '{"jsonrpc":"2.0","id":40,"method":"ping"}',
        }),
      );
      // The request's own id: a client (the SDK's) matches the error to its call, and does not wait on.
      expect(await response.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Server error" },
        id: 40,
      });
      return said.mock.calls.flat().join(" ");
    } finally {
      said.mockRestore();
    }
  };

  test("no worker serves the subject: -32000 at once, and the front says why", async () => {
    expect(await failedPing(natsRelay(connections[0] as TestConnection, "mcp.nobody"))).toMatch(
      /natsRelay: no answer on mcp\.nobody: noResponders/,
    );
  });

  test("a worker that takes the body and never answers: the relay's timeoutMs ends the wait, -32000, and the front says so", async () => {
    const [front, silent] = connections as [TestConnection, TestConnection];
    let taken = 0;
    // Subscribed on another connection, and seen by the server, before the relay publishes.
    const swallowing = silent.subscribe("mcp.silent", { callback: () => void (taken += 1) });
    await silent.flush();
    try {
      expect(await failedPing(natsRelay(front, "mcp.silent", { timeoutMs: 200 }))).toMatch(
        /natsRelay: no answer on mcp\.silent: timeout \(no message in 200 ms\)/,
      );
      expect(taken).toBe(1);
    } finally {
      swallowing.unsubscribe();
    }
  });

  test("a relay closed, or given a bad option, names itself (natsRelay), not the transport", async () => {
    const connection = connections[0] as TestConnection;
    expect(() => natsRelay(connection, SUBJECT, { timeoutMs: 0 })).toThrow(
      /^natsRelay: timeoutMs must be a number of milliseconds/,
    );
    expect(() => natsRelay(connection, SUBJECT, { maxAnswerBytes: -1 })).toThrow(
      /^natsRelay: maxAnswerBytes must be a positive integer or Infinity$/,
    );
    const relay = natsRelay(connection, SUBJECT);
    relay.close();
    expect(await failedPing(relay)).toMatch(/natsRelay: no answer on mcp\.\S+: closed \(natsRelay: closed\)/);
  });
});

const NODE22 = join(ROOT, "runtimes/node_modules/node22/bin/node");
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const SUITE_NEXT = join(ROOT, "node_modules/@modelcontextprotocol/conformance-next/dist/index.js");

/** A suite's summary line: `✓ name: 3 passed, 0 failed`, by scenario. */
const summaryOf = (output: string): Map<string, { passed: number; failed: number }> =>
  new Map(
    [...output.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gm)].map((found) => [
      found[1] ?? "",
      { passed: Number(found[2]), failed: Number(found[3]) },
    ]),
  );

const runSuite = (suite: string, url: string, ...more: string[]): Promise<string> =>
  new Promise((settle) => {
    // Its exit code is 1 while any scenario fails: the summary says which.
    execFile(
      NODE22,
      [suite, "server", "--url", url, ...more],
      { cwd: ROOT, timeout: 240_000, maxBuffer: 1 << 26 },
      (_e, out) => settle(out),
    );
  });

describe("the conformance suites against examples/mcp/nats.mjs: a front and two workers, in processes of their own", () => {
  const children: ChildProcess[] = [];
  let url = "";

  /** examples/mcp/nats.mjs as `role`: resolves to the first line it prints that matches `ready`. */
  const start = (role: string, natsUrl: string, ready: RegExp): Promise<string> => {
    const flags = process.versions.node.startsWith("18.") ? ["--experimental-global-webcrypto"] : [];
    const child = spawn(process.execPath, [...flags, "examples/mcp/nats.mjs", role], {
      cwd: ROOT,
      env: { ...process.env, NATS_URL: natsUrl, PORT: "0" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    return bounded(
      new Promise<string>((settle, fail) => {
        let out = "";
        child.stdout?.on("data", (chunk: Buffer) => {
          out += chunk.toString("utf8");
          const found = ready.exec(out);
          if (found !== null) settle(found[1] ?? found[0]);
        });
        child.once("exit", (code) => fail(new Error(`nats.mjs ${role} exited (${String(code)})`)));
      }),
      `examples/mcp/nats.mjs ${role}`,
    );
  };

  beforeAll(async () => {
    if (!existsSync(NODE22)) throw new Error(`the suites need Node 22: ${NODE22} is missing`);
    if (!existsSync(join(ROOT, "dist/esm/mcp.js"))) throw new Error("run `npm run build` first");
    await Promise.all([start("worker", nats.url, /serving/), start("worker", nats.url, /serving/)]);
    url = await start("front", nats.url, /listening on (\S+)/);
  });

  afterAll(() => {
    for (const child of children) child.kill();
  });

  test("2026-07-28 (conformance-next, --suite all): all 40 scenarios pass", async () => {
    const output = await runSuite(SUITE_NEXT, url, "--spec-version", MODERN, "--suite", "all");
    const summary = summaryOf(output);
    expect(summary.size).toBe(40);
    expect([...summary].filter(([, { passed, failed }]) => failed > 0 || passed === 0)).toEqual([]);
    expect(output).toMatch(/^Total: \d+ passed, 0 failed/m);
  });

  test("2025-11-25 (conformance 0.1.16): all but the four of a tool's requests to the client, refused on a worker", async () => {
    const summary = summaryOf(await runSuite(SUITE, url));
    expect(summary.size).toBe(30);
    const failing = [...summary].filter(([, { passed, failed }]) => failed > 0 || passed === 0).map(([name]) => name);
    expect(failing.sort()).toEqual([
      "elicitation-sep1034-defaults",
      "elicitation-sep1330-enums",
      "tools-call-elicitation",
      "tools-call-sampling",
    ]);
  });
});
