/**
 * The Model Context Protocol server of app.mjs over stdio, on an rpcserver connection:
 *
 *     npm run build && node examples/mcp/server.mjs     # speaks MCP (newline-delimited JSON-RPC) on stdin/stdout
 *
 * The connection takes MCP's `notifications/cancelled` (`cancellation: "mcp"`): a cancelled call's
 * signal aborts and it is not answered. tests/connection-interop.test.ts and
 * tests/streams-connection.test.ts drive it with the official SDK's `Client` and
 * `StdioClientTransport`. The same server in TypeScript: examples/ts/mcp/server.ts.
 */
import { byteChannel, connect, newlineDelimited } from "rpcserver/connection";
import { app } from "./app.mjs";

const { methods, stages } = app;
const peer = connect(byteChannel(process.stdin, process.stdout, newlineDelimited()), {
  methods,
  stages,
  context: {},
  cancellation: "mcp",
});
peer.closed.then(() => process.exit(0));
