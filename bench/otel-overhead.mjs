// What rpcserver/otel costs a request. Three modes (docs/otel.md, "What it costs"), after `npm run build`:
//
//   node bench/otel-overhead.mjs          asyncDispatch of one request with no stage, observe, an Around,
//                                          `traced` without SDK (the API's no-op) and `traced` on the real SDK
//   node bench/otel-overhead.mjs --alloc  bytes allocated per request by dispatch and asyncDispatch, without
//                                          rpcserver/otel imported and with it imported but not used
//   node bench/otel-overhead.mjs --peers  µs per request through a fetch handler, bare and instrumented: ours
//                                          (fetchHandler, `traced`), oRPC (RPCHandler, @orpc/otel) and Hono
//                                          (@hono/otel), with no SDK and with the SDK
//
// "The SDK" is the same everywhere: @opentelemetry/sdk-trace with an in-memory exporter behind a simple
// processor, and @opentelemetry/sdk-metrics with a reader that never collects. No context manager is
// registered (the API's no-op one), for all alike. Rounds interleave the variants, and the medians are given.
// Sizes: N (requests a round: 100,000 for the stage table, 10,000 for --peers, 20,000 for --alloc's measure),
// ROUNDS (--peers: 15) and CHILDREN (--alloc: 4 of each kind).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const body = '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}';

/** The SDK of "traced, SDK" and its peers' SDK variants, loaded only by the modes that use it. */
const sdk = async () => {
  const { TracerProvider, SimpleSpanProcessor, InMemorySpanExporter } = await import("@opentelemetry/sdk-trace");
  const { MeterProvider, MetricReader } = await import("@opentelemetry/sdk-metrics");
  class Reader extends MetricReader {
    onForceFlush() {
      return Promise.resolve();
    }
    onShutdown() {
      return Promise.resolve();
    }
  }
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const meterProvider = new MeterProvider({ readers: [new Reader()] });
  return { exporter, tracerProvider, meterProvider };
};

/**
 * Runs each variant's `once` n times a round, in rounds that interleave the variants (after a round to
 * warm, not counted), and prints each one's medians: wall-clock and CPU time (this process's user and
 * system time, which another process's load on the machine does not add to) per request, in µs.
 */
const interleaved = async ({ variants, rounds, n, exporter }) => {
  const wall = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  const cpu = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let r = -1; r < rounds; r++)
    for (const [name, variant] of Object.entries(variants)) {
      await variant.before?.();
      const { once } = variant;
      await once(); // the first request after a switch pays the switch, not the variant
      const count = r < 0 ? n >> 2 : n;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < count; i++) {
        await once();
        if (i % 1000 === 0) exporter.reset();
      }
      const t1 = performance.now();
      const c1 = process.cpuUsage(c0);
      if (r >= 0) {
        wall[name].push(((t1 - t0) * 1000) / count);
        cpu[name].push((c1.user + c1.system) / count);
      }
      await variant.after?.();
    }
  const medians = { rounds: { wall, cpu } };
  for (const name of Object.keys(variants)) {
    medians[name] = { wall: median(wall[name]), cpu: median(cpu[name]) };
    const range = (v) => `${Math.min(...v).toFixed(2)}-${Math.max(...v).toFixed(2)}`;
    console.log(
      `${name.padEnd(28)} CPU ${medians[name].cpu.toFixed(2)} us/request (${range(cpu[name])}), ` +
        `wall ${medians[name].wall.toFixed(2)} (${range(wall[name])})`,
    );
  }
  return medians;
};

// --- the stage table -------------------------------------------------------------------------------

