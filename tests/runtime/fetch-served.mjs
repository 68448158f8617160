// rpcserver/fetch's handler served by each runtime's own server, driven over real sockets with the
// cases of fetch-cases.mjs: Bun (`Bun.serve({ fetch })`), Deno (`Deno.serve(handler)`) and
// Cloudflare's workerd (`export default { fetch }`: the package, by its name, bundled by esbuild under
// the conditions Cloudflare's bundler resolves, with no Node.js compatibility: a `node:` import fails it).
// Sent from this Node with node:http, which lets each request name its Host (the rebinding case).
// Ends with "N passed, N failed"; exits non-zero when any case failed or a server did not start.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runFetchCases } from "./fetch-cases.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = resolve(here, "../..");
const bin = join(root, "runtimes/node_modules");

/** `send` over a real socket: the request's Host is its own `Host` header, else the URL's. */
const overHttp = ({ method, url, headers = {}, body }) =>
  new Promise((done, failed) => {
    const target = new URL(url);
    const req = request(
      {
        host: "127.0.0.1",
        port: target.port,
        path: target.pathname,
        method,
        headers: { Host: target.host, ...headers },
      },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => {
          const header = (name) => {
            const value = res.headers[name.toLowerCase()];
            return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
          };
          done({ status: res.statusCode, header, text: Buffer.concat(chunks).toString("utf8") });
        });
        res.on("error", failed);
      },
    );
    req.on("error", failed);
    req.end(body);
  });

/** Over a socket, the rebound request keeps the URL and names evil.example in its Host header. */
const reboundHost = (base) => ({ url: base, headers: { Host: "evil.example" } });

const freePort = () =>
  new Promise((done, failed) => {
    const probe = createServer();
    probe.on("error", failed);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });

/**
 * Starts `command`; resolves to the port it prints ("listening <port>"), or to `port` once that
 * accepts (workerd prints nothing when it listens).
 */
const start = (command, args, port) =>
  new Promise((done, failed) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], cwd: root });
    let output = "";
    const timer = setTimeout(() => failed(new Error(`${command} did not start in 30 s:\n${output}`)), 30_000);
    const onData = (chunk) => {
      output += chunk;
      const printed = /listening (\d+)/.exec(output);
      if (printed !== null) {
        clearTimeout(timer);
        done({ child, port: Number(printed[1]) });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk) => void (output += chunk));
    child.once("error", (error) => (clearTimeout(timer), failed(error)));
    child.once("exit", (code) => (clearTimeout(timer), failed(new Error(`${command} exited (${code}):\n${output}`))));
    if (port !== undefined) {
      const poll = () =>
        overHttp({ method: "GET", url: `http://127.0.0.1:${port}/`, headers: { Accept: "application/json" } }).then(
          () => (clearTimeout(timer), done({ child, port })),
          () => setTimeout(poll, 100),
        );
      poll();
    }
  });

/** The Worker: the built package and the service bundled by esbuild, served by workerd on `port`. */
const workerd = async (work) => {
  const port = await freePort();
  const { build } = await import(join(bin, "esbuild/lib/main.js"));
  // The package by its name (resolved from this repository, whose package it is), under the
  // conditions Cloudflare's bundler resolves with; platform "browser": a node: import is not
  // resolved, and fails the bundle.
  await build({
    stdin: {
      contents: [
        'import * as rpc from "rpcserver";',
        'import * as rpcFetch from "rpcserver/fetch";',
        'import { fetchService } from "./tests/runtime/fetch-cases.mjs";',
        "export default { fetch: fetchService(rpc, rpcFetch) };",
      ].join("\n"),
      resolveDir: root,
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    outfile: join(work, "worker.js"),
    logLevel: "error",
  });
  const config = join(work, "config.capnp");
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.js") ],
  compatibilityDate = "2026-11-01",
);
`,
  );
  return start(join(bin, ".bin/workerd"), ["serve", config], port);
};

const servers = [
  [
    "bun: Bun.serve({ fetch })",
    () => start(join(bin, "@oven/bun-linux-x64/bin/bun"), ["tests/runtime/fetch-server.mjs"]),
  ],
  [
    "deno: Deno.serve(handler)",
    () =>
      start(join(bin, "@deno/linux-x64-glibc/deno"), [
        "run",
        "-A",
        "--unstable-no-legacy-abort",
        "tests/runtime/fetch-server.mjs",
      ]),
  ],
  ["workerd: export default { fetch }", workerd],
];

const only = process.argv.slice(2);
const work = mkdtempSync(join(tmpdir(), "rpcserver-fetch-served-"));
let passed = 0;
let failed = 0;
try {
  for (const [name, serve] of servers.filter(([name]) => only.length === 0 || only.some((w) => name.startsWith(w)))) {
    let server;
    try {
      server = await serve(work);
      const result = await runFetchCases(overHttp, `http://127.0.0.1:${server.port}/rpc`, reboundHost);
      for (const failure of result.failures) console.log(`FAIL ${name}: ${failure}`);
      console.log(`${name}: ${result.passed} passed, ${result.failed} failed`);
      passed += result.passed;
      failed += result.failed;
    } catch (error) {
      console.log(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
      failed += 1;
    } finally {
      if (server !== undefined) {
        const exited = new Promise((done) => server.child.once("exit", done));
        server.child.kill();
        await exited;
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`fetchHandler served: ${passed} passed, ${failed} failed`);
if (failed > 0) process.exitCode = 1;
