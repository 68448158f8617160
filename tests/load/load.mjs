/**
 * The development server under load and fault, from a second process, on the loopback interface.
 *
 *     npm run build && node tests/load/load.mjs [--duration SECONDS] [--connections N]
 *
 * Starts `node --expose-gc dist/esm/cli.js tests/load/fixture-methods.mjs --host 127.0.0.1 --port 0`
 * as a child process, reads the port from its listening line, then, in phases:
 *
 * 1. warm-up: a short autocannon run and a few of each fault; then the server's heap after garbage
 *    collection (the fixture's `stats` method) is the baseline.
 * 2. load: autocannon, 50 connections for `--duration` seconds (default 10), cycling through a
 *    single request, a batch (with a notification and errors inside), a notification and an async
 *    method; every response is checked (status, Content-Type, the exact JSON), and autocannon must
 *    report zero errors, zero timeouts and zero non-2xx. Meanwhile, 10 slow partial bodies (3 bytes
 *    every 50-100 ms for about 2 s) must each get their right answer.
 * 3. garbage: random bytes, malformed HTTP, a random body with a valid header.
 * 4. cut-off bodies: a Content-Length larger than what is sent, then the connection is destroyed
 *    or half-closed; a chunked body cut mid-chunk; 1 MB of an 8 MB body, then destroyed.
 * 5. slow: one slow body alone, one with slow headers too; each must get the right answer.
 * 6. drops: 1,000 connections opened and dropped, 100 at a time, in four ways.
 * 7. faults under load: a second autocannon run while garbage, cut-off bodies and drops go on;
 *    the normal traffic must still see zero errors and only right answers.
 * 8. memory: after garbage collection, the server's heap must be back within max(5 MB, 20%) of
 *    the baseline and its external memory (Buffers) within 10 MB; rss, noisier, is reported and
 *    only loosely bounded (256 MB); its open sockets back to the one asking; its stderr free of
 *    crash reports; and SIGTERM stops it with status 0.
 *
 * After every phase a normal request must still be answered correctly. Throughput and latency are
 * printed, never asserted. Each check prints `ok` or `FAIL`; the last line is
 * `load: N passed, N failed`, and the exit status is 1 when anything failed. A hard timeout bounds
 * the whole run; the server is killed at the end whatever happens. Connections held open on purpose
 * (Node's timeouts: a minute and more) are measured by tests/load/held.mjs instead, by hand.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as http from "node:http";
import * as net from "node:net";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual, parseArgs } from "node:util";
import autocannon from "autocannon";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLI = join(ROOT, "dist", "esm", "cli.js");
const FIXTURE = join("tests", "load", "fixture-methods.mjs");
const HOST = "127.0.0.1";
const MB = 1024 * 1024;

const { values: args } = parseArgs({
  options: { duration: { type: "string", default: "10" }, connections: { type: "string", default: "50" } },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
if (!(Number.isInteger(DURATION) && DURATION >= 1 && DURATION <= 600)) {
  console.error(`load: --duration must be an integer number of seconds from 1 to 600, got ${args.duration}`);
  process.exit(2);
}
if (!(Number.isInteger(CONNECTIONS) && CONNECTIONS >= 1 && CONNECTIONS <= 1000)) {
  console.error(`load: --connections must be an integer from 1 to 1000, got ${args.connections}`);
  process.exit(2);
}

/** The whole run's bound: every phase is bounded too; this one catches what they miss. */
const HARD_TIMEOUT_MS = (45 + 2 * DURATION) * 1000;

// ---------------------------------------------------------------------------------------------
// Checks and figures

let passed = 0;
let failed = 0;