const stages = async () => {
  const { asyncDispatch, observe, Success } = await import("rpcserver");
  const { traced } = await import("rpcserver/otel");
  const { exporter, tracerProvider, meterProvider } = await sdk();
  const methods = { add: (a, b) => Success(a + b) };
  const options = {
    none: {},
    observe: { stages: [observe(() => undefined)] },
    "an Around of yours": {
      stages: [{ _tag: "Around", asyncOnly: false, around: () => (next) => (call) => next(call) }],
    },
    "traced, no SDK": { stages: [traced({ methods })] },
    "traced, SDK": { stages: [traced({ methods, tracerProvider, meterProvider })] },
  };
  const variants = Object.fromEntries(
    Object.entries(options).map(([k, o]) => [k, { once: () => asyncDispatch(body, methods, o) }]),
  );
  await interleaved({ variants, rounds: 5, n: Number(process.env.N ?? 100_000), exporter });
};

// --- allocations -----------------------------------------------------------------------------------
//
// Bytes allocated per request, read from the heap: a child process with a young generation large enough
// (--min/--max-semi-space-size) that no collection runs while it measures, started with --trace-gc so that
// one would show (a measure a collection fell into is left out). After a full gc(), the used size of each
// heap space before and after n requests, then 2n; the difference of the two over n is the bytes a request
// allocates, what a measure costs besides the requests (the loop's set-up, the statistics' own objects)
// cancelled out. A round in which the JIT compiled (old or code space grew: its code and feedback, and the
// garbage of compiling) is left out too: those are not the request's. What is left is exact: the same number
// of bytes in every round. The children are alike but for `import("rpcserver/otel")`, and alternate.

const SEMI_SPACE_MB = 512;

const allocChild = async (fn, which) => {
  const v8 = await import("node:v8");
  const { asyncDispatch, dispatch, Success } = await import("rpcserver");
  if (which === "otel") globalThis.traced = (await import("rpcserver/otel")).traced; // imported, kept, not used
  // The control: one object more per request (an empty one, kept), to show that the method sees it.
  const methods =
    which === "control"
      ? { add: (a, b) => ((globalThis.kept = {}), Success(a + b)) }
      : { add: (a, b) => Success(a + b) };
  const run =
    fn === "dispatch"
      ? (n) => {
          for (let i = 0; i < n; i++) dispatch(body, methods);
        }
      : async (n) => {
          for (let i = 0; i < n; i++) await asyncDispatch(body, methods);
        };
  const n = Number(process.env.N ?? 20_000);
  for (let i = 0; i < 10; i++) await run(n); // warm: the JIT's tiers settle before the measure
  const spaces = () => v8.getHeapSpaceStatistics().map((space) => space.space_used_size);
  const NEW = v8.getHeapSpaceStatistics().findIndex((space) => space.space_name === "new_space");
  /** The bytes new space gained over `count` requests, or undefined if another space grew (the JIT). */
  const heap = async (count) => {
    globalThis.gc();
    console.log("measure");
    const before = spaces();
    await run(count);
    const after = spaces();
    console.log("measured");
    const quiet = after.every((used, i) => i === NEW || used <= before[i]);
    return quiet ? after[NEW] - before[NEW] : undefined;
  };
  const perRequest = [];
  for (let r = 0; r < 8; r++) {
    const one = await heap(n);
    const two = await heap(2 * n);
    perRequest.push(one === undefined || two === undefined ? null : (two - one) / n);
  }
  console.log(`result ${JSON.stringify(perRequest)}`);
};

/** One child's bytes per request in each round, those with a collection or the JIT in them left out. */
const allocRun = (fn, which, jit) =>
  new Promise((resolve, reject) => {
    const args = [
      "--expose-gc",
      "--trace-gc",
      ...jit,
      `--min-semi-space-size=${SEMI_SPACE_MB}`,
      `--max-semi-space-size=${SEMI_SPACE_MB}`,
      fileURLToPath(import.meta.url),
      "--alloc-child",
      fn,
      which,
    ];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`child ${fn} ${which} exited ${code}`));
      // Each measure (n, then 2n) is a "measure" ... "measured" span of the output; a --trace-gc line
      // inside one spoils its round.
      const spoiled = [];
      let inside = false;
      let index = 0;
      for (const line of out.split("\n")) {
        if (line === "measure") inside = true;
        else if (line === "measured") {
          inside = false;
          index++;
        } else if (inside && /Scavenge|Mark-Compact|Minor/.test(line)) spoiled.push(index >> 1);
      }
      const result = out.split("\n").find((line) => line.startsWith("result "));
      const rounds = JSON.parse(result.slice("result ".length));
      const kept = rounds.filter((bytes, i) => bytes !== null && !spoiled.includes(i));
      resolve({ kept, left: rounds.length - kept.length });
    });
  });

