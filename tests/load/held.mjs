/**
 * Connections held open on purpose, against the development server: how long each one lasts.
 * Too slow for CI (Node's timeouts are a minute and more); run by hand, after `npm run build`:
 *
 *     node tests/load/held.mjs [--wait SECONDS]
 *
 * Starts `node dist/esm/cli.js tests/load/fixture-methods.mjs --host 127.0.0.1 --port 0`, opens
 * three connections on the loopback interface, and prints when the server closed each one and
 * what it sent first:
 *
 * - silent: connects and sends nothing;
 * - slow headers: a request line, then a header line every 5 s, never the end of the headers;
 * - stalled body: whole headers, then 1 byte of a 100-byte body.
 *
 * Node's own limits apply (the server sets none): `headersTimeout` (60 s) for the first two,
 * `requestTimeout` (300 s) for the third, both checked every 30 s. Waits `--wait` seconds
 * (default 100) at most. Exit status 1 when the silent or slow-headers connection is still open at
 * the end; the server is killed whatever happens.
 */
import { spawn } from "node:child_process";
import * as net from "node:net";
import { dirname, join, resolve } from "node:path";
import { clearInterval, setInterval } from "node:timers";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const HOST = "127.0.0.1";
const { values: args } = parseArgs({ options: { wait: { type: "string", default: "100" } } });
const WAIT_S = Number(args.wait);
if (!(Number.isInteger(WAIT_S) && WAIT_S >= 1 && WAIT_S <= 1000)) {
  console.error(`held: --wait must be an integer number of seconds from 1 to 1000, got ${args.wait}`);
  process.exit(2);
}

const server = spawn(
  process.execPath,
  [join(ROOT, "dist", "esm", "cli.js"), join("tests", "load", "fixture-methods.mjs"), "--host", HOST, "--port", "0"],
  { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
);
let log = "";
server.stderr.setEncoding("utf8").on("data", (text) => (log += text.slice(0, 10_000)));
const port = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`no listening line after 10 s:\n${log}`)), 10_000);
  server.stderr.on("data", () => {
    const match = /listening on http:\/\/\S+:(\d+)\//.exec(log);
    if (match !== null) {
      clearTimeout(timer);
      resolve(Number(match[1]));
    }
  });
}).catch((error) => {
  server.kill("SIGKILL");
  throw error;
});

const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
const results = new Map();

/**
 * Records when the server closes `socket` and the status it sent. The socket must be read (a
 * `data` listener) to see the server's close at all: unread, it looks open for ever.
 */
const watch = (name, socket) => {
  let text = "";
  socket.setEncoding("latin1");
  socket.on("data", (chunk) => (text += chunk));
  socket.on("error", () => undefined);
  socket.on("close", () => {
    const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? "nothing";
    results.set(name, `closed by the server after ${seconds()} s (sent ${status})`);
  });
  return socket;
};

const silent = watch("silent", net.connect(port, HOST));
const slowHeaders = watch(
  "slow headers",
  net.connect(port, HOST, () => {
    slowHeaders.write(`POST / HTTP/1.1\r\nHost: ${HOST}\r\n`);
    let n = 0;
    const drip = setInterval(() => slowHeaders.write(`X-Drip-${(n += 1)}: y\r\n`), 5000);
    slowHeaders.on("close", () => clearInterval(drip));
  }),
);
const stalled = watch(
  "stalled body",
  net.connect(port, HOST, () => stalled.write(`POST / HTTP/1.1\r\nHost: ${HOST}\r\nContent-Length: 100\r\n\r\n{`)),
);

await new Promise((resolve) => setTimeout(resolve, WAIT_S * 1000));
const sockets = { silent, "slow headers": slowHeaders, "stalled body": stalled };
for (const [name, socket] of Object.entries(sockets)) {
  if (!results.has(name)) results.set(name, `still open after ${seconds()} s`);
  socket.destroy();
}
server.kill("SIGKILL");

let failed = 0;
console.log(`held: node ${process.version}, server on port ${port}, waited ${WAIT_S} s`);
for (const name of Object.keys(sockets)) {
  const line = results.get(name);
  const fail = name !== "stalled body" && line.startsWith("still open");
  if (fail) failed += 1;
  console.log(`${fail ? "FAIL" : "    "} ${name}: ${line}`);
}
process.exitCode = failed === 0 ? 0 : 1;
