// `fetchHandler`'s conformance cases (rpcserver/fetch), runnable on any runtime, against any way of
// reaching the handler: `runFetchCases(send)` where `send({ method, url, headers, body })` resolves
// to `{ status, header(name), text }`. Two ways use it: the handler called in-process with the
// runtime's own `Request` (tests/runtime/run.mjs on Node 18-26, Bun and Deno), and the handler
// served by the runtime's own server over a real socket (tests/runtime/fetch-served.mjs: Bun.serve,
// Deno.serve and workerd). The handler under test is `fetchService` below, built from the package's
// exports, so that every runtime answers the same service.

/**
 * The service every run answers: `add`, a notification `log`, a streaming `count`, `later` (answers
 * after `ms`), a body limit of 1 KiB, a heartbeat every 50 ms.
 */
export const fetchService = (rpc, fetch) =>
  fetch.fetchHandler(
    {
      add: (a, b) => rpc.Success(a + b),
      log: () => rpc.Success(null),
      count: async function* (to) {
        for (let i = 1; i <= to; i++) yield i;
        return rpc.Success(`counted to ${to}`);
      },
      later: async (ms) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return rpc.Success("late");
      },
    },
    { maxBodyBytes: 1024, heartbeatMs: 50 },
  );

const call = (method, params, id = 1) => JSON.stringify({ jsonrpc: "2.0", method, params, id });
const notify = (method) => JSON.stringify({ jsonrpc: "2.0", method });
const json = { "Content-Type": "application/json" };
const events = { ...json, Accept: "application/json, text/event-stream" };

/** The data lines of a server-sent event stream, parsed. */
const dataOf = (text) =>
  text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));

const same = (actual, expected) => JSON.stringify(actual) === JSON.stringify(expected);

