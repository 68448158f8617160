/**
 * The development server, over real sockets on 127.0.0.1: a child process of the built command
 * serving examples/methods.mjs, talked to with fetch, curl, jayson and json-rpc-2.0, and fed bad
 * HTTP that must never stop it; then `serve` in-process, from the sources.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { join, posix } from "node:path";
import jayson from "jayson/promise";
import { JSONRPCClient, JSONRPCErrorException, type JSONRPCRequest, type JSONRPCResponse } from "json-rpc-2.0";
import { Success } from "../src/result";
import { setLogger, type Logger } from "../src/internal/core/logger";
import { serve } from "../src/server";
import { serve as serveFromMain, type DevServer } from "../src";
import {
  bounded,
  firstBody,
  firstStatus,
  HOST,
  killAll,
  rawExchange,
  requireBuild,
  ROOT,
  startCli,
  type Serving,
} from "./helpers/processes";

const hasCurl = spawnSync("curl", ["--version"], { stdio: "ignore" }).status === 0;

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

let server: Serving;

const post = async (body: string | Uint8Array, path = "/"): Promise<Reply> => {
  const response = await fetch(new URL(path, server.url), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

const call = (method: string, params?: unknown, id: number | string | null = 1): string =>
  JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }), id });

const notify = (method: string, params?: unknown): string =>
  JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });

let healthChecks = 0;

/** A good request after a bad one: the server must still answer it correctly. */
const expectHealthy = async (): Promise<void> => {
  healthChecks += 1;
  const reply = await post(call("add", [healthChecks, 1000], healthChecks));
  expect(reply.status).toBe(200);
  expect(JSON.parse(reply.text)).toEqual({ jsonrpc: "2.0", result: healthChecks + 1000, id: healthChecks });
  expect(server.child.exitCode).toBeNull();
};

beforeAll(async () => {
  requireBuild();
  server = await startCli([join("examples", "methods.mjs"), "--host", HOST, "--port", "0"]);
});

afterAll(() => {
  killAll();
});

