// Benchmark harness: rpcserver against a hand-written lower bound and against peer libraries.
//
//   npm run build && node bench/bench.mjs            full run (about 2-3 minutes on 2 cores)
//   node bench/bench.mjs --quick                     smoke run (a few seconds)
//   node bench/bench.mjs --write                     also write docs/benchmarks.md
//   node bench/bench.mjs --json                      results as JSON on stdout (progress on stderr)
//   node bench/bench.mjs --only dispatch-single      only these cells: an impl id, a scenario id, or
//                                                   "<impl>-<scenario>", or "extras", comma separated;
//                                                   without "extras" it skips heap, import time and size
//   node bench/bench.mjs --no-extras                 skip heap growth, import time and bundle size
//   --rounds N, --batch-ms N                         override the timing parameters
//
// Every implementation gets the same request text and must return response text ("" for nothing
// to send). Each answer is checked before anything is timed; a wrong answer is reported as
// "wrong: ..." and that cell is not timed. Timing runs in one process: per scenario every
// implementation is warmed up and calibrated, then the scenario runs in interleaved rounds (each
// round runs every implementation for a fixed number of iterations, the order rotating by one each
// round), and the reported figure is the median ns per request across rounds.
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import os from "node:os";
import { writeFileSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as t from "io-ts";
import * as v from "valibot";
import { z } from "zod";
import { Console } from "node:console";
import { closeSync, openSync, writeSync } from "node:fs";
import { setImmediate } from "node:timers";
import { Writable } from "node:stream";
import * as E from "fp-ts/lib/Either.js";
import {
  dispatch,
  asyncDispatch,
  dispatchToSerializable,
  Success,
  withParams,
  withCodecs,
  contract,
  implement,
  serve,
  setLogger,
  defaultLogger,
} from "rpcserver";
import { batch as clientBatch, client, http as clientHttp, local } from "rpcserver/client";
import { nodeHttp } from "rpcserver/node-http";
import { JsonRpcServer as MetaMaskServer } from "@metamask/json-rpc-engine/v2";
import { rpcErrors } from "@metamask/rpc-errors";
import { formatted } from "./formatted.mjs";
import {
  ADD_TEXT,
  BATCH_SIZE,
  boom,
  errorResponse,
  makeLimitSync,
  PARSE_ERROR_TEXT,
  plainAsync,
  range,
  rpcMethodsOf,
  SCENARIOS,
  sumOf,
} from "./dispatch-scenarios.mjs";

const require = createRequire(import.meta.url);
const jayson = require("jayson");
const jaysonPromise = require("jayson/promise");
const { JSONRPCServer, JSONRPCClient } = require("json-rpc-2.0");

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SELF = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------------------------------------
// Options

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const valueOf = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : undefined;
};
const QUICK = flag("--quick");
const JSON_OUT = flag("--json");
const WRITE = flag("--write");
const ONLY = valueOf("--only")
  ?.split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const EXTRAS = !flag("--no-extras") && (ONLY === undefined || ONLY.includes("extras"));
const ROUNDS = Number(valueOf("--rounds") ?? (QUICK ? 8 : 60));
const BATCH_MS = Number(valueOf("--batch-ms") ?? (QUICK ? 6 : 18));
const WARMUP_MS = QUICK ? 40 : 150;
const IMPORT_RUNS = QUICK ? 5 : 15;
const HEAP_REQUESTS = 1_000_000;

const progress = (message) => process.stderr.write(`${message}\n`);
const now = () => process.hrtime.bigint();

// Methods that throw log an error on every call: silence the logger for the whole run, except for
// the "default logger on" rows, whose console.error writes to /dev/null with a synchronous write
// per call, as Node's stderr does to a file or a pipe.
const silent = () => undefined;
const SILENT = { error: silent, warn: silent, info: silent };
setLogger(SILENT);
const devNull = openSync("/dev/null", "w");
process.once("exit", () => closeSync(devNull));
const sink = new Writable({
  write(chunk, _encoding, callback) {
    writeSync(devNull, chunk);
    callback();
  },
});
console.error = new Console({ stdout: sink, stderr: sink }).error;

// ---------------------------------------------------------------------------------------------
// Heap child: `node --expose-gc bench/bench.mjs --heap-child` prints one JSON line.

const heapGrowth = (requests) => {
  const methods = { add: (a, b) => Success(a + b) };
  const chunks = 4;
  const per = requests / chunks;
  for (let i = 0; i < 20_000; i++) dispatch(ADD_TEXT, methods); // warm up, let the JIT settle
  globalThis.gc();
  globalThis.gc();
  const samples = [process.memoryUsage().heapUsed];
  let out = "";
  for (let c = 0; c < chunks; c++) {
    for (let i = 0; i < per; i++) out = dispatch(ADD_TEXT, methods);
    globalThis.gc();
    globalThis.gc();
    samples.push(process.memoryUsage().heapUsed);
  }
  if (out !== '{"jsonrpc":"2.0","result":3,"id":1}') throw new Error(`unexpected answer ${out}`);
  return { requests, samples, growth: samples[samples.length - 1] - samples[0] };
};

if (flag("--heap-child")) {
  process.stdout.write(`${JSON.stringify(heapGrowth(HEAP_REQUESTS))}\n`);
  process.exit(0);
}

// Server child: `node bench/bench.mjs --serve-child` runs the development server (`serve`) on
// 127.0.0.1 and a free port, prints {"port":N}, and stops when its stdin closes. The HTTP client
// rows call it: a process of its own, so that the server's work is not timed with the client's.
const SERVE_CHILD = flag("--serve-child");
if (SERVE_CHILD) {
  const server = await serve("127.0.0.1", 0, { methods: { add: (a, b) => Success(a + b) }, openrpc: false });
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
  process.stdin.on("end", () => process.exit(0)).resume();
}

// ---------------------------------------------------------------------------------------------
// Implementations. Each is `text => string` (sync) or `text => Promise<string>` (async).

/** limit-async: the same, awaiting async methods; a batch runs at once (Promise.all), as asyncDispatch does. */
const makeLimitAsync = () => {
  const table = new Map(Object.entries(plainAsync));
  const one = async (r) => {
    if (typeof r !== "object" || r === null || r.jsonrpc !== "2.0" || typeof r.method !== "string") {
      return errorResponse(-32600, "Invalid Request", null);
    }
    const id = r.id;
    const f = table.get(r.method);
    if (f === undefined) return id === undefined ? undefined : errorResponse(-32601, "Method not found", id);
    let result;
    try {
      const p = r.params;
      result = await (p === undefined ? f() : Array.isArray(p) ? f(...p) : f(p));
    } catch {
      return id === undefined ? undefined : errorResponse(-32603, "Internal error", id);
    }
    return id === undefined ? undefined : { jsonrpc: "2.0", result, id };
  };
  return async (text) => {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return PARSE_ERROR_TEXT;
    }
    if (Array.isArray(message)) {
      const settled = await Promise.all(message.map(one));
      const out = settled.filter((r) => r !== undefined);
      return out.length === 0 ? "" : JSON.stringify(out);
    }
    const r = await one(message);
    return r === undefined ? "" : JSON.stringify(r);
  };
};

const rpcMethods = (codec) => rpcMethodsOf({ Success, withParams }, codec);
const rpcMethodsAsync = {
  add: async (a, b) => Success(a + b),
  addNamed: async ({ a, b }) => Success(a + b),
  addChecked: withParams(t.tuple([t.number, t.number]), async (a, b) => Success(a + b)),
  sum: async (...xs) => Success(sumOf(xs)),
  fail: async () => boom(),
};

const makeDispatch = (codec) => {
  const methods = rpcMethods(codec);
  return (text) => dispatch(text, methods);
};

const makeSerializable = () => {
  const methods = rpcMethods(true);
  return (text) => {
    const value = dispatchToSerializable(text, methods);
    return value === undefined ? "" : JSON.stringify(value);
  };
};

const makeAsyncDispatch = () => (text) => asyncDispatch(text, rpcMethodsAsync);

// A stage that passes every call on: the cost of the stage machinery itself.
const pass = (call) => E.right(call);
const makeStaged = (n, async) => {
  const options = { stages: Array.from({ length: n }, () => pass) };
  if (async) return (text) => asyncDispatch(text, rpcMethodsAsync, options);
  const methods = rpcMethods(true);
  return (text) => dispatch(text, methods, options);
};

