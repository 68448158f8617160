// MCP: `tools/call` per second and the server's CPU time per call, rpcserver/mcp against the MCP
// SDK's `McpServer` (@modelcontextprotocol/sdk 1.32, and the 2.x @modelcontextprotocol/server),
// over stdio and Streamable HTTP; and the server's memory per idle connection.
//
//   npm run build && node bench/mcp.mjs            full run
//   node bench/mcp.mjs --quick                     smoke run
//   node bench/mcp.mjs --write                     also write docs/benchmarks-mcp.md
//   node bench/mcp.mjs --wire stdio [--base DIR]   tools/call over one wire only (stdio or http), no
//                                                  memory and no page; with --base, also "base": the
//                                                  kit from another build (DIR: a copy of dist/, inside
//                                                  the repository so that its imports resolve), measured
//                                                  in the same rounds: a change's before and after
//   node bench/mcp.mjs serve <kit|sdk1|sdk2|base> <stdio|http|socket> [DIR]    one server (what the bench spawns)
//
// The same server on the three: one tool, `add`, whose input is an object `{ a, b }` of numbers
// (an io-ts codec on the kit, a zod object on the SDKs) and whose answer is one text block. Each
// server runs in its own child process; the client is the 1.32 SDK's `Client` for all three, with
// CALLS_IN_FLIGHT calls outstanding at every moment. A round times CALLS calls on each server, the
// servers' order rotating from round to round; the figures are the medians over rounds of calls
// per second (wall clock) and of the server process's CPU time per call (all its threads, from
// /proc/<pid>/task/*/schedstat): the machine has 2 cores shared by the client, the server and
// other work, so CPU per call is the steadier figure. Every answer is checked, timed or not.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createConnection, createServer as createTcpServer } from "node:net";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport as StreamTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { cpuNanos, httpChild, median } from "./children.mjs";
import { formatted } from "./formatted.mjs";

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(dirname(HERE), "..");
const QUICK = process.argv.includes("--quick");
const WRITE = process.argv.includes("--write");
/** The value after `flag` on the command line, if given. */
const option = (flag) => {
  const at = process.argv.indexOf(flag);
  return at === -1 ? undefined : process.argv[at + 1];
};
const ONLY_WIRE = option("--wire");
const BASE = option("--base");
if (ONLY_WIRE !== undefined && !["stdio", "http"].includes(ONLY_WIRE)) throw new Error("--wire: stdio or http");
if (WRITE && (ONLY_WIRE !== undefined || BASE !== undefined)) throw new Error("--write needs the full run");
const ROUNDS = QUICK ? 2 : 9;
const CALLS = { stdio: QUICK ? 500 : 6_000, http: QUICK ? 300 : 2_000 };
const WARM_UP = QUICK ? 200 : 2_000;
const CALLS_IN_FLIGHT = 64;
const IDLE = QUICK ? 20 : 200;
const MEMORY_ROUNDS = QUICK ? 1 : 3;
const IMPLS = ["kit", "sdk1", "sdk2"];
/** Over HTTP also `kitNode`: rpcserver/mcp's methods on `nodeHandler`, Node's request with no web `Request`. */
const WIRE_IMPLS = {
  stdio: [...IMPLS, "floor", ...(BASE !== undefined ? ["base"] : [])],
  http: ["kit", "kitNode", "sdk1", "sdk2", ...(BASE !== undefined ? ["base"] : [])],
};
const NAMES = {
  kit: "rpcserver/mcp",
  kitNode: "rpcserver/mcp on nodeHandler",
  floor: "floor: a plain tools/call method on rpcserver's connection",
  sdk1: "McpServer, @modelcontextprotocol/sdk 1.32",
  sdk2: "McpServer, @modelcontextprotocol/server 2.x",
  base: `rpcserver/mcp from ${BASE}`,
};

// ---------------------------------------------------------------------------------------------
// The servers (the child's side).

