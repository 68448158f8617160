/**
 * Type tests of rpcserver/otel: `traceHeaders()` goes where both transports take headers (the
 * `http` transport takes a function that may return a Promise, `natsTransport` one that does not),
 * `tracedTransport` keeps the wrapped transport's type (`close`), `traced`'s carrier may be headers
 * read by name. jest (transpile only) does not check types: `tsc -p tsconfig.json --noEmit` does,
 * and fails if a line below does not compile or a `// @ts-expect-error` line has no error. The
 * checks live in `typeOnly` bodies (compiled, never run); the runtime suite is tests/otel.test.ts.
 */
import { http } from "../src/client";
import { natsTransport, type NatsConnection, type NatsMessage } from "../src/nats";
import { traced, traceHeaders, tracedTransport } from "../src/otel";

/** Compiles `body` (so its `@ts-expect-error` lines are checked) without running it. */
const typeOnly = (body: () => void): void => void body;

typeOnly(() => {
  const nc = undefined as unknown as NatsConnection;
  // The one-liner docs/otel.md gives, on NATS and over HTTP.
  const overNats = tracedTransport(natsTransport(nc, "rpc.worker", { headers: traceHeaders() }));
  overNats.close();
  tracedTransport(natsTransport(nc, "rpc.worker", { headers: traceHeaders({ authorization: "Bearer t" }) }));
  tracedTransport(natsTransport(nc, "rpc.worker", { headers: traceHeaders(() => ({ authorization: "Bearer t" })) }));
  tracedTransport(http("http://localhost:5000", { headers: traceHeaders(async () => ({ authorization: "t" })) }));
  // @ts-expect-error: natsTransport reads its headers at once; a function that may return a Promise does not fit
  natsTransport(nc, "rpc.worker", { headers: traceHeaders(async () => ({ authorization: "t" })) });
  // The server: a NATS message's headers are a carrier as they are.
  traced<{ headers: NatsMessage["headers"] }>({ carrier: (call) => call.context.headers });
  // @ts-expect-error: a carrier is a record or headers read by name, not a string
  traced<{ headers: string }>({ carrier: (call) => call.context.headers });
});

test("traceHeaders() is a function of no argument, answering a record at once", () => {
  expect(typeof traceHeaders()()).toBe("object");
});
