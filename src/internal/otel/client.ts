/**
 * The client's side of `rpcserver/otel`: a wrapper of a client `Transport` that makes a CLIENT span
 * per request of each body it sends, offers its trace context to the transport's headers
 * ({@link traceHeaders}) and, when asked, writes it into each request's `params._meta`, ends the
 * spans with the answers, and records `rpc.client.call.duration`.
 *
 * @module
 */
import {
  context as contexts,
  propagation,
  SpanKind,
  trace,
  type Context,
  type Span,
  type TextMapPropagator,
} from "@opentelemetry/api";
import * as E from "fp-ts/Either";
import type { TaskEither } from "fp-ts/TaskEither";
import type { TransportError } from "../client/errors";
import { isRecord, isThenable } from "../core/guards";
import type { ParsedAnswer, Transport, TransportOptions } from "../client/transport";
import { setter, withMeta } from "./meta";
import { OTHER, spanName, startAttributes, stopwatch, type Described, type Outcome } from "./semconv";
import { instruments, thrownOutcome, valueEvents, type InstrumentOptions } from "./span";

/**
 * Options of {@link tracedTransport}.
 *
 * @example
 * import type { TracedTransportOptions } from "rpcserver/otel";
 * const options: TracedTransportOptions = {
 *   methods: ["add", "ping"],
 *   attributes: { "server.address": "api.example.com", "server.port": 443 },
 * };
 *
 * @since 5.0.10
 * @category otel
 */
export interface TracedTransportOptions extends InstrumentOptions {
  /**
   * Whether each request with object params carries its span's trace context in `params._meta`
   * (`traceparent`, `tracestate`), as the Model Context Protocol does. Default `false`: a server
   * that does not read `_meta` (one without `traced`, whose params schema refuses a member it does
   * not know) would refuse the call. Turn it on for a connection to a server that reads it (an MCP
   * server, `traced` on the other end), or where no headers travel. Positional params are never
   * changed.
   */
  readonly meta?: boolean | undefined;
}

/** One request of a body, and its span. */
interface Traced {
  readonly described: Described;
  readonly span: Span;
  readonly context: Context;
}

interface RequestLike {
  readonly method: string;
  readonly params?: unknown;
  readonly id?: unknown;
}

const isRequest = (value: unknown): value is RequestLike => isRecord(value) && typeof value["method"] === "string";

const idOf = (request: RequestLike): string | number | null | undefined => {
  if (!Object.prototype.hasOwnProperty.call(request, "id")) return undefined;
  const id = request.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
};

/** The body's value, or `undefined` when it is not JSON. */
const parse = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** The answers by id: a body's members that are responses. */
const answersOf = (answer: string | ParsedAnswer): ReadonlyArray<Readonly<Record<string, unknown>>> => {
  const value = typeof answer === "string" ? (answer === "" ? undefined : parse(answer)) : answer.json;
  const members = Array.isArray(value) ? (value as unknown[]) : [value];
  return members.filter(isRecord);
};

/** The outcome of one response member. */
const outcomeOfMember = (member: Readonly<Record<string, unknown>>): Outcome => {
  const error = member["error"];
  if (!isRecord(error)) return { _tag: "ok" };
  const code = typeof error["code"] === "number" ? error["code"] : NaN;
  const message = typeof error["message"] === "string" ? error["message"] : "";
  return Number.isNaN(code) ? { _tag: "failed", type: OTHER } : { _tag: "answered", code, message };
};

/**
 * The context whose trace the `http` transport's headers carry now: set while a traced call hands
 * its body to the transport, which reads its headers synchronously at the start of the call.
 */
let sending: Context | undefined;

