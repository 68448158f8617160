/**
 * The inspector page's script, part 4 of 7: the wire. Where the page may send (`ENDPOINT`: the URL
 * its `<meta name="rpcserver-url">` names, only when it is on the page's own origin, so a page
 * served with a URL of another site sends nothing), one POST (`post`, which reads an answer's event
 * stream with events.ts), and the request as a `curl` command (`curlOf`).
 *
 * Every POST asks for `text/event-stream, application/json`: a method that streams answers with
 * an event stream of its values, then its answer; any other answers JSON as before (a lone
 * notification: 202 rather than 204). The values come as `$/progress` on the request's id (the
 * development server's own form, since the page sends no progress token).
 *
 * @module
 */

import { readEvents } from "./events";

/** One POST's reply: its HTTP status, its text (an event stream's answer), and how long it took. */
export interface Reply {
  readonly status: number;
  readonly statusText: string;
  readonly type: string;
  readonly text: string;
  readonly ms: number;
}

const ACCEPT = "text/event-stream, application/json";

// The URL to call, or null when it is not on this page's origin: then nothing is ever sent.
const ENDPOINT = ((): string | null => {
  const meta = document.querySelector('meta[name="rpcserver-url"]');
  if (meta === null) return null;
  try {
    const url = new URL(meta.getAttribute("content") || "", location.href);
    return url.origin === location.origin ? url.href : null;
  } catch {
    return null;
  }
})();

// One POST of body; its status, its text (an event stream's answer) and how long it took.
export const post = async (
  body: string,
  signal: AbortSignal | null,
  onMessage: (text: string) => boolean,
): Promise<Reply> => {
  if (ENDPOINT === null) throw new Error("the URL this page was given is not on its own origin: nothing is sent");
  const started = performance.now();
  const response = await fetch(ENDPOINT, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: ACCEPT },
    body,
    signal,
    cache: "no-store",
    credentials: "same-origin",
    redirect: "error",
  });
  const type = (response.headers.get("Content-Type") || "").toLowerCase();
  const events = type.startsWith("text/event-stream") && response.body !== null;
  const text = events ? await readEvents(response.body, onMessage) : await response.text();
  return { status: response.status, statusText: response.statusText, type, text, ms: performance.now() - started };
};

const shellQuote = (text: string): string => "'" + text.replace(/'/g, "'\\''") + "'";

// The request as a curl command: the body exactly as Send sends it.
export const curlOf = (body: string, streams: boolean): string =>
  [
    streams ? "curl -sN" : "curl -s",
    "-X POST " + shellQuote(ENDPOINT === null ? "" : ENDPOINT),
    "-H " + shellQuote("Content-Type: application/json"),
    streams ? "-H " + shellQuote("Accept: " + ACCEPT) : "",
    "--data-raw " + shellQuote(body),
  ]
    .filter((part) => part !== "")
    .join(" ");
