// The serving processes of bench/nats.mjs, one per child process, each answering `add` requests:
//
//   node bench/nats-worker.mjs rpcserver <nats url>   serveNats: the service `bench`, subject bench.rpc, queue group rpc
//   node bench/nats-worker.mjs dispatch <nats url>    asyncDispatch in a plain queue subscription to bench.dispatch, no services framework
//   node bench/nats-worker.mjs echo <nats url>        a bare NATS echo: nc.subscribe("bench.echo", { queue }), m.respond(m.data)
//   node bench/nats-worker.mjs http                   the development server (`serve`) on 127.0.0.1, a free port
//
// The method is `add: (a, b) => Success(a + b)`, as in bench/bench.mjs's HTTP rows. Each worker
// prints one JSON line when it is ready ({ ready, port? }), then answers lines on its stdin:
// "snap" prints { cpuUs, answered } (its process.cpuUsage(), user + system, in µs, and the requests
// it answered so far: the bench takes the difference over a round), and "stop" stops it (serveNats
// and the echo drain) and prints the same figures as its last line before it exits 0.
import { createInterface } from "node:readline";
import { connect } from "@nats-io/transport-node";
import { asyncDispatch, serve, Success } from "rpcserver";
import { serveNats } from "rpcserver/nats";

const [kind, url] = process.argv.slice(2);
let answered = 0;
const add = (a, b) => {
  answered += 1;
  return Success(a + b);
};

const figures = () => {
  const { user, system } = process.cpuUsage();
  return { cpuUs: user + system, answered };
};

const start = async () => {
  if (kind === "http") {
    const server = await serve("127.0.0.1", 0, { methods: { add }, openrpc: false });
    return { ready: { port: server.address().port }, stop: () => server.close() };
  }
  const nc = await connect({ servers: url });
  if (kind === "rpcserver") {
    const service = await serveNats(nc, { add }, { name: "bench", version: "1.0.0", subject: "bench.rpc" });
    return { ready: {}, stop: async () => (await service.stop(), await nc.drain()) };
  }
  if (kind === "dispatch") {
    const methods = { add };
    nc.subscribe("bench.dispatch", {
      queue: "rpc",
      callback: (_error, message) => void asyncDispatch(message.data, methods).then((text) => message.respond(text)),
    });
    await nc.flush();
    return { ready: {}, stop: () => nc.drain() };
  }
  if (kind === "echo") {
    nc.subscribe("bench.echo", {
      queue: "rpc",
      callback: (_error, message) => {
        answered += 1;
        message.respond(message.data);
      },
    });
    await nc.flush();
    return { ready: {}, stop: () => nc.drain() };
  }
  throw new Error(`nats-worker: unknown kind ${kind} (rpcserver, dispatch, echo or http)`);
};

const worker = await start();
process.stdout.write(`${JSON.stringify({ ready: true, ...worker.ready })}\n`);
createInterface({ input: process.stdin }).on("line", async (line) => {
  if (line === "snap") process.stdout.write(`${JSON.stringify(figures())}\n`);
  if (line === "stop") {
    await worker.stop();
    process.stdout.write(`${JSON.stringify(figures())}\n`);
    process.exit(0);
  }
});
