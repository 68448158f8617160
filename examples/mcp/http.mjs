/**
 * The Model Context Protocol server of app.mjs over MCP's Streamable HTTP, stateless (no session):
 *
 *     npm run build && node examples/mcp/http.mjs     # http://127.0.0.1:3000/mcp (PORT=0: a free port)
 *
 * `mcpHandler` answers each POST (`nodeHandler` serves it on Node's own request and response): a
 * notification 202, a call that answers at once its JSON, a `tools/call` of `count` with a
 * progress token an event stream (its progress, then the result). The client going away aborts
 * the tool's signal. A GET is 405 (no stream outside a call), a page on a foreign origin 403 (the
 * DNS-rebinding guard). tests/streams-http.test.ts drives it with the official SDK's `Client` and
 * `StreamableHTTPClientTransport`.
 */
import { createServer } from "node:http";
import { mcpHandler } from "rpcserver/mcp";
import { nodeHandler } from "rpcserver/server";
import { app } from "./app.mjs";

const PORT = process.env.PORT === undefined || process.env.PORT === "" ? 3000 : Number(process.env.PORT);
const handler = nodeHandler(mcpHandler(app));
const server = createServer((req, res) =>
  new URL(req.url ?? "/", "http://localhost").pathname === "/mcp" ? void handler(req, res) : res.writeHead(404).end(),
);
server.listen(PORT, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}/mcp`));
