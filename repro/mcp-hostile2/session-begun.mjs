// What begins a session (the sessions handler reads `"result"` anywhere in the initialize POST's
// answer), and which capabilities a batch of two initializes records (asks guard).
//   node repro/mcp-hostile2/session-begun.mjs
import * as E from "fp-ts/lib/Either.js";
import { tool } from "../../dist/esm/mcp.js";
import { makeMcp, serve } from "./common.mjs";

const asker = tool({
  description: "elicits",
  run: async (_a, ctx) => {
    const got = await ctx.elicit({ message: "ok?", requestedSchema: { type: "object", properties: {} } })();
    return E.right(E.isRight(got) ? "asked" : "refused: " + got.left.message);
  },
});
const { server, port } = await serve(makeMcp({ tools: { asker } }), { sessions: true });
const post = async (body, session) => {
  const r = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(session ? { "Mcp-Session-Id": session } : {}),
    },
    body: JSON.stringify(body),
  });
  return { session: r.headers.get("mcp-session-id"), text: await r.text() };
};
const init = (id, capabilities) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "c", version: "1" } },
});
const failedInit = await post([
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } },
  { jsonrpc: "2.0", id: 2, method: "ping" },
]);
const two = await post([init(1, {}), init(2, { elicitation: {} })]);
const twoReversed = await post([init(1, { elicitation: {} }), init(2, {})]);
const ask = async (session) => {
  const r = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "Mcp-Session-Id": session,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "asker", arguments: {} } }),
  });
  const reader = r.body.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  const t = new TextDecoder().decode(value);
  return t.includes("elicitation/create")
    ? "the elicitation was sent"
    : (t.match(/refused: [^"\\]*/)?.[0] ?? t.slice(0, 100));
};
console.log(
  JSON.stringify({
    initializeFailedButPingOk: { sessionBegun: failedInit.session !== null, answer: failedInit.text.slice(0, 160) },
    batchNoCapsThenElicitation: await ask(two.session),
    batchElicitationThenNoCaps: await ask(twoReversed.session),
  }),
);
server.close();
process.exit(0);
