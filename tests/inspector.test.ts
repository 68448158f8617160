/**
 * Issue 26, the inspector page without a browser: `inspectorPage` (the HTML for a URL, the URL and
 * the title escaped, the policy's hashes those of the script and style sheet actually in the page,
 * its size, nothing in it that a policy or an injection could trip on), and where the development
 * server serves it: a browser's GET of `/` only, everything else as before (405 with `Allow: POST`),
 * behind the browser guard, and off with `inspector: false`. The page in Chromium:
 * tests/inspector-browser.test.ts.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { Script } from "node:vm";
import { gzipSync } from "node:zlib";
import { INSPECTOR_HEADERS, inspectorPage } from "../src/inspector";
import { SCRIPT, SCRIPT_SHA256, STYLE, STYLE_SHA256 } from "../src/internal/inspector/assets";
import { acceptsHtml } from "../src/internal/http/inspector-route";
import * as t from "io-ts";
import { openRpcDocument } from "../src";
import { withParams } from "../src/methods";
import { Success } from "../src/result";
import { serve } from "../src/server";
import { requireBuild, ROOT } from "./helpers/processes";
import { recordLogs } from "./support";

/** The budget for the page, gzipped (it has no other asset). */
const MAX_GZIP_BYTES = 30 * 1024;