/** dispatch with the default logger, which writes each exception's message and stack (to /dev/null here). */
const makeLogged = () => {
  const methods = rpcMethods(true);
  return (text) => {
    setLogger(defaultLogger);
    try {
      return dispatch(text, methods);
    } finally {
      setLogger(SILENT);
    }
  };
};

// The same for async dispatch. The loop awaits every call, so the logger's writes (after the task)
// happen inside the timed loop: this row times the answer and its log written.
const makeAsyncLogged = () => async (text) => {
  setLogger(defaultLogger);
  try {
    return await asyncDispatch(text, rpcMethodsAsync);
  } finally {
    setLogger(SILENT);
  }
};

// jayson: methods take (params, callback); the server takes the request string and parses it.
const jaysonMethods = {
  add: (p, cb) => cb(null, p[0] + p[1]),
  addNamed: (p, cb) => cb(null, p.a + p.b),
  addChecked: (p, cb) => cb(null, p[0] + p[1]),
  sum: (p, cb) => cb(null, sumOf(p)),
  fail: boom,
};

const answerText = (error, response) =>
  error ? JSON.stringify(error) : response === undefined ? "" : JSON.stringify(response);

/** jayson's sync server: `call` runs synchronously for methods that call back synchronously. */
const makeJayson = () => {
  const server = new jayson.Server(jaysonMethods);
  return (text) => {
    let out;
    server.call(text, (error, response) => {
      out = answerText(error, response);
    });
    if (out === undefined) throw new Error("jayson did not answer synchronously");
    return out;
  };
};

const makeJaysonPromise = () => {
  const server = new jaysonPromise.Server({
    add: async (p) => p[0] + p[1],
    addNamed: async (p) => p.a + p.b,
    addChecked: async (p) => p[0] + p[1],
    sum: async (p) => sumOf(p),
    fail: async () => boom(),
  });
  return (text) =>
    new Promise((resolve) => server.call(text, (error, response) => resolve(answerText(error, response))));
};

const makeJsonRpc2 = () => {
  const server = new JSONRPCServer({ errorListener: silent });
  server.addMethod("add", async ([a, b]) => a + b);
  server.addMethod("addNamed", async ({ a, b }) => a + b);
  server.addMethod("addChecked", async ([a, b]) => a + b);
  server.addMethod("sum", async (xs) => sumOf(xs));
  server.addMethod("fail", async () => boom());
  return async (text) => {
    const response = await server.receiveJSON(text);
    return response === null ? "" : JSON.stringify(response);
  };
};

/**
 * @metamask/json-rpc-engine v2 (`JsonRpcServer`, the current API; `JsonRpcEngine` is deprecated).
 * It takes request objects and has no batch or parse step, so the wrapper parses, maps a batch
 * with Promise.all and answers a parse error itself. Methods live in one middleware; a
 * notification's middleware must return undefined.
 */
const makeMetaMask = () => {
  const table = new Map(
    Object.entries({
      add: async (p) => p[0] + p[1],
      addNamed: async (p) => p.a + p.b,
      addChecked: async (p) => p[0] + p[1],
      sum: async (p) => sumOf(p),
      fail: async () => boom(),
    }),
  );
  const server = new MetaMaskServer({
    onError: silent,
    middleware: [
      async ({ request }) => {
        const f = table.get(request.method);
        if (f === undefined) throw rpcErrors.methodNotFound();
        const result = await f(request.params);
        return "id" in request ? result : undefined;
      },
    ],
  });
  return async (text) => {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return PARSE_ERROR_TEXT;
    }
    if (Array.isArray(message)) {
      const settled = await Promise.all(message.map((m) => server.handle(m)));
      const out = settled.filter((r) => r !== undefined);
      return out.length === 0 ? "" : JSON.stringify(out);
    }
    const response = await server.handle(message);
    return response === undefined ? "" : JSON.stringify(response);
  };
};

const IMPLS = [
  { id: "limit-sync", label: "limit-sync", kind: "sync", limit: true, make: makeLimitSync },
  { id: "dispatch", label: "rpcserver dispatch", kind: "sync", ours: true, make: () => makeDispatch(true) },
  {
    id: "dispatch-nocodec",
    label: "rpcserver dispatch, no codec",
    kind: "sync",
    ours: true,
    only: ["codec"],
    make: () => makeDispatch(false),
  },
  {
    id: "dispatch-1stage",
    label: "rpcserver dispatch, 1 no-op stage",
    kind: "sync",
    ours: true,
    only: ["single", "notification"],
    make: () => makeStaged(1, false),
  },
  {
    id: "dispatch-4stages",
    label: "rpcserver dispatch, 4 no-op stages",
    kind: "sync",
    ours: true,
    only: ["single", "notification"],
    make: () => makeStaged(4, false),
  },
  {
    id: "dispatch-logged",
    label: "rpcserver dispatch, default logger on",
    kind: "sync",
    ours: true,
    only: ["throws"],
    make: makeLogged,
  },
  {
    id: "dispatch-logged-flushed",
    label: "rpcserver dispatch, default logger on, its writes timed",
    kind: "sync",
    ours: true,
    only: ["throws"],
    // The default logger writes after the current task: the clock stops only after it has.
    flushes: true,
    make: makeLogged,
  },
  {
    id: "serializable",
    label: "dispatchToSerializable + JSON.stringify",
    kind: "sync",
    ours: true,
    make: makeSerializable,
  },
  { id: "jayson", label: "jayson 4 (sync)", kind: "sync", make: makeJayson },
  { id: "limit-async", label: "limit-async", kind: "async", limit: true, make: makeLimitAsync },
  { id: "asyncDispatch", label: "rpcserver asyncDispatch", kind: "async", ours: true, make: makeAsyncDispatch },
  {
    id: "asyncDispatch-4stages",
    label: "rpcserver asyncDispatch, 4 no-op stages",
    kind: "async",
    ours: true,
    only: ["single"],
    make: () => makeStaged(4, true),
  },
  {
    id: "asyncDispatch-logged",
    label: "rpcserver asyncDispatch, default logger on (its writes timed)",
    kind: "async",
    ours: true,
    only: ["throws"],
    make: makeAsyncLogged,
  },
  { id: "jayson-promise", label: "jayson/promise", kind: "async", make: makeJaysonPromise },
  { id: "json-rpc-2.0", label: "json-rpc-2.0", kind: "async", make: makeJsonRpc2 },
  {
    id: "metamask",
    label: "@metamask/json-rpc-engine v2",
    kind: "async",
    // The library has no parse step: the wrapper's own JSON.parse answers these.
    wrapperAnswers: ["parse-error"],
    make: makeMetaMask,
  },
];

const selected = (impl, scenario) => {
  if (impl.only !== undefined && !impl.only.includes(scenario.id)) return false;
  if (ONLY === undefined) return true;
  return ONLY.some(
    (f) => f === impl.id || f === scenario.id || f === `${impl.id}-${scenario.id}` || f === scenario.section,
  );
};

// ---------------------------------------------------------------------------------------------
// Contract and client (issue 14): sections whose scenarios carry implementations of their own.
// Each implementation's answer is read into a plain value (`read`) and compared with the
// scenario's `want` before anything is timed; ratios are to the scenario's `base` implementation.

const ADD_CODECS = { params: t.tuple([t.number, t.number]), result: t.number };
const ADD_CONTRACT = contract({ add: ADD_CODECS });
/** The contract's methods with a sync handler: what the client over `local` dispatches to. */
const contractMethods = implement(ADD_CONTRACT, { add: (a, b) => E.right(a + b) });

const BATCH_TEXT = SCENARIOS.find((s) => s.id === "batch").text;
const BATCH_WANT = range(BATCH_SIZE).map((i) => 2 * i);

/** Reads a response text: its result, or its error. */
const readText = (out) => {
  const value = JSON.parse(out);
  const one = (r) => (r?.error === undefined ? r?.result : `error ${JSON.stringify(r.error)}`);
  return Array.isArray(value) ? value.map(one) : one(value);
};
/** Reads a client's Either (or an array of them). */
const readEither = (out) => {
  const one = (e) => (e?._tag === "Right" ? e.right : `Left ${JSON.stringify(e?.left)}`);
  return Array.isArray(out) ? out.map(one) : one(out);
};
const asIs = (out) => out;

