/**
 * The development server and web browsers, on real sockets: DNS rebinding (a page of another site
 * whose name resolves to this machine) and cross-site requests (a page of another site posting to
 * localhost) are refused; loopback names and origins pass, as do the hosts and origins a user lists;
 * CORS, opt-in, answers preflights and marks answers for the origins it allows. The same check
 * guards the WebSocket examples' upgrades. Every request is sent with `node:http` to 127.0.0.1 (or
 * the address `localhost` is bound to) with a forged `Host` or `Origin`, as a browser under attack
 * would send it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as http from "node:http";
import { lookup } from "node:dns/promises";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Success } from "../src/result";
import { setLogger, type Logger } from "../src/internal/core/logger";
import { browserGuard, serve } from "../src/server";
import type { ServeOptions } from "../src/internal/node/serve";
import type { Methods } from "../src/methods";
import { bounded, HOST, killAll, requireBuild, ROOT, startCli, type Serving } from "./helpers/processes";

interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

interface Sent {
  readonly method?: string;
  readonly headers?: http.OutgoingHttpHeaders;
  readonly body?: string;
  /** The address to connect to; the Host header says what the "browser" thinks it is. */
  readonly address?: string;
}

/** One HTTP exchange on a fresh connection; `headers` may forge Host and Origin. */
const exchange = (port: number, { method = "POST", headers = {}, body, address = HOST }: Sent): Promise<Reply> =>
  bounded(
    new Promise<Reply>((resolve, reject) => {
      const request = http.request({ host: address, port, method, path: "/", headers, agent: false }, (response) => {
        let text = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      });
      request.on("error", reject);
      request.end(body);
    }),
    `${method} with ${JSON.stringify(headers)}`,
  );

const ADD = '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}';
const THREE = '{"jsonrpc":"2.0","result":3,"id":1}';

/** A server's methods that count the calls that ran: a refused request must run nothing. */
const counted = (): { readonly methods: Methods; readonly calls: () => number } => {
  let calls = 0;
  return {
    methods: {
      add: (a: number, b: number) => {
        calls += 1;
        return Success(a + b);
      },
    },
    calls: () => calls,
  };
};

/** Collects the logger's lines (warn and info), and restores the previous logger. */
const capture = (): { readonly warnings: string[]; readonly restore: () => void } => {
  const warnings: string[] = [];
  const logger: Logger = {
    error: () => undefined,
    warn: (...args: unknown[]) => void warnings.push(String(args[0])),
    info: () => undefined,
  };
  const previous = setLogger(logger);
  return { warnings, restore: () => setLogger(previous) };
};

const open: http.Server[] = [];
let log: ReturnType<typeof capture>;

/** Starts `serve` with counted methods; closed after each test. */
const start = async (
  name: string,
  options: Omit<ServeOptions, "methods"> = {},
): Promise<{ readonly port: number; readonly address: string; readonly calls: () => number }> => {
  const { methods, calls } = counted();
  const server = await serve(name, 0, { ...options, methods, openrpc: false });
  open.push(server);
  const { port, address } = server.address() as AddressInfo;
  // A wildcard address is reached through the loopback interface.
  return { port, address: address === "::" || address === "0.0.0.0" ? HOST : address, calls };
};

beforeEach(() => {
  log = capture();
});

