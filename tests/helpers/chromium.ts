/**
 * Headless Chromium for the jest tests that drive a page themselves (tests/inspector-browser.test.ts):
 * Debian's chromium (as tests/runtime/chromium.mjs finds it) launched by playwright-core, and axe-core
 * run in the page.
 *
 * playwright-core is loaded with `require`, and described here by the few members the tests use:
 * its own declarations name the DOM's types, which the project's `lib` (ES2022, no DOM) does not
 * have. Code that runs in the page is passed as a string for the same reason, and only to
 * `evaluate` and `addInitScript`, which run it once through the DevTools protocol: never to
 * `waitForFunction`, which compiles a string in the page each time it polls, and the inspector's
 * Content-Security-Policy refuses that (the wait then fails on a slow machine only). Wait with a
 * locator instead (`waitFor`), as `said` does.
 *
 * Also here, what the inspector's browser tests share: the page's helpers (things found by role
 * and name), and `chromiumSuite`, the hooks of a suite (the browser, the pages opened and their
 * problems, servers of this process to open the page on).
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { INSPECTOR_HEADERS, inspectorPage } from "../../src/inspector";
import { serve, type ServeOptions } from "../../src/server";
import { recordLogs } from "../support";

/** Playwright's `Locator`: the members the tests use. */
export interface Locator {
  click(): Promise<void>;
  fill(value: string): Promise<void>;
  focus(): Promise<void>;
  check(): Promise<void>;
  count(): Promise<number>;
  inputValue(): Promise<string>;
  textContent(): Promise<string | null>;
  innerText(): Promise<string>;
  isVisible(): Promise<boolean>;
  getAttribute(name: string): Promise<string | null>;
  waitFor(options?: { state?: "attached" | "detached" | "visible" | "hidden"; timeout?: number }): Promise<void>;
  getByRole(role: string, options?: { name?: string; exact?: boolean; level?: number }): Locator;
  getByText(text: string | RegExp, options?: { exact?: boolean }): Locator;
  locator(selector: string): Locator;
  nth(index: number): Locator;
  first(): Locator;
  last(): Locator;
}

/** Playwright's `Page`: the members the tests use. */
export interface Page extends Pick<Locator, "getByRole" | "getByText" | "locator"> {
  goto(url: string): Promise<{ status(): number; headers(): Record<string, string> } | null>;
  getByLabel(text: string, options?: { exact?: boolean }): Locator;
  evaluate<T>(expression: string): Promise<T>;
  addInitScript(script: { content: string }): Promise<void>;
  screenshot(options: { path: string; fullPage?: boolean }): Promise<unknown>;
  on(event: "pageerror", listener: (error: Error) => void): void;
  on(event: "console", listener: (message: { type(): string; text(): string }) => void): void;
  keyboard: { press(key: string): Promise<void> };
  close(): Promise<void>;
}

/** Playwright's `Browser`: the members the tests use. */
export interface Browser {
  newPage(options?: { viewport?: { width: number; height: number }; colorScheme?: "light" | "dark" }): Promise<Page>;
  version(): string;
  close(): Promise<void>;
}

/** Debian's chromium, or CHROMIUM_PATH (scripts/test-runtimes.mjs --install puts it there). */
export const chromiumPath = (): string => {
  const path = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
  if (!existsSync(path)) throw new Error(`no Chromium at ${path}: apt-get install chromium, or set CHROMIUM_PATH`);
  return path;
};

/** Headless Chromium, as the other browser tests launch it. */
export const launchChromium = (): Promise<Browser> => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { chromium } = require("playwright-core") as {
    chromium: { launch(options: { executablePath: string; args: string[] }): Promise<Browser> };
  };
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
};

/** One rule axe-core found broken: its id, impact and the elements, by selector. */
export interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: string[];
}

/**
 * axe-core's violations on the page as it is now (every rule axe runs by default: WCAG 2 A and AA,
 * and best practices). axe is evaluated in the page through the DevTools protocol, which the page's
 * own Content-Security-Policy does not govern, so the page is checked under its real policy.
 */
export const axeViolations = async (page: Page): Promise<Violation[]> => {
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) {
    await page.evaluate(readFileSync(require.resolve("axe-core/axe.min.js"), "utf8"));
  }
  return page.evaluate<Violation[]>(`
    window.axe.run(document).then((results) =>
      results.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.map((node) => node.target.join(" ")),
      })),
    )`);
};

/** The page's Response region. */
export const region = (page: Page): Locator => page.getByRole("region", { name: "Response" });

/** Waits until the Response region's status line says `text`; its whole sentence. */
export const said = async (page: Page, text: string | RegExp): Promise<string> => {
  const status = region(page).getByRole("status");
  try {
    await status.getByText(text).waitFor({ timeout: 15_000 });
  } catch {
    throw new Error(
      `the status line never said ${String(text)}: it says ${JSON.stringify(await status.textContent())}`,
    );
  }
  return (await status.textContent()) ?? "";
};

export const choose = (page: Page, name: string): Promise<void> =>
  page.getByRole("button", { name, exact: true }).click();
export const send = (page: Page): Promise<void> => page.getByRole("button", { name: "Send", exact: true }).click();
export const field = (page: Page, name: string): Locator => page.getByLabel(name, { exact: true });
export const requestText = (page: Page): Promise<string> =>
  page.getByLabel("Request (JSON)", { exact: true }).inputValue();

/** What has the focus, by its name: its aria-label, its label's text, or its text; "(body)" for none. */
export const focused = (page: Page): Promise<string> =>
  page.evaluate<string>(`(() => {
    const node = document.activeElement;
    if (node === null || node === document.body) return "(body)";
    const label = node.labels && node.labels.length > 0 ? node.labels[0].textContent : "";
    return node.getAttribute("aria-label") || label || node.textContent;
  })()`);