/** The calls of one batch, made afresh each time, as an application makes them. */
const batchCalls = (api) => range(BATCH_SIZE).map((i) => api.add(i, i));

/** json-rpc-2.0's client with the fetch-based send its README shows. */
const jsonRpc2Client = (url) => {
  const c = new JSONRPCClient(async (request) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
    });
    if (response.status === 200) c.receive(await response.json());
    else if (response.status !== 204) throw new Error(`HTTP ${response.status}`);
  });
  return c;
};

/** jayson's HTTP client (node:http, the global agent: keep-alive on Node 19 and later). */
const jaysonRequest = (c, method, params) =>
  new Promise((resolve, reject) =>
    c.request(method, params, (error, response) => (error ? reject(error) : resolve(response))),
  );

/** The same two-number params, checked by each library: io-ts, zod 4 and valibot 1. */
const ADD_SCHEMAS = {
  "io-ts": t.tuple([t.number, t.number]),
  zod: z.tuple([z.number(), z.number()]),
  valibot: v.tuple([v.number(), v.number()]),
};
const ADD_PARAMS = [1, 2];

/** A library's own check of the params, alone: io-ts's `decode`, a Standard Schema's `validate`. */
const checkAlone = (library) => {
  const schema = ADD_SCHEMAS[library];
  const check =
    library === "io-ts" ? (value) => schema.decode(value).right : (value) => schema["~standard"].validate(value).value;
  return () => {
    const [a, b] = check(ADD_PARAMS);
    return a + b;
  };
};

/**
 * zod's schema in the smallest io-ts-shaped codec one could write by hand: what our adapter is
 * compared with, to tell its cost from the schema's own cost inside dispatch.
 */
const handAdapted = (schema) => {
  const validate = schema["~standard"].validate;
  return {
    name: "by hand",
    decode: (value) => {
      const result = validate(value);
      return result.issues === undefined ? E.right(result.value) : E.left([]);
    },
    encode: (value) => value,
    is: () => true,
  };
};

/** One row per library: dispatch with its params schema, and its check alone (the difference is ours). */
const schemaImpls = Object.keys(ADD_SCHEMAS).flatMap((library) => [
  {
    id: `dispatch-params-${library}`,
    label: `dispatch, ${library} params`,
    kind: "sync",
    read: readText,
    make: () => {
      const methods = { add: withParams(ADD_SCHEMAS[library], (a, b) => Success(a + b)) };
      return (text) => dispatch(text, methods);
    },
  },
  {
    id: `check-params-${library}`,
    label: `${library}'s check alone`,
    kind: "sync",
    read: asIs,
    make: () => checkAlone(library),
  },
  ...(library === "zod"
    ? [
        {
          id: "dispatch-params-zod-by-hand",
          label: "dispatch, zod params in a hand-written codec",
          kind: "sync",
          read: readText,
          make: () => {
            const methods = { add: withParams(handAdapted(ADD_SCHEMAS.zod), (a, b) => Success(a + b)) };
            return (text) => dispatch(text, methods);
          },
        },
      ]
    : []),
]);

const SECTIONS = [
  {
    id: "contract",
    title: "Contract methods: dispatch",
    ratioTo: "the `withCodecs` method under the same dispatch",
    scenarios: [
      {
        id: "contract",
        section: "contract",
        title: "add(1, 2) with io-ts params and result codecs",
        text: ADD_TEXT,
        want: 3,
        base: { sync: "dispatch-withCodecs", async: "asyncDispatch-withCodecs" },
        impls: [
          {
            id: "dispatch-withCodecs",
            label: "dispatch, `withCodecs` method returning `Success`",
            kind: "sync",
            read: readText,
            make: () => {
              const methods = { add: withCodecs(ADD_CODECS, (a, b) => Success(a + b)) };
              return (text) => dispatch(text, methods);
            },
          },
          {
            id: "dispatch-contract",
            label: "dispatch, contract method (`implement`) returning an Either",
            kind: "sync",
            read: readText,
            make: () => (text) => dispatch(text, contractMethods),
          },
          {
            // Issue 34: a nested name costs nothing against a flat one. The same method in a contract
            // held by a contract, called by its full name (`math.add`); the scenario's text names
            // `add`, so this cell sends its own, 5 bytes longer.
            id: "dispatch-contract-nested",
            label: "dispatch, the same contract method nested (`math.add`)",
            kind: "sync",
            read: readText,
            make: () => {
              const methods = implement(contract({ math: ADD_CONTRACT }), { math: { add: (a, b) => E.right(a + b) } });
              const nested = ADD_TEXT.replace('"method":"add"', '"method":"math.add"');
              if (nested === ADD_TEXT) throw new Error("bench: the nested cell's text names no add");
              return () => dispatch(nested, methods);
            },
          },
          {
            id: "asyncDispatch-withCodecs",
            label: "asyncDispatch, `withCodecs` method, async",
            kind: "async",
            read: readText,
            make: () => {
              const methods = { add: withCodecs(ADD_CODECS, async (a, b) => Success(a + b)) };
              return (text) => asyncDispatch(text, methods);
            },
          },
          {
            id: "asyncDispatch-contract",
            label: "asyncDispatch, contract method, async (a Promise of an Either)",
            kind: "async",
            read: readText,
            make: () => {
              const methods = implement(ADD_CONTRACT, { add: async (a, b) => E.right(a + b) });
              return (text) => asyncDispatch(text, methods);
            },
          },
          {
            id: "asyncDispatch-contract-te",
            label: "asyncDispatch, contract method answering a TaskEither",
            kind: "async",
            read: readText,
            make: () => {
              const methods = implement(ADD_CONTRACT, { add: (a, b) => () => Promise.resolve(E.right(a + b)) });
              return (text) => asyncDispatch(text, methods);
            },
          },
        ],
      },
    ],
  },
  {
    id: "schemas",
    title: "Params schemas: io-ts, zod and valibot",
    ratioTo: "dispatch with the io-ts codec",
    scenarios: [
      {
        id: "schemas",
        section: "schemas",
        title: "add(1, 2), params checked by each library",
        text: ADD_TEXT,
        want: 3,
        base: { sync: "dispatch-params-io-ts" },
        impls: schemaImpls,
      },
    ],
  },
  {
    id: "client-local",
    title: "Client over `local`",
    ratioTo: "`asyncDispatch` of the same request",
    scenarios: [
      {
        id: "client-local",
        section: "client-local",
        title: "one call, add(1, 2)",
        text: ADD_TEXT,
        want: 3,
        base: { async: "local-asyncDispatch" },
        impls: [
          {
            id: "local-asyncDispatch",
            label: "asyncDispatch of the same request text",
            kind: "async",
            read: readText,
            make: () => (text) => asyncDispatch(text, contractMethods),
          },
          {
            id: "local-client",
            label: "client(contract, local(methods))",
            kind: "async",
            read: readEither,
            make: () => {
              const api = client(ADD_CONTRACT, local(contractMethods));
              return () => api.add(1, 2)();
            },
          },
          {
            id: "local-table",
            label: "client<typeof methods>(local(methods)), no codecs",
            kind: "async",
            read: readEither,
            make: () => {
              const api = client(local(contractMethods));
              return () => api.add(1, 2)();
            },
          },
        ],
      },
      {
        id: "client-local-batch",
        section: "client-local",
        title: `batch of ${BATCH_SIZE} (per call)`,
        text: BATCH_TEXT,
        perRequest: BATCH_SIZE,
        want: BATCH_WANT,
        base: { async: "local-asyncDispatch" },
        impls: [
          {
            id: "local-asyncDispatch",
            label: "asyncDispatch of the same request text",
            kind: "async",
            read: readText,
            make: () => (text) => asyncDispatch(text, contractMethods),
          },
          {
            id: "local-client",
            label: "client(contract, local(methods))",
            kind: "async",
            read: readEither,
            make: () => {
              const api = client(ADD_CONTRACT, local(contractMethods));
              return () => clientBatch(batchCalls(api))();
            },
          },
        ],
      },
    ],
  },
  {
    id: "client-http",
    title: "Clients over HTTP on loopback, against the development server",
    ratioTo: "rpcserver's client with the contract",
    server: true,
    scenarios: [
      {
        id: "client-http",
        section: "client-http",
        title: "one call, add(1, 2)",
        want: 3,
        base: { async: "http-client" },
        impls: [
          {
            id: "http-client",
            label: "rpcserver client(contract, http(url))",
            kind: "async",
            read: readEither,
            make: ({ url }) => {
              const api = client(ADD_CONTRACT, clientHttp(url));
              return () => api.add(1, 2)();
            },
          },
          {
            id: "http-client-node",
            label: "rpcserver client(contract, nodeHttp(url)) (rpcserver/node-http)",
            kind: "async",
            read: readEither,
            make: ({ url }) => {
              const api = client(ADD_CONTRACT, nodeHttp(url));
              return () => api.add(1, 2)();
            },
          },
          {
            id: "http-table",
            label: "rpcserver client<typeof methods>(http(url)), no codecs",
            kind: "async",
            read: readEither,
            make: ({ url }) => {
              const api = client(clientHttp(url));
              return () => api.add(1, 2)();
            },
          },
          {
            id: "http-json-rpc-2.0",
            label: "json-rpc-2.0 JSONRPCClient (fetch)",
            kind: "async",
            read: asIs,
            make: ({ url }) => {
              const c = jsonRpc2Client(url);
              return () => c.request("add", [1, 2]);
            },
          },
          {
            id: "http-jayson",
            label: "jayson Client.http",
            kind: "async",
            read: asIs,
            make: ({ port }) => {
              const c = jayson.Client.http({ host: "127.0.0.1", port });
              return () => jaysonRequest(c, "add", [1, 2]).then((response) => response.result);
            },
          },
        ],
      },
      {
        id: "client-http-batch",
        section: "client-http",
        title: `batch of ${BATCH_SIZE} in one request (per call)`,
        perRequest: BATCH_SIZE,
        want: BATCH_WANT,
        base: { async: "http-client" },
        impls: [
          {
            id: "http-client",
            label: "rpcserver client(contract, http(url))",
            kind: "async",
            read: readEither,
            make: ({ url }) => {
              const api = client(ADD_CONTRACT, clientHttp(url));
              return () => clientBatch(batchCalls(api))();
            },
          },
          {
            id: "http-client-node",
            label: "rpcserver client(contract, nodeHttp(url)) (rpcserver/node-http)",
            kind: "async",
            read: readEither,
            make: ({ url }) => {
              const api = client(ADD_CONTRACT, nodeHttp(url));
              return () => clientBatch(batchCalls(api))();
            },
          },
          {
            id: "http-json-rpc-2.0",
            label: "json-rpc-2.0 JSONRPCClient (fetch)",
            kind: "async",
            read: asIs,
            make: ({ url }) => {
              const c = jsonRpc2Client(url);
              let id = 0;
              return () =>
                c
                  .requestAdvanced(
                    range(BATCH_SIZE).map((i) => ({ jsonrpc: "2.0", method: "add", params: [i, i], id: ++id })),
                  )
                  .then((responses) => responses.map((r) => r.result));
            },
          },
          {
            id: "http-jayson",
            label: "jayson Client.http",
            kind: "async",
            read: asIs,
            make: ({ port }) => {
              const c = jayson.Client.http({ host: "127.0.0.1", port });
              return () =>
                new Promise((resolve, reject) =>
                  c.request(
                    range(BATCH_SIZE).map((i) => c.request("add", [i, i])),
                    (error, responses) => (error ? reject(error) : resolve(responses.map((r) => r.result))),
                  ),
                );
            },
          },
        ],
      },
    ],
  },
];