/**
 * The trace context of the call being sent, as headers (`traceparent`, `tracestate`), for the
 * `headers` option of the `http` transport or of `natsTransport` under {@link tracedTransport},
 * with `headers` (a record or a function of the same, as that option takes) beside them. Outside a
 * traced call, the active context's. A single request's headers carry its span's context; a
 * batch's, the context the batch was sent in (each request's own is in its `_meta` with `meta`).
 * Given a function that may return a Promise, it returns one that may too (the next signature).
 *
 * @example
 * import { http } from "rpcserver/client";
 * import { traceHeaders, tracedTransport } from "rpcserver/otel";
 * const transport = tracedTransport(http("http://localhost:5000", { headers: traceHeaders({ authorization: "Bearer t1" }) }));
 *
 * @since 5.0.10
 * @category otel
 */
export function traceHeaders(
  headers?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>),
  propagator?: TextMapPropagator,
): () => Readonly<Record<string, string>>;
/**
 * {@link traceHeaders} with headers that a function makes, maybe later (a token fetched): the
 * result may be a Promise too, which the `http` transport takes (and `natsTransport` does not).
 *
 * @example
 * import { http } from "rpcserver/client";
 * import { traceHeaders, tracedTransport } from "rpcserver/otel";
 * const token = async () => "t1";
 * const transport = tracedTransport(http("http://localhost:5000", { headers: traceHeaders(async () => ({ authorization: `Bearer ${await token()}` })) }));
 *
 * @since 5.0.10
 * @category otel
 */
export function traceHeaders(
  headers: () => Readonly<Record<string, string>> | PromiseLike<Readonly<Record<string, string>>>,
  propagator?: TextMapPropagator,
): () => Readonly<Record<string, string>> | PromiseLike<Readonly<Record<string, string>>>;
export function traceHeaders(
  headers?:
    | Readonly<Record<string, string>>
    | (() => Readonly<Record<string, string>> | PromiseLike<Readonly<Record<string, string>>>),
  propagator: TextMapPropagator = propagation,
): () => Readonly<Record<string, string>> | PromiseLike<Readonly<Record<string, string>>> {
  return () => {
    const trace: Record<string, string> = {};
    propagator.inject(sending ?? contexts.active(), trace, setter);
    const given = typeof headers === "function" ? headers() : headers;
    if (given === undefined) return trace;
    if (isThenable(given)) return Promise.resolve(given).then((resolved) => ({ ...resolved, ...trace }));
    return { ...given, ...trace };
  };
}

/**
 * Wraps a client transport (`http`, `local`, a connection's, `natsTransport`, your own) so that
 * each request it sends gets a CLIENT span after the OpenTelemetry conventions for JSON-RPC (the
 * same attributes as the server's {@link traced}), ended with its answer: an error answer sets
 * `rpc.status_code`, `error.type` (the code as a string) and the status ERROR; a transport's
 * failure sets `error.type` to its `reason` (`network`, `timeout`, `aborted`, ...). A batch gets a
 * span per request. The span's context goes to the server in the `http` transport's or
 * `natsTransport`'s headers with {@link traceHeaders}, and with `meta: true` in each request's
 * `params._meta` (object params only). A streamed call's span has an event per value. The duration
 * of each request goes to `rpc.client.call.duration` (seconds). The transport's other members
 * (`close`, `nextId`) are kept. docs/otel.md.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, local } from "rpcserver/client";
 * import { traced, tracedTransport } from "rpcserver/otel";
 * const api = contract({ add: { params: t.type({ a: t.number, b: t.number }), result: t.number } });
 * const methods = implement(api, { add: ({ a, b }) => E.right(a + b) });
 * const calc = client(api, tracedTransport(local(methods, { stages: [traced({ methods })] })));
 * await calc.add({ a: 1, b: 2 })(); // { _tag: "Right", right: 3 }
 *
 * @since 5.0.10
 * @category otel
 */