const check = (ok, what, detail = "") => {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail === "" ? "" : `: ${detail}`}`);
  return ok;
};

const figure = (text) => console.log(`     ${text}`);

const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;

// ---------------------------------------------------------------------------------------------
// The server

/** Crash reports the server must never print (the request log is silent by default). */
const CRASH = /Uncaught|Unhandled|ERR_[A-Z_]+|TypeError|RangeError|ReferenceError|could not answer|dispatch failed/;

const server = spawn(process.execPath, ["--expose-gc", CLI, FIXTURE, "--host", HOST, "--port", "0"], {
  cwd: ROOT,
  stdio: ["ignore", "pipe", "pipe"],
});
let serverLog = "";
const crashes = [];
const exited = new Promise((resolve) => server.on("exit", (code, signal) => resolve({ code, signal })));
server.stdout.resume();
server.stderr.setEncoding("utf8").on("data", (text) => {
  if (serverLog.length < MB) serverLog += text; // bounded; the listening line comes first
  for (const line of text.split("\n")) if (CRASH.test(line) && crashes.length < 20) crashes.push(line);
});

const stopServer = () => {
  if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
};

const hardTimeout = setTimeout(() => {
  console.log(`FAIL the whole run: still going after ${HARD_TIMEOUT_MS / 1000} s`);
  failed += 1;
  console.log(`load: ${passed} passed, ${failed} failed`);
  stopServer();
  process.exit(1);
}, HARD_TIMEOUT_MS);
hardTimeout.unref();

/** Resolves to the port once the listening line is on stderr; rejects if the server exits first. */
const listening = () =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line after 10 s:\n${serverLog}`)), 10_000);
    const look = () => {
      const match = /rpcserver: listening on http:\/\/\S+:(\d+)\//.exec(serverLog);
      if (match === null) return;
      clearTimeout(timer);
      server.stderr.off("data", look);
      resolve(Number(match[1]));
    };
    server.stderr.on("data", look);
    void exited.then(({ code }) => reject(new Error(`the server exited (${code}) before listening:\n${serverLog}`)));
  });

// ---------------------------------------------------------------------------------------------
// JSON-RPC over node:http

let port = 0;
let url = "";

const request = (method, params, id) => ({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }), id });
const notification = (method, params) => ({ jsonrpc: "2.0", method, params });

/**
 * POSTs `body` on a connection of its own, closed after the answer (no keep-alive pool: the only
 * client connection the server has while `stats` runs is the one asking). Bounded: 5 s.
 */
const post = (body) =>
  new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: "POST",
      agent: false,
      headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      timeout: 5000,
    });
    req.on("timeout", () => req.destroy(new Error("no answer within 5 s")));
    req.on("error", reject);
    req.on("response", (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode, text }));
      response.on("error", reject);
    });
    req.end(body);
  });

let healthChecks = 0;

/** A normal request after a phase: the right answer, and the server still running. */
const healthy = async (after) => {
  healthChecks += 1;
  const n = healthChecks;
  let detail = "";
  try {
    const reply = await post(JSON.stringify(request("add", [n, 1000], `health-${n}`)));
    const want = { jsonrpc: "2.0", result: n + 1000, id: `health-${n}` };
    if (reply.status !== 200 || !isDeepStrictEqual(JSON.parse(reply.text), want)) {
      detail = `got ${reply.status} ${reply.text}`;
    }
  } catch (thrown) {
    detail = `no answer: ${thrown.message}`;
  }
  if (server.exitCode !== null || server.signalCode !== null) detail = `the server exited (${server.exitCode})`;
  return check(detail === "", `a normal request is answered after ${after}`, detail);
};

/** The server's heap, rss and open sockets, after garbage collection. */
const stats = async () => {
  const reply = await post(JSON.stringify(request("stats", undefined, "stats")));
  return JSON.parse(reply.text).result;
};

// ---------------------------------------------------------------------------------------------
// The load: a mix of requests, every answer checked

/** A counter shared by all connections, so that every request has its own params and id. */
let serial = 0;

const ADA = { id: 1, name: "Ada Lovelace" };

/**
 * The requests autocannon cycles through. `make(n)` builds a body and the answer it must get:
 * the status and the parsed JSON (or `""` for no body).
 */
