// A 2026 era call names its own log level (_meta logLevel): does it get what it asked for? Before
// and after an anonymous 2025 era client's logging/setLevel over stateless HTTP.
//   node repro/mcp-hostile2/modern-loglevel.mjs
import * as E from "fp-ts/lib/Either.js";
import { tool } from "../../dist/esm/mcp.js";
import { makeMcp, modernHeaders, serve, META } from "./common.mjs";

const levels = tool({
  description: "logs at debug, info and error",
  run: (_a, ctx) => {
    for (const at of ["debug", "info", "error"]) ctx.log(at, `a ${at} line`);
    return E.right("done");
  },
});
const { server, port } = await serve(makeMcp({ tools: { levels } }));
const url = `http://127.0.0.1:${port}/mcp`;
const modernCall = async (logLevel) => {
  const r = await fetch(url, {
    method: "POST",
    headers: modernHeaders("tools/call", { "Mcp-Name": "levels" }),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { _meta: { ...META, "io.modelcontextprotocol/logLevel": logLevel }, name: "levels", arguments: {} },
    }),
  });
  return [...(await r.text()).matchAll(/"data":"a (\w+) line"/g)].map((m) => m[1]);
};
const before = await modernCall("debug");
await fetch(url, {
  method: "POST",
  headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "emergency" } }),
}).then((r) => r.text());
const after = await modernCall("debug");
console.log(JSON.stringify({ asked: "debug", gotBefore: before, gotAfterAnonymousSetLevelEmergency: after }));
server.close();
