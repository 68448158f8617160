/**
 * How a call's span ends, written once for the server's stage and the client's transport: the
 * attributes of its outcome, its status, and the duration recorded; and the names both sides use.
 *
 * @module
 */
import {
  metrics,
  propagation,
  SpanStatusCode,
  trace,
  type Attributes,
  type MeterProvider,
  type Span,
  type TextMapPropagator,
  type TracerProvider,
} from "@opentelemetry/api";
import { VERSION } from "../core/version";
import {
  durations,
  endAttributes,
  METHOD_NOT_FOUND,
  OTHER,
  recognizer,
  semconvOf,
  SYSTEM,
  type Described,
  type Outcome,
  type RecognizedMethods,
  type Semconv,
} from "./semconv";

/** The instrumentation scope's name: the tracer's and the meter's. */
export const SCOPE = "rpcserver";

/**
 * The name of the event a streamed value adds to its call's span, and of its attribute (the
 * value's position, from 1). The values themselves are not recorded: they may hold anything.
 */
export const STREAM_EVENT = "rpcserver.stream.value";
export const STREAM_INDEX = "rpcserver.stream.index";

/**
 * The outcome of an exception that left the pipeline or the transport: `error.type` is its class's
 * name (low cardinality), else `_OTHER`. Reading the name may throw (a Proxy): that is `_OTHER` too.
 */
export const thrownOutcome = (thrown: unknown): Outcome => {
  let name: unknown;
  try {
    name = typeof thrown === "object" && thrown !== null ? (thrown.constructor as { name?: unknown }).name : undefined;
  } catch {
    name = undefined;
  }
  return { _tag: "failed", type: typeof name === "string" && name !== "" ? name : OTHER };
};

/** Adds an event to `span` each time it is called: a streamed value, numbered from 1. */
export const valueEvents = (span: Span): (() => void) => {
  let values = 0;
  return () => {
    values += 1;
    span.addEvent(STREAM_EVENT, { [STREAM_INDEX]: values });
  };
};

/**
 * What both ends take, the server's stage ({@link TracedOptions}) and the client's transport
 * ({@link TracedTransportOptions}): where spans and metrics go, how a trace context travels, which
 * methods are recognized, which conventions.
 *
 * @example
 * import type { InstrumentOptions } from "rpcserver/otel";
 * const options: InstrumentOptions = { methods: ["add", "ping"], semconv: "dup" };
 *
 * @since 5.0.10
 * @category otel
 */
export interface InstrumentOptions {
  /** Where the tracer comes from. Default: the global one of `@opentelemetry/api` (`trace`). */
  readonly tracerProvider?: TracerProvider | undefined;
  /** Where the meter comes from. Default: the global one (`metrics`). */
  readonly meterProvider?: MeterProvider | undefined;
  /**
   * How a trace context is written into a carrier (the client) or read from one (the server).
   * Default: the global propagator (`propagation`).
   */
  readonly propagator?: TextMapPropagator | undefined;
  /**
   * The recognized methods: a list of names, a methods table (its own keys), or a function.
   * Another name is recorded as `_OTHER`, with the name in `rpc.method_original`, and names the
   * span `jsonrpc`. Default: every name is taken as recognized when the span starts, and recorded
   * as `_OTHER` when the answer is -32601 (Method not found).
   */
  readonly methods?: RecognizedMethods | undefined;
  /**
   * Which conventions: `"stable"` (the current ones) or `"dup"` (the older ones beside them).
   * Default: `OTEL_SEMCONV_STABILITY_OPT_IN` (`rpc/dup`: both), else the current ones.
   */
  readonly semconv?: Semconv | undefined;
  /** Attributes added to every span when it starts (`server.address`, `server.port`). */
  readonly attributes?: Attributes | undefined;
}

/** The instruments of one end, made once from its options: the tracer, how a span ends (its duration recorded), the rest. */
export const instruments = (options: InstrumentOptions, side: "server" | "client") => {
  const semconv = semconvOf(options.semconv);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE, VERSION);
  return {
    semconv,
    tracer: (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE, VERSION),
    end: ender(semconv, durations(meter, side, semconv).record),
    propagator: options.propagator ?? propagation,
    isRecognized: recognizer(options.methods),
    extra: options.attributes ?? {},
  };
};

/**
 * Ends `span` with `outcome`: the attributes, the status, the duration measured. `guessed`: no list
 * of methods was given, so a name counts as known unless the outcome says otherwise (-32601), or
 * unless the call was `cut` (its request's signal aborted before any answer: nothing says whether
 * the method exists, and a client may send names of its own to be cut).
 */
export const ender =
  (semconv: Semconv, record: (seconds: number, described: Described, outcome: Outcome) => void) =>
  (span: Span, described: Described, outcome: Outcome, elapsed: () => number, guessed: boolean, cut = false): void => {
    let final = described;
    if (guessed && (cut || (outcome._tag === "answered" && outcome.code === METHOD_NOT_FOUND))) {
      final = { ...described, recognized: false };
      span.updateName(SYSTEM);
      span.setAttributes({ "rpc.method": OTHER, "rpc.method_original": described.method });
    }
    span.setAttributes(endAttributes(semconv, outcome));
    if (outcome._tag !== "ok") {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: outcome._tag === "answered" ? outcome.message : outcome.type,
      });
    }
    span.end();
    record(elapsed(), final, outcome);
  };