describe("the server in a child process (rpcserver examples/methods.mjs)", () => {
  test("logs where it listens on stderr: host, port and a URL to paste", () => {
    expect(server.stderr()).toContain(`rpcserver: listening on http://${HOST}:${server.port}/`);
    expect(server.stderr()).toMatch(/port \d+; development only/);
  });

  describe("with fetch", () => {
    test("a single request: 200, application/json, the dispatch result", async () => {
      const reply = await post(call("add", [1, 2]));
      expect(reply.status).toBe(200);
      expect(reply.headers.get("content-type")).toBe("application/json");
      expect(reply.text).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
    });

    test("any path is served", async () => {
      const reply = await post(call("ping", undefined, "x"), "/any/path?query=1");
      expect(JSON.parse(reply.text)).toEqual({ jsonrpc: "2.0", result: "pong", id: "x" });
    });

    test("object params, an async method", async () => {
      expect(JSON.parse((await post(call("greet", { name: "Ada" }))).text).result).toBe("Hello, Ada!");
      expect(JSON.parse((await post(call("sleep", [1]))).text).result).toBe(1);
    });

    test("a notification: 204 and no body", async () => {
      const reply = await post(notify("log", ["a notification"]));
      expect(reply.status).toBe(204);
      expect(reply.text).toBe("");
      expect(reply.headers.get("content-type")).toBeNull();
    });

    test("a batch keeps its order and leaves notifications out", async () => {
      const batch = `[${call("add", [1, 1], 1)},${notify("log", ["in a batch"])},${call("ping", undefined, 2)},${call("nope", [], 3)}]`;
      const reply = await post(batch);
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text)).toEqual([
        { jsonrpc: "2.0", result: 2, id: 1 },
        { jsonrpc: "2.0", result: "pong", id: 2 },
        { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "nope" }, id: 3 },
      ]);
    });

    test("a batch of notifications only: 204", async () => {
      const reply = await post(`[${notify("log", ["one"])},${notify("log", ["two"])}]`);
      expect(reply.status).toBe(204);
      expect(reply.text).toBe("");
    });

    test("errors are JSON-RPC error responses with status 200", async () => {
      const error = async (body: string): Promise<{ code: number; message: string; data?: unknown }> => {
        const reply = await post(body);
        expect(reply.status).toBe(200);
        return (JSON.parse(reply.text) as { error: { code: number; message: string; data?: unknown } }).error;
      };
      expect((await error(call("nope"))).code).toBe(-32601);
      expect(await error(call("add", ["1", 2]))).toMatchObject({ code: -32602, message: "Invalid params" });
      expect(await error(call("divide", [1, 0]))).toEqual({
        code: -32602,
        message: "Invalid params",
        data: "division by zero",
      });
      expect(await error(call("withdraw", [1000]))).toEqual({
        code: 1,
        message: "Insufficient funds",
        data: { balance: 100, amount: 1000 },
      });
      expect(await error(call("getUser", [9]))).toEqual({ code: 404, message: "No such user", data: { id: 9 } });
      // An uncaught exception: Internal error, its message not sent.
      expect(await error(call("crash"))).toEqual({ code: -32603, message: "Internal error" });
      expect((await error('{"jsonrpc":"1.0","method":"ping","id":1}')).code).toBe(-32600);
      expect((await error("[]")).code).toBe(-32600);
    });

    test.each(["GET", "PUT", "DELETE", "PATCH", "HEAD"])("%s: 405 with Allow: POST", async (verb) => {
      const response = await fetch(server.url, { method: verb, ...(verb === "PUT" ? { body: "x" } : {}) });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      await response.arrayBuffer();
      await expectHealthy();
    });

    test("100 concurrent requests are each answered correctly", async () => {
      const replies = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          i % 10 === 0 ? post(call("sleep", [20], i)) : post(call("add", [i, i * 1000], i)),
        ),
      );
      replies.forEach((reply, i) => {
        expect(reply.status).toBe(200);
        expect(JSON.parse(reply.text)).toEqual({ jsonrpc: "2.0", result: i % 10 === 0 ? 20 : i + i * 1000, id: i });
      });
    });
  });

  test("a large batch: 2000 requests, about 120 KB, each answered in order", async () => {
    const batch = Array.from({ length: 2000 }, (_, i) => ({ jsonrpc: "2.0", method: "add", params: [i, 1], id: i }));
    const reply = await post(JSON.stringify(batch));
    const answers = JSON.parse(reply.text) as Array<{ result: number; id: number }>;
    expect(answers).toHaveLength(2000);
    answers.forEach((answer, i) => expect(answer).toEqual({ jsonrpc: "2.0", result: i + 1, id: i }));
  });

  describe("with curl", () => {
    const curl = (...args: string[]): { status: number | null; stdout: string } => {
      const run = spawnSync("curl", ["-s", "--max-time", "10", ...args], { encoding: "utf8" });
      return { status: run.status, stdout: run.stdout };
    };

    (hasCurl ? test : test.skip)(
      hasCurl ? "single, notification, batch, GET" : "skipped: curl is not installed on this machine",
      () => {
        const json = ["-H", "Content-Type: application/json"];
        const single = curl("-X", "POST", server.url, ...json, "-d", call("add", [40, 2]));
        expect(single.status).toBe(0);
        expect(single.stdout).toBe('{"jsonrpc":"2.0","result":42,"id":1}');

        const silent = curl("-w", "[%{http_code}]", "-X", "POST", server.url, ...json, "-d", notify("log", ["curl"]));
        expect(silent.stdout).toBe("[204]");

        const batch = curl("-X", "POST", server.url, ...json, "-d", `[${call("ping")},${call("add", [1, 2], 2)}]`);
        expect(JSON.parse(batch.stdout)).toEqual([
          { jsonrpc: "2.0", result: "pong", id: 1 },
          { jsonrpc: "2.0", result: 3, id: 2 },
        ]);

        const get = curl("-i", server.url);
        expect(get.stdout).toMatch(/^HTTP\/1\.1 405 /);
        expect(get.stdout).toMatch(/\r\nAllow: POST\r\n/i);
      },
    );
  });

  describe("with jayson", () => {
    const client = (): ReturnType<typeof jayson.Client.http> => jayson.Client.http({ host: HOST, port: server.port });

    test("a request, an error, a notification, a batch", async () => {
      const c = client();
      // jayson makes a notification of an id of null (its docs); its types leave null out.
      const NOTIFICATION = null as unknown as undefined;
      expect(await c.request("add", [2, 3])).toMatchObject({ jsonrpc: "2.0", result: 5 });
      expect(await c.request("withdraw", [500])).toMatchObject({
        error: { code: 1, message: "Insufficient funds", data: { balance: 100, amount: 500 } },
      });
      expect(await c.request("log", ["from jayson"], NOTIFICATION)).toBeUndefined();
      const batch = await c.request([
        c.request("add", [1, 2], "a", false),
        c.request("greet", { name: "jayson" }, "b", false),
        c.request("log", ["batch"], NOTIFICATION, false),
      ]);
      expect(batch).toEqual([
        { jsonrpc: "2.0", result: 3, id: "a" },
        { jsonrpc: "2.0", result: "Hello, jayson!", id: "b" },
      ]);
    });
  });

  describe("with json-rpc-2.0", () => {
    test("a request, an error, a notification, a batch", async () => {
      // The transport the library's README shows: fetch, then hand the JSON to receive().
      const c: JSONRPCClient = new JSONRPCClient(async (request: JSONRPCRequest | JSONRPCRequest[]) => {
        const response = await fetch(server.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(request),
        });
        if (response.status === 200) c.receive((await response.json()) as JSONRPCResponse);
        else if (response.status !== 204) throw new Error(`HTTP ${response.status}`);
      });
      expect(await c.request("add", [20, 22])).toBe(42);
      const failure = c.request("getUser", [7]);
      await expect(failure).rejects.toBeInstanceOf(JSONRPCErrorException);
      await expect(failure).rejects.toMatchObject({ code: 404, message: "No such user", data: { id: 7 } });
      c.notify("log", ["from json-rpc-2.0"]); // answered 204: nothing to receive
      const batch = await c.requestAdvanced([
        { jsonrpc: "2.0", method: "ping", id: 1 },
        { jsonrpc: "2.0", method: "divide", params: [1, 4], id: 2 },
      ]);
      expect(batch).toEqual([
        { jsonrpc: "2.0", result: "pong", id: 1 },
        { jsonrpc: "2.0", result: 0.25, id: 2 },
      ]);
    });
  });

  describe("bad HTTP input never stops it", () => {
    test("a body that is not UTF-8: parse error", async () => {
      const reply = await post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text)).toMatchObject({ error: { code: -32700, message: "Parse error" }, id: null });
      await expectHealthy();
    });

    test("a body that is not JSON, an empty body: parse error", async () => {
      for (const body of ["not json", '{"jsonrpc":', ""]) {
        const reply = await post(body);
        expect(JSON.parse(reply.text)).toMatchObject({ error: { code: -32700 }, id: null });
      }
      await expectHealthy();
    });

    test("UTF-8 in and out", async () => {
      const reply = await post(call("greet", { name: "Zoë 🦊" }));
      expect(JSON.parse(reply.text).result).toBe("Hello, Zoë 🦊!");
    });

    test("a chunked body", async () => {
      const text = await bounded(
        new Promise<string>((resolve, reject) => {
          const request = http.request(
            { host: HOST, port: server.port, method: "POST", path: "/", headers: { "Transfer-Encoding": "chunked" } },
            (response) => {
              let body = "";
              response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
              response.on("end", () => resolve(`${response.statusCode} ${body}`));
            },
          );
          request.on("error", reject);
          const body = call("add", [7, 8]);
          request.write(body.slice(0, 5));
          request.write(body.slice(5, 20));
          request.end(body.slice(20));
        }),
        "a chunked request",
      );
      expect(text).toBe('200 {"jsonrpc":"2.0","result":15,"id":1}');
      await expectHealthy();
    });

    test("Expect: 100-continue", async () => {
      const text = await bounded(
        new Promise<string>((resolve, reject) => {
          const body = call("add", [1, 1]);
          const request = http.request({
            host: HOST,
            port: server.port,
            method: "POST",
            headers: { Expect: "100-continue", "Content-Length": Buffer.byteLength(body) },
          });
          request.on("continue", () => request.end(body));
          request.on("response", (response) => {
            let answer = "";
            response.setEncoding("utf8").on("data", (chunk: string) => (answer += chunk));
            response.on("end", () => resolve(`${response.statusCode} ${answer}`));
          });
          request.on("error", reject);
          request.flushHeaders();
        }),
        "a request expecting 100-continue",
      );
      expect(text).toBe('200 {"jsonrpc":"2.0","result":2,"id":1}');
      await expectHealthy();
    });

    test("no Content-Length: an empty body (parse error); a body sent anyway is a bad request", async () => {
      const empty = await rawExchange(server.port, (socket) =>
        socket.end("POST / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
      );
      expect(firstStatus(empty)).toBe(200);
      expect(JSON.parse(firstBody(empty))).toMatchObject({ error: { code: -32700 }, id: null });

      const withBody = await rawExchange(server.port, (socket) =>
        socket.write(`POST / HTTP/1.1\r\nHost: localhost\r\n\r\n${call("ping")}`),
      );
      expect(firstStatus(withBody)).toBe(400);
      await expectHealthy();
    });

    test("a client that disconnects in the middle of the body", async () => {
      const reply = await rawExchange(server.port, (socket) => {
        socket.write(
          "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
        );
        socket.write('{"jsonrpc":"2.0","method":"add",', () => socket.destroy());
      });
      expect(reply.text).toBe("");
      await expectHealthy();
    });

    test("a half-open connection after a partial request", async () => {
      const reply = await rawExchange(server.port, (socket) => {
        socket.end("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n" + '{"jsonrpc":"2.0"');
      });
      expect(reply.error).toBeUndefined();
      // Node's own 400: the body ended short (docs/fetch.md, "A body that breaks off").
      expect(firstStatus(reply)).toBe(400);
      await expectHealthy();
    });

    test("a half-open connection after a whole request still gets its answer", async () => {
      const body = call("sleep", [10], 9);
      const reply = await rawExchange(server.port, (socket) => {
        socket.end(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      });
      expect(firstStatus(reply)).toBe(200);
      expect(JSON.parse(firstBody(reply))).toEqual({ jsonrpc: "2.0", result: 10, id: 9 });
      await expectHealthy();
    });

    test("headers cut short, garbage instead of HTTP", async () => {
      await rawExchange(server.port, (socket) => socket.end("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Le"));
      const garbage = await rawExchange(server.port, (socket) => socket.end("\x00\x01\x02 hello\r\n\r\n"));
      expect(firstStatus(garbage)).toBe(400);
      await expectHealthy();
    });

    test("a client that goes away before a slow answer", async () => {
      const body = call("sleep", [200], 1);
      await rawExchange(server.port, (socket) => {
        socket.write(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${body.length}\r\n\r\n${body}`, () =>
          socket.destroy(),
        );
      });
      await post(call("sleep", [300])); // outlives the abandoned request
      await expectHealthy();
    });

    test("it logged no crash", () => {
      expect(server.stderr()).not.toMatch(/Uncaught|Unhandled|ERR_STREAM|TypeError/);
    });
  });
});

describe("serve() in-process (from the sources)", () => {
  const methods = {
    echo: (value: unknown) => Success(value),
    whoami: (context: { name: string }) => Success(context.name),
    boom: () => {
      throw new Error("secret detail");
    },
  };

  const close = (s: http.Server): Promise<void> =>
    new Promise((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });

  const quiet = (): { lines: string[]; restore: () => void } => {
    const lines: string[] = [];
    const logger: Logger = {
      error: (...args) => lines.push(`error ${args.map(String).join(" ")}`),
      warn: (...args) => lines.push(`warn ${args.map(String).join(" ")}`),
      info: (...args) => lines.push(`info ${args.map(String).join(" ")}`),
    };
    const previous = setLogger(logger);
    return { lines, restore: () => void setLogger(previous) };
  };

  test("port 0: resolves once listening; the port is in server.address(); it logs the URL", async () => {
    const log = quiet();
    try {
      const s = await serve(HOST, 0, { methods });
      const { port } = s.address() as AddressInfo;
      expect(port).toBeGreaterThan(0);
      expect(s.listening).toBe(true);
      const response = await fetch(`http://${HOST}:${port}/`, { method: "POST", body: call("echo", ["hi"]) });
      expect(await response.json()).toEqual({ jsonrpc: "2.0", result: "hi", id: 1 });
      await close(s);
      expect(log.lines).toContain(
        `warn rpcserver: listening on http://${HOST}:${port}/ (host ${HOST}, port ${port}; development only: no TLS, no authentication)`,
      );
      expect(log.lines).toContain("info rpcserver: POST / 200");
    } finally {
      log.restore();
    }
  });

  test("it resolves with its url and port, as its listening line says them; kept once closed (issue 32, item 12)", async () => {
    const log = quiet();
    try {
      for (const [name, host] of [
        [HOST, HOST],
        ["localhost", "localhost"],
        ["", "localhost"],
        ["::1", "[::1]"],
      ] as const) {
        const s = await serve(name, 0, { methods });
        const { port } = s.address() as AddressInfo;
        expect({ url: s.url, port: s.port }).toEqual({ url: `http://${host}:${port}/`, port });
        const response = await fetch(s.url, { method: "POST", body: call("echo", ["hi"]) });
        expect(await response.json()).toEqual({ jsonrpc: "2.0", result: "hi", id: 1 });
        expect(log.lines.filter((line) => line.includes(`listening on ${s.url} `))).toHaveLength(1);
        await close(s);
        expect({ url: s.url, port: s.port }).toEqual({ url: `http://${host}:${port}/`, port });
      }
      // The main entry's serve, typed DevServer, has them too.
      const dev: DevServer = await serveFromMain(HOST, 0, { methods });
      expect(dev.url).toBe(`http://${HOST}:${dev.port}/`);
      await close(dev as unknown as http.Server);
    } finally {
      log.restore();
    }
  });

  test("options: a context, debug", async () => {
    const log = quiet();
    try {
      const s = await serve(HOST, 0, { methods, context: { name: "Ada" }, debug: true });
      const url = `http://${HOST}:${(s.address() as AddressInfo).port}/`;
      const whoami = await fetch(url, { method: "POST", body: call("whoami") });
      expect(await whoami.json()).toEqual({ jsonrpc: "2.0", result: "Ada", id: 1 });
      const boom = await fetch(url, { method: "POST", body: call("boom") });
      expect(await boom.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32603, message: "Internal error", data: "secret detail" },
        id: 1,
      });
      await close(s);
    } finally {
      log.restore();
    }
  });

  test("the default methods are globalMethods", async () => {
    const log = quiet();
    try {
      const { method } = await import("../src/methods");
      method(function serverTestPing() {
        return Success("pong");
      });
      const s = await serve("localhost", 0);
      const response = await fetch(`http://localhost:${(s.address() as AddressInfo).port}/`, {
        method: "POST",
        body: call("serverTestPing"),
      });
      expect(await response.json()).toEqual({ jsonrpc: "2.0", result: "pong", id: 1 });
      await close(s);
    } finally {
      log.restore();
    }
  });

  test("a port in use: rejects with a clear error and code EADDRINUSE", async () => {
    const log = quiet();
    try {
      const first = await serve(HOST, 0, { methods });
      const { port } = first.address() as AddressInfo;
      await expect(serve(HOST, port, { methods })).rejects.toMatchObject({
        code: "EADDRINUSE",
        message: `rpcserver: cannot listen on host ${HOST}, port ${port}: the port is already in use (EADDRINUSE)`,
      });
      await close(first);
    } finally {
      log.restore();
    }
  });

  test("a bad port or host name: RangeError, TypeError", async () => {
    await expect(serve(HOST, -1)).rejects.toBeInstanceOf(RangeError);
    await expect(serve(HOST, 65536)).rejects.toBeInstanceOf(RangeError);
    await expect(serve(HOST, 1.5)).rejects.toBeInstanceOf(RangeError);
    await expect(serve(HOST, "80" as unknown as number)).rejects.toBeInstanceOf(RangeError);
    await expect(serve(80 as unknown as string)).rejects.toBeInstanceOf(TypeError);
    await expect(serve(HOST, 0, { methods: 1 as never })).rejects.toBeInstanceOf(TypeError);
    await expect(serve(HOST, 0, { debug: "yes" as never })).rejects.toBeInstanceOf(TypeError);
  });

  test("a logger that throws does not stop the server", async () => {
    const previous = setLogger({
      error: () => {
        throw new Error("logger down");
      },
      warn: () => {
        throw new Error("logger down");
      },
      info: () => {
        throw new Error("logger down");
      },
    });
    try {
      const s = await serve(HOST, 0, { methods });
      const url = `http://${HOST}:${(s.address() as AddressInfo).port}/`;
      expect((await fetch(url)).status).toBe(405);
      const response = await fetch(url, { method: "POST", body: call("echo", [1]) });
      expect(await response.json()).toEqual({ jsonrpc: "2.0", result: 1, id: 1 });
      await close(s);
    } finally {
      setLogger(previous);
    }
  });
});

