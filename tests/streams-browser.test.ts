/**
 * Issue 24, "headless Chromium reading a streamed call over `fetch` with the client": a page in
 * Chromium (tests/fixtures/streams-browser-page.mjs, bundled with the BUILT package by
 * tests/fixtures/streams-browser.mjs) calls this test's development server (`serve`, a contract
 * whose entries `stream`) with `http` and `open`, at the server's origin:
 *
 * - `lockstep` yields each value only once the page has acknowledged the one before with a call
 *   of its own: the values must reach the page as they are sent, not with the answer;
 * - `endless` is left after 2 values, and its generator's `finally` runs here, on the server;
 * - `count` is folded with `foldStream`.
 *
 * Chromium comes from `apt-get install chromium` (scripts/test-runtimes.mjs --install, which
 * `npm test` runs first); the package must be built (`npm run build`, which `npm test` runs first).
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { execFile } from "node:child_process";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { contract, implement, serve, type DevServer } from "../src";
import { recordLogs } from "./support";

const ROOT = join(__dirname, "..");

// Playwright (which drives Chromium) needs Node 20 or later: on Node 18 the case is skipped, by name.
const major = Number(process.versions.node.split(".")[0]);
const run = major >= 20 ? test : test.skip;
const suffix = major >= 20 ? "" : ` (skipped on node ${process.versions.node}: Playwright needs Node 20 or later)`;

/** A promise and its resolver. */
const deferred = <A = void>(): { promise: Promise<A>; resolve: (value: A) => void } => {
  let resolve: (value: A) => void = () => undefined;
  const promise = new Promise<A>((r) => (resolve = r));
  return { promise, resolve };
};

const api = contract({
  lockstep: { params: t.tuple([t.number]), stream: t.number, result: t.string },
  ack: { params: t.tuple([t.number]), result: t.null },
  endless: { stream: t.number, result: t.string },
  count: { params: t.tuple([t.number]), stream: t.number, result: t.string },
});

/** What the server saw: the acknowledgements, and how `endless` ended. */
type Deferred = ReturnType<typeof deferred<void>>;
const acks = new Map<number, Deferred>();
const ackOf = (n: number): Deferred => {
  const known = acks.get(n);
  if (known !== undefined) return known;
  const made = deferred();
  acks.set(n, made);
  return made;
};
const endless = { yielded: 0, finished: deferred<number>() };

const methods = implement(api, {
  lockstep: async function* (to) {
    for (let i = 1; i <= to; i++) {
      yield i;
      await ackOf(i).promise;
    }
    return E.right(`in step to ${to}`);
  },
  ack: (n) => {
    ackOf(n).resolve();
    return E.right(null);
  },
  endless: async function* () {
    try {
      for (let i = 1; ; i++) {
        endless.yielded = i;
        yield i;
      }
    } finally {
      endless.finished.resolve(endless.yielded);
    }
  },
  count: async function* (to) {
    for (let i = 1; i <= to; i++) yield i;
    return E.right(`counted to ${to}`);
  },
});

/** Each answer's `Content-Type` as the server wrote it, by method. */
const heads: Array<{ readonly method: string; readonly type: string }> = [];

let dev: DevServer;
let url: string;
let logs: ReturnType<typeof recordLogs>;
beforeAll(async () => {
  logs = recordLogs();
  dev = await serve("127.0.0.1", 0, { methods, openrpc: false });
  url = `http://127.0.0.1:${(dev.address() as AddressInfo).port}/`;
  // Watches beside the server's own handler: the head it writes, never the body.
  (dev as unknown as Server).prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    const writeHead = res.writeHead.bind(res) as (status: number, headers?: Record<string, unknown>) => ServerResponse;
    res.writeHead = ((status: number, headers?: Record<string, unknown>) => {
      const type = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === "content-type")?.[1];
      const { method } = JSON.parse(Buffer.concat(chunks).toString() || "{}") as { method?: string };
      heads.push({ method: method ?? "", type: String(type) });
      return writeHead(status, headers);
    }) as ServerResponse["writeHead"];
  });
});
afterAll(async () => {
  logs.restore();
  dev.closeAllConnections();
  await new Promise<void>((resolve) => dev.close(() => resolve()));
});

/** Runs the page in Chromium (a child process: this one serves the page's calls meanwhile). */
const chromium = (): Promise<Record<string, unknown>> =>
  new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["tests/fixtures/streams-browser.mjs", url],
      { cwd: ROOT, encoding: "utf8", timeout: 120_000 },
      (error, stdout, stderr) => {
        if (error !== null) return reject(new Error(`${error.message}\n${stdout}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split("\n").pop() as string) as Record<string, unknown>);
      },
    );
  });

run(
  `a page in Chromium reads streamed calls over fetch as they arrive, leaves one early (the server's generator stops), folds one${suffix}`,
  async () => {
    const seen = await chromium();
    expect(seen["errors"]).toEqual([]);
    expect(seen["hasProcess"]).toBe(false);
    expect(seen["origin"]).toBe(new URL(url).origin);
    // Each value came while the server waited for the page's acknowledgement of the one before.
    expect(seen["arrivals"]).toEqual([1, 2, 3, 4]);
    expect(seen["lockstep"]).toEqual({ _tag: "Right", right: "in step to 4" });
    expect([...acks.keys()]).toEqual([1, 2, 3, 4]);
    // Leaving after 2 values: the result is aborted, and the server's generator stopped (its finally ran).
    expect(seen["taken"]).toEqual([1, 2]);
    expect(seen["stopped"]).toMatchObject({ _tag: "Left", left: { _tag: "TransportError", reason: "aborted" } });
    expect(await endless.finished.promise).toBeGreaterThanOrEqual(2);
    expect(seen["folded"]).toEqual({ _tag: "Right", right: [15, "counted to 5"] });
    // The streamed calls were answered as event streams, the acknowledgements as JSON.
    expect(heads).toEqual([
      { method: "lockstep", type: "text/event-stream" },
      ...[1, 2, 3, 4].map(() => ({ method: "ack", type: "application/json" })),
      { method: "endless", type: "text/event-stream" },
      { method: "count", type: "text/event-stream" },
    ]);
  },
  150_000,
);
