/**
 * examples/mcp/everything.mjs' server as workers behind an HTTP front, over NATS: each worker serves
 * the declaration with `serveNats` (a queue group: each request goes to one of them), and the front
 * is `mcpHandler` with a relay to them, which keeps the HTTP side (the guard, the body limit, the
 * 2026-07-28 era's header checks, sessions) and streams the workers' progress and log messages back.
 * The client sees one Streamable HTTP server.
 *
 *     nats-server -a 127.0.0.1 -p 4222              # NATS_URL=nats://host:port for another server
 *     node examples/mcp/nats.mjs worker             # as many as you like
 *     node examples/mcp/nats.mjs front              # http://127.0.0.1:3000/mcp (PORT=0: a free port)
 *
 * docs/mcp.md, "Workers over NATS", says what holds across processes and what does not.
 */
import { randomUUID } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import { mcpHandler, mcpSessions, relayedContext } from "rpcserver/mcp";
import { natsRelay, serveNats } from "rpcserver/nats";
import { everything, listen } from "./everything.mjs";

const nc = await connect({ servers: process.env.NATS_URL || "nats://127.0.0.1:4222" });
const subject = "mcp.everything";

if (process.argv[2] === "worker") {
  // The server's methods and stages, each call's context from the relayed headers.
  const { methods, stages } = everything;
  const options = { stages, context: relayedContext, name: "everything", version: "1.0.0", subject, openrpc: false };
  const service = await serveNats(nc, methods, options);
  console.log(`serving ${subject} as ${service.info().id}`);
  const stop = async () => {
    await service.stop(); // the messages taken are answered; new ones go to the other workers
    await nc.drain();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop());
} else {
  // The same declaration (its tools, for the header checks), run by the workers, not here.
  const sessions = mcpSessions({ id: randomUUID });
  listen(mcpHandler(everything, { relay: natsRelay(nc, subject), sessions }), process.env.PORT);
}