/** Starts the server child (see --serve-child); resolves to where it listens and how to stop it. */
const startServerChild = () =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, "--serve-child"], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the server child exited (${code}) before it listened`)));
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      out += chunk;
      if (!out.includes("\n")) return;
      const { port } = JSON.parse(out);
      resolve({ port, url: `http://127.0.0.1:${port}/`, stop: () => child.stdin.end() });
    });
  });

// ---------------------------------------------------------------------------------------------
// Correctness

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const show = (v) => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 40 ? `${s.slice(0, 37)}...` : s;
};

const checkOne = (r, expect) => {
  if (typeof r !== "object" || r === null || Array.isArray(r)) return `not a response object: ${show(r)}`;
  if (r.jsonrpc !== "2.0") return `jsonrpc ${show(r.jsonrpc)}`;
  if ("result" in expect) {
    if ("error" in r) return `error ${show(r.error.code)} instead of result ${show(expect.result)}`;
    if (!("result" in r)) return "no result";
    if (!same(r.result, expect.result)) return `result ${show(r.result)}, expected ${show(expect.result)}`;
    if (r.id !== expect.id) return `id ${show(r.id)}, expected ${show(expect.id)}`;
    return undefined;
  }
  if ("result" in r) return `result ${show(r.result)} instead of error ${expect.code}`;
  const e = r.error;
  if (typeof e !== "object" || e === null) return "no error object";
  if (!Number.isInteger(e.code)) return `error code ${show(e.code)}`;
  if (expect.code !== "any" && e.code !== expect.code) return `error code ${e.code}, expected ${expect.code}`;
  if (typeof e.message !== "string") return "error message is not a string";
  if (!expect.ids.includes(r.id)) return `id ${show(r.id)}, expected ${expect.ids.map(show).join(" or ")}`;
  return undefined;
};

/** Why `out` is not the expected answer, or undefined when it is. */
const check = (scenario, out) => {
  const expect = scenario.expect;
  if (typeof out !== "string") return `returned ${typeof out}, not a string`;
  if (expect.nothing) return out === "" ? undefined : `answered a notification: ${show(out)}`;
  if (out === "") return "no answer";
  let value;
  try {
    value = JSON.parse(out);
  } catch {
    return `not JSON: ${show(out)}`;
  }
  if (expect.batch) {
    if (!Array.isArray(value)) return `not an array: ${show(value)}`;
    if (value.length !== expect.batch.length) return `${value.length} responses, expected ${expect.batch.length}`;
    const byId = new Map(value.map((r) => [r?.id, r]));
    for (const e of expect.batch) {
      const why = checkOne(byId.get(e.id), e);
      if (why !== undefined) return `id ${e.id}: ${why}`;
    }
    return undefined;
  }
  return checkOne(value, expect);
};

// ---------------------------------------------------------------------------------------------
// Timing

const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor;

// A fresh loop function per cell, so that no call site's type feedback is shared between impls.
const loopFor = (kind) =>
  kind === "sync"
    ? new Function("fn", "text", "n", "let s; for (let i = 0; i < n; i++) s = fn(text); return s;")
    : new AsyncFunction("fn", "text", "n", "let s; for (let i = 0; i < n; i++) s = await fn(text); return s;");

/** Runs `n` iterations; returns the elapsed nanoseconds. */
const nextTask = () => new Promise((resolve) => setImmediate(resolve));

const runBatch = async (cell, n) => {
  if (cell.kind === "sync") {
    const t0 = now();
    cell.loop(cell.fn, cell.text, n);
    if (cell.flushes) await nextTask();
    return Number(now() - t0);
  }
  const t0 = now();
  await cell.loop(cell.fn, cell.text, n);
  return Number(now() - t0);
};

/**
 * Warms a cell up for about `ms` (batches doubling in size), then returns its iterations for a
 * batch of BATCH_MS, estimated from the last, warmest, batches only: the first ones include
 * compilation and would make the batches of fast implementations too short.
 */
const warmUp = async (cell, ms) => {
  const budget = ms * 1e6;
  let n = 1;
  let spent = 0;
  const cap = 1 << 22;
  for (;;) {
    const last = await runBatch(cell, n);
    spent += last;
    if (spent >= budget && (last >= 1e6 || n === cap)) break;
    n = Math.min(n * 2, cap);
  }
  // The fastest of three: interference (a collection, another process) only ever adds time.
  let fastest = Infinity;
  for (let i = 0; i < 3; i++) fastest = Math.min(fastest, await runBatch(cell, n));
  return Math.max(1, Math.round((BATCH_MS * 1e6) / (fastest / n)));
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (pos - lo);
};

