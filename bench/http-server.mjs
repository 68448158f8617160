// The servers of bench/http-servers.mjs, one per child process: each answers the JSON-RPC request
// `add` (params [1, 2]) POSTed as JSON on 127.0.0.1 and a free port, which it prints on the first
// line of stdout. Runs until killed.
//
//   node bench/http-server.mjs bare | jayson | json-rpc-2.0 | answerHttp | nodeHandler | serve |
//                              serve-cluster | nodeHandler-cluster | fetchHandler-node | hono-node | answerHttp-fetch-node  [--count]
//   bun bench/http-server.mjs fetchHandler | hono
//   deno run -A --unstable-no-legacy-abort bench/http-server.mjs fetchHandler | hono
//
// - bare: `node:http`, the body read, `JSON.parse`, the sum, `JSON.stringify` of the answer: no
//   library, the floor.
// - jayson: jayson's own HTTP server (`server.http()`).
// - json-rpc-2.0: its `JSONRPCServer.receive` in a `node:http` handler, the body read and parsed,
//   the answer stringified (the library does no HTTP).
// - answerHttp: rpcserver's `answerHttp` in a `node:http` handler, with the glue a user wrote before
//   `nodeHandler`: the body read, `Accept` passed, the answer written (examples/integrations'
//   `writeAnswer`). No signal: the 74,000 req/s were measured without one.
// - nodeHandler: `nodeHandler({ add })` (rpcserver/server) as the `node:http` handler.
// - serve: the development server, `serve("127.0.0.1", 0, { methods: { add } })`, inspector on.
// - serve-cluster, nodeHandler-cluster: serve, and nodeHandler, in two `node:cluster` workers, the
//   primary accepting (Node's default; examples/integrations/cluster.mjs's deployment).
// - fetchHandler-node / hono-node: `fetchHandler({ add })`, and a Hono app whose route answers with
//   `c.json` (no rpcserver), each under @hono/node-server's `serve({ fetch })`.
// - fetchHandler / hono on Bun or Deno: the same two under `Bun.serve({ fetch })` and
//   `Deno.serve(handler)`, loading the built ESM files (as tests/runtime/fetch-server.mjs does).
//
// `--count` (Node's servers): the server counts its connections, the requests it read, the answers
// it finished and the responses closed unfinished, and prints them as a JSON line when sent SIGTERM
// (bench/http-servers.mjs reads them after a load run).
import { readFileSync } from "node:fs";
import { listen, readBody } from "./children.mjs";

const kind = globalThis.Deno ? globalThis.Deno.args[0] : process.argv[2];
const counting = (globalThis.Deno ? globalThis.Deno.args : process.argv).includes("--count");

const ANSWER_HEADERS = { "Content-Type": "application/json" };

/** Both `add`s rpcserver serves: positional params, a Success. */
const rpcserverMethods = async () => {
  const { Success } = await import("../dist/esm/index.js");
  return { add: (a, b) => Success(a + b) };
};

/** What the servers that are not rpcserver's answer: the sum of params, as JSON-RPC. */
const answerOf = (request) => ({ jsonrpc: "2.0", result: request.params[0] + request.params[1], id: request.id });

