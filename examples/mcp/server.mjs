/**
 * A small Model Context Protocol server over stdio, built on an rpcserver connection:
 *
 *     node examples/mcp/server.mjs     # speaks MCP (newline-delimited JSON-RPC) on stdin/stdout
 *
 * The methods and tools are app.mjs's (`initialize`, `ping`, `tools/list`, `tools/call`; the tools
 * `add`, `sleep` and `count`, which streams its progress), shared with the Streamable HTTP server
 * (http.mjs). The connection takes MCP's `notifications/cancelled`: a cancelled call's signal aborts
 * and it is not answered; and each value `count` yields goes out as `notifications/progress` on the
 * call's `_meta.progressToken`. Logs go to stderr (stdout is the protocol).
 * tests/connection-interop.test.ts and tests/streams-connection.test.ts drive it with the official
 * SDK's `Client` and `StdioClientTransport` (the scripts tests/fixtures/mcp-client.mjs and
 * mcp-stream-client.mjs). The same server in TypeScript, typed context and all:
 * examples/ts/mcp/server.ts.
 */
import { connect, newlineDelimited, byteChannel } from "rpcserver/connection";
import { app } from "./app.mjs";

const peer = connect(byteChannel(process.stdin, process.stdout, newlineDelimited()), {
  methods: app.methods,
  stages: app.stages,
  context: {},
  cancellation: "mcp",
});
peer.closed.then(() => process.exit(0));
