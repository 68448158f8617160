/**
 * Headless Chromium for the jest tests that drive a page themselves (tests/inspector-browser.test.ts):
 * Debian's chromium (as tests/runtime/chromium.mjs finds it) launched by playwright-core, and axe-core
 * run in the page.
 *
 * playwright-core is loaded with `require`, and described here by the few members the tests use:
 * its own declarations name the DOM's types, which the project's `lib` (ES2022, no DOM) does not
 * have. Code that runs in the page is passed as a string for the same reason.
 */
import { existsSync, readFileSync } from "node:fs";

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
  getByText(text: string, options?: { exact?: boolean }): Locator;
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
  waitForFunction(expression: string, arg?: unknown, options?: { timeout?: number }): Promise<unknown>;
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
