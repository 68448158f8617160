/**
 * Calls the `examples` service that examples/nats/worker.mjs serves on NATS, three ways:
 *
 * - a plain NATS request with a JSON-RPC body, what any NATS client can send (`nats req` too);
 * - the typed client of examples/api.mjs over `natsTransport` (rpcserver/client), a streamed call
 *   included;
 * - the NATS services framework's own discovery: one answer per running worker.
 *
 *     node examples/nats/worker.mjs &               # one or more
 *     node examples/nats/client.mjs                 # NATS_URL=nats://host:port for another server
 *
 * Exits with status 1 when no worker serves `rpc.examples` (NATS answers "no responders" at once).
 */
import { connect } from "@nats-io/transport-node";
import { Svcm } from "@nats-io/services";
import * as E from "fp-ts/lib/Either.js";
import { batch, client, matchClientError, notify, open } from "rpcserver/client";
import { natsTransport } from "rpcserver/nats";
import { api } from "../api.mjs";

const url = process.env.NATS_URL || "nats://127.0.0.1:4222";
const subject = "rpc.examples";
const nc = await connect({ servers: url });

// 1. A plain request: the body is JSON-RPC, the reply is the answer's text.
try {
  const reply = await nc.request(subject, '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}', { timeout: 5000 });
  console.log(`nc.request ${subject} add [1,2] -> ${reply.string()}`);
} catch (error) {
  const why = error.isNoResponders?.() ? "no responders: start node examples/nats/worker.mjs" : error.message;
  console.error(`nc.request ${subject}: ${why}`);
  await nc.close();
  process.exit(1);
}

// 2. The typed client: params encoded and results decoded by the contract, failures as ClientErrors.
const transport = natsTransport(nc, subject, { timeoutMs: 5000 });
const remote = client(api, transport);
const describe = matchClientError({
  ServerError: (e) => `error ${e.code} ${e.message}${e.data === undefined ? "" : ` ${JSON.stringify(e.data)}`}`,
  TransportError: (e) => `no answer (${e.reason})`,
  InvalidAnswer: (e) => `a bad answer (${e.reason})`,
  InvalidCall: (e) => `not sent (${String(e.cause)})`,
});
const show = (label, answer, format = JSON.stringify) =>
  console.log(`${label}: ${E.isRight(answer) ? format(answer.right) : describe(answer.left)}`);

show("add(1, 2)", await remote.add(1, 2)());
show('greet({ name: "Ada" })', await remote.greet({ name: "Ada" })());
show("getUser(9)", await remote.getUser(9)());
const [sum, pong] = await batch([remote.add(2, 3), remote.ping()])();
show("batch add(2, 3)", sum);
show("batch ping()", pong);
show('log("hi") as a notification', await notify(remote.log("hi from examples/nats/client.mjs"))(), () => "sent");
if (typeof remote.count === "function") {
  // A streamed call: the values come as messages before the answer (docs/scale-out.md).
  const counting = open(remote.count(3));
  const values = [];
  for await (const n of counting) values.push(n);
  show(`count(3) streamed ${values.join(", ")}, then`, await counting.result);
}

// 3. Discovery, by the services framework's own client: every running worker answers.
const workers = [];
for await (const ping of await new Svcm(nc).client({ maxWait: 500 }).ping("examples")) workers.push(ping.id);
console.log(`$SRV.PING.examples: ${workers.length} worker(s): ${workers.join(", ")}`);

transport.close();
await nc.close();
