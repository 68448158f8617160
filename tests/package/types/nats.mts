// Compiled against the PACKED package in a consumer that has no NATS package installed: rpcserver/nats's
// declarations name none (src/internal/nats/shapes.ts), so they compile without them, and the context
// a NATS service makes is checked against what its methods need (the failing cases included).
import * as t from "io-ts";
import { Success, timeout, withContext } from "rpcserver";
import { client } from "rpcserver/client";
import { natsTransport, serveNats, type NatsConnection, type NatsService } from "rpcserver/nats";

declare const nc: NatsConnection;
const { withCodecs } = withContext<{ token: string }>();
const whoami = withCodecs({ result: t.string }, (caller) => Success(caller.token));
const identity = { name: "calc", version: "1.0.0", subject: "rpc.calc" };
export const plain: Promise<NatsService> = serveNats(nc, { add: (a: number, b: number) => Success(a + b) }, identity);
export const withToken = serveNats(
  nc,
  { whoami },
  {
    ...identity,
    context: (message) => ({ token: message.headers?.get("Authorization") ?? "" }),
  },
);
export const staged = serveNats(
  nc,
  { whoami },
  {
    ...identity,
    context: (message) => ({ token: message.subject }),
    stages: [timeout(100)],
    maxBatchSize: 10,
  },
);
// @ts-expect-error: the methods need a context, and no context function makes one
serveNats(nc, { whoami }, identity);
serveNats(
  nc,
  { whoami },
  {
    ...identity,
    // @ts-expect-error: the context function makes the wrong context
    context: () => ({ user: 1 }),
  },
);
const transport = natsTransport(nc, "rpc.calc", { timeoutMs: 1_000, headers: () => ({ Authorization: "Bearer x" }) });
export const calc = client(transport);
transport.close();