/** The `add` server on `impl`: what each library's documentation writes for one such tool. */
const servers = {
  kit: async (dist) => {
    // `dist`: another build's dist/ (--base), else the package's own.
    const entry = (name) =>
      dist === undefined ? `rpcserver/${name}` : pathToFileURL(join(resolve(dist), "esm", `${name}.js`)).href;
    const E = await import("fp-ts/lib/Either.js");
    const t = await import("io-ts");
    const { mcpHandler, mcpServer, text, tool } = await import(entry("mcp"));
    const { byteChannel, connect, newlineDelimited } = await import(entry("connection"));
    const server = mcpServer({
      name: "bench",
      version: "1.0.0",
      tools: {
        add: tool({
          description: "Adds two numbers",
          input: t.type({ a: t.number, b: t.number }),
          run: ({ a, b }) => E.right([text(String(a + b))]),
        }),
      },
    });
    const serveOn = (input, output) =>
      connect(byteChannel(input, output, newlineDelimited()), {
        methods: server.methods,
        stages: server.stages,
        context: {},
        cancellation: "mcp",
      });
    const handler = mcpHandler(server);
    // Node's request as a web `Request` and the `Response` written back: examples/mcp/everything.mjs's glue.
    const { nodeGlue } = await import("../examples/mcp/node-glue.mjs");
    const http = nodeGlue(handler);
    // The same handler on Node's own request and response: `nodeHandler(mcpHandler(server))`, as
    // docs/mcp.md and examples/mcp/http.mjs serve it (no web `Request` made).
    const { nodeHandler } = await import(entry("server"));
    const httpNode = nodeHandler(handler);
    return { stdio: () => serveOn(process.stdin, process.stdout), socket: (s) => serveOn(s, s), http, httpNode };
  },
  // A floor, not an MCP server of its own: the kit's methods with `tools/call` replaced by a plain
  // method (the same io-ts decode of the arguments, the same answer, no stream, no tool context),
  // on the same connection: what the core costs for this call.
  floor: async () => {
    const t = await import("io-ts");
    const { Success } = await import("rpcserver");
    const { mcpServer, text } = await import("rpcserver/mcp");
    const { byteChannel, connect, newlineDelimited } = await import("rpcserver/connection");
    const server = mcpServer({ name: "bench", version: "1.0.0", tools: {} });
    const params = t.type({ name: t.literal("add"), arguments: t.type({ a: t.number, b: t.number }) });
    const methods = {
      ...server.methods,
      "tools/list": () => Success({ tools: [] }),
      "tools/call": (_ctx, given) => {
        const decoded = params.decode(given);
        if (decoded._tag === "Left") return Success({ content: [text("Invalid arguments")], isError: true });
        const { a, b } = decoded.right.arguments;
        return Success({ content: [text(String(a + b))] });
      },
    };
    return {
      stdio: () =>
        connect(byteChannel(process.stdin, process.stdout, newlineDelimited()), {
          methods,
          stages: server.stages,
          context: {},
          cancellation: "mcp",
        }),
    };
  },
  // The kit from another build (--base): the same server, wired the same way.
  base: (dist) => servers.kit(dist),
  kitNode: async () => {
    const kit = await servers.kit();
    return { ...kit, http: kit.httpNode };
  },
  sdk1: async () => {
    const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
    const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
    const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
    const { z } = await import("zod");
    const make = () => {
      const server = new McpServer({ name: "bench", version: "1.0.0" });
      server.registerTool(
        "add",
        { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } },
        ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
      );
      return server;
    };
    // Stateless Streamable HTTP as the SDK's simpleStatelessStreamableHttp example writes it: a
    // server and a transport per request, both closed when the response closes.
    const http = async (req, res) => {
      const server = make();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        transport.close();
        server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    };
    return {
      stdio: () => make().connect(new StdioServerTransport()),
      socket: (s) => make().connect(new StdioServerTransport(s, s)),
      http,
    };
  },
  sdk2: async () => {
    const { McpServer, createMcpHandler } = await import("@modelcontextprotocol/server");
    const { serveStdio, StdioServerTransport } = await import("@modelcontextprotocol/server/stdio");
    const { toNodeHandler, localhostHostValidation, localhostOriginValidation } =
      await import("@modelcontextprotocol/node");
    const { z } = await import("zod");
    const factory = () => {
      const server = new McpServer({ name: "bench", version: "1.0.0" });
      server.registerTool(
        "add",
        { description: "Adds two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }) },
        ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
      );
      return server;
    };
    // The 2.x way: `createMcpHandler` (a server from the factory per request; 2025-era clients
    // through its stateless legacy fallback), on node:http through `toNodeHandler`, with the
    // Host and Origin guards @modelcontextprotocol/node's README puts in front of it.
    const node = toNodeHandler(createMcpHandler(factory));
    const validHost = localhostHostValidation();
    const validOrigin = localhostOriginValidation();
    const http = async (req, res) => {
      if (!validHost(req, res) || !validOrigin(req, res)) return;
      await node(req, res);
    };
    return {
      stdio: () => serveStdio(factory),
      socket: (s) => serveStdio(factory, { transport: new StdioServerTransport(s, s) }),
      http,
    };
  },
};