/**
 * The median over rounds of a's time / b's time in the same round. Both ran within one round, so
 * a burst of load from other processes tends to hit both, and this is steadier than the ratio of
 * the two medians.
 */
const pairedRatio = (a, b) => {
  if (a?.samples === undefined || b?.samples === undefined) return undefined;
  const n = Math.min(a.samples.length, b.samples.length);
  if (n === 0) return undefined;
  return median(Array.from({ length: n }, (_, i) => a.samples[i] / b.samples[i]));
};

/** The median over rounds of a's time - b's time in the same round, in ns. */
const pairedDifference = (a, b) => {
  if (a?.samples === undefined || b?.samples === undefined) return undefined;
  const n = Math.min(a.samples.length, b.samples.length);
  if (n === 0) return undefined;
  return median(Array.from({ length: n }, (_, i) => a.samples[i] - b.samples[i]));
};

/** Why a section implementation's answer is not the scenario's `want`, or undefined when it is. */
const checkWant = (scenario, impl, out) => {
  const value = impl.read(out);
  return same(value, scenario.want) ? undefined : `answered ${show(value)}, expected ${show(scenario.want)}`;
};

/**
 * Times a scenario's implementations: those of IMPLS, or a section scenario's own (made with
 * `context`: the HTTP server's url and port). Ratios are to limit-sync and limit-async, or to the
 * scenario's `base`.
 */
const runScenario = async (scenario, context = {}) => {
  const cells = [];
  const results = {};
  const impls = scenario.impls ?? IMPLS;
  for (const impl of impls) {
    if (!selected(impl, scenario)) continue;
    const fn = impl.make(context);
    let out;
    let why;
    try {
      out = impl.kind === "sync" ? fn(scenario.text) : await fn(scenario.text);
      why = scenario.want === undefined ? check(scenario, out) : checkWant(scenario, impl, out);
    } catch (thrown) {
      why = `threw ${thrown?.constructor?.name ?? typeof thrown}: ${String(thrown?.message ?? thrown).slice(0, 40)}`;
    }
    if (why !== undefined) {
      results[impl.id] = { wrong: why };
      continue;
    }
    cells.push({
      impl,
      kind: impl.kind,
      flushes: impl.flushes === true,
      fn,
      text: scenario.text,
      loop: loopFor(impl.kind),
      samples: [],
    });
  }
  for (const cell of cells) cell.iterations = await warmUp(cell, WARMUP_MS);
  const perRequest = scenario.perRequest ?? 1;
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < cells.length; k++) {
      const cell = cells[(k + round) % cells.length];
      try {
        const ns = await runBatch(cell, cell.iterations);
        cell.samples.push(ns / cell.iterations / perRequest);
      } catch (thrown) {
        cell.failed = `threw while timed: ${String(thrown?.message ?? thrown).slice(0, 40)}`;
      }
    }
  }
  for (const cell of cells) {
    if (cell.failed) {
      results[cell.impl.id] = { wrong: cell.failed };
      continue;
    }
    const ns = median(cell.samples);
    results[cell.impl.id] = {
      ns,
      q1: quantile(cell.samples, 0.25),
      q3: quantile(cell.samples, 0.75),
      rounds: cell.samples.length,
      iterations: cell.iterations,
      samples: cell.samples,
    };
  }
  for (const kind of ["sync", "async"]) {
    const limit = results[scenario.base?.[kind] ?? (kind === "sync" ? "limit-sync" : "limit-async")];
    for (const impl of impls) {
      const r = results[impl.id];
      if (impl.kind !== kind || r === undefined || r.ns === undefined) continue;
      r.ratio = pairedRatio(r, limit);
    }
  }
  return results;
};

// ---------------------------------------------------------------------------------------------
// Extras: heap growth, import time, bundle size

