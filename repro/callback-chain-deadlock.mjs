// Defect (connection flow control, issue 33 item 5's ground; not a streaming defect): a burst of
// more requests than `maxInFlight` whose methods call the peer back, whose handler calls this side
// back (A -> B -> A), hangs for ever on a real TCP socket, under both conventions. Messages start in
// order, so the slots lent by the waiting methods' calls go to the next requests in line (which
// call back too), never to the call-backs the first ones wait on, and the loan is capped at
// `maxInFlight`. Uncapping the loan ends this hang but starts an avalanche instead (every queued
// request starts, up to `maxOutgoing`, and tests/connection-vscode-load.test.ts's call-back test
// gets -32000 overloaded answers): the mend is a flow-control design question.
//
//   npm run build && node repro/callback-chain-deadlock.mjs [maxInFlight=2] [requests=6] [lsp|mcp]
//
// Prints "answered [...]" and exits 0 when every chain is answered; "DEADLOCK" and exits 1 after
// 10 s otherwise. Also hangs: a streaming method that calls the peer back while the peer's
// progress handler calls this side back (each a chain of depth one, both ways at once).
import { once } from "node:events";
import * as net from "node:net";
import { Success } from "../dist/esm/index.js";
import { byteChannel, connect, newlineDelimited } from "../dist/esm/connection.js";

const [maxInFlight, count] = [Number(process.argv[2] ?? 2), Number(process.argv[3] ?? 6)];
const cancellation = process.argv[4] === "mcp" ? "mcp" : "lsp";

const listener = net.createServer();
listener.listen(0, "127.0.0.1");
await once(listener, "listening");
const accepted = once(listener, "connection");
const near = net.connect(listener.address().port, "127.0.0.1");
await once(near, "connect");
const [far] = await accepted;
listener.close();

let ids = 1000;
const call = async (peer, method, params) => {
  const body = JSON.stringify({ jsonrpc: "2.0", method, params, id: ids++ });
  const answer = await peer.transport(body, { signal: new AbortController().signal })();
  if (answer._tag === "Left") throw new Error(JSON.stringify(answer.left));
  return (typeof answer.right === "string" ? JSON.parse(answer.right) : answer.right.json).result;
};

const a = connect(byteChannel(far, far, newlineDelimited()), {
  cancellation,
  maxInFlight,
  context: {},
  methods: {
    echo: (_context, n) => Success(n),
    work: async (context, n) => Success(await call(context.peer, "ask", [n])),
  },
});
const b = connect(byteChannel(near, near, newlineDelimited()), {
  cancellation,
  maxInFlight,
  context: {},
  methods: { ask: async (context, n) => Success(await call(context.peer, "echo", [n])) },
});

const hang = setTimeout(() => {
  console.log("DEADLOCK after 10 s:", JSON.stringify({ a: a.load(), b: b.load() }));
  process.exit(1);
}, 10_000);
const answers = await Promise.all(Array.from({ length: count }, (_, n) => call(b, "work", [n])));
clearTimeout(hang);
console.log("answered", answers);
a.close();
b.close();
process.exit(0);
