/**
 * The real OpenTelemetry SDK for tests of rpcserver/otel: a tracer provider whose spans land in an
 * in-memory exporter, a meter provider read on demand, the W3C propagator, and a context manager on
 * `AsyncLocalStorage` (what the Node SDK registers; written here because `@opentelemetry/sdk-trace`
 * ships none for Node), so that the active context follows async calls.
 */
import { context, propagation, ROOT_CONTEXT, type Context, type ContextManager } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { AggregationTemporality, MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { AsyncLocalStorage } from "node:async_hooks";

/** The active context in an AsyncLocalStorage. */
class StorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== "function") return target;
    const run = this.storage;
    return ((...args: unknown[]) => run.run(ctx, () => (target as (...a: unknown[]) => unknown)(...args))) as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

/** A reader collected when the test asks. */
class OnDemandReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The global context manager and propagator, registered once for the file. */
export const registerGlobals = (): void => {
  context.setGlobalContextManager(new StorageContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
};

/** A tracer and a meter provider of the real SDK, and what they recorded. */
export const telemetry = () => {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    /** Each histogram data point: the metric's name, unit, its attributes, count and bucket boundaries. */
    points: async () => {
      const { resourceMetrics }: { resourceMetrics: ResourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((scope) =>
        scope.metrics.flatMap((metric) =>
          metric.dataPoints.map((point) => {
            const value = point.value as { count: number; sum: number; buckets: { boundaries: number[] } };
            return {
              name: metric.descriptor.name,
              unit: metric.descriptor.unit,
              attributes: point.attributes,
              count: value.count,
              sum: value.sum,
              boundaries: value.buckets.boundaries,
            };
          }),
        ),
      );
    },
  };
};