const measureHeap = () => {
  if (typeof globalThis.gc === "function") return { ...heapGrowth(HEAP_REQUESTS), where: "in-process" };
  const child = spawnSync(process.execPath, ["--expose-gc", SELF, "--heap-child"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) return { error: (child.stderr || `exit ${child.status}`).trim().split("\n")[0] };
  return { ...JSON.parse(child.stdout.trim().split("\n").pop()), where: "child node --expose-gc" };
};

const spawnMs = (code) => {
  const t0 = now();
  const child = spawnSync(process.execPath, ["-e", code], { cwd: ROOT, encoding: "utf8" });
  const ms = Number(now() - t0) / 1e6;
  if (child.status !== 0) throw new Error(`node -e ${code}: ${child.stderr.trim().split("\n")[0]}`);
  return ms;
};

const measureImport = () => {
  const programs = {
    baseline: "0",
    rpcserver: "import('rpcserver')",
    deps: "Promise.all([import('fp-ts/lib/Either.js'), import('io-ts')])",
  };
  const times = { baseline: [], rpcserver: [], deps: [] };
  for (const code of Object.values(programs)) spawnMs(code); // warm the file cache
  for (let i = 0; i < IMPORT_RUNS; i++) {
    for (const [name, code] of Object.entries(programs)) times[name].push(spawnMs(code));
  }
  const baseline = median(times.baseline);
  return {
    runs: IMPORT_RUNS,
    baselineMs: baseline,
    rpcserverMs: median(times.rpcserver) - baseline,
    depsMs: median(times.deps) - baseline,
  };
};

/** Rollup as installed: the `rollup` package, or its WebAssembly build `@rollup/wasm-node`. */
const loadRollup = async () => {
  for (const name of ["rollup", "@rollup/wasm-node"]) {
    try {
      return { ...(await import(name)), name };
    } catch {
      // Try the next one.
    }
  }
  throw new Error("neither rollup nor @rollup/wasm-node is installed");
};

/**
 * The first minifier installed, as `code => minified code`. terser (what @rollup/plugin-terser
 * runs) is the reference; the others stand in for it when it is missing. uglify-js is usually
 * only a transitive dependency (of handlebars, through ts-jest), so its presence is luck.
 */
const loadMinifier = async () => {
  const candidates = [
    ["terser", async (m, code) => (await m.minify(code, { module: true, compress: true, mangle: true })).code],
    ["esbuild", async (m, code) => (await m.transform(code, { minify: true, format: "esm" })).code],
    ["@swc/core", async (m, code) => (await m.minify(code, { compress: true, mangle: true, module: true })).code],
    [
      "uglify-js",
      async (m, code) => {
        const out = m.minify(code, { module: true, compress: true, mangle: true });
        if (out.error) throw out.error;
        return out.code;
      },
    ],
  ];
  for (const [name, run] of candidates) {
    let module;
    try {
      module = require(name);
    } catch {
      continue;
    }
    return { name, minify: (code) => run(module, code) };
  }
  return undefined;
};

const measureSize = async () => {
  const rollupModule = await loadRollup();
  const bundle = await rollupModule.rollup({
    input: join(ROOT, "dist/esm/index.js"),
    external: (id) => /^(fp-ts|io-ts)(\/|$)/.test(id) || id.startsWith("node:"),
    onwarn: () => undefined,
  });
  const { output } = await bundle.generate({ format: "es" });
  await bundle.close();
  const code = output[0].code;
  const gz = (text) => gzipSync(Buffer.from(text), { level: 9 }).length;
  const result = { bundler: rollupModule.name, bytes: Buffer.byteLength(code), gzip: gz(code) };
  const minifier = await loadMinifier();
  if (minifier === undefined) {
    result.minifier = "none installed (add terser, or @rollup/plugin-terser, as a dev dependency)";
    return result;
  }
  try {
    const minified = await minifier.minify(code);
    result.minifier = minifier.name;
    result.minBytes = Buffer.byteLength(minified);
    result.minGzip = gz(minified);
  } catch (thrown) {
    result.minifier = `${minifier.name} failed: ${String(thrown?.message ?? thrown).slice(0, 60)}`;
  }
  return result;
};

// ---------------------------------------------------------------------------------------------
// Report

const fmtNs = (ns) => (ns >= 100 ? Math.round(ns).toLocaleString("en-US") : ns.toFixed(1));
const fmtRatio = (r) => (r === undefined ? "" : ` (${r.toFixed(2)}x)`);
const fmtSpread = (r) => `±${Math.round((50 * (r.q3 - r.q1)) / r.ns)}%`;
const cellText = (r, impl, scenario) => {
  if (r === undefined) return "-";
  if (r.wrong !== undefined) return `wrong: ${r.wrong}`;
  const mark = impl.wrapperAnswers?.includes(scenario.id) ? " †" : "";
  return `${fmtNs(r.ns)}${fmtRatio(r.ratio)} ${fmtSpread(r)}${mark}`;
};

const table = (kind, results) => {
  const impls = IMPLS.filter((i) => i.kind === kind && SCENARIOS.some((s) => results[s.id]?.[i.id] !== undefined));
  if (impls.length === 0) return "";
  const lines = [
    `| scenario: median ns/request (ratio to ${kind === "sync" ? "limit-sync" : "limit-async"}) ±half the quartile spread | ${impls.map((i) => i.label).join(" | ")} |`,
    `| --- | ${impls.map(() => "---:").join(" | ")} |`,
  ];
  for (const s of SCENARIOS) {
    if (results[s.id] === undefined) continue;
    lines.push(`| ${s.title} | ${impls.map((i) => cellText(results[s.id][i.id], i, s)).join(" | ")} |`);
  }
  return lines.join("\n");
};

const ratio = (results, scenario, impl) => results[scenario]?.[impl]?.ratio;

const evaluateTargets = (results, extras) => {
  const rows = [];
  const target = (name, measured, met) => rows.push({ name, measured, met });
  const ratioTarget = (name, impl, scenarios, max) => {
    const rs = scenarios.map((s) => [s, ratio(results, s, impl)]).filter(([, r]) => r !== undefined);
    if (rs.length === 0) return;
    const worst = Math.max(...rs.map(([, r]) => r));
    target(
      `${name} <= ${max}x`,
      rs.map(([s, r]) => `${s} ${r.toFixed(2)}x`).join(", "),
      rs.length === scenarios.length ? worst <= max : undefined,
    );
  };
  ratioTarget(
    "sync dispatch vs limit-sync, single/notification/batch",
    "dispatch",
    ["single", "named", "notification", "batch"],
    1.2,
  );
  ratioTarget(
    "asyncDispatch vs limit-async, single/batch/notification",
    "asyncDispatch",
    ["single", "named", "batch", "notification"],
    1.15,
  );
  ratioTarget(
    "method throws, default logger on (answer returned; the log is written after the task)",
    "dispatch-logged",
    ["throws"],
    2,
  );
  ratioTarget("method throws, default logger on, its writes timed too", "dispatch-logged-flushed", ["throws"], 2);

  // Under attack, throwing is a client's cheapest way to make a server work: with the default logger
  // on (the stack logged), each of ours no slower than the fastest peer that answers correctly.
  const throwing = results.throws ?? {};
  const throwPeers = IMPLS.filter((i) => !i.limit && !i.ours && throwing[i.id]?.ns !== undefined);
  const fastest = throwPeers.reduce(
    (best, p) => (best === undefined || throwing[p.id].ns < throwing[best.id].ns ? p : best),
    undefined,
  );
  if (fastest !== undefined) {
    for (const impl of ["dispatch-logged", "dispatch-logged-flushed", "asyncDispatch-logged"]) {
      const r = pairedRatio(throwing[impl], throwing[fastest.id]);
      if (r === undefined) continue;
      target(
        `method throws, ${impl}: no slower than the fastest peer (${fastest.id})`,
        `${r.toFixed(2)}x (${fmtNs(throwing[impl].ns)} vs ${fmtNs(throwing[fastest.id].ns)} ns)`,
        r <= 1,
      );
    }
  }

  // Each no-op stage: the paired difference from no stage, per stage.
  for (const [impl, base, n, scenario] of [
    ["dispatch-1stage", "dispatch", 1, "single"],
    ["dispatch-4stages", "dispatch", 4, "single"],
    ["dispatch-4stages", "dispatch", 4, "notification"],
    ["asyncDispatch-4stages", "asyncDispatch", 4, "single"],
  ]) {
    const cost = pairedDifference(results[scenario]?.[impl], results[scenario]?.[base]);
    if (cost === undefined) continue;
    target(
      `each no-op stage adds <= 50 ns (${impl}, ${scenario})`,
      `${(cost / n).toFixed(0)} ns a stage (${cost.toFixed(0)} ns for ${n}; median per-round difference)`,
      cost / n <= 50,
    );
  }

  // Async params of 1000: no slower than any peer.
  const sumOurs = results.sum1000?.asyncDispatch;
  const asyncPeers = IMPLS.filter((i) => i.kind === "async" && !i.limit && !i.ours);
  const sumRatios = asyncPeers
    .map((p) => [p.id, pairedRatio(sumOurs, results.sum1000?.[p.id])])
    .filter(([, r]) => r !== undefined);
  if (sumRatios.length > 0) {
    target(
      "asyncDispatch, params of 1000: no slower than any peer",
      sumRatios.map(([id, r]) => `asyncDispatch/${id} ${r.toFixed(2)}x`).join(", "),
      sumRatios.every(([, r]) => r <= 1),
    );
  }
  ratioTarget("sync dispatch vs limit-sync, error paths", "dispatch", ["not-found", "invalid"], 1.3);

  const peers = IMPLS.filter((i) => !i.limit && !i.ours);
  const losses = [];
  let compared = 0;
  for (const s of SCENARIOS) {
    const ours = results[s.id]?.dispatch;
    if (ours?.ns === undefined) continue;
    for (const p of peers) {
      const theirs = results[s.id]?.[p.id];
      if (theirs?.ns === undefined || p.wrapperAnswers?.includes(s.id)) continue;
      compared++;
      const r = pairedRatio(ours, theirs);
      if (r >= 1)
        losses.push(`${s.id}: dispatch/${p.id} ${r.toFixed(2)}x (${fmtNs(ours.ns)} vs ${fmtNs(theirs.ns)} ns)`);
    }
  }
  if (compared > 0) {
    target(
      "sync dispatch faster than every peer in every scenario",
      losses.length === 0 ? `faster in all ${compared} correct peer cells` : losses.join("; "),
      losses.length === 0,
    );
  }

  const withCodec = results.codec?.dispatch;
  const without = results.codec?.["dispatch-nocodec"];
  const cost = pairedDifference(withCodec, without);
  if (cost !== undefined) {
    target(
      "io-ts params codec adds <= 0.2 µs (two-number request)",
      `${cost.toFixed(0)} ns (median per-round difference; medians ${fmtNs(withCodec.ns)} with, ${fmtNs(without.ns)} without)`,
      cost <= 200,
    );
  }
  if (extras?.heap?.growth !== undefined) {
    const mb = extras.heap.growth / 1e6;
    target(
      "heap flat over 1,000,000 dispatch requests (growth < 1 MB)",
      `${mb.toFixed(3)} MB (${extras.heap.samples.map((b) => (b / 1e6).toFixed(2)).join(" -> ")} MB heapUsed)`,
      Math.abs(mb) < 1,
    );
  }

  // Issue 14: contract methods, the client over local and over HTTP.
  for (const [kind, ours, base] of [
    ["sync dispatch", "dispatch-contract", "dispatch-withCodecs"],
    ["asyncDispatch", "asyncDispatch-contract", "asyncDispatch-withCodecs"],
  ]) {
    const a = results.contract?.[ours];
    const b = results.contract?.[base];
    const r = pairedRatio(a, b);
    if (r === undefined) continue;
    target(
      `a contract method (implement) costs ${kind} no more than a withCodecs method with the same codecs`,
      `${r.toFixed(2)}x (${fmtNs(a.ns)} vs ${fmtNs(b.ns)} ns; median per-round difference ${pairedDifference(a, b).toFixed(0)} ns)`,
      r <= 1,
    );
  }
  // Issue 16: the library's own cost around each schema, its check alone taken away.
  const around = (library) =>
    pairedDifference(results.schemas?.[`dispatch-params-${library}`], results.schemas?.[`check-params-${library}`]);
  const aroundIoTs = around("io-ts");
  for (const library of ["zod", "valibot"]) {
    const cost = around(library);
    if (cost === undefined || aroundIoTs === undefined) continue;
    target(
      `rpcserver's own cost around a ${library} params schema no more than around an io-ts codec`,
      `${cost.toFixed(0)} ns around ${library} vs ${aroundIoTs.toFixed(0)} ns around io-ts (dispatch minus the check alone, median per-round difference; checks alone ${fmtNs(results.schemas[`check-params-${library}`].ns)} and ${fmtNs(results.schemas["check-params-io-ts"].ns)} ns)`,
      cost <= aroundIoTs * 1.05,
    );
  }
  const byHand = pairedRatio(
    results.schemas?.["dispatch-params-zod"],
    results.schemas?.["dispatch-params-zod-by-hand"],
  );
  if (byHand !== undefined) {
    target(
      "the Standard Schema adapter costs no more than a hand-written io-ts-shaped codec around the same zod schema",
      `${byHand.toFixed(2)}x (${fmtNs(results.schemas["dispatch-params-zod"].ns)} vs ${fmtNs(results.schemas["dispatch-params-zod-by-hand"].ns)} ns)`,
      byHand <= 1.05,
    );
  }
  // The batch over local has no target (the issue sets none): its table shows its ratio.
  const localCall = results["client-local"]?.["local-client"];
  const localDispatch = results["client-local"]?.["local-asyncDispatch"];
  const localRatio = pairedRatio(localCall, localDispatch);
  if (localRatio !== undefined) {
    target(
      "client over local, one call: <= 1.5x asyncDispatch of the same request",
      `${localRatio.toFixed(2)}x (${fmtNs(localCall.ns)} vs ${fmtNs(localDispatch.ns)} ns)`,
      localRatio <= 1.5,
    );
  }
  // Issue 22: the target is Node's transport (rpcserver/node-http); the fetch-based `http` is the
  // browsers' and has its own row in the table.
  for (const scenario of ["client-http", "client-http-batch"]) {
    const ours = results[scenario]?.["http-client-node"];
    const peers = ["http-json-rpc-2.0", "http-jayson"]
      .map((id) => [id, pairedRatio(ours, results[scenario]?.[id])])
      .filter(([, r]) => r !== undefined);
    if (peers.length === 0) continue;
    target(
      `client over HTTP (nodeHttp), ${scenario === "client-http" ? "one call" : `batch of ${BATCH_SIZE}`}: no slower than json-rpc-2.0's JSONRPCClient and jayson's HTTP client`,
      peers
        .map(
          ([id, r]) =>
            `client/${id.replace("http-", "")} ${r.toFixed(2)}x (${fmtNs(ours.ns)} vs ${fmtNs(results[scenario][id].ns)} ns)`,
        )
        .join(", "),
      peers.length === 2 ? peers.every(([, r]) => r <= 1) : undefined,
    );
  }
  return rows;
};

/** A section's table: one row per scenario measured, one column per implementation. */
const sectionTable = (section, results) => {
  const scenarios = section.scenarios.filter((s) => results[s.id] !== undefined);
  if (scenarios.length === 0) return "Not measured in this run.";
  const impls = [];
  for (const s of scenarios) {
    for (const impl of s.impls) {
      if (results[s.id][impl.id] !== undefined && !impls.some((i) => i.id === impl.id)) impls.push(impl);
    }
  }
  const lines = [
    `| scenario: median ns a call (ratio to ${section.ratioTo}) ±half the quartile spread | ${impls.map((i) => i.label).join(" | ")} |`,
    `| --- | ${impls.map(() => "---:").join(" | ")} |`,
  ];
  for (const s of scenarios) {
    lines.push(`| ${s.title} | ${impls.map((i) => cellText(results[s.id][i.id], i, s)).join(" | ")} |`);
  }
  return lines.join("\n");
};

const sectionsText = (results) =>
  SECTIONS.map((section) => `### ${section.title}\n\n${sectionTable(section, results)}`).join("\n\n");

const targetsTable = (rows) =>
  [
    "| target | measured | met? |",
    "| --- | --- | --- |",
    ...rows.map((r) => `| ${r.name} | ${r.measured} | ${r.met === undefined ? "n/a" : r.met ? "met" : "**missed**"} |`),
  ].join("\n");

const extrasText = (extras) => {
  if (extras === undefined) return "";
  const lines = [];
  const { heap, importTime, size } = extras;
  if (heap?.error) lines.push(`- Heap growth: could not measure (${heap.error})`);
  else if (heap) {
    lines.push(
      `- Heap growth over ${heap.requests.toLocaleString("en-US")} \`dispatch\` calls (${heap.where}, gc before each sample): ` +
        `${(heap.growth / 1e6).toFixed(3)} MB; heapUsed ${heap.samples.map((b) => (b / 1e6).toFixed(2)).join(" -> ")} MB ` +
        `(every ${(heap.requests / (heap.samples.length - 1)).toLocaleString("en-US")} requests).`,
    );
  }
  if (importTime?.error) lines.push(`- Import time: could not measure (${importTime.error})`);
  else if (importTime) {
    lines.push(
      `- Import time (median of ${importTime.runs} fresh \`node -e "import('rpcserver')"\` processes, minus \`node -e 0\` ` +
        `at ${importTime.baselineMs.toFixed(1)} ms): ${importTime.rpcserverMs.toFixed(1)} ms; ` +
        `importing fp-ts/lib/Either.js and io-ts alone: ${importTime.depsMs.toFixed(1)} ms.`,
    );
  }
  if (size?.error) lines.push(`- Bundle size: could not measure (${size.error})`);
  else if (size) {
    const kb = (b) => `${(b / 1024).toFixed(2)} KiB`;
    const min =
      size.minBytes === undefined
        ? `not minified: ${size.minifier}`
        : `minified (${size.minifier}${size.minifier === "terser" ? "" : ", standing in for terser"}) ${kb(size.minBytes)}, **min+gzip ${kb(size.minGzip)}**`;
    lines.push(
      `- ESM bundle of dist/esm/index.js without fp-ts and io-ts (${size.bundler}, gzip -9): ${kb(size.bytes)} raw, ` +
        `${kb(size.gzip)} gzip unminified; ${min}.`,
    );
  }
  return lines.join("\n");
};

const versions = () => {
  const out = {};
  for (const name of ["rpcserver", "fp-ts", "io-ts", "jayson", "json-rpc-2.0", "@metamask/json-rpc-engine"]) {
    try {
      const path = name === "rpcserver" ? join(ROOT, "package.json") : join(ROOT, "node_modules", name, "package.json");
      out[name] = JSON.parse(readFileSync(path, "utf8")).version;
    } catch {
      out[name] = "?";
    }
  }
  return out;
};

/** What was measured: dist/ as last built, and the checkout's state when the run started. */
const source = () => {
  let built = "unknown";
  try {
    built = statSync(join(ROOT, "dist/esm/index.js")).mtime.toISOString();
  } catch {
    // Reported as unknown.
  }
  const git = (...args) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" });
  const head = git("rev-parse", "--short", "HEAD");
  if (head.status !== 0) return `dist/ built ${built}`;
  const dirty = git("status", "--porcelain", "--", "src").stdout.trim() !== "";
  return `dist/ built ${built}; checkout at commit ${head.stdout.trim()}${dirty ? " with uncommitted changes in src/" : ""}`;
};

const machine = () => {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? "unknown",
    cores: cpus.length,
    memoryGiB: os.totalmem() / 2 ** 30,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadavg: os.loadavg(),
  };
};

