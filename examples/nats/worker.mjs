/**
 * The example methods (examples/methods.mjs, the handlers of the contract in examples/api.mjs: the
 * same `add` as `npm start`) served over NATS as the service `examples`, on the subject
 * `rpc.examples`. Start a NATS server, then this as many times as you like: every copy joins the
 * queue group `rpc`, and each request goes to one of them.
 *
 *     nats-server -a 127.0.0.1 -p 4222             # apt-get install nats-server, or the official binary
 *     node examples/nats/worker.mjs                 # NATS_URL=nats://host:port for another server
 *     node examples/nats/worker.mjs                 # again, in another terminal: a second member
 *     nats req rpc.examples '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}'
 *     node examples/nats/client.mjs                 # the same from Node: a plain request, then the typed client
 *
 * It prints one line: what it serves and its instance id (the id `$SRV.PING` and `$SRV.INFO` list
 * it under). The OpenRPC document answers on `rpc.examples.discover`, and `rpc.discover` on
 * `rpc.examples`. Ctrl-C or SIGTERM stops it with a drain: the requests it has taken are answered,
 * new ones go to the other workers, then it exits 0. `withdraw`'s balance lives in each process: two
 * workers hold two balances (docs/scale-out.md says what to share instead).
 */
import { connect } from "@nats-io/transport-node";
import { globalMethods } from "rpcserver";
import { serveNats } from "rpcserver/nats";
import "../methods.mjs";

const url = process.env.NATS_URL || "nats://127.0.0.1:4222";
const name = "examples";
const subject = "rpc.examples";

let nc;
try {
  nc = await connect({ servers: url, name: `${name} worker ${process.pid}` });
} catch (error) {
  console.error(`cannot connect to NATS at ${url} (${error.message}): is nats-server running? (nats-server -p 4222)`);
  process.exit(1);
}

// The methods `method(...)` registered in examples/methods.mjs, as `npm start` serves them. No
// `context` option: these methods take none (with one, every method gets it as its first argument).
const service = await serveNats(nc, globalMethods, { name, version: "1.0.0", subject });
const { id } = service.info();
console.log(`serving ${name} on ${subject} (queue group rpc) as instance ${id}, pid ${process.pid}, NATS at ${url}`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await service.stop(); // no new messages; those already taken are answered
  await nc.drain();
  process.exit(0);
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());

// The NATS server went away for good (the client gave up reconnecting): nothing left to serve.
void nc.closed().then((error) => {
  if (stopping) return;
  console.error(`the NATS connection closed${error ? `: ${error.message}` : ""}`);
  process.exit(1);
});
