/**
 * The inspector page: one self-contained HTML document (its style sheet and script inline, no
 * other asset) that reads a JSON-RPC service's `rpc.discover` document and lets a developer call
 * its methods. `inspectorPage` gives it for the URL it is to call; `INSPECTOR_HEADERS` are the
 * headers to serve it with, its Content-Security-Policy first.
 *
 * Rules:
 * - The script and the style sheet are built from their sources (page/, assembled by
 *   scripts/inspector-page.cjs into `./assets` with their hashes), so they are constants: the
 *   policy allows those two and nothing else (no other script, style, frame, form target or
 *   base), lets the page connect to its own origin only, and (Trusted Types) makes the browser
 *   refuse any assignment of a string to `innerHTML`.
 * - What varies goes in the head, HTML-escaped: the URL to call (a `<meta>` the script reads, not
 *   script text, which would change the hash) and the `<title>`.
 * - The page itself sends only to that URL, and only if it is on the page's own origin.
 *
 * This part imports nothing outside itself: it is plain text, safe in any runtime, and the
 * development server (internal/node) serves it.
 *
 * @module
 */
import { SCRIPT, SCRIPT_SHA256, STYLE, STYLE_SHA256 } from "./assets";
import { BODY } from "./markup";

/** The page's Content-Security-Policy. */
const POLICY = [
  "default-src 'none'",
  `script-src '${SCRIPT_SHA256}'`,
  `style-src '${STYLE_SHA256}'`,
  "connect-src 'self'",
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

/**
 * The headers to serve {@link inspectorPage}'s HTML with: its type, its Content-Security-Policy
 * (only the page's own script and style sheet run; it connects to its own origin only; no frame
 * may embed it; no string is ever parsed as HTML), and no sniffing, no referrer, no caching.
 *
 * The development server sends these (and `Vary: Accept`, since it answers the same URL with
 * JSON-RPC). Send them from your own route too: without the policy, the page works, but loses
 * the browser's guarantees.
 *
 * @example
 * import { INSPECTOR_HEADERS } from "rpcserver/inspector";
 * INSPECTOR_HEADERS["Content-Type"]; // "text/html; charset=utf-8"
 * INSPECTOR_HEADERS["Content-Security-Policy"].startsWith("default-src 'none'; script-src 'sha256-"); // true
 * // Express: res.set(INSPECTOR_HEADERS).send(html); Hono: c.html(html, 200, INSPECTOR_HEADERS)
 *
 * @since 5.0.10
 * @category inspector
 */
export const INSPECTOR_HEADERS: Readonly<{
  "Content-Type": string;
  "Content-Security-Policy": string;
  "X-Content-Type-Options": string;
  "Referrer-Policy": string;
  "Cache-Control": string;
}> = Object.freeze({
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": POLICY,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
});

/**
 * What {@link inspectorPage} is told: where the page sends its requests, and its title.
 *
 * @example
 * import type { InspectorPageOptions } from "rpcserver/inspector";
 * const options: InspectorPageOptions = { url: "/rpc", title: "Bank API (development)" };
 *
 * @since 5.0.10
 * @category inspector
 */
export interface InspectorPageOptions {
  /**
   * The URL of the JSON-RPC endpoint the page calls (a POST per call), absolute or relative to the
   * page's own URL (`"/rpc"`, `"./"`). It must be on the page's origin: the page sends nothing
   * to another (and its policy would block it).
   */
  readonly url: string;
  /** The page's `<title>` until it has read the service's own. Default: `"JSON-RPC inspector"`. */
  readonly title?: string | undefined;
}

/** The title of a page not given one. */
const DEFAULT_TITLE = "JSON-RPC inspector";

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text as HTML text or a quoted attribute's value: the five characters that could end either, escaped. */
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);

/**
 * The inspector page, for the JSON-RPC endpoint at `url`: one HTML document, about 14 KiB
 * gzipped, with no other asset to load. In a browser it reads the service's `rpc.discover`
 * document and shows its title, version and methods (grouped by tag, filterable), a form for the
 * chosen method's params built from their JSON Schema and filled in from its first example, Send
 * (the request as sent, the answer, its time, an error's code, message and data, values streamed
 * as they arrive, and Stop), a batch builder, the session's history, "Copy as curl", and the
 * method's declared result and errors. Without `rpc.discover`, it sends raw JSON-RPC written by
 * hand.
 *
 * When to use it: in development, on a route of your own framework, beside the endpoint (the
 * development server, `serve`, already serves it at `/`). Serve it with
 * {@link INSPECTOR_HEADERS}.
 *
 * Details:
 * - Everything the service and its answers say is shown as text, never parsed as HTML: a method
 *   named `<img src=x onerror=...>` is a button with that text.
 * - The page sends to `url` only, and only when it is on the page's own origin; calls carry the
 *   page's cookies (`credentials: "same-origin"`), as any page of the site would.
 * - Each call asks for `text/event-stream, application/json`, so a streaming method's values
 *   arrive as they are sent (see `answerHttp`).
 *
 * Gotchas: it calls whatever the user asks, with the page's cookies: do not serve it in
 * production, or anywhere that a visitor should not run every method. Throws a `TypeError` for
 * a `url` or `title` that is not a string.
 *
 * @example
 * import { INSPECTOR_HEADERS, inspectorPage } from "rpcserver/inspector";
 * const html = inspectorPage({ url: "/rpc", title: "Bank <dev>" });
 * html.startsWith("<!doctype html>"); // true
 * html.includes('<meta name="rpcserver-url" content="/rpc">'); // true
 * html.includes("<title>Bank &lt;dev&gt;</title>"); // true
 * // Express, in development only:
 * // app.get("/inspector", (req, res) => res.set(INSPECTOR_HEADERS).send(html));
 * Object.keys(INSPECTOR_HEADERS).length; // 5
 *
 * @since 5.0.10
 * @category inspector
 */
export const inspectorPage = (options: InspectorPageOptions): string => {
  const { url, title = DEFAULT_TITLE } = (options ?? {}) as Partial<InspectorPageOptions>;
  if (typeof url !== "string") throw new TypeError(`inspectorPage: url must be a string, got ${typeof url}`);
  if (typeof title !== "string") throw new TypeError(`inspectorPage: title must be a string, got ${typeof title}`);
  return (
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    '<meta name="referrer" content="no-referrer">\n' +
    `<meta name="rpcserver-url" content="${escapeHtml(url)}">\n` +
    `<title>${escapeHtml(title)}</title>\n` +
    '<link rel="icon" href="data:,">\n' +
    `<style>${STYLE}</style>\n</head>\n<body>\n${BODY}\n<script>${SCRIPT}</script>\n</body>\n</html>\n`
  );
};