const markdown = (report) => {
  const m = report.machine;
  const command = `node bench/bench.mjs${report.args.length ? ` ${report.args.join(" ")}` : ""}`;
  return `# Benchmarks

Generated by \`${command}\` (after \`npm run build\`; \`npm run bench\` does both). Do not edit by hand.

- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB.toFixed(1)} GiB memory, ${m.platform}
- Node ${m.node}; date ${report.date}
- Source: ${report.source}
- Versions: ${Object.entries(report.versions)
    .map(([name, version]) => `${name} ${version}`)
    .join(", ")}
- Timing: ${report.timing.rounds} interleaved rounds of about ${report.timing.batchMs} ms per implementation and scenario (order rotating), after ${report.timing.warmupMs} ms of warm-up each; the figure is the median ns per request across rounds. Ratios are to \`limit-sync\` for sync implementations and to \`limit-async\` for async ones: the median over rounds of the ratio within a round (paired, so that load from other processes hitting a whole round cancels out); comparisons with peers and the codec's cost are paired the same way.
- Load average ${m.loadavg.map((l) => l.toFixed(2)).join(" ")} at the start and ${report.loadavgEnd.map((l) => l.toFixed(2)).join(" ")} at the end: on ${m.cores} cores, a load above ${m.cores > 1 ? m.cores - 1 : 1} means other processes competed for the CPU, and the figures are noisy (spread between the quartiles of a cell, relative to its median: ${report.noise}). Ratios are steadier than absolute figures, since every round runs all implementations.

Every answer was checked before it was timed; "wrong: ..." marks an answer that was not the expected
one (that cell was not timed).

## What is measured

Request text in, response text out, for every implementation.

- \`limit-sync\`: \`JSON.parse\`, a shape check (\`jsonrpc === "2.0"\`, \`method\` a string), a \`Map\` lookup, the plain function called with params spread, \`JSON.stringify\` of \`{jsonrpc, result, id}\`. A lower bound, not a conforming server.
- \`limit-async\`: the same, awaiting an async method; a batch runs through \`Promise.all\`, as \`asyncDispatch\` runs it.
- rpcserver: \`dispatch\` (sync methods returning \`Success\`; also with 1 and 4 stages that pass every call, \`(call) => E.right(call)\`, and, for "method throws", with the default logger on: its \`console.error\` writes to /dev/null, one synchronous write per call as Node's stderr does to a file or a pipe; that logger writes after the current task, so one row stops the clock when the loop ends and the other only after the writes), \`dispatchToSerializable\` followed by \`JSON.stringify\`, \`asyncDispatch\` (async methods). The "io-ts params codec" row gives rpcserver's method a \`t.tuple([t.number, t.number])\` codec (\`withParams\`) and compares it with the same method without one ("no codec", same request text); peers run the method without a codec.
- jayson 4: \`new jayson.Server(methods).call(text, callback)\`, which parses the text itself and calls back synchronously for methods that do; the response object is \`JSON.stringify\`-ed. jayson/promise: the same with async methods. A jayson callback method that throws is not caught by jayson: the exception leaves \`server.call\`.
- json-rpc-2.0: \`server.receiveJSON(text)\`, its response object \`JSON.stringify\`-ed. An uncaught exception is answered with code 0.
- @metamask/json-rpc-engine v2 \`JsonRpcServer\` (the current API; the v1 \`JsonRpcEngine\` is deprecated) with one middleware holding the methods. It takes request objects and has no batch or parse step, so the wrapper parses, answers a parse error, and maps a batch through \`Promise.all\`.

## Sync

${table("sync", report.results)}

## Async

${table("async", report.results)}

† Not the library's answer: @metamask/json-rpc-engine takes request objects, so the wrapper's own
\`JSON.parse\` answers a parse error; this cell is left out of the comparison with peers.

With params of 1,000 integers, \`JSON.parse\` of the request takes about 90% of every
implementation's time (CPU profile). rpcserver and the limits spread the params into arguments
(\`sum(...xs)\`), as rpcserver's calling convention requires; the peers hand their method the array.

## Contract and client

- Contract methods: the request \`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}\` to a method with \`t.tuple([t.number, t.number])\` params and a \`t.number\` result codec, made with \`withCodecs\` (returning \`Success\`) or as a contract's handler with \`implement\` (returning an Either; under \`asyncDispatch\` a Promise of one, or a TaskEither).
- Client over \`local\`: running the call \`api.add(1, 2)\` of \`client(contract, local(methods))\` (the params encoded, the request written, \`asyncDispatch\`, the answer parsed and its id checked, the result decoded) against \`asyncDispatch\` of the same request text with the same methods (a contract's sync handler). The batch: \`batch\` of ${BATCH_SIZE} calls made afresh each time, against \`asyncDispatch\` of the same batch text.
- Over HTTP: the development server (\`serve\`, one method \`add\`) in a child process on 127.0.0.1; each client sends one request at a time, awaited, over keep-alive connections. rpcserver's client on \`fetch\` (undici), with the contract (its codecs) or typed from a table (no codecs); json-rpc-2.0's \`JSONRPCClient\` with the fetch-based send of its README (\`response.json()\`, \`receive\`); jayson's \`Client.http\` on \`node:http\` (the global agent, keep-alive). One more row gives rpcserver's client its Node transport, \`nodeHttp\` from \`rpcserver/node-http\` (\`node:http\`, a keep-alive agent of its own): the targets compare that row with the peers; the \`fetch\` rows show what the standard \`fetch\` costs. The batch: one request of ${BATCH_SIZE} calls through each client's batch API (\`batch\`, \`requestAdvanced\`, \`request(array)\`), the results read per call.

${sectionsText(report.results)}

## Memory, import time, size

${extrasText(report.extras) || "Not measured in this run."}

## Targets

Targets from the performance issue (ratios within one run; the issue's reference machine has 2 cores).

${targetsTable(report.targets)}
${history()}`;
};