const MIX = [
  {
    kind: "single",
    make: (n) => ({ body: request("add", [n, 1], n), status: 200, want: { jsonrpc: "2.0", result: n + 1, id: n } }),
  },
  {
    kind: "batch",
    make: (n) => ({
      body: [
        request("add", [n, 2], `a${n}`),
        notification("note", [n]),
        request("greet", { name: `Zoë 🦊 ${n}` }, `g${n}`),
        request("getUser", [1], `u${n}`),
        request("divide", [n, 0], `d${n}`),
        request("noSuchMethod", [], `m${n}`),
      ],
      status: 200,
      want: [
        { jsonrpc: "2.0", result: n + 2, id: `a${n}` },
        { jsonrpc: "2.0", result: `Hello, Zoë 🦊 ${n}!`, id: `g${n}` },
        { jsonrpc: "2.0", result: ADA, id: `u${n}` },
        { jsonrpc: "2.0", error: { code: -32602, message: "Invalid params", data: "division by zero" }, id: `d${n}` },
        { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "noSuchMethod" }, id: `m${n}` },
      ],
    }),
  },
  { kind: "notification", make: (n) => ({ body: notification("note", [n]), status: 204, want: "" }) },
  {
    kind: "async",
    make: (n) => ({
      body: request("sleep", [0], `s${n}`),
      status: 200,
      want: { jsonrpc: "2.0", result: 0, id: `s${n}` },
    }),
  },
];

/** What a response must be, given what its request was built with; "" when it is right. */
const verify = (expected, status, body, headers) => {
  if (status !== expected.status) return `status ${status}, wanted ${expected.status}: ${body.slice(0, 200)}`;
  if (expected.want === "") return body === "" ? "" : `a body with 204: ${body.slice(0, 200)}`;
  const type = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === "content-type")?.[1];
  if (type !== "application/json") return `Content-Type ${String(type)}`;
  let json;
  try {
    json = JSON.parse(body);
  } catch {
    return `not JSON: ${body.slice(0, 200)}`;
  }
  return isDeepStrictEqual(json, expected.want) ? "" : `wrong answer: ${body.slice(0, 300)}`;
};

/** Runs autocannon with the mix; resolves to its result and the tally of checked responses. */
const load = async (connections, duration) => {
  const tally = { checked: 0, wrong: 0, examples: [], kinds: {} };
  const requests = MIX.map(({ kind, make }) => ({
    method: "POST",
    path: `/${kind}`,
    headers: { "Content-Type": "application/json" },
    // One request in flight per connection (no pipelining), so the connection's context holds
    // exactly the expectation of the response that comes next.
    setupRequest: (req, context) => {
      serial += 1;
      const built = make(serial);
      context.expected = { kind, status: built.status, want: built.want };
      return { ...req, body: JSON.stringify(built.body) };
    },
    onResponse: (status, body, context, headers) => {
      const expected = context.expected;
      tally.checked += 1;
      tally.kinds[kind] = (tally.kinds[kind] ?? 0) + 1;
      const problem =
        expected === undefined || expected.kind !== kind
          ? "a response to no request"
          : verify(expected, status, body, headers);
      if (problem !== "") {
        tally.wrong += 1;
        if (tally.examples.length < 5) tally.examples.push(`${kind}: ${problem}`);
      }
    },
  }));
  const result = await autocannon({ url, connections, duration, requests, timeout: 10 });
  return { result, tally };
};

const reportLoad = (label, { result, tally }) => {
  const { latency, requests } = result;
  figure(
    `${label}: ${requests.total} requests in ${result.duration.toFixed(1)} s, ${Math.round(requests.average)} req/s ` +
      `(${result.connections} connections); latency p50 ${latency.p50} ms, p99 ${latency.p99} ms, max ${latency.max} ms`,
  );
  figure(
    `${label}: errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}, ` +
      `responses checked ${tally.checked} (${Object.entries(tally.kinds)
        .map(([kind, count]) => `${kind} ${count}`)
        .join(", ")}), wrong ${tally.wrong}`,
  );
  check(tally.checked > 0 && result.requests.total > 0, `${label}: requests were answered`, `${tally.checked}`);
  check(result.errors === 0, `${label}: zero errors`, `${result.errors}`);
  check(result.timeouts === 0, `${label}: zero timeouts`, `${result.timeouts}`);
  check(result.non2xx === 0, `${label}: zero non-2xx`, `${result.non2xx}`);
  check(tally.wrong === 0, `${label}: every response right`, tally.examples.join(" | ") || `${tally.checked} checked`);
};