const alloc = async () => {
  const children = Number(process.env.CHILDREN ?? 4);
  const show = (v) =>
    v.length === 0
      ? "no round without the JIT or a collection"
      : `median ${median(v).toFixed(1)} bytes/request (min ${Math.min(...v).toFixed(1)}, max ${Math.max(...v).toFixed(1)}, ${v.length} rounds)`;
  for (const [jitName, jit] of [
    ["--no-opt", ["--no-opt"]],
    ["optimizing", []],
  ])
    for (const fn of ["asyncDispatch", "dispatch"]) {
      const results = { bare: [], otel: [], control: [] };
      let left = 0;
      for (let c = 0; c < children; c++)
        for (const which of c % 2 === 0 ? ["bare", "otel", "control"] : ["otel", "bare", "control"]) {
          if (which === "control" && (jit.length === 0 || c > 1)) continue; // two children tell it
          const run = await allocRun(fn, which, jit);
          results[which].push(...run.kept);
          left += run.left;
        }
      console.log(`${jitName}, ${fn}: ${left} rounds left out (the JIT or a collection ran in them)`);
      console.log(`  without rpcserver/otel          ${show(results.bare)}`);
      console.log(`  rpcserver/otel imported, unused ${show(results.otel)}`);
      if (results.control.length > 0) console.log(`  control: one {} more a request ${show(results.control)}`);
    }
};

// --- peers -----------------------------------------------------------------------------------------