/** The hand-written record of measurements before and after changes (bench/history.md), kept below the generated part. */
const history = () => {
  try {
    return `\n${readFileSync(join(ROOT, "bench", "history.md"), "utf8")}`;
  } catch {
    return "";
  }
};

// ---------------------------------------------------------------------------------------------
// Main

const main = async () => {
  const started = Date.now();
  const atStart = { machine: machine(), source: source() };
  const results = {};
  for (const scenario of SCENARIOS) {
    if (!IMPLS.some((impl) => selected(impl, scenario))) continue;
    progress(`scenario ${scenario.id} ...`);
    results[scenario.id] = await runScenario(scenario);
  }
  for (const section of SECTIONS) {
    const chosen = section.scenarios.filter((s) => s.impls.some((impl) => selected(impl, s)));
    if (chosen.length === 0) continue;
    const server = section.server ? await startServerChild() : undefined;
    try {
      for (const scenario of chosen) {
        progress(`scenario ${scenario.id} ...`);
        results[scenario.id] = await runScenario(scenario, server);
      }
    } finally {
      server?.stop();
    }
  }
  let extras;
  if (EXTRAS) {
    extras = {};
    progress("heap growth ...");
    try {
      extras.heap = measureHeap();
    } catch (thrown) {
      extras.heap = { error: String(thrown?.message ?? thrown) };
    }
    progress("import time ...");
    try {
      extras.importTime = measureImport();
    } catch (thrown) {
      extras.importTime = { error: String(thrown?.message ?? thrown) };
    }
    progress("bundle size ...");
    try {
      extras.size = await measureSize();
    } catch (thrown) {
      extras.size = { error: String(thrown?.message ?? thrown) };
    }
  }
  const spreads = Object.values(results)
    .flatMap((r) => Object.values(r))
    .filter((r) => r.ns !== undefined && r.ns > 0)
    .map((r) => (r.q3 - r.q1) / r.ns);
  const report = {
    machine: atStart.machine,
    versions: versions(),
    date: new Date().toISOString(),
    args: argv.filter((a) => a !== "--json"),
    source: atStart.source,
    timing: { rounds: ROUNDS, batchMs: BATCH_MS, warmupMs: WARMUP_MS },
    noise: spreads.length
      ? `median ${(median(spreads) * 100).toFixed(1)}%, worst ${(Math.max(...spreads) * 100).toFixed(1)}%`
      : "n/a",
    results,
    extras,
    loadavgEnd: os.loadavg(),
    seconds: (Date.now() - started) / 1000,
  };
  report.targets = evaluateTargets(results, extras);
  const text = markdown(report);
  if (WRITE) {
    const path = join(ROOT, "docs/benchmarks.md");
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, await formatted(path, text));
    progress(`wrote ${path}`);
  }
  if (JSON_OUT) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${text.slice(text.indexOf("## Sync"))}\n`);
  progress(`done in ${report.seconds.toFixed(1)} s`);
};

// A peer that leaks a rejection must not end the run.
process.on("unhandledRejection", () => undefined);
if (!SERVE_CHILD) await main();
