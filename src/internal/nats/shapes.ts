/**
 * What `rpcserver/nats` needs of a NATS connection and its messages, as types of its own: a
 * connection from `@nats-io/transport-node` (or any `@nats-io/nats-core` 3.x transport) has these
 * members, so it fits where they are asked for. Written here rather than imported so that the
 * package's declarations name no NATS package: nats-core's own fail to compile under
 * `exactOptionalPropertyTypes` without `skipLibCheck`, and `@nats-io/services` pins a nats-core
 * of its own whose types differ from the one users connect with.
 *
 * @module
 */

/**
 * A message's headers (nats-core's `MsgHdrs`): read by name, set when a message is made.
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsHeaders {
  /** The header's first value, `""` when it is not there. */
  get(name: string): string;
  /** Sets the header `name` to `value` (replacing any value it had). */
  set(name: string, value: string): void;
  /** The status code of a message the NATS server made (503: no responders), 0 for others. */
  readonly code: number;
}

/**
 * One message as a subscription receives it (nats-core's `Msg`).
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsMessage {
  readonly subject: string;
  /** Where an answer goes; none for a message published without one. */
  readonly reply?: string | undefined;
  readonly data: Uint8Array;
  readonly headers?: NatsHeaders | undefined;
  /** Publishes `data` to `reply`; `false` when there is no reply subject. */
  respond(data?: string | Uint8Array, options?: { headers?: NatsHeaders }): boolean;
  /** `data` as UTF-8 text. */
  string(): string;
}

/**
 * A subscription (nats-core's `Subscription`): only how to end it.
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsSubscription {
  /** Ends the subscription (after `max` more messages, when given). */
  unsubscribe(max?: number): void;
}

/**
 * A NATS connection (nats-core's `NatsConnection`): what `serveNats` and `natsTransport` use of it.
 * The one `connect` of `@nats-io/transport-node` resolves to fits.
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsConnection {
  /** Publishes `data` on `subject`, with a reply subject and headers when given. */
  publish(subject: string, data?: string | Uint8Array, options?: { reply?: string; headers?: NatsHeaders }): void;
  /** Subscribes to `subject` (in a queue group, when given), each message handed to `callback`. */
  subscribe(
    subject: string,
    options?: { callback?: (error: Error | null, message: NatsMessage) => void; queue?: string },
  ): NatsSubscription;
  /** Resolves once the NATS server has seen everything published so far. */
  flush(): Promise<void>;
  /** Resolves (to the error that closed it, if any) once the connection is closed. */
  closed(): Promise<void | Error>;
  /** Whether the connection is closed: nothing can be published on it. */
  isClosed(): boolean;
  /** Whether the connection is draining: it takes no new subscription nor request. */
  isDraining?(): boolean;
  /** The options it was made with: `natsTransport`'s inbox takes their `inboxPrefix`. */
  readonly options?: { readonly inboxPrefix?: string | undefined };
}

/**
 * One endpoint of a service, as its `info` lists it (`@nats-io/services`' `EndpointInfo`).
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsEndpointInfo {
  readonly name: string;
  readonly subject: string;
  readonly queue_group?: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/**
 * What a service says of itself to `$SRV.INFO` (`@nats-io/services`' `ServiceInfo`).
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsServiceInfo {
  readonly name: string;
  /** This instance's id: each process serving the service has its own. */
  readonly id: string;
  readonly version: string;
  readonly description: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly endpoints: ReadonlyArray<NatsEndpointInfo>;
}

/**
 * One endpoint's figures in a `$SRV.STATS` answer (`@nats-io/services`' `NamedEndpointStats`);
 * `data` holds rpcserver's own ({@link NatsFigures}).
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsEndpointStats {
  readonly name: string;
  readonly subject: string;
  readonly num_requests: number;
  readonly num_errors: number;
  readonly processing_time: number;
  readonly average_processing_time: number;
  readonly data?: unknown;
}

/**
 * What a service answers to `$SRV.STATS` (`@nats-io/services`' `ServiceStats`).
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsStats {
  readonly name: string;
  readonly id: string;
  readonly version: string;
  readonly started: string;
  readonly endpoints?: ReadonlyArray<NatsEndpointStats>;
}

/**
 * rpcserver's own figures for the JSON-RPC endpoint, in its `data` in `$SRV.STATS`: the services
 * framework counts an error only when a handler throws and times only its synchronous part, so
 * its `num_errors` and `processing_time` say little of an asynchronous dispatch.
 *
 * @since 5.0.10
 * @category nats
 */
export interface NatsFigures {
  /** Messages taken. */
  readonly messages: number;
  /** Messages taken and not yet answered. */
  readonly inFlight: number;
  /** Messages whose dispatch failed (a bad option, or the context function threw). */
  readonly failed: number;
  /** Nanoseconds from taking a message to handing its answer on, summed over the answered ones. */
  readonly processingNs: number;
}
