/**
 * The inspector page's script, part 3 of 6: the wire. Where the page may send (`ENDPOINT`: the URL
 * its `<meta name="rpcserver-url">` names, only when it is on the page's own origin, so a page
 * served with a URL of another site sends nothing), one POST (`post`), the server-sent events of a
 * streamed answer read as they arrive (`readEvents`), the value a streamed notification carries
 * (`streamedValue`), and the request as a `curl` command (`curlOf`).
 *
 * Every POST asks for `text/event-stream, application/json`: a method that streams answers with
 * an event stream of its values, then its answer; any other answers JSON as before (a lone
 * notification: 202 rather than 204). The values come as `$/progress` on the request's id (the
 * development server's own form, since the page sends no progress token).
 *
 * @module
 */

/** The wire's functions: `ENDPOINT`, `post`, `readEvents`, `streamedValue`, `curlOf`. */
export const WIRE_SCRIPT = String.raw`
const ACCEPT = "text/event-stream, application/json";

// The URL to call, or null when it is not on this page's origin: then nothing is ever sent.
const ENDPOINT = (() => {
  const meta = document.querySelector('meta[name="rpcserver-url"]');
  if (meta === null) return null;
  try {
    const url = new URL(meta.getAttribute("content") || "", location.href);
    return url.origin === location.origin ? url.href : null;
  } catch (error) {
    return null;
  }
})();

// An event stream's messages as they arrive: each given to onMessage, which answers whether it
// was a streamed value; the last message that was not is the answer. A line ends with CRLF, LF
// or CR (the event stream's three line ends), a CRLF split between two reads included.
const readEvents = async (stream, onMessage) => {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let afterCR = false;
  let data = [];
  let answer = "";
  const dispatch = () => {
    if (data.length === 0) return;
    const text = data.join("\n");
    data = [];
    if (!onMessage(text)) answer = text;
  };
  for (;;) {
    const { value, done } = await reader.read();
    let text = decoder.decode(value, { stream: !done });
    // The LF of a CRLF whose CR ended the last read: that line has ended already.
    if (afterCR && text !== "") {
      afterCR = false;
      if (text.startsWith("\n")) text = text.slice(1);
    }
    if (text.endsWith("\r")) afterCR = true;
    const lines = (buffer + text).split(/\r\n|\r|\n/);
    buffer = done ? "" : lines.pop();
    for (const line of lines) {
      if (line === "") dispatch();
      else if (line === "data" || line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    }
    if (done) break;
  }
  dispatch();
  return answer;
};

// One POST of body; its status, its text (an event stream's answer) and how long it took.
const post = async (body, signal, onMessage) => {
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

// The value a streamed notification carries, or undefined for a message that is not one.
const streamedValue = (text) => {
  let message;
  try {
    message = JSON.parse(text);
  } catch (error) {
    return undefined;
  }
  if (!isObject(message) || typeof message.method !== "string" || own(message, "id")) return undefined;
  if (message.method === "$/progress" && own(message.params, "value")) return message.params.value;
  return own(message, "params") ? message.params : message.method;
};

const shellQuote = (text) => "'" + text.replace(/'/g, "'\\''") + "'";

// The request as a curl command: the body exactly as Send sends it.
const curlOf = (body, streams) =>
  [
    streams ? "curl -sN" : "curl -s",
    "-X POST " + shellQuote(ENDPOINT === null ? "" : ENDPOINT),
    "-H " + shellQuote("Content-Type: application/json"),
    streams ? "-H " + shellQuote("Accept: " + ACCEPT) : "",
    "--data-raw " + shellQuote(body),
  ]
    .filter((part) => part !== "")
    .join(" ");
`;
