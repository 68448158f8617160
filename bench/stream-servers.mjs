// The servers of bench/streams.mjs, one per child process, each over its stdio (a real pipe): a
// request `count` ({ to }) that streams 1..to as progress notifications, then answers.
//
//   node bench/stream-servers.mjs lsp-rpcserver | lsp-vscode | mcp-rpcserver | mcp-sdk
//   node bench/stream-servers.mjs http-mcp-rpcserver | http-mcp-sdk | http-rpcserver
//
// - lsp-*: LSP's Content-Length framing; each value is `$/progress { token: partialResultToken,
//   value: [i] }`, the result then `[]` (LSP's emptied final result).
// - mcp-*: MCP over stdio (newline-delimited JSON); `tools/call` `count` sends
//   `notifications/progress { progressToken, progress: i, total: to }`, then the text.
// - http-mcp-*: the same MCP tool over MCP's Streamable HTTP, stateless, on 127.0.0.1 (the port
//   printed on stdout): rpcserver's `answerHttp` in a `node:http` server, and the SDK's
//   `StreamableHTTPServerTransport` (a server and a transport per request, the SDK's stateless way).
// - http-rpcserver: the development server (`serve`), `count` yielding numbers, read as events by
//   the request's id (rpcserver's own client).
// Each server waits for its channel between values (rpcserver: its sink's back-pressure;
// vscode-jsonrpc: `await sendProgress`; the MCP SDK: `await sendNotification`).
import { Success } from "rpcserver";
import { connect, contentLength, newlineDelimited, streams } from "rpcserver/connection";
import { listen, readBody } from "./children.mjs";

const kind = process.argv[2];

const lspRpcserver = () => {
  const methods = {
    count: async function* ({ to }) {
      for (let i = 1; i <= to; i++) yield [i];
      return Success([]);
    },
  };
  connect(streams(process.stdin, process.stdout, contentLength()), { methods, cancellation: "lsp" });
};

const lspVscode = async () => {
  const rpc = await import("vscode-jsonrpc/node");
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(process.stdin),
    new rpc.StreamMessageWriter(process.stdout),
  );
  const progress = new rpc.ProgressType();
  connection.onRequest("count", async ({ to, partialResultToken }) => {
    for (let i = 1; i <= to; i++) await connection.sendProgress(progress, partialResultToken, [i]);
    return [];
  });
  connection.listen();
};

const mcpMethods = () => ({
  initialize: () =>
    Success({
      protocolVersion: "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "bench-rpcserver", version: "1.0.0" },
    }),
  "notifications/initialized": () => Success(null),
  "tools/call": async function* ({ arguments: { to } }) {
    for (let i = 1; i <= to; i++) yield { progress: i, total: to };
    return Success({ content: [{ type: "text", text: `counted to ${to}` }] });
  },
});

const mcpRpcserver = () => {
  connect(streams(process.stdin, process.stdout, newlineDelimited()), { methods: mcpMethods(), cancellation: "mcp" });
};

const sdkServer = async () => {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { z } = await import("zod");
  const server = new McpServer({ name: "bench-sdk", version: "1.0.0" });
  server.registerTool("count", { inputSchema: { to: z.number() } }, async ({ to }, extra) => {
    const progressToken = extra._meta?.progressToken;
    for (let i = 1; i <= to; i++) {
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken, progress: i, total: to },
      });
    }
    return { content: [{ type: "text", text: `counted to ${to}` }] };
  });
  return server;
};

const mcpSdk = async () => {
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  await (await sdkServer()).connect(new StdioServerTransport());
};

const httpMcpRpcserver = async () => {
  const { answerHttp } = await import("rpcserver");
  const { closedSignal, writeAnswer } = await import("../examples/integrations/node-answer.mjs");
  const methods = mcpMethods();
  await listen(async (req, res) => {
    const body = await readBody(req);
    const answer = await answerHttp(body, methods, { accept: req.headers.accept, signal: closedSignal(res) });
    await writeAnswer(res, answer);
  });
};

const httpMcpSdk = async () => {
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  await listen(async (req, res) => {
    const body = JSON.parse((await readBody(req)).toString("utf8"));
    const server = await sdkServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
};

const httpRpcserver = async () => {
  const { serve } = await import("rpcserver");
  const methods = {
    count: async function* (to) {
      for (let i = 1; i <= to; i++) yield i;
      return Success(`counted to ${to}`);
    },
  };
  const server = await serve("127.0.0.1", 0, { methods });
  console.log(server.address().port);
};

const servers = {
  "lsp-rpcserver": lspRpcserver,
  "lsp-vscode": lspVscode,
  "mcp-rpcserver": mcpRpcserver,
  "mcp-sdk": mcpSdk,
  "http-mcp-rpcserver": httpMcpRpcserver,
  "http-mcp-sdk": httpMcpSdk,
  "http-rpcserver": httpRpcserver,
};
const start = servers[kind];
if (start === undefined) {
  console.error(`usage: node bench/stream-servers.mjs ${Object.keys(servers).join(" | ")}`);
  process.exit(2);
}
await start();