/** Each case: a name, and a function of `send` that returns what went wrong ("" when nothing did). */
const CASES = [
  [
    "a single call: 200 JSON",
    async (send, base) => {
      const r = await send({ method: "POST", url: base, headers: json, body: call("add", [1, 2]) });
      const expected = [200, "application/json", '{"jsonrpc":"2.0","result":3,"id":1}'];
      const got = [r.status, r.header("content-type"), r.text];
      return same(got, expected) ? "" : `got ${JSON.stringify(got)}`;
    },
  ],
  [
    "a batch: one array, the notification left out",
    async (send, base) => {
      const body = `[${call("add", [1, 2], 1)},${notify("log")},${call("add", [3, 4], 2)}]`;
      const r = await send({ method: "POST", url: base, headers: json, body });
      const expected = [
        { jsonrpc: "2.0", result: 3, id: 1 },
        { jsonrpc: "2.0", result: 7, id: 2 },
      ];
      return r.status === 200 && same(JSON.parse(r.text), expected) ? "" : `got ${r.status} ${r.text}`;
    },
  ],
  [
    "a notification: 204, and 202 to a client that accepts events",
    async (send, base) => {
      const plain = await send({ method: "POST", url: base, headers: json, body: notify("log") });
      const mcp = await send({ method: "POST", url: base, headers: events, body: notify("log") });
      const got = [plain.status, plain.text, mcp.status, mcp.text];
      return same(got, [204, "", 202, ""]) ? "" : `got ${JSON.stringify(got)}`;
    },
  ],
  [
    "a parse error: 200 and -32700 with id null",
    async (send, base) => {
      const r = await send({ method: "POST", url: base, headers: json, body: "{not json" });
      const answer = JSON.parse(r.text);
      return r.status === 200 && answer.error?.code === -32700 && answer.id === null ? "" : `got ${r.status} ${r.text}`;
    },
  ],
  [
    "a streamed method over server-sent events: each value in order, then the answer",
    async (send, base) => {
      const r = await send({ method: "POST", url: base, headers: events, body: call("count", [3], 7) });
      const expected = [
        { jsonrpc: "2.0", method: "$/progress", params: { token: 7, value: 1 } },
        { jsonrpc: "2.0", method: "$/progress", params: { token: 7, value: 2 } },
        { jsonrpc: "2.0", method: "$/progress", params: { token: 7, value: 3 } },
        { jsonrpc: "2.0", result: "counted to 3", id: 7 },
      ];
      const ok = r.status === 200 && r.header("content-type") === "text/event-stream" && same(dataOf(r.text), expected);
      return ok ? "" : `got ${r.status} ${r.header("content-type")} ${JSON.stringify(r.text)}`;
    },
  ],
  [
    "a heartbeat: an answer slower than heartbeatMs is an event stream, a comment first, then the answer",
    async (send, base) => {
      // The heartbeat's timer is armed as the request starts, before the method's own (200 ms): it fires first.
      const r = await send({ method: "POST", url: base, headers: events, body: call("later", [200], 8) });
      const ok =
        r.status === 200 &&
        r.header("content-type") === "text/event-stream" &&
        r.text.startsWith(":\n\n") &&
        same(dataOf(r.text), [{ jsonrpc: "2.0", result: "late", id: 8 }]);
      return ok ? "" : `got ${r.status} ${r.header("content-type")} ${JSON.stringify(r.text)}`;
    },
  ],
  [
    "a body over the limit: 413 and a JSON-RPC error",
    async (send, base) => {
      const r = await send({ method: "POST", url: base, headers: json, body: call("add", ["x".repeat(2000), 1]) });
      const expected = {
        jsonrpc: "2.0",
        error: { code: -32600, message: "Invalid Request", data: "the body is over 1024 bytes" },
        id: null,
      };
      return r.status === 413 && same(JSON.parse(r.text), expected) ? "" : `got ${r.status} ${r.text}`;
    },
  ],
  [
    "an encoded body (Content-Encoding: gzip): 415 with Accept-Encoding: identity, not dispatched",
    async (send, base) => {
      // Really gzipped, so that a runtime that decoded it before the handler (none does) would show here.
      const zipped = new Uint8Array(
        await new globalThis.Response(
          new globalThis.Blob([call("add", [1, 2])]).stream().pipeThrough(new globalThis.CompressionStream("gzip")),
        ).arrayBuffer(),
      );
      const r = await send({
        method: "POST",
        url: base,
        headers: { ...json, "Content-Encoding": "gzip" },
        body: zipped,
      });
      const got = [r.status, r.header("accept-encoding"), JSON.parse(r.text).error?.data];
      const expected = [415, "identity", "the body is encoded (Content-Encoding: gzip): send it unencoded"];
      return same(got, expected) ? "" : `got ${r.status} ${r.text}`;
    },
  ],
  [
    "rpc.discover: the methods' OpenRPC document",
    async (send, base) => {
      const r = await send({ method: "POST", url: base, headers: json, body: call("rpc.discover", undefined) });
      const names = JSON.parse(r.text).result?.methods?.map((m) => m.name);
      return same(names, ["add", "log", "count", "later"]) ? "" : `got ${r.status} ${r.text.slice(0, 200)}`;
    },
  ],
  [
    "GET: the inspector page for a browser, 405 with Allow: POST otherwise",
    async (send, base) => {
      const page = await send({ method: "GET", url: base, headers: { Accept: "text/html" } });
      const other = await send({ method: "GET", url: base, headers: { Accept: "application/json" } });
      const got = [
        page.status,
        /^text\/html/.test(page.header("content-type") ?? ""),
        other.status,
        other.header("allow"),
      ];
      return same(got, [200, true, 405, "POST"]) ? "" : `got ${JSON.stringify(got)}`;
    },
  ],
  [
    "DNS rebinding: a request addressed to a name not allowed is refused 403, and nothing runs",
    async (send, base, rebound) => {
      const target = rebound(base);
      const r = await send({
        method: "POST",
        url: target.url,
        headers: { ...json, ...target.headers },
        body: call("add", [1, 2]),
      });
      return r.status === 403 && !r.text.includes('"result"') ? "" : `got ${r.status} ${r.text}`;
    },
  ],
];

/**
 * Runs every case through `send`. `base` is the handler's URL; `rebound(base)` gives the `url` (and
 * `headers` where the way of sending sets Host itself) of a request addressed to evil.example.
 */
export const runFetchCases = async (send, base, rebound) => {
  const failures = [];
  for (const [name, run] of CASES) {
    let why;
    try {
      why = await run(send, base, rebound);
    } catch (error) {
      why = `threw ${error instanceof Error ? error.stack : String(error)}`;
    }
    if (why !== "") failures.push(`fetchHandler: ${name}: ${why}`);
  }
  return { passed: CASES.length - failures.length, failed: failures.length, failures };
};

/** `send` of the handler called in-process, with this runtime's own `Request`. */
export const inProcess =
  (handler) =>
  async ({ method, url, headers, body }) => {
    const response = await handler(new globalThis.Request(url, { method, headers, body }));
    return { status: response.status, header: (name) => response.headers.get(name), text: await response.text() };
  };

/** In-process, the rebound request is one whose URL names evil.example (a Request built here carries no Host). */
export const reboundUrl = (base) => ({ url: base.replace("//localhost", "//evil.example") });
