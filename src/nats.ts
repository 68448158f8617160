/**
 * `rpcserver/nats`: JSON-RPC over NATS. `serveNats` puts a methods table on NATS as a service of the
 * NATS services framework (queue group, discovery, drain); `natsTransport` is a client transport
 * for `rpcserver/client` over NATS request-reply. The NATS packages (`@nats-io/nats-core`,
 * `@nats-io/services`, and a transport such as `@nats-io/transport-node`) are optional peer
 * dependencies: only this entry loads them. docs/scale-out.md.
 *
 * @packageDocumentation
 */
export {
  serveNats,
  type NatsServeOptions,
  type NatsService,
  type NatsServiceOptions,
  type NatsStopOptions,
} from "./internal/nats/serve";
export {
  natsRelay,
  natsTransport,
  type NatsRelay,
  type NatsTransport,
  type NatsTransportOptions,
} from "./internal/nats/transport";
export type { Relay, RelayOptions } from "./internal/core/relay";
export { STREAM_HEADER, STREAM_VALUES, VALUE_COUNT_HEADER, VALUE_HEADER } from "./internal/nats/wire";
export type {
  NatsConnection,
  NatsEndpointInfo,
  NatsEndpointStats,
  NatsFigures,
  NatsHeaders,
  NatsMessage,
  NatsServiceInfo,
  NatsStats,
  NatsSubscription,
} from "./internal/nats/shapes";
