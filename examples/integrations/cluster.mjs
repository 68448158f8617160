/**
 * `node:cluster`: one HTTP JSON-RPC server process per CPU core, all on one port. Dispatch keeps no
 * state between requests, so any worker can answer any request: scaling out is only more
 * processes (here on one machine; across machines, the same behind a load balancer).
 *
 *     npm run build && node examples/integrations/cluster.mjs            # WORKERS=4 for 4 workers
 *
 * The primary forks the workers, replaces one that dies, and on SIGINT or SIGTERM stops them all
 * and exits. Each worker is a `node:http` server with `nodeHandler` on /rpc: a body of at most 1 MiB (more is
 * 413), batches of at most 100, 204 for a notification, the caller from `Authorization: Bearer
 * <token>` as the context. The `whoserved` method tells which worker answered.
 */
import cluster from "node:cluster";
import { createServer } from "node:http";
import { availableParallelism } from "node:os";
import { Success } from "rpcserver";
import { nodeHandler } from "rpcserver/server";
import { handlerOptions, listenOn, methods } from "./methods.mjs";

const { host, port } = listenOn(process.env);

if (cluster.isPrimary) {
  const count = Number(process.env.WORKERS) || availableParallelism();
  // Round-robin: the primary accepts connections and hands them to the workers in turn (the
  // default everywhere but Windows; set here so that the behaviour does not depend on the platform).
  cluster.schedulingPolicy = cluster.SCHED_RR;
  let stopping = false;
  let listening = 0;

  cluster.on("listening", (_worker, address) => {
    listening += 1;
    // Every worker shares one port (with PORT=0, the primary picks it once for all of them).
    if (listening === count) console.log(`listening on http://${host}:${address.port}/rpc (${count} workers)`);
  });
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) return;
    console.error(`worker ${worker.id} died (${signal ?? code}); starting another`);
    cluster.fork();
  });
  const stop = () => {
    stopping = true;
    cluster.disconnect(() => process.exit(0)); // each worker finishes its requests, then exits
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  for (let i = 0; i < count; i += 1) cluster.fork();
} else {
  const clusterMethods = {
    ...methods,
    /** Which worker answered, and its process id. */
    whoserved: (context) => Success({ worker: context.worker, pid: process.pid }),
  };

  const handler = nodeHandler(clusterMethods, {
    ...handlerOptions,
    context: (request) => ({ ...handlerOptions.context(request), worker: cluster.worker.id }),
  });
  // `nodeHandler` answers every path; this server serves JSON-RPC on /rpc only.
  const server = createServer((req, res) => {
    if (new URL(req.url ?? "/", "http://localhost").pathname === "/rpc") return void handler(req, res);
    req.resume();
    res.writeHead(404).end();
  });
  server.listen(port, host);
}