// ---------------------------------------------------------------------------------------------
// Raw sockets

/**
 * Opens a connection, lets `drive` write to it (it may be async), and collects what the server
 * sends until the connection closes, or until `wait` ms have passed (then it is destroyed and
 * `closed` is false).
 */
const raw = (drive, wait = 5000) =>
  new Promise((resolve) => {
    const socket = net.connect(port, HOST);
    let text = "";
    let error;
    let connected = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, error, connected, closed: false });
    }, wait);
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => (text += chunk));
    socket.on("error", (e) => (error = e.code ?? e.message));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ text, error, connected, closed: true });
    });
    socket.on("connect", () => {
      connected = true;
      Promise.resolve(drive(socket)).catch((e) => {
        error = e.message;
        socket.destroy();
      });
    });
  });

/** The status and body of the first response in what a raw socket received. */
const parseReply = (text) => {
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(text);
  const split = text.indexOf("\r\n\r\n");
  const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, split));
  const body =
    split < 0 || length === null
      ? ""
      : Buffer.from(text.slice(split + 4), "latin1")
          .subarray(0, Number(length[1]))
          .toString("utf8");
  return { status: status === null ? undefined : Number(status[1]), body };
};

const head = (length, extra = "") =>
  `POST / HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

/** Runs `count` tasks, `limit` at a time; resolves to their results in order. */
const pool = async (count, limit, task) => {
  const results = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next;
      next += 1;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  return results;
};

/** Tallies `{ ok, status?, detail }` results: the failures' first details, the statuses seen. */
const tallyOf = (results) => {
  const bad = results.filter((r) => !r.ok);
  const statuses = {};
  for (const { status } of results) {
    const key = status === undefined ? "no answer" : String(status);
    statuses[key] = (statuses[key] ?? 0) + 1;
  }
  return {
    total: results.length,
    bad: bad.length,
    detail: bad
      .slice(0, 3)
      .map((r) => r.detail)
      .join(" | "),
    statuses: Object.entries(statuses)
      .map(([status, count]) => `${status} x${count}`)
      .join(", "),
  };
};

// ---- Garbage

/** HTTP that is not: each must be refused with 400 or 431 (or the connection closed), never hang. */
const MALFORMED = [
  "\x00\x01\x02 hello\r\n\r\n",
  "GET\r\n\r\n",
  "POST / HTTP/9.9\r\nHost: x\r\n\r\n",
  "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
  "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
  "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
  "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
  "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
  "POST / HTTP/1.1\r\nHost: x\r\nBad Header: \x00\r\n\r\n",
  "POST / HTTP/1.1\r\nHost: x\r\n\x7f\x80\x81: y\r\n\r\n",
  `POST / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
  "POST /\r\n\r\n",
];

const REFUSED = new Set([undefined, 400, 431]);

