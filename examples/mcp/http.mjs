/**
 * The Model Context Protocol server of app.mjs over MCP's Streamable HTTP, stateless (no session):
 *
 *     npm run build && node examples/mcp/http.mjs     # http://127.0.0.1:3000/mcp (PORT=0: a free port)
 *
 * Each POST on /mcp is answered by `answerHttp`: the SDK's client sends `Accept: application/json,
 * text/event-stream`, so a notification (`notifications/initialized`) gets 202, a call that answers
 * at once gets its JSON, and a `tools/call` of `count` with a `_meta.progressToken` gets an event
 * stream: its `notifications/progress`, then the result. The client going away (`res` closing)
 * aborts the tool's signal and stops it. A GET is 405: this server offers no stream of its own
 * (stateless, nothing to send outside a call), which MCP allows. A request from a web page whose
 * `Origin` is not a loopback page is refused (403), as MCP asks, so a site one visits cannot call
 * the tools. tests/streams-http.test.ts drives it with the official SDK's `Client` and
 * `StreamableHTTPClientTransport` (tests/fixtures/mcp-http-client.mjs).
 */
import { createServer } from "node:http";
import { answerHttp } from "rpcserver";
import { closedSignal, writeAnswer } from "../integrations/node-answer.mjs";
import { app } from "./app.mjs";

const HOST = "127.0.0.1";
const PORT = process.env.PORT === undefined || process.env.PORT === "" ? 3000 : Number(process.env.PORT);
/** The largest body: 1 MiB. */
const BODY_LIMIT = 1024 * 1024;

/** A page on this machine (any port), or no page at all (a program sends no `Origin`). */
const allowedOrigin = (origin) =>
  origin === undefined || /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(origin);

/** The body's bytes, or `undefined` past the limit. */
const readBody = async (req) => {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > BODY_LIMIT) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
};

const plain = (res, status, text, headers = {}) =>
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", ...headers }).end(text);

const handle = async (req, res) => {
  const { pathname } = new URL(req.url ?? "/", "http://localhost");
  if (pathname !== "/mcp") return plain(res, 404, "Not Found\n");
  if (!allowedOrigin(req.headers.origin)) return plain(res, 403, "Forbidden: not a loopback origin\n");
  if (req.method !== "POST") return plain(res, 405, "Method Not Allowed: POST only\n", { Allow: "POST" });
  const body = await readBody(req);
  if (body === undefined) return plain(res, 413, "Payload Too Large\n", { Connection: "close" });

  const answer = await answerHttp(body, app.methods, {
    stages: app.stages,
    context: {},
    maxBatchSize: 100,
    accept: req.headers.accept,
    signal: closedSignal(res), // the client going away aborts the tools' signal
  });
  // An event stream is written at the client's pace (examples/integrations/node-answer.mjs).
  await writeAnswer(res, answer);
};

const server = createServer((req, res) => {
  handle(req, res).catch((error) => {
    console.error(`mcp over http: ${error}`);
    res.destroy();
  });
});
server.listen(PORT, HOST, () => {
  console.log(`listening on http://${HOST}:${server.address().port}/mcp`);
});
