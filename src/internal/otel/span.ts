/**
 * How a call's span ends, written once for the server's stage and the client's transport: the
 * attributes of its outcome, its status, and the duration recorded; and the names both sides use.
 *
 * @module
 */
import { SpanStatusCode, type Span } from "@opentelemetry/api";
import { METHOD_NOT_FOUND, OTHER, endAttributes, SYSTEM, type Described, type Outcome, type Semconv } from "./semconv";

/** The instrumentation scope's name: the tracer's and the meter's. */
export const SCOPE = "rpcserver";

/**
 * The name of the event a streamed value adds to its call's span, and of its attribute (the
 * value's position, from 1). The values themselves are not recorded: they may hold anything.
 */
export const STREAM_EVENT = "rpcserver.stream.value";
export const STREAM_INDEX = "rpcserver.stream.index";

/** How `thrown` is named in `error.type`: its class's name (low cardinality), else `_OTHER`. */
export const typeOfThrown = (thrown: unknown): string => {
  const name = (thrown as { constructor?: { name?: unknown } } | null | undefined)?.constructor?.name;
  return typeof thrown === "object" && thrown !== null && typeof name === "string" && name !== "" ? name : OTHER;
};

/** Ends `span` with `outcome`: the attributes, the status, the duration measured. */
export const ender =
  (semconv: Semconv, record: (seconds: number, described: Described, outcome: Outcome) => void) =>
  (span: Span, described: Described, outcome: Outcome, elapsed: () => number, guessed: boolean): void => {
    let final = described;
    if (guessed && outcome._tag === "answered" && outcome.code === METHOD_NOT_FOUND) {
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