const sha256 = (text: string): string => `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;

/** The text of every `<tag>...</tag>` in the HTML. */
const contents = (html: string, tag: string): string[] =>
  [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map((match) => match[1] ?? "");

/** One directive of the page's policy, as its sources. */
const directive = (name: string): string[] =>
  (INSPECTOR_HEADERS["Content-Security-Policy"].split("; ").find((part) => part.startsWith(`${name} `)) ?? "")
    .split(" ")
    .slice(1);

describe("inspectorPage", () => {
  const html = inspectorPage({ url: "/rpc" });

  test("one HTML document for the URL: the URL in a meta element, a default title", () => {
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(html).toContain('<meta name="rpcserver-url" content="/rpc">');
    expect(html).toContain("<title>JSON-RPC inspector</title>");
    expect(html).toContain('<meta charset="utf-8">');
    expect(html.trimEnd().endsWith("</html>")).toBe(true);
  });

  test("the URL and the title are escaped: markup in them stays text", () => {
    const page = inspectorPage({
      url: `/rpc?a=1&b="x"><script>alert(1)</script>`,
      title: "</title><img src=x onerror='1'>",
    });
    expect(page).toContain(
      '<meta name="rpcserver-url" content="/rpc?a=1&amp;b=&quot;x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">',
    );
    expect(page).toContain("<title>&lt;/title&gt;&lt;img src=x onerror=&#39;1&#39;&gt;</title>");
    // Only the page's own script and style sheet: one of each, whatever the URL and title hold.
    expect(contents(page, "script")).toEqual([SCRIPT]);
    expect(contents(page, "style")).toEqual([STYLE]);
  });

  test("the policy's hashes are those of the script and the style sheet in the page (computed by the build)", () => {
    const [script, ...otherScripts] = contents(html, "script");
    const [style, ...otherStyles] = contents(html, "style");
    expect([otherScripts, otherStyles]).toEqual([[], []]);
    expect(sha256(script ?? "")).toBe(SCRIPT_SHA256);
    expect(sha256(style ?? "")).toBe(STYLE_SHA256);
    expect(directive("script-src")).toEqual([`'${sha256(script ?? "")}'`]);
    expect(directive("style-src")).toEqual([`'${sha256(style ?? "")}'`]);
  });

  test("the policy: nothing but the page's own, connections to its own origin, no HTML from strings", () => {
    expect(INSPECTOR_HEADERS).toEqual({
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": expect.any(String) as string,
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      "Cache-Control": "no-store",
    });
    expect(Object.isFrozen(INSPECTOR_HEADERS)).toBe(true);
    expect(directive("default-src")).toEqual(["'none'"]);
    expect(directive("connect-src")).toEqual(["'self'"]);
    expect(directive("img-src")).toEqual(["data:"]);
    expect(directive("base-uri")).toEqual(["'none'"]);
    expect(directive("form-action")).toEqual(["'none'"]);
    expect(directive("frame-ancestors")).toEqual(["'none'"]);
    expect(directive("require-trusted-types-for")).toEqual(["'script'"]);
  });

  test("the script: valid JavaScript, no global of its own, no way to parse a string as HTML", () => {
    expect(() => new Script(SCRIPT)).not.toThrow();
    expect(SCRIPT.startsWith('"use strict";\n(() => {')).toBe(true);
    expect(SCRIPT.trimEnd().endsWith("})();")).toBe(true);
    for (const sink of ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"]) {
      expect({ sink, found: SCRIPT.includes(sink) }).toEqual({ sink, found: false });
    }
    expect(SCRIPT).not.toMatch(/<\/script/i);
    expect(STYLE).not.toMatch(/<\/style/i);
  });

  test("the markup: no inline event handler, no style attribute, no asset from elsewhere", () => {
    const markup = html.replace(/<script>[\s\S]*<\/script>/, "").replace(/<style>[\s\S]*<\/style>/, "");
    expect(markup).not.toMatch(/\son[a-z]+\s*=/i);
    expect(markup).not.toMatch(/\sstyle\s*=/i);
    // The icon, and the skip link to the Request section, on the page itself.
    expect([...markup.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1])).toEqual([
      "data:,",
      "#request-title",
    ]);
  });

  test(`its size: at most ${MAX_GZIP_BYTES / 1024} KiB gzipped (-9)`, () => {
    const raw = Buffer.byteLength(html);
    const gzip = gzipSync(html, { level: 9 }).length;
    expect(raw).toBeGreaterThan(10 * 1024);
    expect(gzip).toBeLessThanOrEqual(MAX_GZIP_BYTES);
  });

  test("the script knows the one param rpc.discover describes as the whole params value", () => {
    const methods = {
      sum: withParams(t.array(t.number), () => Success(0)),
      dict: withParams(t.record(t.string, t.number), () => Success(0)),
    };
    const document = openRpcDocument(methods, { title: "t", version: "1" }) as unknown as {
      methods: Array<Record<string, unknown>>;
    };
    expect(document.methods).toHaveLength(2);
    for (const method of document.methods) {
      const [param, ...others] = method["params"] as Array<{ name: string; description: string }>;
      expect({ structure: method["paramStructure"], others, name: param?.name }).toEqual({
        structure: undefined,
        others: [],
        name: "params",
      });
      // The page sends such a param's value as the params themselves, by this description.
      expect(SCRIPT).toContain(JSON.stringify(param?.description));
    }
  });

  test("a url or title that is not a string is a TypeError", () => {
    expect(() => inspectorPage({} as never)).toThrow(
      new TypeError("inspectorPage: url must be a string, got undefined"),
    );
    expect(() => inspectorPage({ url: "/", title: 3 } as never)).toThrow(
      new TypeError("inspectorPage: title must be a string, got number"),
    );
  });
});

describe("which Accept is a browser's: it names text/html itself, with a quality above 0", () => {
  test.each([
    ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", true],
    ["TEXT/HTML", true],
    ["application/json, text/html;q=0.5", true],
    ["*/*", false],
    ["text/*", false],
    ["text/html;q=0", false],
    ["application/json", false],
    ["", false],
  ] as const)("%j: %s", (accept, expected) => {
    expect(acceptsHtml(accept)).toBe(expected);
  });

  test("no Accept at all", () => {
    expect(acceptsHtml(undefined)).toBe(false);
  });
});

describe("the development server", () => {
  const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
  const methods = { echo: (value: unknown) => Success(value) };
  let logs: ReturnType<typeof recordLogs>;
  beforeEach(() => (logs = recordLogs()));
  afterEach(() => logs.restore());

  /** Runs `body` against a server started with `options`, then closes it. */
  const withServer = async (
    options: Parameters<typeof serve>[2],
    body: (url: string, port: number) => Promise<void>,
  ): Promise<void> => {
    const server = await serve("127.0.0.1", 0, { methods, ...options });
    const { port } = server.address() as AddressInfo;
    try {
      await body(`http://127.0.0.1:${port}/`, port);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  };

  const get = async (url: string, accept?: string): Promise<Response> => {
    const response = await fetch(url, accept === undefined ? {} : { headers: { Accept: accept } });
    await response.arrayBuffer();
    return response;
  };

  test("a browser's GET of / answers the page, with its headers; its log line says where", async () => {
    await withServer({}, async (url) => {
      const response = await fetch(`${url}?from=bookmark`, { headers: { Accept: BROWSER } });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(inspectorPage({ url: "/", title: "JSON-RPC service (inspector)" }));
      for (const [name, value] of Object.entries(INSPECTOR_HEADERS)) expect(response.headers.get(name)).toBe(value);
      expect(response.headers.get("vary")).toBe("Accept");
      const lines = logs.entries.map((entry) => `${entry.level} ${entry.args.map(String).join(" ")}`);
      expect(lines).toContain(`warn rpcserver: inspector: open ${url} in a browser to see and call the methods`);
      expect(lines).toContain("info rpcserver: GET /?from=bookmark 200 (inspector page)");
    });
  });

  test("the page's title is the service's, from the openrpc option", async () => {
    await withServer({ openrpc: { title: "Bank <dev>" } }, async (url) => {
      const response = await fetch(url, { headers: { Accept: "text/html" } });
      expect(await response.text()).toContain("<title>Bank &lt;dev&gt; (inspector)</title>");
    });
  });

  test("everything else keeps its 405 with Allow: POST; POST is unchanged", async () => {
    await withServer({}, async (url) => {
      // The 405 of a GET of / varies by Accept, as the page does: a browser's Accept gets the page.
      for (const [path, accept, vary] of [
        ["", "*/*", "Accept"],
        ["", undefined, "Accept"],
        ["?q=1", "application/json", "Accept"],
        ["", "text/html;q=0", "Accept"],
        ["other", BROWSER, null],
        ["index.html", "text/html", null],
      ] as const) {
        const response = await get(`${url}${path}`, accept);
        const headers = { allow: response.headers.get("allow"), vary: response.headers.get("vary") };
        expect({ path, accept, status: response.status, ...headers }).toEqual({
          path,
          accept,
          status: 405,
          allow: "POST",
          vary,
        });
      }
      for (const method of ["HEAD", "PUT", "DELETE"]) {
        const response = await fetch(url, { method, headers: { Accept: BROWSER } });
        expect({ method, status: response.status, allow: response.headers.get("allow") }).toEqual({
          method,
          status: 405,
          allow: "POST",
        });
      }
      const posted = await fetch(url, {
        method: "POST",
        headers: { Accept: BROWSER, "Content-Type": "application/json" },
        body: '{"jsonrpc":"2.0","method":"echo","params":["hi"],"id":1}',
      });
      expect(await posted.text()).toBe('{"jsonrpc":"2.0","result":"hi","id":1}');
    });
  });

  test("inspector: false: a browser's GET gets 405 like any other, and nothing is logged of a page", async () => {
    await withServer({ inspector: false }, async (url) => {
      const response = await get(url, BROWSER);
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      expect(response.headers.get("vary")).toBe(null); // without a page, nothing varies by Accept
      expect(logs.entries.some((entry) => String(entry.args[0]).includes("inspector"))).toBe(false);
    });
  });

  test("the browser guard comes first: a rebound name gets 403, not the page", async () => {
    await withServer({}, async (_url, port) => {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const sent = request(
          { host: "127.0.0.1", port, path: "/", headers: { Host: `evil.example:${port}`, Accept: BROWSER } },
          (response) => {
            response.resume();
            resolve(response.statusCode);
          },
        );
        sent.on("error", reject);
        sent.end();
      });
      expect(status).toBe(403);
    });
  });

  test("an inspector option that is not a boolean is a TypeError", async () => {
    await expect(serve("127.0.0.1", 0, { inspector: "yes" as never })).rejects.toThrow(
      new TypeError("serve: inspector must be a boolean, got string"),
    );
  });
});

