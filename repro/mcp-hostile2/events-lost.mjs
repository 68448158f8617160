// A sessions GET stream resumed with odd Last-Event-IDs: which say events_lost, which replay what.
//   node repro/mcp-hostile2/events-lost.mjs
import { initialize, makeMcp, serve, sleep } from "./common.mjs";
import { mcpSessions } from "../../dist/esm/mcp.js";

const sessions = mcpSessions({ replay: 3 });
const mcp = makeMcp();
const { server, port } = await serve(mcp, { sessions });
const url = `http://127.0.0.1:${port}/mcp`;
const id = await initialize(url);
const get = async (lastEventId) => {
  const ac = new AbortController();
  const r = await fetch(url, {
    headers: {
      Accept: "text/event-stream",
      "Mcp-Session-Id": id,
      ...(lastEventId !== undefined ? { "Last-Event-ID": lastEventId } : {}),
    },
    signal: ac.signal,
  });
  const reader = r.body.getReader();
  let text = "";
  const deadline = Date.now() + 150;
  while (Date.now() < deadline) {
    const step = await Promise.race([reader.read(), sleep(150).then(() => ({ timeout: true }))]);
    if (step.timeout || step.done) break;
    text += new TextDecoder().decode(step.value);
  }
  ac.abort();
  return text
    .split("\n\n")
    .filter(Boolean)
    .map(
      (e) =>
        (e.match(/^id: (\d+)/m)?.[1] ?? "-") +
        ":" +
        (e.match(/"method":"([^"]+)"/)?.[1] ?? e.match(/"uri":"([^"]+)"/)?.[1] ?? "primer") +
        (e.includes("events_lost") ? JSON.stringify(JSON.parse(e.match(/data: (.*)/)[1]).params) : ""),
    );
};
for (let i = 0; i < 6; i += 1) sessions.notify("x/n" + i);
for (const asked of [
  undefined,
  "0",
  "1",
  "3",
  "5",
  "6",
  "7",
  "99999",
  "-1",
  "1e2",
  "abc",
  " 4 ",
  "",
  "4\r\nX-Injected: 1",
]) {
  let out;
  try {
    out = await get(asked);
  } catch (e) {
    out = "client refused header: " + e.message;
  }
  console.log(JSON.stringify(asked), "=>", JSON.stringify(out));
}
server.close();
process.exit(0);