/** Garbage number `i`: a mix of random bytes, malformed HTTP and a random body behind a good header. */
const garbage = async (i) => {
  const variant = i % 4;
  if (variant === 0 || variant === 1) {
    // Random bytes; the first is never a letter, so they cannot start a request line.
    const bytes = randomBytes(1 + (i % 4096));
    bytes[0] = 0x80 | bytes[0];
    const reply = await raw((socket) =>
      variant === 0 ? socket.end(bytes) : socket.write(bytes, () => socket.destroy()),
    );
    const { status } = parseReply(reply.text);
    return {
      ok: reply.closed && (variant === 1 || REFUSED.has(status)),
      status,
      detail: `random bytes: closed ${reply.closed}, status ${status}`,
    };
  }
  if (variant === 2) {
    const text = MALFORMED[i % MALFORMED.length];
    const reply = await raw((socket) => socket.end(text, "latin1"));
    const { status } = parseReply(reply.text);
    return {
      ok: reply.closed && REFUSED.has(status),
      status,
      detail: `${JSON.stringify(text.slice(0, 40))}: ${status}`,
    };
  }
  // A good header, then random bytes as the body (an invalid UTF-8 lead byte first): -32700.
  const body = randomBytes(16 + (i % 2000));
  body[0] = 0xff;
  const reply = await raw((socket) =>
    socket.end(Buffer.concat([Buffer.from(head(body.length, "Connection: close\r\n")), body])),
  );
  const { status, body: answer } = parseReply(reply.text);
  let json;
  try {
    json = JSON.parse(answer);
  } catch {
    json = undefined;
  }
  return {
    ok: status === 200 && json?.error?.code === -32700 && json?.id === null,
    status,
    detail: `random body: ${status} ${answer.slice(0, 100)}`,
  };
};

// ---- Bodies cut off

const GOOD_BODY = JSON.stringify(request("add", [1, 2], 1));

/** The first megabyte of a batch announced as 8 MB: what the server buffers, then must free. */
const BIG_PART = Buffer.from(`[${`${GOOD_BODY},`.repeat(Math.ceil(MB / (GOOD_BODY.length + 1)))}`.slice(0, MB));

/**
 * Cut-off number `i`: the body stops part-way, then the client destroys or half-closes; one in
 * four sends a whole megabyte of an 8 MB body first.
 */
const cutOff = async (i) => {
  const variant = i % 4;
  const part = GOOD_BODY.slice(0, 1 + (i % (GOOD_BODY.length - 1)));
  if (variant === 0) {
    const reply = await raw((socket) => socket.write(head(1000) + part, () => socket.destroy()));
    return {
      ok: reply.closed && reply.text === "",
      status: parseReply(reply.text).status,
      detail: `destroyed: ${JSON.stringify(reply.text.slice(0, 60))}`,
    };
  }
  if (variant === 1) {
    // Half-closed: the server learns the body will never come, and must close (400, or nothing).
    const reply = await raw((socket) => socket.end(head(1000) + part));
    const { status } = parseReply(reply.text);
    return {
      ok: reply.closed && REFUSED.has(status),
      status,
      detail: `half-closed: closed ${reply.closed}, status ${status}`,
    };
  }
  if (variant === 2) {
    const chunked = `POST / HTTP/1.1\r\nHost: ${HOST}\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n${part}`;
    const reply = await raw((socket) => socket.write(chunked, () => socket.destroy()));
    return {
      ok: reply.closed && reply.text === "",
      status: parseReply(reply.text).status,
      detail: `chunked, destroyed: ${JSON.stringify(reply.text.slice(0, 60))}`,
    };
  }
  const reply = await raw((socket) => {
    socket.write(head(8 * MB));
    socket.write(BIG_PART, () => socket.destroy());
  });
  return {
    ok: reply.closed && reply.text === "",
    status: parseReply(reply.text).status,
    detail: `1 MB of 8 MB, destroyed: ${JSON.stringify(reply.text.slice(0, 60))}`,
  };
};

// ---- Slow bodies

/**
 * A request written 3 bytes at a time every 50-100 ms (the body padded to about 2 s of that; the
 * headers too with `slowHeaders`); it must get its right answer.
 */
