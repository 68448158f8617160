/**
 * rpcserver/otel: OpenTelemetry for JSON-RPC, after the semantic conventions for JSON-RPC. `traced`
 * is a stage (a SERVER span per request, `rpc.server.call.duration`); `tracedTransport` wraps a
 * client transport (a CLIENT span per request, `rpc.client.call.duration`, the trace context sent
 * with `traceHeaders` in the `http` or `natsTransport` headers, and with `meta: true` in
 * `params._meta`). It imports
 * `@opentelemetry/api` (an optional peer dependency), and no other entry imports it: without it,
 * nothing of OpenTelemetry is loaded. docs/otel.md.
 *
 * @example
 * import { asyncDispatch, Success } from "rpcserver";
 * import { traced } from "rpcserver/otel";
 * const methods = { ping: () => Success("pong") };
 * await asyncDispatch('{"jsonrpc":"2.0","method":"ping","id":1}', methods, { stages: [traced({ methods })] });
 * // '{"jsonrpc":"2.0","result":"pong","id":1}'
 *
 * @packageDocumentation
 */
export { traced, type TracedOptions } from "./internal/otel/server";
export { traceHeaders, tracedTransport, type TracedTransportOptions } from "./internal/otel/client";
export type { RecognizedMethods, Semconv } from "./internal/otel/semconv";
export type { InstrumentOptions } from "./internal/otel/span";
export type { Carrier, HeadersCarrier } from "./internal/otel/meta";