afterEach(async () => {
  log.restore();
  await Promise.all(
    open.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
});

afterAll(() => killAll());

describe("bound to a loopback address: only loopback hosts and origins", () => {
  test("the issue's request (bound to localhost, Host and Origin evil.example) is refused, and runs nothing", async () => {
    const { port, address, calls } = await start("localhost");
    const reply = await exchange(port, {
      address,
      headers: { Host: `evil.example:${port}`, Origin: `http://evil.example:${port}`, "Content-Type": "text/plain" },
      body: ADD,
    });
    expect(reply.status).toBe(403);
    expect(calls()).toBe(0);
  });

  test("a Host that is not loopback: 403, a message naming the header, the value and the option", async () => {
    const { port, calls } = await start(HOST);
    for (const host of [`evil.example:${port}`, "evil.example", `localhost.evil.example:${port}`, `10.0.0.1:${port}`]) {
      const reply = await exchange(port, { headers: { Host: host }, body: ADD });
      expect(reply.status).toBe(403);
      expect(reply.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(reply.text).toContain(`Host header "${host}"`);
      expect(reply.text).toContain("allowedHosts");
      expect(reply.text).toContain("DNS rebinding");
    }
    expect(calls()).toBe(0);
  });

  test("an Origin that is not loopback: 403, a message naming the header, the value and the options", async () => {
    const { port, calls } = await start(HOST);
    for (const origin of [
      "http://evil.example",
      `http://evil.example:${port}`,
      "null",
      "https://localhost.evil.example",
    ]) {
      const reply = await exchange(port, { headers: { Origin: origin }, body: ADD });
      expect(reply.status).toBe(403);
      expect(reply.text).toContain(`Origin header "${origin}"`);
      expect(reply.text).toContain("allowedOrigins");
    }
    expect(calls()).toBe(0);
  });

  test("loopback Host variants pass, the port ignored", async () => {
    const { port } = await start(HOST);
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      "localhost",
      `LocalHost:${port}`,
      `127.1.2.3:${port}`,
      `localhost:${port + 1}`,
    ]) {
      const reply = await exchange(port, { headers: { Host: host }, body: ADD });
      expect({ host, status: reply.status, text: reply.text }).toEqual({ host, status: 200, text: THREE });
    }
  });

  test("loopback origins pass (pages of other local development servers), any port, http or https", async () => {
    const { port } = await start(HOST);
    for (const origin of ["http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8080", "https://localhost"]) {
      const reply = await exchange(port, { headers: { Origin: origin }, body: ADD });
      expect({ origin, status: reply.status }).toEqual({ origin, status: 200 });
      // No CORS unless asked for: the page may call, only a same-origin page may read.
      expect(reply.headers["access-control-allow-origin"]).toBeUndefined();
    }
  });

  test("a request with neither header (an HTTP/1.0 tool) passes: it is not a browser", async () => {
    const { port } = await start(HOST);
    const reply = await bounded(
      new Promise<string>((resolve) => {
        const socket = net.connect(port, HOST);
        let text = "";
        socket.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        socket.on("close", () => resolve(text));
        socket.end(`POST / HTTP/1.0\r\nContent-Length: ${ADD.length}\r\n\r\n${ADD}`);
      }),
      "an HTTP/1.0 request",
    );
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    expect(reply.endsWith(THREE)).toBe(true);
  });

  test("a refusal is logged (warn) once per header value, so a page that keeps trying does not flood the log", async () => {
    const { port } = await start(HOST);
    for (let i = 0; i < 3; i++) await exchange(port, { headers: { Origin: "http://evil.example" }, body: ADD });
    const lines = log.warnings.filter((line) => line.includes("evil.example"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Origin header "http://evil.example"');
  });
});

describe("the user's lists", () => {
  test("allowedHosts: listed names pass (port ignored, any case); a leading dot takes subdomains", async () => {
    const { port } = await start(HOST, { allowedHosts: ["dev.example", ".tunnel.example"] });
    const status = async (host: string): Promise<number> =>
      (await exchange(port, { headers: { Host: host }, body: ADD })).status;
    expect(await status(`dev.example:${port}`)).toBe(200);
    expect(await status("DEV.example")).toBe(200);
    expect(await status(`abc.tunnel.example:${port}`)).toBe(200);
    expect(await status("tunnel.example")).toBe(200);
    expect(await status(`sub.dev.example:${port}`)).toBe(403);
    expect(await status(`evil.example:${port}`)).toBe(403);
    expect(await status(`localhost:${port}`)).toBe(200);
  });

  test("allowedHosts: true turns the Host check off; the Origin check stays", async () => {
    const { port } = await start(HOST, { allowedHosts: true });
    expect((await exchange(port, { headers: { Host: "anything.example" }, body: ADD })).status).toBe(200);
    expect((await exchange(port, { headers: { Origin: "http://evil.example" }, body: ADD })).status).toBe(403);
  });

  test("allowedOrigins: listed origins pass (exactly: scheme, host and port)", async () => {
    const { port } = await start(HOST, { allowedOrigins: ["https://app.example", "http://app.example:8080/"] });
    const status = async (origin: string): Promise<number> =>
      (await exchange(port, { headers: { Origin: origin }, body: ADD })).status;
    expect(await status("https://app.example")).toBe(200);
    expect(await status("HTTPS://APP.EXAMPLE")).toBe(200);
    expect(await status("http://app.example:8080")).toBe(200);
    expect(await status("http://app.example")).toBe(403);
    expect(await status("https://app.example:8443")).toBe(403);
  });

  test("bad lists are the caller's TypeError at start", async () => {
    await expect(serve(HOST, 0, { allowedHosts: "dev.example" as never })).rejects.toThrow(
      /allowedHosts must be an array of host names or true/,
    );
    await expect(serve(HOST, 0, { allowedHosts: [""] })).rejects.toThrow(TypeError);
    await expect(serve(HOST, 0, { allowedOrigins: ["http://app.example/path"] })).rejects.toThrow(
      /"http:\/\/app.example\/path" is not an origin/,
    );
    await expect(serve(HOST, 0, { allowedOrigins: ["app.example"] })).rejects.toThrow(TypeError);
    await expect(serve(HOST, 0, { cors: "yes" as never })).rejects.toThrow(/cors must be/);
    await expect(serve(HOST, 0, { cors: { origins: ["*"] } })).rejects.toThrow(TypeError);
  });
});

describe("bound to every interface: the Host check (documented choice)", () => {
  test("IP addresses and loopback names pass; another name must be listed; the Origin check is the same", async () => {
    const { port } = await start("");
    const status = async (headers: http.OutgoingHttpHeaders): Promise<number> =>
      (await exchange(port, { headers, body: ADD })).status;
    expect(await status({ Host: `192.0.2.7:${port}` })).toBe(200);
    expect(await status({ Host: `[2001:db8::7]:${port}` })).toBe(200);
    expect(await status({ Host: `localhost:${port}` })).toBe(200);
    expect(await status({ Host: `evil.example:${port}` })).toBe(403);
    expect(await status({ Host: `192.0.2.7:${port}`, Origin: "http://192.0.2.7:3000" })).toBe(403);
    expect(await status({ Host: `192.0.2.7:${port}`, Origin: "http://localhost:3000" })).toBe(200);
  });
});

describe("CORS (opt-in)", () => {
  const preflight = (origin: string): http.OutgoingHttpHeaders => ({
    Origin: origin,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "content-type, x-trace",
  });

  test("cors: { origins }: the preflight is 204 with the Access-Control-Allow-* headers; the answer carries the origin", async () => {
    const { port, calls } = await start(HOST, { cors: { origins: ["http://app.example:8080"] } });
    const pre = await exchange(port, { method: "OPTIONS", headers: preflight("http://app.example:8080") });
    expect(pre.status).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe("http://app.example:8080");
    expect(pre.headers["access-control-allow-methods"]).toBe("POST");
    expect(pre.headers["access-control-allow-headers"]).toBe("content-type, x-trace");
    expect(pre.headers["access-control-max-age"]).toBe("600");
    expect(pre.headers["vary"]).toContain("Origin");
    expect(calls()).toBe(0);

    const actual = await exchange(port, {
      headers: { Origin: "http://app.example:8080", "Content-Type": "application/json" },
      body: ADD,
    });
    expect(actual.status).toBe(200);
    expect(actual.text).toBe(THREE);
    expect(actual.headers["access-control-allow-origin"]).toBe("http://app.example:8080");
    expect(actual.headers["vary"]).toContain("Origin");
  });

  test("cors: true: loopback origins get the headers; a request without Origin gets none", async () => {
    const { port } = await start(HOST, { cors: true });
    const pre = await exchange(port, { method: "OPTIONS", headers: preflight("http://localhost:5173") });
    expect(pre.status).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
    const actual = await exchange(port, { headers: { Origin: "http://localhost:5173" }, body: ADD });
    expect(actual.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
    const curl = await exchange(port, { headers: { Host: `localhost:${port}` }, body: ADD });
    expect(curl.status).toBe(200);
    expect(curl.headers["access-control-allow-origin"]).toBeUndefined();
  });

  test("an origin CORS does not allow: the preflight and the request are refused, with no Allow-Origin", async () => {
    const { port, calls } = await start(HOST, { cors: { origins: ["http://app.example:8080"] } });
    const pre = await exchange(port, { method: "OPTIONS", headers: preflight("http://evil.example") });
    expect(pre.status).toBe(403);
    expect(pre.headers["access-control-allow-origin"]).toBeUndefined();
    const actual = await exchange(port, { headers: { Origin: "http://evil.example" }, body: ADD });
    expect(actual.status).toBe(403);
    expect(actual.headers["access-control-allow-origin"]).toBeUndefined();
    expect(calls()).toBe(0);
  });

  test("allowedOrigins get CORS too once cors is on; without cors an OPTIONS is 405 as before", async () => {
    const on = await start(HOST, { cors: true, allowedOrigins: ["https://app.example"] });
    const pre = await exchange(on.port, { method: "OPTIONS", headers: preflight("https://app.example") });
    expect(pre.headers["access-control-allow-origin"]).toBe("https://app.example");
    const off = await start(HOST, { allowedOrigins: ["https://app.example"] });
    const refused = await exchange(off.port, { method: "OPTIONS", headers: preflight("https://app.example") });
    expect(refused.status).toBe(405);
    expect(refused.headers["access-control-allow-origin"]).toBeUndefined();
  });

  test("a private-network preflight (Chrome) is answered for an allowed origin", async () => {
    const { port } = await start(HOST, { cors: { origins: ["https://app.example"] } });
    const pre = await exchange(port, {
      method: "OPTIONS",
      headers: { ...preflight("https://app.example"), "Access-Control-Request-Private-Network": "true" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers["access-control-allow-private-network"]).toBe("true");
  });
});

describe("browserGuard, the one check (exported from rpcserver/server for other servers)", () => {
  test("its TSDoc example", () => {
    const guard = browserGuard({ listening: "127.0.0.1", allowedOrigins: ["http://localhost:5173"] });
    expect(guard({ host: "localhost:5000" })).toBeUndefined();
    expect(guard({ host: "localhost:5000", origin: "http://localhost:5173" })).toBeUndefined();
    expect(guard({ host: "evil.example:5000" })).toMatchObject({ header: "host", value: "evil.example:5000" });
    expect(guard({ host: "localhost:5000", origin: "http://evil.example" })).toMatchObject({ header: "origin" });
  });

  test("the bound address decides: loopback names and addresses, IPv4-mapped and long IPv6 forms", () => {
    for (const listening of ["localhost", "127.0.0.1", "127.0.1.1", "::1", "::ffff:127.0.0.1"]) {
      expect(browserGuard({ listening })({ host: "192.0.2.7" })).toBeDefined();
    }
    for (const listening of ["", "0.0.0.0", "::", "192.0.2.7", "myhost.local"]) {
      expect(browserGuard({ listening })({ host: "192.0.2.7" })).toBeUndefined();
    }
    const loopback = browserGuard({ listening: "::1" });
    for (const host of ["[0:0:0:0:0:0:0:1]:80", "[::ffff:127.0.0.1]:80", "127.255.255.254"]) {
      expect(loopback({ host })).toBeUndefined();
    }
    expect(browserGuard({ listening: "192.0.2.7" })({ host: "myhost.local:5000" })).toBeDefined();
  });
});

describe("the rpcserver command: --allowed-host, --allowed-origin, --cors", () => {
  let cli: Serving;
  beforeAll(async () => {
    requireBuild();
    cli = await startCli([
      join("examples", "methods.mjs"),
      "--host",
      HOST,
      "--port",
      "0",
      "--allowed-host",
      "dev.example",
      "--allowed-origin",
      "https://app.example",
      "--cors",
    ]);
  });

  test("the listed host and origin pass, with CORS; others are refused", async () => {
    expect((await exchange(cli.port, { headers: { Host: "dev.example" }, body: ADD })).status).toBe(200);
    expect((await exchange(cli.port, { headers: { Host: "evil.example" }, body: ADD })).status).toBe(403);
    const allowed = await exchange(cli.port, { headers: { Origin: "https://app.example" }, body: ADD });
    expect(allowed.headers["access-control-allow-origin"]).toBe("https://app.example");
    expect((await exchange(cli.port, { headers: { Origin: "https://evil.example" }, body: ADD })).status).toBe(403);
  });
});

describe("the WebSocket examples check the upgrade with the same guard", () => {
  const examples: ChildProcess[] = [];
  afterAll(() => {
    for (const child of examples) child.kill("SIGKILL");
  });

  /** Starts an example as a child process; resolves to its port once it says where it listens. */
  const startExample = (file: string, env: NodeJS.ProcessEnv): Promise<number> => {
    const child = spawn(process.execPath, [join(ROOT, file)], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    examples.push(child);
    return bounded(
      new Promise<number>((resolve, reject) => {
        let out = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
          const match = /ws:\/\/[^\s:]+:(\d+)/.exec(out);
          if (match !== null) resolve(Number(match[1]));
        });
        child.on("exit", (code) => reject(new Error(`${file} exited (${String(code)}): ${out}`)));
      }),
      `${file} to listen`,
    );
  };

  /** A WebSocket upgrade request; resolves to the status (101 when upgraded). */
  const upgrade = (port: number, headers: http.OutgoingHttpHeaders, address = HOST): Promise<number> =>
    bounded(
      new Promise<number>((resolve, reject) => {
        const request = http.request({
          host: address,
          port,
          path: "/",
          agent: false,
          headers: {
            Connection: "Upgrade",
            Upgrade: "websocket",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            ...headers,
          },
        });
        request.on("upgrade", (_response, socket) => {
          socket.destroy();
          resolve(101);
        });
        request.on("response", (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on("error", reject);
        request.end();
      }),
      `an upgrade with ${JSON.stringify(headers)}`,
    );

  beforeAll(() => requireBuild());

  test("examples/websocket/server.mjs (bound to localhost)", async () => {
    const port = await startExample(join("examples", "websocket", "server.mjs"), { PORT: "0" });
    // `localhost` is bound to 127.0.0.1 or ::1, whichever resolves first.
    const address = (await lookup("localhost")).address;
    expect(await upgrade(port, { Origin: "http://evil.example" }, address)).toBe(403);
    expect(await upgrade(port, { Host: `evil.example:${port}` }, address)).toBe(403);
    expect(await upgrade(port, { Origin: "http://localhost:3000" }, address)).toBe(101);
    expect(await upgrade(port, {}, address)).toBe(101);
  });

  test("examples/integrations/websocket.mjs (bound to 127.0.0.1)", async () => {
    const port = await startExample(join("examples", "integrations", "websocket.mjs"), { HOST, PORT: "0" });
    expect(await upgrade(port, { Origin: "http://evil.example" })).toBe(403);
    expect(await upgrade(port, { Host: `evil.example:${port}` })).toBe(403);
    expect(await upgrade(port, { Origin: `http://127.0.0.1:${port}` })).toBe(101);
    expect(await upgrade(port, {})).toBe(101);
  });
});