export const tracedTransport = <T extends Transport>(transport: T, options: TracedTransportOptions = {}): T => {
  const { semconv, tracer, end, propagator, isRecognized, extra } = instruments(options, "client");
  const guessed = isRecognized === undefined;
  const inject = options.meta ?? false;

  const start = (request: RequestLike, parent: Context): Traced => {
    const described: Described = {
      method: request.method,
      recognized: guessed || isRecognized(request.method),
      id: idOf(request),
    };
    const span = tracer.startSpan(
      spanName(described),
      { kind: SpanKind.CLIENT, attributes: startAttributes(semconv, described, extra) },
      parent,
    );
    return { described, span, context: trace.setSpan(parent, span) };
  };

  /** The body with each traced request's context in its `_meta`; the body as given when nothing changes, or when the body is not what `JSON.stringify` writes (a serializer of big numbers: rewriting it would lose them). */
  const rewrite = (
    body: string,
    value: unknown,
    requests: ReadonlyArray<unknown>,
    calls: ReadonlyArray<Traced | undefined>,
  ): string => {
    if (!inject) return body;
    let changed = false;
    const sent = requests.map((request, index) => {
      const call = calls[index];
      if (call === undefined || !isRequest(request) || !isRecord(request.params)) return request;
      const fields: Record<string, string> = {};
      propagator.inject(call.context, fields, setter);
      if (Object.keys(fields).length === 0) return request;
      changed = true;
      return { ...request, params: withMeta(request.params, fields) };
    });
    if (!changed || JSON.stringify(value) !== body) return body;
    return JSON.stringify(Array.isArray(value) ? sent : sent[0]);
  };

  const wrapped = (
    body: string,
    transportOptions: TransportOptions,
  ): TaskEither<TransportError, string | ParsedAnswer> => {
    return () => {
      const elapsed = stopwatch();
      const value = parse(body);
      const requests: ReadonlyArray<unknown> = Array.isArray(value) ? value : [value];
      const parent = contexts.active();
      const calls = requests.map((request) => (isRequest(request) ? start(request, parent) : undefined));
      const single = calls.length === 1 ? calls[0] : undefined;
      const { onValue } = transportOptions;
      let given = transportOptions;
      if (onValue !== undefined && single !== undefined) {
        const event = valueEvents(single.span);
        given = {
          ...transportOptions,
          onValue: (streamed) => {
            event();
            return onValue(streamed);
          },
        };
      }
      const endAll = (outcomeOf: (call: Traced) => Outcome): void => {
        for (const call of calls)
          if (call !== undefined) end(call.span, call.described, outcomeOf(call), elapsed, guessed);
      };
      const failed = (thrown: unknown): never => {
        const outcome = thrownOutcome(thrown);
        endAll(() => outcome);
        throw thrown;
      };
      const sent = rewrite(body, value, requests, calls);
      const around = single?.context ?? parent;
      let answer: Promise<E.Either<TransportError, string | ParsedAnswer>>;
      const outer = sending;
      sending = around;
      try {
        answer = contexts.with(around, () => transport(sent, given)());
      } catch (thrown) {
        return failed(thrown);
      } finally {
        sending = outer;
      }
      const finish = (
        result: E.Either<TransportError, string | ParsedAnswer>,
      ): E.Either<TransportError, string | ParsedAnswer> => {
        if (E.isLeft(result)) {
          const outcome: Outcome = { _tag: "failed", type: result.left.reason };
          endAll(() => outcome);
          return result;
        }
        const byId = new Map<unknown, Readonly<Record<string, unknown>>>();
        for (const member of answersOf(result.right)) byId.set(member["id"], member);
        // An answer to the whole body (id null: it could not be read) answers each request.
        const whole = byId.get(null);
        endAll(({ described: { id } }) => {
          if (id === undefined) return { _tag: "ok" };
          const member = byId.get(id) ?? whole;
          return member === undefined ? { _tag: "failed", type: OTHER } : outcomeOfMember(member);
        });
        return result;
      };
      return answer.then(finish, failed);
    };
  };
  // The transport's named members (`nextId`, `close`) are the wrapper's too; not the library's own
  // symbol-keyed ones (`local`'s direct path, which would take calls around the wrapper).
  const members: Record<string, unknown> = {};
  for (const name of Object.keys(transport)) members[name] = (transport as unknown as Record<string, unknown>)[name];
  return Object.assign(wrapped, members) as T;
};
