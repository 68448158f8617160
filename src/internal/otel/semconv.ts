/**
 * What the OpenTelemetry semantic conventions for JSON-RPC ask of a span and a duration
 * measurement, for one request, written once for the server's stage and the client's transport:
 * the attribute names (the current ones, and under `OTEL_SEMCONV_STABILITY_OPT_IN=rpc/dup` the
 * older ones beside them), the span name, the method name as a recognized method or `_OTHER`, and
 * which conventions to emit. docs/otel.md says where the conventions leave room and what was chosen.
 *
 * @module
 */
import type { Attributes, Histogram, Meter } from "@opentelemetry/api";

/** Which conventions are emitted: the current ones alone, or the older ones beside them. */
export type Semconv = "stable" | "dup";

/** The value of `rpc.system.name` (and of the older `rpc.system`). */
export const SYSTEM = "jsonrpc";

/** The method name of an unrecognized method (low cardinality), with the name itself in `rpc.method_original`. */
export const OTHER = "_OTHER";

/** The bucket boundaries the conventions advise for the duration histograms, in seconds. */
export const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The same boundaries in milliseconds, for the older histograms (`rpc.server.duration`, `rpc.client.duration`, unit `ms`). */
const MILLISECONDS_BUCKETS = SECONDS_BUCKETS.map((s) => s * 1000);

/** The environment variable the migration guide names, read where the runtime has an environment. */
const OPT_IN = "OTEL_SEMCONV_STABILITY_OPT_IN";

interface Environments {
  readonly process?: { readonly env?: Readonly<Record<string, string | undefined>> };
  readonly Deno?: { readonly env?: { readonly get?: (name: string) => string | undefined } };
}

/**
 * `OTEL_SEMCONV_STABILITY_OPT_IN` from Node's or Bun's `process.env`, else Deno's `Deno.env`, else
 * none (a browser, a worker). Deno without `--allow-env` throws on the read: that is none too.
 */
const optInVariable = (): string | undefined => {
  const runtime = globalThis as Environments;
  try {
    const env = runtime.process?.env;
    if (env !== undefined) return env[OPT_IN];
    return runtime.Deno?.env?.get?.(OPT_IN);
  } catch {
    return undefined;
  }
};

/**
 * Which conventions to emit: `given` when set, else the variable: `rpc/dup` (first in precedence)
 * emits both, `rpc` or nothing the current ones. This instrumentation emitted no older version
 * before, so the "version emitted previously" that the migration guide keeps by default is the
 * current one.
 */
export const semconvOf = (given: Semconv | undefined, read: () => string | undefined = optInVariable): Semconv => {
  if (given !== undefined) {
    if (given !== "stable" && given !== "dup")
      throw new TypeError(`semconv: expected "stable" or "dup", got ${String(given)}`);
    return given;
  }
  const values = (read() ?? "").split(",").map((value) => value.trim());
  return values.includes("rpc/dup") ? "dup" : "stable";
};

/**
 * Which method names are recognized, as an option: a list of names, a methods table (its own
 * keys), or a function. Unrecognized names are recorded as `_OTHER` (the conventions' bound on
 * cardinality).
 *
 * @since 5.0.10
 * @category otel
 */
export type RecognizedMethods =
  ReadonlyArray<string> | { readonly [name: string]: unknown } | ((name: string) => boolean);

/** `recognized` as a predicate; `undefined` when not given (each side says what that means). */
export const recognizer = (recognized: RecognizedMethods | undefined): ((name: string) => boolean) | undefined => {
  if (recognized === undefined) return undefined;
  if (typeof recognized === "function") return recognized;
  if (Array.isArray(recognized)) {
    const names = new Set<string>(recognized as ReadonlyArray<string>);
    return (name) => names.has(name);
  }
  const table = recognized as { readonly [name: string]: unknown };
  return (name) => Object.prototype.hasOwnProperty.call<object, [PropertyKey], boolean>(table, name);
};

/** The JSON-RPC error code that says the method is not there: the answer that makes a name unrecognized when no list was given. */
export const METHOD_NOT_FOUND = -32601;

/** One request as the conventions see it. */
export interface Described {
  readonly method: string;
  /** Whether the method is recognized (`rpc.method` is its name) or not (`_OTHER`). */
  readonly recognized: boolean;
  /** The request's id; `undefined` for a notification. */
  readonly id: string | number | bigint | null | undefined;
}