const slow = async (n, slowHeaders = false) => {
  const body = JSON.stringify(request("add", [n, 1], `slow-${n}`)).padEnd(80, " ");
  const start = head(body.length, "Connection: close\r\n");
  const started = Date.now();
  const reply = await raw(async (socket) => {
    const text = slowHeaders ? start + body : body;
    if (!slowHeaders) socket.write(start);
    for (let i = 0; i < text.length && !socket.destroyed; i += 3) {
      socket.write(text.slice(i, i + 3));
      await sleep(50 + Math.random() * 50);
    }
  }, 20_000);
  const { status, body: answer } = parseReply(reply.text);
  const want = { jsonrpc: "2.0", result: n + 1, id: `slow-${n}` };
  let json;
  try {
    json = JSON.parse(answer);
  } catch {
    json = undefined;
  }
  return {
    ok: status === 200 && isDeepStrictEqual(json, want),
    ms: Date.now() - started,
    detail: `${slowHeaders ? "slow headers and body" : "slow body"}: ${status} ${answer.slice(0, 100)} (${reply.error ?? "no error"})`,
  };
};

// ---- Connections opened and dropped

/** Drop number `i`: open a connection and drop it, in one of four ways; resolves once it is closed. */
const drop = async (i) => {
  const variant = i % 4;
  const reply = await raw((socket) => {
    if (variant === 0)
      socket.destroy(); // connect, then close at once
    else if (variant === 1) socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Le", () => socket.destroy());
    else if (variant === 2) {
      // A whole request for a slow answer, then gone before it comes.
      const body = JSON.stringify(request("sleep", [50], i));
      socket.write(head(body.length) + body, () => socket.destroy());
    } else {
      // A reset (RST) in the middle of a body, where the platform can send one.
      socket.write(head(100) + GOOD_BODY.slice(0, 10), () =>
        typeof socket.resetAndDestroy === "function" ? socket.resetAndDestroy() : socket.destroy(),
      );
    }
  });
  return {
    ok: reply.connected && reply.closed,
    detail: `variant ${variant}: connected ${reply.connected}, ${reply.error}`,
  };
};

// ---------------------------------------------------------------------------------------------
// The phases

const faults = async (label, count, limit, fault) => {
  const started = Date.now();
  const t = tallyOf(await pool(count, limit, fault));
  check(t.bad === 0, `${label}: ${t.total} handled (${Date.now() - started} ms; ${t.statuses})`, t.detail);
};

/**
 * Waits (at most about 10 s) until the server has at most one socket open: the one this very
 * `stats` request came on. Resolves to its last stats and how long the wait took.
 */
const settle = async () => {
  const started = Date.now();
  let last = await stats();
  while (last.sockets > 1 && Date.now() - started < 10_000) {
    await sleep(250);
    last = await stats();
  }
  return { ...last, ms: Date.now() - started };
};