describe("importing the package loads no node: module until serve() is called", () => {
  /** The relative modules a built ESM file imports statically, and the bare ones. */
  const staticImports = (file: string): string[] =>
    [...readFileSync(file, "utf8").matchAll(/^(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]/gm)].map((m) => m[1]!);

  test("dist/esm/index.js and everything it imports statically", () => {
    const dir = join(ROOT, "dist", "esm");
    const seen = new Set<string>();
    const bare = new Set<string>();
    // Names relative to dist/esm; each import is resolved against the folder of the file that makes it.
    const visit = (name: string): void => {
      if (seen.has(name)) return;
      seen.add(name);
      for (const spec of staticImports(join(dir, name))) {
        if (spec.startsWith(".")) visit(posix.join(posix.dirname(name), spec));
        else bare.add(spec);
      }
    };
    visit("index.js");
    expect(seen).toContain("internal/node/serve.js");
    expect([...seen]).toEqual(
      expect.arrayContaining(["internal/core.js", "internal/documents.js", "internal/contract.js"]),
    );
    // The development server is not among them: `serve` loads it when called.
    expect(seen).not.toContain("internal/node/server.js");
    expect(readFileSync(join(dir, "internal", "node", "serve.js"), "utf8")).toMatch(/import\(['"]\.\/server\.js['"]\)/);
    expect([...bare].filter((spec) => spec.startsWith("node:") || !/^(fp-ts|io-ts)(\/|$)/.test(spec))).toEqual([]);
    expect(readFileSync(join(dir, "internal", "node", "server.js"), "utf8")).toContain("import('node:http')");
  });

  test("at run time: node:http is loaded by serve(), not by the import", () => {
    const script = [
      "const loaded = () => process.moduleLoadList.some((m) => /^NativeModule (node:)?http$/.test(m));",
      'const { serve } = await import("rpcserver");',
      "const before = loaded();",
      'const server = await serve("127.0.0.1", 0);',
      "console.log(JSON.stringify({ before, after: loaded() }));",
      "server.close();",
    ].join("\n");
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ before: false, after: true });
  });
});
