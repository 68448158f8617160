// What rpcserver/nats uses of @nats-io/nats-core, declared here so that the project's type check
// does not read the package's own declarations, which fail under `exactOptionalPropertyTypes` with
// `skipLibCheck: false` (MsgImpl, NatsConnectionImpl). tsconfig.json maps the package name here
// (`paths`); the build leaves the import as it is (rollup's `external`), so the real package loads
// at run time. src/internal/nats/shapes.ts holds the types a connection must fit.
import type { NatsHeaders } from "../src/internal/nats/shapes";

/** A new, empty set of headers. */
export declare function headers(): NatsHeaders;

/** A new inbox subject: `<prefix or _INBOX>.<a random nuid>`. */
export declare function createInbox(prefix?: string): string;

/** nats-core's random, unguessable ids (crypto-random prefix, random increments). */
export declare const nuid: { next(): string };
