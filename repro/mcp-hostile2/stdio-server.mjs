// An mcpServer on stdio (an rpcserver connection, cancellation "mcp"); a line "CHANGE" ... no: the
// server makes a tools change every time it reads `{"method":"x/change"}`-like control over fd 3 is
// overkill, so: HOSTILE_CHANGES_EVERY_MS makes a change on a timer, and stderr reports heap on SIGUSR2.
import { byteChannel, connect, newlineDelimited } from "../../dist/esm/connection.js";
import { makeMcp, echo } from "./common.mjs";

const mcp = makeMcp();
const peer = connect(byteChannel(process.stdin, process.stdout, newlineDelimited()), {
  methods: mcp.methods,
  stages: mcp.stages,
  context: {},
  cancellation: "mcp",
});
let n = 0;
const every = Number(process.env.HOSTILE_CHANGES_EVERY_MS ?? 0);
if (every > 0)
  setInterval(() => {
    n += 1;
    mcp.change({ tools: { echo } });
    mcp.updated("note://a");
  }, every);
process.on("SIGUSR2", () => {
  globalThis.gc?.();
  process.stderr.write(
    JSON.stringify({ heapMb: Math.round(process.memoryUsage().heapUsed / 1e5) / 10, changes: n }) + "\n",
  );
});
peer.closed.then(() => process.exit(0));
