/**
 * The server's side of `rpcserver/otel`: an `Around` stage that makes a SERVER span per request,
 * parented by the trace context its caller sent (`params._meta`, or the carrier a context gives,
 * such as HTTP headers), runs the rest of the pipeline in that span's context, and ends it with the
 * answer; and records `rpc.server.call.duration`.
 *
 * @module
 */
import { context as contexts, SpanKind, trace, type Context } from "@opentelemetry/api";
import type { Kind, URIS } from "fp-ts/HKT";
import { constVoid } from "fp-ts/function";
import type { TypedAround } from "../core/context-marks";
import type { Effect } from "../core/effect";
import type { Request } from "../core/request";
import type { Response } from "../core/response";
import { isNotification, type Around, type Call, type Handler } from "../core/stages";
import { ERROR_REQUEST_CANCELLED } from "../core/codes";
import { isJsonRpcError } from "../core/exceptions";
import { follow, requestAbortOf, signalIn } from "../core/signal";
import { onCut, passSink, tapStream } from "../core/stream";
import { getter, metaOf, withoutTrace, type Carrier } from "./meta";
import { spanName, startAttributes, stopwatch, type Described, type Outcome } from "./semconv";
import { instruments, thrownOutcome, valueEvents, type InstrumentOptions } from "./span";

/**
 * Options of {@link traced}.
 *
 * @example
 * import type { TracedOptions } from "rpcserver/otel";
 * const options: TracedOptions<{ headers: Record<string, string> }> = {
 *   methods: ["add", "ping"],
 *   carrier: (call) => call.context.headers,
 *   attributes: { "server.address": "api.example.com" },
 * };
 *
 * @since 5.0.10
 * @category otel
 */
export interface TracedOptions<C = unknown> extends InstrumentOptions {
  /**
   * Where a trace context is read when the request's `params._meta` carries none: for instance the
   * HTTP headers the context holds (`(call) => call.context.headers`). Names are read in any case.
   * Default: none; the span's parent is then the active context (an HTTP server span, if any).
   */
  readonly carrier?: ((call: Call<C>) => Carrier | undefined) | undefined;
}

/** The outcome of a Response. */
export const outcomeOf = (response: Response): Outcome =>
  response._tag === "Right"
    ? { _tag: "ok" }
    : { _tag: "answered", code: response.left.code, message: response.left.message };

/**
 * The outcome of a call whose request's signal aborted before its answer: the JSON-RPC error it
 * was aborted with (a `timeout`'s -32001, a connection's -32800), else -32800 Request cancelled.
 */
const cutOutcome = (reason: unknown): Outcome =>
  isJsonRpcError(reason)
    ? { _tag: "answered", code: reason.code, message: reason.message }
    : { _tag: "answered", code: ERROR_REQUEST_CANCELLED, message: "Request cancelled" };

/**
 * A SERVER span per request, after the OpenTelemetry conventions for JSON-RPC: named after the
 * method (a recognized one; else `jsonrpc`), with `rpc.system.name` "jsonrpc", `rpc.method`,
 * `jsonrpc.protocol.version`, `jsonrpc.request.id` (not for a notification or a null id), and on
 * an error answer `rpc.status_code` and `error.type` (the code as a string) and the status ERROR.
 * Its parent is the trace context in `params._meta` (`traceparent`, `tracestate`, as MCP carries
 * it; the stage removes them before the method sees its params), else in `options.carrier`, else
 * the active context. The rest of the pipeline runs in the span's context, so the method's own
 * spans are its children. A streaming method's span lasts until its stream ends, with an event per
 * value. Each request's duration goes to the histogram `rpc.server.call.duration` (seconds).
 * Works in sync and async dispatch; put it first to see every validated request. docs/otel.md.
 *
 * @example
 * import { asyncDispatch, Success } from "rpcserver";
 * import { traced } from "rpcserver/otel";
 * const methods = { ping: () => Success("pong") };
 * // Spans go to the tracer provider registered with @opentelemetry/api (none: nothing is recorded).
 * await asyncDispatch('{"jsonrpc":"2.0","method":"ping","id":1}', methods, { stages: [traced({ methods })] });
 * // '{"jsonrpc":"2.0","result":"pong","id":1}'
 *
 * @since 5.0.10
 * @category otel
 */
