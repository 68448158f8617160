// A quick A/B: asyncDispatch of one request, with no stage, with observe, with traced (no SDK: the API's no-op),
// and with traced on the real SDK (in-memory exporter, simple processor; a meter provider with a reader).
import { asyncDispatch, observe, Success } from "rpcserver";
import { traced } from "rpcserver/otel";
import { TracerProvider, SimpleSpanProcessor, InMemorySpanExporter } from "@opentelemetry/sdk-trace";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
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
const methods = { add: (a, b) => Success(a + b) };
const body = '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}';
const variants = {
  none: {},
  observe: { stages: [observe(() => undefined)] },
  "an Around of yours": {
    stages: [{ _tag: "Around", asyncOnly: false, around: () => (next) => (call) => next(call) }],
  },
  "traced, no SDK": { stages: [traced({ methods })] },
  "traced, SDK": { stages: [traced({ methods, tracerProvider, meterProvider })] },
};
const N = Number(process.env.N ?? 100_000);
const round = async (options) => {
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    await asyncDispatch(body, methods, options);
    if (i % 1000 === 0) exporter.reset();
  }
  return ((performance.now() - t0) * 1000) / N; // microseconds per request
};
const results = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let r = 0; r < 5; r++) for (const [k, o] of Object.entries(variants)) results[k].push(await round(o));
for (const [k, v] of Object.entries(results)) {
  v.sort((a, b) => a - b);
  console.log(`${k.padEnd(16)} median ${v[2].toFixed(2)} us/request (min ${v[0].toFixed(2)}, max ${v[4].toFixed(2)})`);
}
