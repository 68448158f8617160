/**
 * A fetch handler (`(request: Request) => Promise<Response>`, such as `mcpHandler`'s) served on
 * `node:http`: Node's request as a web `Request`, and the `Response` written back at the client's
 * pace. The request's signal aborts when the client leaves before the answer's end (not after every
 * answer: each abort makes a DOMException). examples/mcp/everything.mjs and bench/mcp.mjs serve
 * with it; `@hono/node-server`'s `serve({ fetch })` does the same job.
 */
import { Readable } from "node:stream";

/** The largest body read: past it, 413 (the handler's own limit, 1 MiB, can only see what was read). */
const BODY_LIMIT = 1024 * 1024;

/** `(req, res) => Promise<void>` for `createServer`, answering with `handler`. */
export const nodeGlue = (handler) => async (req, res) => {
  const aborted = new AbortController();
  res.on("close", () => res.writableFinished || aborted.abort());
  const chunks = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += chunk.length;
      if (size > BODY_LIMIT) return void res.writeHead(413, { Connection: "close" }).end();
      chunks.push(chunk);
    }
  } catch {
    return; // The client left mid-upload: nothing to answer, nothing to log.
  }
  const request = new globalThis.Request(`http://${req.headers.host ?? "localhost"}${req.url}`, {
    method: req.method,
    headers: Object.entries(req.headers).flatMap(([name, value]) =>
      Array.isArray(value) ? value.map((v) => [name, v]) : [[name, value]],
    ),
    body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
    signal: aborted.signal,
  });
  const response = await handler(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return res.end();
  // The head now, not with the body's first bytes: a stream may wait long before its first event.
  res.flushHeaders();
  Readable.fromWeb(response.body)
    .on("error", () => res.destroy())
    .pipe(res);
};