const main = async () => {
  port = await listening();
  url = `http://${HOST}:${port}/`;
  console.log(
    `load: node ${process.version}, ${(await import("node:os")).cpus().length} cores, ` +
      `server ${url}, ${CONNECTIONS} connections, ${DURATION} s`,
  );
  await healthy("start");

  // 1. Warm-up, then the baseline.
  const warm = await load(10, 1);
  check(warm.tally.wrong === 0 && warm.result.errors === 0, "warm-up: right answers, no errors");
  await pool(20, 10, garbage);
  await pool(20, 10, cutOff);
  await pool(40, 20, drop);
  const baseline = await settle();
  check(baseline.gc === true, "the server runs with --expose-gc (memory figures are after gc)");
  figure(
    `baseline after warm-up and gc: heap ${mb(baseline.heapUsed)}, rss ${mb(baseline.rss)}, ` +
      `external ${mb(baseline.external)}, sockets ${baseline.sockets}`,
  );

  // 2. The load, with slow bodies alongside.
  const slowOnes = sleep(500).then(() => Promise.all(Array.from({ length: 10 }, (_, k) => slow(1_000_000 + k))));
  const full = await load(CONNECTIONS, DURATION);
  reportLoad(`autocannon ${CONNECTIONS} connections ${DURATION} s`, full);
  const slowResults = await slowOnes;
  const slowTally = tallyOf(slowResults);
  check(
    slowTally.bad === 0,
    `10 slow partial bodies during the load each got the right answer (${Math.min(...slowResults.map((r) => r.ms))}-${Math.max(...slowResults.map((r) => r.ms))} ms each)`,
    slowTally.detail,
  );
  await healthy("the load");

  // 3. Garbage.
  await faults("garbage (random bytes, malformed HTTP, random bodies)", 400, 50, garbage);
  await healthy("garbage");

  // 4. Bodies cut off mid-way.
  await faults("bodies cut off mid-way (destroyed, half-closed, chunked, 1 MB of 8 MB)", 400, 50, cutOff);
  await healthy("cut-off bodies");

  // 5. Slow partial bodies, alone.
  for (const slowHeaders of [false, true]) {
    const one = await slow(2_000_000 + Number(slowHeaders), slowHeaders);
    check(
      one.ok,
      `a ${slowHeaders ? "request with slow headers and body" : "slow partial body"} got the right answer (${one.ms} ms)`,
      one.detail,
    );
  }
  await healthy("slow bodies");

  // 6. 1,000 connections opened and dropped, 100 at a time.
  await faults("1000 connections opened and dropped, 100 at a time", 1000, 100, drop);
  await healthy("1000 dropped connections");

  // 7. Faults while the load goes on.
  const underLoad = Math.min(DURATION, 3);
  const during = load(CONNECTIONS, underLoad);
  const stopAt = Date.now() + underLoad * 1000 - 300;
  const mixed = [];
  const faulty = async () => {
    while (Date.now() < stopAt) {
      const i = mixed.length;
      mixed.push(undefined);
      mixed[i] = await [garbage, cutOff, drop][i % 3](i);
    }
  };
  await Promise.all(Array.from({ length: 30 }, faulty));
  const faultCount = mixed.length;
  reportLoad(`autocannon ${CONNECTIONS} connections ${underLoad} s with ${faultCount} faults alongside`, await during);
  const mixedTally = tallyOf(mixed);
  check(
    mixedTally.bad === 0,
    `the ${faultCount} faults under load were each handled (${mixedTally.statuses})`,
    mixedTally.detail,
  );
  await healthy("faults under load");

  // 8. Memory, sockets, log, stop.
  const after = await settle();
  const growth = after.heapUsed - baseline.heapUsed;
  const allowed = Math.max(5 * MB, 0.2 * baseline.heapUsed);
  figure(
    `after everything and gc: heap ${mb(after.heapUsed)} (${growth >= 0 ? "+" : ""}${mb(growth)}), ` +
      `rss ${mb(after.rss)} (${after.rss >= baseline.rss ? "+" : ""}${mb(after.rss - baseline.rss)}), ` +
      `external ${mb(after.external)}, sockets ${after.sockets} (after ${after.ms} ms), notifications received ${after.notes}`,
  );
  check(growth < allowed, `the heap after gc returned to baseline (within ${mb(allowed)})`, `${mb(growth)}`);
  // Request bodies are Buffers, outside the V8 heap: a leaked body shows in `external`.
  const externalGrowth = after.external - baseline.external;
  check(
    externalGrowth < 10 * MB,
    "external memory (Buffers) after gc returned to baseline (within 10 MB)",
    mb(externalGrowth),
  );
  // rss keeps pages the allocator has not handed back to the system, so it only gets a loose bound.
  check(after.rss - baseline.rss < 256 * MB, "rss grew by less than 256 MB", mb(after.rss - baseline.rss));
  check(
    after.sockets <= 1,
    "the server holds no leftover connection (only the one asking)",
    `${after.sockets} open after ${after.ms} ms`,
  );
  check(crashes.length === 0, "the server logged no crash", crashes.slice(0, 3).join(" | "));
  server.kill("SIGTERM");
  const stopped = await Promise.race([exited, sleep(5000).then(() => ({ code: "still running" }))]);
  check(stopped.code === 0, "the server stops with status 0 on SIGTERM", `${stopped.code}`);
};

try {
  await main();
} catch (thrown) {
  check(false, "the run", thrown?.stack ?? String(thrown));
} finally {
  stopServer();
}
console.log(`load: ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
