// One TCP connection (connect + byteChannel) opens 1024 listens of ids no cancel can end (null,
// one id 1024 times): can another connection listen? After the first connection resets, can it?
// Then over HTTP: a listen inside a batch POST.
//   node repro/mcp-hostile2/slots-on-close.mjs
import net from "node:net";
import { makeMcp, META, modernHeaders, serve, serveConnections, sleep } from "./common.mjs";

const mcp = makeMcp();
const server = await serveConnections(mcp);
const client = () => {
  const s = net.connect(server.address().port, "127.0.0.1");
  s.on("error", () => {});
  let got = "";
  s.on("data", (d) => (got += d));
  return { s, got: () => got };
};
const listen = (id) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "subscriptions/listen",
    params: { _meta: META, notifications: { toolsListChanged: true } },
  }) + "\n";
const hog = client();
hog.s.write(listen(null) + listen("same").repeat(1023));
await sleep(1000);
const other = client();
other.s.write(listen("mine"));
await sleep(300);
const whileHogged = other.got().includes("acknowledged") ? "acknowledged" : other.got().match(/"error":\{[^}]*\}/)?.[0];
hog.s.resetAndDestroy();
await sleep(300);
const third = client();
third.s.write(listen("after"));
await sleep(300);
const afterReset = third.got().includes("acknowledged") ? "acknowledged" : third.got().match(/"error":\{[^}]*\}/)?.[0];
const hogText = hog.got();
const hogAcks = (hogText.match(/acknowledged/g) ?? []).length;
const hogErrors = [...new Set(hogText.match(/"error":\{[^}]*\}/g) ?? [])];
console.log(JSON.stringify({ hogAcks, hogErrors, whileHogged, afterReset }));
other.s.destroy();
third.s.destroy();
server.close();

// HTTP: a batch of [listen, tools/list]
const { server: http, port } = await serve(makeMcp());
const body = JSON.stringify([
  {
    jsonrpc: "2.0",
    id: "L",
    method: "subscriptions/listen",
    params: { _meta: META, notifications: { toolsListChanged: true } },
  },
  { jsonrpc: "2.0", id: "p", method: "tools/list", params: { _meta: META } },
]);
const ac = new AbortController();
const timer = setTimeout(() => ac.abort(), 1500);
let answer;
try {
  const r = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    headers: modernHeaders("subscriptions/listen"),
    body,
    signal: ac.signal,
  });
  answer = `${r.status} ${r.headers.get("content-type")} ${(await r.text()).slice(0, 200)}`;
} catch (e) {
  answer = "no answer within 1.5 s: " + e.name;
}
clearTimeout(timer);
console.log(JSON.stringify({ httpBatchWithListen: answer }));
http.close();
process.exit(0);
