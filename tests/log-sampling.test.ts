/**
 * The default logger's sampling against a client that floods it, in processes of their own: the
 * development server over HTTP (a flood of differently worded errors must not hide a distinct one),
 * and the memory the sampler holds, measured after garbage collection (`--expose-gc`).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { HOST, killAll, requireBuild, ROOT, startCli, until, type Serving } from "./helpers/processes";

afterAll(() => killAll());

describe("a flood through the development server (one POST)", () => {
  let server: Serving;

  beforeAll(async () => {
    requireBuild();
    server = await startCli([join("tests", "fixtures", "log-flood-methods.mjs"), "--host", HOST, "--port", "0"]);
  });

  test("1,030 differently worded errors from one method do not hide a distinct error of another in the same batch", async () => {
    // The attack: each call makes `parse` throw an error quoting its params, so no two messages are
    // alike; the last member makes `verify` fail once.
    const body = JSON.stringify([
      ...Array.from({ length: 1030 }, (_, i) => ({ jsonrpc: "2.0", method: "parse", params: [`x${i}`], id: i })),
      { jsonrpc: "2.0", method: "verify", id: "last" },
    ]);
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });
    const answers = (await response.json()) as { id: unknown; error?: { code: number } }[];
    expect(answers).toHaveLength(1031);
    expect(answers.every((answer) => answer.error?.code === -32603)).toBe(true);
    // Listening for it is bounded: before the mend it only ever appeared inside a count.
    await until(
      () => server.stderr().includes("Error: signature check failed"),
      "the verify error on the server's stderr",
    );
    const stderr = server.stderr();
    expect(stderr).toMatch(
      /^rpcserver: method "verify" raised an exception\nError: signature check failed\n {4}at verify \(/m,
    );
    // The flood is summarized: a few of its errors whole in a second, not one per call.
    const whole = stderr.match(/^rpcserver: method "parse" raised an exception\nError: cannot parse "x\d+"\n {4}at /gm);
    expect(whole?.length).toBeGreaterThanOrEqual(3);
    expect(whole?.length).toBeLessThan(100);
    expect(stderr).toMatch(/^rpcserver: method "parse" raised an exception \[sampled: 99 more like it not logged/m);
  });
});

describe("the memory the sampler holds, in bytes", () => {
  /** Runs `script` (an ES module body given `rpcserver` as `lib`) in `node --expose-gc`; answers what it prints on stdout. */
  const measure = (body: string): { before: number; after: number; written: number } => {
    requireBuild();
    const entry = pathToFileURL(join(ROOT, "dist", "esm", "index.js")).href;
    const script = `import * as lib from ${JSON.stringify(entry)};
const settle = () => new Promise((resolve) => setImmediate(resolve));
const heap = async () => { for (let i = 0; i < 4; i++) { await settle(); globalThis.gc(); } return process.memoryUsage().heapUsed; };
// Count what is written, and write nothing: the errors are 100 KB each.
let written = 0;
console.error = (text) => { written += String(text).length; };
${body}`;
    const child = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
      encoding: "utf8",
      maxBuffer: 1 << 20,
    });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    return JSON.parse(child.stdout) as { before: number; after: number; written: number };
  };

  /** Text of `n` characters, one of a kind for `i` (a string of its own, as a request's would be). */
  const QUOTE = `const quote = (i) => String(i).padEnd(100_000, "x" + i);`;

  test("1,024 errors quoting 100 KB each, of 1,024 kinds (the message names the kind): the heap grows by less than 4 MB after GC", () => {
    const { before, after, written } = measure(`${QUOTE}
const before = await heap();
for (let i = 0; i < 1024; i++) lib.defaultLogger.error("flood " + quote(i), new Error(quote(i + 1)));
await settle();
const after = await heap();
console.log(JSON.stringify({ before, after, written }));`);
    // Everything was written (so it was all held at some point), and is not held now.
    expect(written).toBeGreaterThan(1024 * 200_000);
    expect(after - before).toBeLessThan(4 * 1024 * 1024);
  });

  test("1,024 methods throwing errors that quote 100 KB of their params: the heap grows by less than 4 MB after GC", () => {
    const { before, after, written } = measure(`${QUOTE}
const methods = {};
for (let i = 0; i < 1024; i++) methods["m" + i] = (text) => { throw new TypeError(text); };
const bodies = Array.from({ length: 1024 }, (_, i) => JSON.stringify({ jsonrpc: "2.0", method: "m" + i, params: [quote(i)], id: i }));
const before = await heap();
for (const body of bodies) lib.dispatch(body, methods);
await settle();
const after = await heap();
console.log(JSON.stringify({ before, after, written }));`);
    expect(written).toBeGreaterThan(1024 * 100_000);
    expect(after - before).toBeLessThan(4 * 1024 * 1024);
  });
});
