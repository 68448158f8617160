/**
 * `npm start`: serves examples/methods.mjs (the handlers of the contract in examples/api.mjs) on
 * localhost:5000 (the PORT environment variable overrides the port; PORT=0 picks a free one) and
 * prints a curl command to try, and the command that runs the typed client of the same contract
 * (examples/client.mjs); the server's own log says where its inspector page is (open that URL in a
 * browser to see the methods and call them). The server answers `rpc.discover` with the OpenRPC
 * document of the methods. Ctrl-C stops it.
 */
import { serve } from "rpcserver";
import "./methods.mjs";

const DEFAULT_PORT = 5000;
const port = process.env.PORT === undefined || process.env.PORT === "" ? DEFAULT_PORT : Number(process.env.PORT);

let server;
try {
  // The document's info names the service (the inspector page shows it); without it, a neutral
  // "JSON-RPC service".
  server = await serve("localhost", port, { openrpc: { title: "rpcserver examples", version: "1.0.0" } });
} catch (error) {
  console.error(error.message);
  process.exit(1);
}

const { url, port: actualPort } = server;
const body = '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}';
const discover = '{"jsonrpc":"2.0","method":"rpc.discover","id":1}';
console.log(`Try it:\n  curl -s -X POST ${url} -H 'Content-Type: application/json' -d '${body}'`);
console.log(`What it serves (its OpenRPC document):\n  curl -s -X POST ${url} -d '${discover}'`);
console.log(
  "Methods: ping, add, divide, greet, sleep, addDays, getUser, withdraw, crash, log, count, and rpc.discover (see examples/api.mjs)",
);
const clientCommand = `${actualPort === DEFAULT_PORT ? "" : `RPC_URL=${url} `}node examples/client.mjs`;
console.log(`A typed client of the same contract:\n  ${clientCommand}`);

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