/**
 * What the child does on a line of its stdin: "mem", print its memory after a full GC, as JSON;
 * "exit", exit (so that `--cpu-prof` writes its profile).
 */
const answerControl = (listener) => {
  createInterface({ input: process.stdin }).on("line", (line) => {
    if (line === "exit") process.exit(0);
    if (line !== "mem") return;
    globalThis.gc?.();
    globalThis.gc?.();
    listener.getConnections((_, connections) => {
      const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
      console.log(JSON.stringify({ rss, heapUsed, external, arrayBuffers, connections }));
    });
  });
};

const serve = async (impl, wire, dist) => {
  const made = await servers[impl](dist);
  if (wire === "stdio") return made.stdio();
  const listener =
    wire === "http"
      ? (await import("node:http")).createServer((req, res) =>
          made.http(req, res).catch((error) => {
            console.error(error);
            res.destroy();
          }),
        )
      : createTcpServer((socket) => made.socket(socket));
  await new Promise((resolve) => listener.listen(0, "127.0.0.1", resolve));
  console.log(listener.address().port);
  answerControl(listener);
};

// ---------------------------------------------------------------------------------------------
// The bench (the parent's side).

/** Checks an `add` answer: one text block with the sum, no error. */
const check = (result, a, b) => {
  const block = result.content?.[0];
  if (result.isError === true || block?.type !== "text" || block.text !== String(a + b) || result.content.length !== 1)
    throw new Error(`wrong answer to add(${a}, ${b}): ${JSON.stringify(result)}`);
};

/** `calls` calls of `add` on `client`, CALLS_IN_FLIGHT at a time, each answer checked. */
const callMany = async (client, calls) => {
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      const a = next++;
      check(await client.callTool({ name: "add", arguments: { a, b: 1 } }), a, 1);
    }
  };
  await Promise.all(Array.from({ length: CALLS_IN_FLIGHT }, worker));
};

const SERVE = ["--expose-gc", HERE, "serve"];

/** A connected client of `impl` over `wire` and the server's pid. */
const open = async (impl, wire) => {
  const client = new Client({ name: "bench", version: "1.0.0" });
  if (wire === "stdio") {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...SERVE, impl, "stdio", ...(impl === "base" ? [BASE] : [])],
      cwd: ROOT,
    });
    await client.connect(transport);
    return { client, pid: transport.pid, close: () => client.close() };
  }
  const { child, port } = await httpChild(
    process.execPath,
    [...SERVE, impl, "http", ...(impl === "base" ? [BASE] : [])],
    {
      stderr: "inherit",
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  return { client, pid: child.pid, close: async () => (await client.close(), child.kill()) };
};

/** The HTTP answer's type to a `tools/call` of a client that accepts both (JSON or an event stream). */
const answerType = async (url) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "add", arguments: { a: 1, b: 2 } },
    }),
  });
  const body = await response.text();
  if (!body.includes('"text":"3"')) throw new Error(`wrong answer over HTTP: ${response.status} ${body}`);
  return (response.headers.get("content-type") ?? "").split(";")[0];
};

