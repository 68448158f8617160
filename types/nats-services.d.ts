// What rpcserver/nats uses of @nats-io/services, declared here for the reason types/nats-core.d.ts
// gives, and one more: the package pins a nats-core of its own (3.0.0-50), whose `NatsConnection`
// type differs from the one users connect with (3.4), though both work together at run time.
import type { NatsMessage, NatsServiceInfo, NatsStats } from "../src/internal/nats/shapes";

export interface EndpointOptions {
  subject: string;
  handler: (
    error: Error | null,
    message: NatsMessage & { respondError(code: number, description: string): boolean },
  ) => void;
  metadata?: Record<string, string>;
  queue?: string;
}

export interface ServiceConfig {
  name: string;
  version: string;
  description?: string;
  metadata?: Record<string, string>;
  queue?: string;
  statsHandler?: (endpoint: { readonly subject: string }) => Promise<unknown>;
}

export interface Service {
  readonly stopped: Promise<null | Error>;
  readonly isStopped: boolean;
  addEndpoint(name: string, options: EndpointOptions): unknown;
  info(): NatsServiceInfo;
  stats(): Promise<NatsStats>;
  stop(error?: Error): Promise<null | Error>;
}

export declare class Svcm {
  constructor(connection: unknown);
  add(config: ServiceConfig): Promise<Service>;
}