/**
 * What a Node process gets from the built package: the page and its policy from dist/esm and
 * dist/cjs (the build assembles the script and computes the hashes: scripts/inspector-page.cjs),
 * and what the built development server serves.
 */
const BUILT = `
import { createRequire } from "node:module";
const esm = await import(process.argv[1] + "/dist/esm/inspector.js");
const cjs = createRequire(import.meta.url)(process.argv[1] + "/dist/cjs/inspector.cjs");
const { serve } = await import(process.argv[1] + "/dist/esm/server.js");
console.info = console.warn = () => {};
const server = await serve("127.0.0.1", 0, { methods: {} });
const response = await fetch("http://127.0.0.1:" + server.address().port + "/", { headers: { Accept: "text/html" } });
const served = { html: await response.text(), policy: response.headers.get("content-security-policy") };
server.close();
const page = (m) => ({ html: m.inspectorPage({ url: "/rpc" }), policy: m.INSPECTOR_HEADERS["Content-Security-Policy"] });
process.stdout.write(JSON.stringify({ esm: page(esm), cjs: page(cjs), served }));
`;

describe("the built package", () => {
  test("the policy names the hashes of the script and style sheet in the page: ESM, CommonJS and the server's", () => {
    requireBuild();
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", BUILT, ROOT], { encoding: "utf8" });
    const builds = JSON.parse(output) as Record<string, { html: string; policy: string }>;
    expect(Object.keys(builds)).toEqual(["esm", "cjs", "served"]);
    for (const [name, { html, policy }] of Object.entries(builds)) {
      const [script, ...otherScripts] = contents(html, "script");
      const [style, ...otherStyles] = contents(html, "style");
      const sources = (directive: string): string[] =>
        (policy.split("; ").find((part) => part.startsWith(`${directive} `)) ?? "").split(" ").slice(1);
      expect({ name, otherScripts, otherStyles }).toEqual({ name, otherScripts: [], otherStyles: [] });
      expect({ name, script: sources("script-src") }).toEqual({ name, script: [`'${sha256(script ?? "")}'`] });
      expect({ name, style: sources("style-src") }).toEqual({ name, style: [`'${sha256(style ?? "")}'`] });
      // The page the sources make under jest (scripts/jest-inspector-assets.cjs) is the built one.
      expect({ name, same: script === SCRIPT && style === STYLE }).toEqual({ name, same: true });
    }
  });
});