/** Calls per second and CPU per call (µs) of each implementation over `wire`, per round. */
const throughput = async (wire) => {
  const impls = WIRE_IMPLS[wire];
  const peers = {};
  for (const impl of impls) {
    peers[impl] = await open(impl, wire);
    await callMany(peers[impl].client, WARM_UP);
  }
  const rounds = Object.fromEntries(impls.map((impl) => [impl, { rate: [], cpu: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < impls.length; i++) {
      const impl = impls[(round + i) % impls.length];
      const { client, pid } = peers[impl];
      const cpu = cpuNanos(pid);
      const started = performance.now();
      await callMany(client, CALLS[wire]);
      const seconds = (performance.now() - started) / 1000;
      rounds[impl].rate.push(CALLS[wire] / seconds);
      rounds[impl].cpu.push((cpuNanos(pid) - cpu) / 1000 / CALLS[wire]);
    }
    process.stderr.write(".");
  }
  for (const impl of impls) await peers[impl].close();
  return rounds;
};

/** A line of the child's stdout, after sending it `command`. */
const ask = (child, command) =>
  new Promise((resolve) => {
    child.stdout.once("data", (chunk) => resolve(JSON.parse(String(chunk))));
    child.stdin.write(`${command}\n`);
  });

/**
 * The server's memory per idle client of `impl` over `wire`, after a full GC: one client
 * connected and called first (the code loaded and warm), then IDLE more, each initialized and
 * having made one call, then left idle; the difference over IDLE.
 */
const memory = async (impl, wire) => {
  const child = spawn(process.execPath, [...SERVE, impl, wire], { stdio: ["pipe", "pipe", "inherit"] });
  const port = await new Promise((resolve) =>
    child.stdout.once("data", (chunk) => resolve(Number(String(chunk).trim()))),
  );
  const connectOne = async () => {
    const client = new Client({ name: "bench", version: "1.0.0" });
    if (wire === "socket") {
      const socket = createConnection(port, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      await client.connect(new StreamTransport(socket, socket));
    } else await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    check(await client.callTool({ name: "add", arguments: { a: 1, b: 2 } }), 1, 2);
    return client;
  };
  const first = await connectOne();
  const before = await ask(child, "mem");
  // All at once, so that over HTTP each client has its own keep-alive socket.
  const clients = await Promise.all(Array.from({ length: IDLE }, connectOne));
  const after = await ask(child, "mem");
  await Promise.all([first, ...clients].map((client) => client.close()));
  child.kill();
  return {
    heap: (after.heapUsed + after.external - before.heapUsed - before.external) / IDLE,
    rss: (after.rss - before.rss) / IDLE,
    connections: after.connections - before.connections,
  };
};

const bench = async () => {
  const loadAtStart = loadavg();
  const results = {};
  const types = {};
  for (const wire of ["stdio", "http"]) {
    process.stderr.write(`${wire} `);
    results[wire] = await throughput(wire);
    process.stderr.write("\n");
  }
  for (const impl of WIRE_IMPLS.http) {
    const { child, port } = await httpChild(process.execPath, [...SERVE, impl, "http"], { stderr: "inherit" });
    types[impl] = await answerType(`http://127.0.0.1:${port}/mcp`);
    child.kill();
  }
  const memories = { socket: {}, http: {} };
  for (const wire of ["socket", "http"]) {
    process.stderr.write(`memory ${wire} `);
    for (const impl of IMPLS) memories[wire][impl] = [];
    for (let round = 0; round < MEMORY_ROUNDS; round++)
      for (let i = 0; i < IMPLS.length; i++) {
        const impl = IMPLS[(round + i) % IMPLS.length];
        memories[wire][impl].push(await memory(impl, wire));
        process.stderr.write(".");
      }
    process.stderr.write("\n");
  }
  return { loadAtStart, loadAtEnd: loadavg(), results, types, memories };
};

// ---------------------------------------------------------------------------------------------
// The page.

const int = (x) => Math.round(x).toLocaleString("en-US");
const fixed = (x, digits = 1) => x.toFixed(digits);
const kib = (bytes) => (bytes / 1024).toFixed(1);
const versionOf = (name) => JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
const loadText = (load) => load.map((x) => x.toFixed(2)).join(" ");

const page = ({ loadAtStart, loadAtEnd, results, types, memories }) => {
  const lines = [];
  const say = (...xs) => lines.push(...xs);
  say(
    "# Benchmarks: MCP servers",
    "",
    "Generated by `node bench/mcp.mjs --write` (after `npm run build`). Do not edit by hand.",
    "",
    `- Machine: ${cpus()[0]?.model.trim() ?? "?"}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${process.platform}`,
    `- Node ${process.version}; date ${new Date().toISOString()}`,
    `- Versions: rpcserver ${JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version} (dist/), @modelcontextprotocol/sdk ${versionOf("@modelcontextprotocol/sdk")}, @modelcontextprotocol/server ${versionOf("@modelcontextprotocol/server")} (with @modelcontextprotocol/node ${versionOf("@modelcontextprotocol/node")}), zod ${versionOf("zod")}, io-ts ${versionOf("io-ts")}`,
    `- Load average (1, 5, 15 min) ${loadText(loadAtStart)} at the start and ${loadText(loadAtEnd)} at the end: on 2 cores, a load above 2 means other processes competed with the client and the servers for the CPU. Calls per second suffer from it most; CPU time per call much less, and the ratios least (every round runs all three servers).`,
    "",
    "## What is measured",
    "",
    "The same server on each: one tool, `add`, whose input is an object `{ a, b }` of numbers (an io-ts",
    "codec on rpcserver/mcp, a zod object on the SDKs) and whose answer is one text block with the sum.",
    "Each server runs in a child process of its own. The client is the same for all: the 1.32 SDK's",
    `\`Client\`, connected and initialized before the clock starts, with ${CALLS_IN_FLIGHT} \`tools/call\` in flight at every moment.`,
    "Every answer is checked (one text block, the right sum, no `isError`), timed or not.",
    "",
    "- **stdio**: `StdioClientTransport` spawns the server. rpcserver/mcp: `connect` on",
    "  `byteChannel(process.stdin, process.stdout, newlineDelimited())` with the server's methods and",
    "  stages (docs/mcp.md). SDK 1.32: `new McpServer(...).connect(new StdioServerTransport())`. SDK 2.x:",
    "  `serveStdio(factory)` from `@modelcontextprotocol/server/stdio`.",
    "  And a floor, not an MCP server: the same connection and the kit's methods (`initialize`...) with",
    "  `tools/call` replaced by a plain method (the same io-ts decode of `{ name, arguments: { a, b } }`,",
    "  the same answer, no stream, no tool context): what rpcserver's core costs for this call.",
    "- **Streamable HTTP**: `StreamableHTTPClientTransport` to a `node:http` server on loopback (one",
    "  keep-alive connection per call in flight, Node's `fetch`). rpcserver/mcp: `mcpHandler(server)` through",
    "  the Node glue of examples/mcp/everything.mjs (Host and Origin checked). SDK 1.32: the stateless",
    "  setup of its `simpleStatelessStreamableHttp` example (a `McpServer` and a",
    "  `StreamableHTTPServerTransport({ sessionIdGenerator: undefined })` per request, closed when the",
    "  response closes; no Host check). SDK 2.x: `createMcpHandler(factory)` (a server per request; a",
    "  2025-era client like this one goes through its stateless legacy fallback) through",
    "  `toNodeHandler`, behind the `localhostHostValidation` and `localhostOriginValidation` guards of",
    '  @modelcontextprotocol/node\'s README. And "rpcserver/mcp on nodeHandler": `nodeHandler(mcpHandler(server))`',
    "  (rpcserver/server: the same handler's service on Node's own request and response, no web",
    "  `Request` made), as docs/mcp.md and examples/mcp/http.mjs serve it on Node.",
    `  Their answer to a \`tools/call\` from a client that accepts both: ${WIRE_IMPLS.http.map((impl) => `${NAMES[impl]}: \`${types[impl]}\``).join("; ")}.`,
    `- A round times ${int(CALLS.stdio)} calls (stdio) or ${int(CALLS.http)} (HTTP) on each server, the servers' order`,
    `  rotating from round to round, after ${int(WARM_UP)} calls of warm-up each; ${ROUNDS} rounds. The figures are the`,
    "  medians over rounds: calls per second (wall clock, client included), and the server process's",
    "  CPU time per call (user and system, all its threads: the sum of /proc/<pid>/task/\\*/schedstat),",
    "  the steadier figure on a shared machine. The ratio is the median over rounds of the SDK's",
    "  figure over rpcserver/mcp's in the same round (above 1: rpcserver/mcp is faster, or cheaper).",
    "",
  );
  /** The SDK's figure against rpcserver/mcp's, round by round: above 1, rpcserver/mcp is ahead. */
  const ratios = (wire, impl, key) => {
    const ours = results[wire].kit[key];
    const theirs = results[wire][impl][key];
    return ours.map((x, i) => (key === "rate" ? x / theirs[i] : theirs[i] / x));
  };
  const ratio = (wire, impl, key) => median(ratios(wire, impl, key));
  const ahead = (wire, impl, key) => ratios(wire, impl, key).filter((r) => r > 1).length;
  const cell = (wire, impl, key) => `${fixed(ratio(wire, impl, key), 2)}x (${ahead(wire, impl, key)}/${ROUNDS})`;
  const cpuOf = (wire, impl) => median(results[wire][impl].cpu);
  say(
    "## tools/call",
    "",
    "| wire | server | calls/s | vs rpcserver/mcp | server CPU µs/call | vs rpcserver/mcp |",
    "| --- | --- | --: | --: | --: | --: |",
  );
  for (const wire of ["stdio", "http"])
    for (const impl of WIRE_IMPLS[wire]) {
      const { rate, cpu } = results[wire][impl];
      const mine = impl === "kit" || impl === "kitNode" || impl === "floor";
      say(
        `| ${wire === "http" ? "Streamable HTTP" : "stdio"} | ${NAMES[impl]} | ${int(median(rate))} | ${
          mine ? "" : cell(wire, impl, "rate")
        } | ${fixed(median(cpu))} | ${mine ? "" : cell(wire, impl, "cpu")} |`,
      );
    }
  say(
    "",
    "In \"vs rpcserver/mcp\", the calls/s column is rpcserver/mcp's rate over the SDK's, and the CPU column",
    "the SDK's CPU time per call over rpcserver/mcp's: in both, above 1 means rpcserver/mcp is ahead;",
    `in brackets, in how many of the ${ROUNDS} rounds it was ahead.`,
    "",
    "Reading the figures (computed from this run):",
    "",
    ...["stdio", "http"].flatMap((wire) =>
      IMPLS.filter((impl) => impl !== "kit").map((impl) => {
        const both = ratio(wire, impl, "rate") > 1 && ratio(wire, impl, "cpu") > 1;
        return `- ${wire === "http" ? "Streamable HTTP" : "stdio"}, against ${NAMES[impl]}: rpcserver/mcp is ${
          both ? "ahead on both figures" : "not ahead on both figures"
        } (${cell(wire, impl, "rate")} calls/s, ${cell(wire, impl, "cpu")} CPU per call).`;
      }),
    ),
    `- Over stdio, rpcserver/mcp's \`tools/call\` costs the server ${fixed(cpuOf("stdio", "kit") / cpuOf("stdio", "floor"), 1)}x the CPU of the floor (${fixed(
      cpuOf("stdio", "kit"),
    )} against ${fixed(cpuOf("stdio", "floor"))} µs): the same connection, decode and answer, so the difference is the kit's own path for a call: the tool's context and outbox made for it, the tool found by name, and its answer made an MCP result (a tool that answers at once, as \`add\` does, is answered as a plain method: no stream, no abort signal unless it reads one).`,
    `- Over Streamable HTTP, the same server on \`nodeHandler\` costs ${fixed(cpuOf("http", "kitNode") / cpuOf("http", "kit"), 2)}x the CPU of \`mcpHandler\` under the Node glue (${fixed(
      cpuOf("http", "kitNode"),
    )} against ${fixed(cpuOf("http", "kit"))} µs): the difference is what the glue and \`mcpHandler\` add to each call: a web \`Request\` (with its \`AbortSignal\`) and a \`Response\`, and the body read whole by the glue before the handler reads it again.`,
    "",
    "## Memory per idle connection",
    "",
    `${int(IDLE)} clients (the same 1.32 \`Client\`) connect to one server process, each initialized and having`,
    "made one `tools/call`, then left idle; the server's memory after a full GC (`--expose-gc`, two",
    "`gc()`) is read before (with one client connected and called, so that the code is loaded and warm)",
    `and after, and the difference divided by ${int(IDLE)}. The figure is the median of ${MEMORY_ROUNDS} runs, each in a fresh`,
    "process, the servers in rotating order. Heap is V8's used heap plus external memory; RSS is the",
    "process's resident set (coarser: the allocator keeps pages).",
    "",
    "- **Connection (stdio's framing over a TCP socket)**: what each stdio server holds per client, in",
    "  one process so that it can be counted: rpcserver/mcp's `connect` on `byteChannel(socket, socket,",
    "  newlineDelimited())`; SDK 1.32: a `McpServer` per connection on `new StdioServerTransport(socket,",
    "  socket)`; SDK 2.x: `serveStdio(factory, { transport: new StdioServerTransport(socket, socket) })`",
    "  (the custom-transport way its documentation names). The client speaks through the 1.32 SDK's",
    "  `StdioServerTransport` on its end of the socket (the same newline-delimited JSON).",
    "- **Streamable HTTP**: all three are stateless (no sessions), so an idle client costs the server",
    "  only what it keeps between requests: its keep-alive socket (the clients connect all at once, so",
    '  that each holds a socket of its own: "sockets" is how many the server counted). Nothing of a',
    "  client is kept by any of the three, so this row measures node:http plus whatever each leaves",
    "  behind after a request.",
    "",
    "| wire | server | heap KiB/connection | RSS KiB/connection | sockets |",
    "| --- | --- | --: | --: | --: |",
  );
  for (const wire of ["socket", "http"])
    for (const impl of IMPLS) {
      const runs = memories[wire][impl];
      say(
        `| ${wire === "http" ? "Streamable HTTP" : "connection (socket)"} | ${NAMES[impl]} | ${kib(
          median(runs.map((r) => r.heap)),
        )} | ${kib(median(runs.map((r) => r.rss)))} | ${median(runs.map((r) => r.connections))} |`,
      );
    }
  say("");
  return lines.join("\n");
};

// ---------------------------------------------------------------------------------------------

if (process.argv[2] === "serve") await serve(process.argv[3], process.argv[4], process.argv[5]);
else if (ONLY_WIRE !== undefined) {
  const loadAtStart = loadavg();
  process.stderr.write(`${ONLY_WIRE} `);
  const rounds = await throughput(ONLY_WIRE);
  process.stderr.write("\n");
  console.log(
    `tools/call over ${ONLY_WIRE}, ${ROUNDS} rounds of ${CALLS[ONLY_WIRE]} calls; load ${loadText(loadAtStart)} at the start, ${loadText(loadavg())} at the end`,
  );
  console.log(
    "server | calls/s | kit's rate / its (median of rounds) | CPU µs/call | its CPU / kit's (median of rounds)",
  );
  const ratios = (impl, key, over) =>
    median(rounds[impl][key].map((x, round) => (over ? x / rounds.kit[key][round] : rounds.kit[key][round] / x)));
  for (const impl of WIRE_IMPLS[ONLY_WIRE])
    console.log(
      `${NAMES[impl]} | ${int(median(rounds[impl].rate))} | ${fixed(ratios(impl, "rate", false), 2)}x | ${fixed(median(rounds[impl].cpu))} | ${fixed(ratios(impl, "cpu", true), 2)}x`,
    );
} else {
  const measured = await bench();
  const text = page(measured);
  console.log(text);
  if (WRITE) {
    const path = join(ROOT, "docs", "benchmarks-mcp.md");
    writeFileSync(path, await formatted(path, text));
  }
}