/** The span name: `rpc.method` when recognized, else `rpc.system.name` (rpc-spans.md, Name). */
export const spanName = ({ method, recognized }: Described): string => (recognized ? method : SYSTEM);

/** `rpc.method`: the name of a recognized method, else `_OTHER` (its cardinality is bounded). */
export const methodOf = ({ method, recognized }: Described): string => (recognized ? method : OTHER);

/** The attributes known when the span starts (the ones that matter to a sampler come first). */
export const startAttributes = (semconv: Semconv, described: Described, extra: Attributes): Attributes => {
  const { method, recognized, id } = described;
  const attributes: Attributes = {
    "rpc.system.name": SYSTEM,
    "rpc.method": methodOf(described),
    ...extra,
    "jsonrpc.protocol.version": "2.0",
  };
  if (!recognized) attributes["rpc.method_original"] = method;
  // Neither a notification's absent id nor a null id is recorded (json-rpc.md, jsonrpc.request.id).
  if (id !== undefined && id !== null) attributes["jsonrpc.request.id"] = String(id);
  if (semconv === "dup") {
    // v1.37.0: rpc.method was required and whole; a null id was recorded as "".
    attributes["rpc.system"] = SYSTEM;
    attributes["rpc.jsonrpc.version"] = "2.0";
    if (id !== undefined) attributes["rpc.jsonrpc.request_id"] = id === null ? "" : String(id);
  }
  return attributes;
};

/** How a call ended, as far as the conventions care: a JSON-RPC error answer, a failure without one, or success. */
export type Outcome =
  | { readonly _tag: "ok" }
  | { readonly _tag: "answered"; readonly code: number; readonly message: string }
  | { readonly _tag: "failed"; readonly type: string };

/** The attributes an outcome gives both the span and the measurement: `rpc.status_code` and `error.type`. */
const outcomeAttributes = (outcome: Outcome): Attributes => {
  if (outcome._tag === "ok") return {};
  if (outcome._tag === "failed") return { "error.type": outcome.type };
  const code = String(outcome.code);
  return { "rpc.status_code": code, "error.type": code };
};

/** The attributes of an outcome, for the span (`dup` adds the older error code and message). */
export const endAttributes = (semconv: Semconv, outcome: Outcome): Attributes => {
  const attributes = outcomeAttributes(outcome);
  if (semconv === "dup" && outcome._tag === "answered") {
    attributes["rpc.jsonrpc.error_code"] = outcome.code;
    attributes["rpc.jsonrpc.error_message"] = outcome.message;
  }
  return attributes;
};

/** The measurement's attributes: bounded ones only (never the id, nor an unrecognized name). */
const metricAttributes = (described: Described, outcome: Outcome): Attributes => ({
  "rpc.system.name": SYSTEM,
  "rpc.method": methodOf(described),
  ...outcomeAttributes(outcome),
});

/** The duration histograms of one side: the current one in seconds, and under `dup` the older one in milliseconds. */
export interface Durations {
  readonly record: (seconds: number, described: Described, outcome: Outcome) => void;
}

/** The histograms of `side` ("server" or "client") on `meter`. */
export const durations = (meter: Meter, side: "server" | "client", semconv: Semconv): Durations => {
  const inbound = side === "server" ? "incoming" : "outgoing";
  const current: Histogram = meter.createHistogram(`rpc.${side}.call.duration`, {
    unit: "s",
    description: `Measures the duration of an ${inbound} Remote Procedure Call (RPC).`,
    advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
  });
  const older: Histogram | undefined =
    semconv === "dup"
      ? meter.createHistogram(`rpc.${side}.duration`, {
          unit: "ms",
          description: `Measures the duration of ${side === "server" ? "inbound" : "outbound"} RPC.`,
          advice: { explicitBucketBoundaries: MILLISECONDS_BUCKETS },
        })
      : undefined;
  return {
    record: (seconds, described, outcome) => {
      current.record(seconds, metricAttributes(described, outcome));
      older?.record(seconds * 1000, { "rpc.system": SYSTEM, "rpc.method": methodOf(described) });
    },
  };
};

const clock: () => number =
  typeof performance === "object" && typeof performance.now === "function" ? () => performance.now() : Date.now;

/** A start time, and the seconds since it: the duration recorded. */
export const stopwatch = (): (() => number) => {
  const started = clock();
  return () => (clock() - started) / 1000;
};