const bare = () =>
  listen(async (req, res) => {
    const body = JSON.stringify(answerOf(JSON.parse((await readBody(req)).toString("utf8"))));
    res.writeHead(200, { ...ANSWER_HEADERS, "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  });

const jaysonServer = async () => {
  const { default: jayson } = await import("jayson");
  const server = jayson.server({ add: (args, callback) => callback(null, args[0] + args[1]) }).http();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  console.log(server.address().port);
  return server;
};

const jsonRpc2 = async () => {
  const { JSONRPCServer } = await import("json-rpc-2.0");
  const server = new JSONRPCServer();
  server.addMethod("add", ([a, b]) => a + b);
  return listen(async (req, res) => {
    const answer = await server.receive(JSON.parse((await readBody(req)).toString("utf8")));
    if (answer === null) {
      res.writeHead(204);
      res.end();
      return;
    }
    const body = JSON.stringify(answer);
    res.writeHead(200, { ...ANSWER_HEADERS, "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  });
};

const answerHttpServer = async () => {
  const { answerHttp } = await import("../dist/esm/index.js");
  const { writeAnswer } = await import("../examples/integrations/node-answer.mjs");
  const methods = await rpcserverMethods();
  return listen(async (req, res) => {
    const body = await readBody(req);
    await writeAnswer(res, await answerHttp(body, methods, { accept: req.headers.accept }));
  });
};

const nodeHandlerServer = async ({ quiet = false } = {}) => {
  const { nodeHandler } = await import("../dist/esm/server.js");
  const handler = nodeHandler(await rpcserverMethods());
  return listen(async (req, res) => handler(req, res), { quiet });
};

const devServer = async ({ quiet = false } = {}) => {
  const { serve } = await import("../dist/esm/server.js");
  const server = await serve("127.0.0.1", 0, { methods: await rpcserverMethods() });
  if (!quiet) console.log(server.port);
  return server;
};

/**
 * A server under `node:cluster` (examples/integrations/cluster.mjs's deployment): WORKERS processes
 * each run `startWorker` on one port, and the primary accepts every connection and hands it to one
 * of them (round-robin, Node's default on Linux). The primary prints the port; with `--count` it
 * asks each worker for its counts at SIGTERM and prints their sum, with `peakRss`: the primary's
 * and the workers' peak resident sets together.
 */
const WORKERS = 2;
const clustered = (startWorker) => async () => {
  const { default: cluster } = await import("node:cluster");
  if (!cluster.isPrimary) {
    const server = await startWorker();
    process.send({ port: server.address().port });
    if (counting) count(server, (seen) => process.send({ seen, peakRss: peakRssOf(process.pid) }));
    return undefined;
  }
  // Set as the example sets it: the default everywhere but Windows.
  cluster.schedulingPolicy = cluster.SCHED_RR;
  const workers = Array.from({ length: WORKERS }, () => cluster.fork());
  const ports = await Promise.all(
    workers.map((worker) => new Promise((resolve) => worker.once("message", (m) => resolve(m.port)))),
  );
  console.log(ports[0]);
  process.once("SIGTERM", async () => {
    // A worker that is gone (killed, crashed) tells nothing: it counts as missing rather than
    // holding the primary, and the bench, forever; nor does a worker that never answers.
    const told = await Promise.all(
      workers.map(
        (worker) =>
          new Promise((resolve) => {
            if (worker.isDead()) return resolve(undefined);
            worker.once("message", resolve);
            worker.once("exit", () => resolve(undefined));
            worker.process.kill("SIGTERM");
          }),
      ),
    );
    const seen = { connections: 0, requests: 0, finished: 0, closedUnfinished: 0 };
    const counted = told.filter((each) => each !== undefined);
    for (const each of counted) for (const key of Object.keys(seen)) seen[key] += each.seen[key];
    const peakRss = counted.reduce((sum, each) => sum + each.peakRss, peakRssOf(process.pid));
    const missing = WORKERS - counted.length;
    process.stdout.write(`${JSON.stringify({ ...seen, workers: WORKERS, missing, peakRss })}\n`, () =>
      process.exit(missing === 0 ? 0 : 1),
    );
  });
  // Bounded: a worker that neither answers nor exits is killed, and the primary goes with its counts so far.
  process.once("SIGTERM", () =>
    setTimeout(() => {
      for (const worker of workers) worker.process.kill("SIGKILL");
    }, 5_000).unref(),
  );
  return undefined;
};

/** A process's peak resident set (VmHWM), in bytes; 0 where /proc cannot say. */
const peakRssOf = (pid) => {
  try {
    return Number(/VmHWM:\s*(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
};

/** Hono's own app: one route, the body read with `c.req.json()`, the answer sent with `c.json`. */
const honoApp = async () => {
  const { Hono } = await import("hono");
  const app = new Hono();
  app.post("/", async (c) => c.json(answerOf(await c.req.json())));
  return app;
};

/**
 * What `fetchHandler` replaces in a fetch handler: `answerHttp` with the glue of its own example (the
 * body read whole, `Accept` and the signal passed, `new Response(answer.body, answer)`).
 */
const answerHttpFetchOf = async () => {
  const { answerHttp } = await import("../dist/esm/index.js");
  const methods = await rpcserverMethods();
  return async (request) => {
    const body = new Uint8Array(await request.arrayBuffer());
    const answer = await answerHttp(body, methods, { accept: request.headers.get("Accept"), signal: request.signal });
    return new globalThis.Response(answer.body, answer);
  };
};

const fetchOf = async () => {
  const { fetchHandler } = await import("../dist/esm/fetch.js");
  return fetchHandler(await rpcserverMethods());
};

/** Under @hono/node-server's `serve({ fetch })`: a `node:http` server. */
const onHonoNodeServer = async (fetch) => {
  const { serve } = await import("@hono/node-server");
  const server = await new Promise((resolve) => {
    const made = serve({ fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(made));
  });
  console.log(server.address().port);
  return server;
};

/** Under the runtime's own server: `Bun.serve({ fetch })` or `Deno.serve(handler)`. */
const onRuntimeServer = (fetch) => {
  if (globalThis.Bun) {
    const server = globalThis.Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
    console.log(server.port);
  } else if (globalThis.Deno) {
    globalThis.Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(port) }, fetch);
  } else {
    throw new Error(`${kind} runs on Bun or Deno`);
  }
};

const servers = {
  bare,
  jayson: jaysonServer,
  "json-rpc-2.0": jsonRpc2,
  answerHttp: answerHttpServer,
  nodeHandler: nodeHandlerServer,
  serve: () => devServer(),
  "serve-cluster": clustered(() => devServer({ quiet: true })),
  "nodeHandler-cluster": clustered(() => nodeHandlerServer({ quiet: true })),
  "fetchHandler-node": async () => onHonoNodeServer(await fetchOf()),
  "hono-node": async () => onHonoNodeServer((await honoApp()).fetch),
  "answerHttp-fetch-node": async () => onHonoNodeServer(await answerHttpFetchOf()),
  fetchHandler: async () => onRuntimeServer(await fetchOf()),
  hono: async () => onRuntimeServer((await honoApp()).fetch),
};

/** Counts what a `node:http` server saw, printed as one JSON line on SIGTERM (or handed to `tell`). */
const count = (server, tell) => {
  const seen = { connections: 0, requests: 0, finished: 0, closedUnfinished: 0 };
  server.on("connection", () => (seen.connections += 1));
  server.on("request", (req, res) => {
    seen.requests += 1;
    res.once("finish", () => (seen.finished += 1));
    res.once("close", () => {
      if (!res.writableFinished) seen.closedUnfinished += 1;
    });
  });
  process.once("SIGTERM", () => {
    if (tell !== undefined) return tell(seen);
    process.stdout.write(`${JSON.stringify(seen)}\n`, () => process.exit(0));
  });
};

const start = servers[kind];
if (start === undefined) {
  console.error(`usage: bench/http-server.mjs ${Object.keys(servers).join(" | ")} [--count]`);
  process.exit(2);
}
const server = await start();
// A cluster's processes count their own way (clustered).
if (counting && server !== undefined) count(server);