/** A page a test opened, and what went wrong in it (page errors, console errors and warnings). */
export interface Opened {
  readonly page: Page;
  readonly problems: string[];
}

/** What {@link openInspector} is told: the colour scheme, and elements the page fails to make. */
export interface OpenOptions {
  readonly colorScheme?: "light" | "dark";
  /**
   * Elements that `document.createElement` fails to make while `window.failing` names them (these
   * at the start; a test may set it later), to see how the page copes with a failure of its own.
   * Without it, `createElement` is the browser's.
   */
  readonly failing?: readonly string[];
}

/** Makes `createElement` throw for the elements `window.failing` names. */
const failingScript = (failing: readonly string[]): string => `window.failing = ${JSON.stringify(failing)};
(() => {
  const make = Document.prototype.createElement;
  Document.prototype.createElement = function (tag, options) {
    if (window.failing.includes(tag)) throw new Error("planted failure");
    return make.call(this, tag, options);
  };
})();`;

/**
 * Opens the inspector page at `url` (1200 x 800), recorded in `opened` at once (to be closed and
 * its problems checked after the test), checks it came with its policy, and waits until it has
 * read the service's description: with a locator, not a predicate string, which the page's policy
 * refuses to compile when it has to poll.
 */
const openInspector = async (
  browser: Browser,
  opened: Opened[],
  url: string,
  options: OpenOptions = {},
): Promise<Page> => {
  const page = await browser.newPage({
    viewport: { width: 1200, height: 800 },
    colorScheme: options.colorScheme ?? "light",
  });
  const problems: string[] = [];
  opened.push({ page, problems });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning")
      problems.push(`${message.type()}: ${message.text()}`);
  });
  if (options.failing !== undefined) await page.addInitScript({ content: failingScript(options.failing) });
  const response = await page.goto(url);
  const policy = response?.headers()["content-security-policy"] ?? "";
  if (response?.status() !== 200 || !policy.startsWith("default-src 'none'; script-src 'sha256-")) {
    throw new Error(`${url}: HTTP ${String(response?.status())}, policy ${JSON.stringify(policy)}`);
  }
  await said(page, /describes|No description/);
  return page;
};

/** Closes the pages a test opened (emptying `opened`); what went wrong in them. */
const closePages = async (opened: Opened[]): Promise<string[]> => {
  const pages = opened.splice(0);
  await Promise.all(pages.map((entry) => entry.page.close()));
  return pages.flatMap((entry) => entry.problems);
};

/** A request to a bare server: its method and id, as JSON-RPC names them. */
export interface RawRequest {
  readonly method?: string;
  readonly id?: unknown;
}

/** Servers of this process to open the page on, each by its URL; `close` closes them all. */
export interface Servers {
  /** A development server, from the sources. */
  start(options: ServeOptions): Promise<string>;
  /**
   * A bare HTTP server, as a framework's would be: a GET gets the page (from the sources, calling
   * `/`) and its headers; a POST, what `answer` writes for its request.
   */
  startRaw(answer: (request: RawRequest, res: ServerResponse) => void): Promise<string>;
  close(): Promise<void>;
}

export const servers = (): Servers => {
  const closers: Array<() => Promise<void>> = [];
  const listening = (server: Server): string => {
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  };
  const startRaw: Servers["startRaw"] = (answer) => {
    const server = createServer((req, res) => {
      if (req.method === "GET") return void res.writeHead(200, INSPECTOR_HEADERS).end(inspectorPage({ url: "/" }));
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => answer(JSON.parse(Buffer.concat(chunks).toString()) as RawRequest, res));
    });
    return new Promise<Server>((resolve) => server.listen(0, "127.0.0.1", () => resolve(server))).then(listening);
  };
  return {
    start: (options) => serve("127.0.0.1", 0, options).then(listening),
    startRaw,
    close: async () => void (await Promise.all(closers.splice(0).map((close) => close()))),
  };
};

/** Playwright needs Node 20 or later: on Node 18 the browser cases are skipped, by name. */
const PLAYWRIGHT = Number(process.versions.node.split(".")[0]) >= 20;
/** A browser case: `test`, or `test.skip` on Node 18. */
export const run = PLAYWRIGHT ? test : test.skip;
/** What a browser case's name ends with: why it is skipped, if it is. */
export const suffix = PLAYWRIGHT
  ? ""
  : ` (skipped on node ${process.versions.node}: Playwright needs Node 20 or later)`;

/** A suite of the inspector in Chromium: its pages and its servers. */
export interface Suite {
  /** Opens the inspector page at `url`, once it has read the service's description. */
  open(url: string, options?: OpenOptions): Promise<Page>;
  /** Servers of this process to open it on, closed after the suite. */
  readonly started: Servers;
}

/**
 * Registers a suite's hooks: logs recorded and Chromium launched before it (after `hooks.before`),
 * each test's pages closed after it (what went wrong in them fails it), and the servers, the
 * browser and `hooks.after` after the suite.
 */
export const chromiumSuite = (hooks: { before?: () => Promise<void>; after?: () => void } = {}): Suite => {
  let browser: Browser | undefined;
  let logs: ReturnType<typeof recordLogs> | undefined;
  const opened: Opened[] = [];
  const started = servers();
  beforeAll(async () => {
    if (!PLAYWRIGHT) return;
    logs = recordLogs();
    await hooks.before?.();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    logs?.restore();
    hooks.after?.();
    await started.close();
    await browser?.close();
  });
  afterEach(async () => expect(await closePages(opened)).toEqual([]));
  const open: Suite["open"] = (url, options) => {
    if (browser === undefined) throw new Error("no browser: open pages in the suite's tests");
    return openInspector(browser, opened, url, options);
  };
  return { open, started };
};