const peers = async () => {
  const { Request } = globalThis;
  const { exporter, tracerProvider, meterProvider } = await sdk();
  const { trace } = await import("@opentelemetry/api");
  // Ours: fetchHandler, bare and with `traced` first.
  const { Success } = await import("rpcserver");
  const { fetchHandler } = await import("rpcserver/fetch");
  const { traced } = await import("rpcserver/otel");
  const methods = { add: (a, b) => Success(a + b) };
  const rpcRequest = () => new Request("http://localhost/rpc", { method: "POST", body });
  const ours = fetchHandler(methods);
  const oursNoSdk = fetchHandler(methods, { stages: [traced({ methods })] });
  const oursSdk = fetchHandler(methods, { stages: [traced({ methods, tracerProvider, meterProvider })] });
  // oRPC: its RPCHandler for fetch, one procedure; @orpc/otel's ORPCInstrumentation sets oRPC's global
  // tracer (trace.getTracer of the registered provider) on enable() and unsets it on disable().
  const { os } = await import("@orpc/server");
  const { RPCHandler } = await import("@orpc/server/fetch");
  const { ORPCInstrumentation } = await import("@orpc/otel");
  const orpc = new RPCHandler({ add: os.handler(({ input }) => input.a + input.b) });
  const orpcInstrumentation = new ORPCInstrumentation({ enabled: false });
  const orpcBody = JSON.stringify({ json: { a: 1, b: 2 } });
  const orpcOnce = async () => {
    const request = new Request("http://localhost/rpc/add", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: orpcBody,
    });
    const { response } = await orpc.handle(request, { prefix: "/rpc", context: {} });
    return response.text();
  };
  // Hono: one route, bare and behind @hono/otel's middleware.
  const { Hono } = await import("hono");
  const { httpInstrumentationMiddleware } = await import("@hono/otel");
  const route = async (c) => {
    const { params, id } = await c.req.json();
    return c.json({ jsonrpc: "2.0", result: params[0] + params[1], id });
  };
  const hono = new Hono().post("/rpc", route);
  const honoNoSdk = new Hono().use(httpInstrumentationMiddleware()).post("/rpc", route);
  const honoSdk = new Hono().use(httpInstrumentationMiddleware({ tracerProvider, meterProvider })).post("/rpc", route);
  // oRPC's instrumentation reads the global tracer provider, so its SDK variant registers the SDK there
  // for its rounds. A registration gives the SDK to the API's proxy provider then global (and to each
  // tracer already taken from it); trace.disable() puts a new proxy in its place. Ours and Hono's no-SDK
  // tracers were taken from the first proxy: it leaves now, before any registration, and stays a no-op.
  trace.disable();
  const register = () => trace.setGlobalTracerProvider(tracerProvider);
  const unregister = () => trace.disable();
  const text = async (response) => (await response).text();
  const variants = {
    "rpcserver, bare": { once: () => text(ours(rpcRequest())) },
    "rpcserver, traced, no SDK": { once: () => text(oursNoSdk(rpcRequest())) },
    "rpcserver, traced, SDK": { once: () => text(oursSdk(rpcRequest())) },
    "oRPC, bare": { once: orpcOnce },
    "oRPC, @orpc/otel, no SDK": {
      before: () => orpcInstrumentation.enable(),
      after: () => orpcInstrumentation.disable(),
      once: orpcOnce,
    },
    "oRPC, @orpc/otel, SDK": {
      before: () => {
        register();
        orpcInstrumentation.enable();
      },
      after: () => {
        orpcInstrumentation.disable();
        unregister();
      },
      once: orpcOnce,
    },
    "Hono, bare": { once: () => text(hono.fetch(rpcRequest())) },
    "Hono, @hono/otel, no SDK": { once: () => text(honoNoSdk.fetch(rpcRequest())) },
    "Hono, @hono/otel, SDK": { once: () => text(honoSdk.fetch(rpcRequest())) },
  };
  // Each answers, and the spans each instrumented variant makes for one request.
  for (const [name, variant] of Object.entries(variants)) {
    await variant.before?.();
    exporter.reset();
    const answer = await variant.once();
    const spans = exporter.getFinishedSpans().map((span) => span.name);
    await variant.after?.();
    if (!answer.includes("3")) throw new Error(`${name} answered ${answer}`);
    console.log(`${name.padEnd(28)} answer ${answer}, spans ${JSON.stringify(spans)}`);
  }
  const medians = await interleaved({
    variants,
    rounds: Number(process.env.ROUNDS ?? 15),
    n: Number(process.env.N ?? 10_000),
    exporter,
  });
  // The overhead is paired: instrumented - bare within each round (the two ran one after the other),
  // then the median of those; it follows less of the machine's load, which drifts over a run, than the
  // difference of the two medians does.
  console.log("\noverhead (instrumented - bare in each round, the median), µs per request, CPU (wall):");
  const { rounds } = medians;
  const paired = (key, name, bare) => median(rounds[key][name].map((t, r) => t - rounds[key][bare][r])).toFixed(2);
  for (const [framework, instrumented] of [
    ["rpcserver", "traced"],
    ["oRPC", "@orpc/otel"],
    ["Hono", "@hono/otel"],
  ]) {
    const bare = `${framework}, bare`;
    const noSdk = `${framework}, ${instrumented}, no SDK`;
    const withSdk = `${framework}, ${instrumented}, SDK`;
    console.log(
      `${framework.padEnd(10)} no SDK ${paired("cpu", noSdk, bare)} (${paired("wall", noSdk, bare)}), ` +
        `SDK ${paired("cpu", withSdk, bare)} (${paired("wall", withSdk, bare)})`,
    );
  }
};

const [mode, ...rest] = process.argv.slice(2);
if (mode === "--alloc-child") await allocChild(rest[0], rest[1]);
else if (mode === "--alloc") await alloc();
else if (mode === "--peers") await peers();
else await stages();