export function traced<C = unknown>(options: TracedOptions<C> = {}): TypedAround<C, C> {
  const { semconv, tracer, end, propagator, isRecognized, extra } = instruments(options, "server");
  const carrierOf = options.carrier;

  /** The parent of a request's span, and the request as the method sees it (without the trace members of `_meta`). */
  const parentOf = (call: Call): { readonly parent: Context; readonly request: Request } => {
    const active = contexts.active();
    const { request } = call;
    const meta = metaOf(request.params);
    if (meta !== undefined) {
      const forwarded = { ...request, params: withoutTrace(request.params as Readonly<Record<string, unknown>>, meta) };
      // The method's stream is the request's: values, and an end from outside, reach it.
      passSink(request, forwarded);
      return { parent: propagator.extract(active, meta, getter), request: forwarded };
    }
    let carrier: Carrier | undefined;
    try {
      carrier = carrierOf?.(call as Call<C>);
    } catch {
      // A carrier function that throws gives no parent: the call is answered as without the stage.
      carrier = undefined;
    }
    return { parent: carrier === undefined ? active : propagator.extract(active, carrier, getter), request };
  };

  const stage: Around = {
    _tag: "Around",
    asyncOnly: false,
    around:
      <F extends URIS>(F: Effect<F>) =>
      (next: Handler<F>): Handler<F> =>
      (call) => {
        const elapsed = stopwatch();
        const { parent, request } = parentOf(call);
        const guessed = isRecognized === undefined;
        const described: Described = {
          method: request.method,
          recognized: guessed || isRecognized(request.method),
          id: isNotification(request) ? undefined : request.id,
        };
        const span = tracer.startSpan(
          spanName(described),
          { kind: SpanKind.SERVER, attributes: startAttributes(semconv, described, extra) },
          parent,
        );
        // A span that records nothing (the API's no-op, a sampler's "no") takes no event: no tap.
        const untap = span.isRecording() ? tapStream(request, valueEvents(span)) : constVoid;
        // The span ends once: at the answer, or when the request's signal aborts first (a cancel,
        // the client gone, a deadline outside this stage), since the rest may never answer (a
        // stage or a method that ignores its signal), and the tap and the span would be kept for
        // the life of the process.
        let over = false;
        let letGo = constVoid;
        const finish = (outcome: Outcome, guessing: boolean, cut = false): void => {
          if (over) return;
          over = true;
          untap();
          letGo();
          end(span, described, outcome, elapsed, guessing, cut);
        };
        const cutBy = (reason: unknown): void => {
          try {
            finish(cutOutcome(reason), guessed, true);
          } catch {
            // The SDK's own failure: the wire that ends the request goes on.
          }
        };
        // A wire (a connection, an HTTP body, a `timeout` outside) ends the request's stream as it
        // aborts it: heard by the request, with no signal made for it. A signal of the caller's
        // own in the context is followed.
        const unhook = onCut(call.request, cutBy);
        // A signal the caller aborted before the call is the method's to read: the call goes on, and
        // its answer (which the method may still give) ends the span.
        const given = requestAbortOf(call.context, call.request) === undefined ? signalIn(call.context) : undefined;
        const own = given?.aborted === true ? undefined : given;
        const unfollow = follow(own, () => cutBy(own?.reason));
        letGo = () => {
          unhook();
          unfollow();
        };
        const answered = (response: Response): Response => {
          finish(outcomeOf(response), guessed);
          return response;
        };
        // The rest throws (or rejects, after a stage that answered with a Promise) when a stage
        // after this one passed on a request that cannot be read and a library stage that is not
        // netted (`timeout`) read it: the span ends with the exception's class, and the exception
        // goes on to the request's own net.
        const failed = (thrown: unknown): never => {
          finish(thrownOutcome(thrown), false);
          throw thrown;
        };
        let answer: Kind<F, Response>;
        try {
          answer = contexts.with(trace.setSpan(parent, span), () => next({ request, context: call.context }));
        } catch (thrown) {
          return failed(thrown);
        }
        return F.recover(answer, undefined, answered, failed);
      },
  };
  return stage as TypedAround<C, C>;
}
