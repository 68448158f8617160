// Shared glue of the hostile2 reproducers: an mcpServer served on node:http (the example glue), and
// raw-socket 2026 era requests.
import { createServer } from "node:http";
import net from "node:net";
import * as E from "fp-ts/lib/Either.js";
import { byteChannel, connect, newlineDelimited } from "../../dist/esm/connection.js";
import { mcpHandler, mcpServer, tool } from "../../dist/esm/mcp.js";
import { nodeGlue } from "../../examples/mcp/node-glue.mjs";

export const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "hostile", version: "1" },
};
export const echo = tool({ description: "echo", run: () => E.right("hi") });
export const makeMcp = (extra = {}) =>
  mcpServer({
    name: "h",
    version: "1",
    tools: { echo },
    resources: { "note://a": { name: "a", read: (uri) => E.right({ uri, text: "a" }) } },
    ...extra,
  });

export const serve = async (mcp, options = {}) => {
  const handler = mcpHandler(mcp, options);
  const server = createServer(nodeGlue(handler));
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { server, port: server.address().port, handler };
};

/** `mcp` served on TCP connections (newline-delimited, MCP's cancellation), as a stdio server is. */
export const serveConnections = async (mcp) => {
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    connect(byteChannel(socket, socket, newlineDelimited()), {
      methods: mcp.methods,
      stages: mcp.stages,
      context: {},
      cancellation: "mcp",
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return server;
};

/** The headers of a 2026 era POST by fetch of `method`, with `extra`. */
export const modernHeaders = (method, extra = {}) => ({
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  "MCP-Protocol-Version": "2026-07-28",
  "Mcp-Method": method,
  ...extra,
});

/** A 2025 era `initialize` POSTed to `url` (a sessions handler): the session id it began, or null. */
export { initialize } from "../../tests/fixtures/mcp-initialize.mjs";

/** The raw bytes of a 2026 era POST. */
export const modernPost = (method, params, id = 1, extraHeaders = {}) => {
  const body = JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta: META, ...params } });
  const headers = {
    Host: "localhost",
    ...modernHeaders(method, { "Content-Length": Buffer.byteLength(body), ...extraHeaders }),
  };
  return (
    `POST /mcp HTTP/1.1\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("") +
    `\r\n` +
    body
  );
};

/** A raw socket that sends `bytes` and collects what comes back; `until(text)` waits for it. */
export const rawSocket = (port, bytes) => {
  const socket = net.connect(port, "127.0.0.1");
  let got = "";
  const waiters = [];
  socket.on("data", (d) => {
    got += d.toString();
    for (const w of [...waiters]) {
      if (!got.includes(w.text)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  socket.on("error", () => {});
  socket.write(bytes);
  return {
    socket,
    text: () => got,
    until: (text) =>
      got.includes(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ text, resolve })),
  };
};

export const heapMb = () => {
  globalThis.gc?.();
  globalThis.gc?.();
  return Math.round(process.memoryUsage().heapUsed / 1e5) / 10;
};
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
