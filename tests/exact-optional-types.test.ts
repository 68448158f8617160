/**
 * Every options object of the package takes `undefined` for an option, as its default, under
 * `exactOptionalPropertyTypes` (this repository's tsconfig has it): options are often built from
 * values that may be undefined (`{ timeoutMs: config.timeout }`). Compiled by `npm run typecheck`;
 * each call also runs, so that the default is really what `undefined` gets.
 */
import { randomUUID } from "node:crypto";
import { Success } from "../src";
import { http, local } from "../src/client";
import { fetchHandler } from "../src/fetch";
import { inspectorPage } from "../src/inspector";
import { mcpHandler, mcpServer, mcpSessions } from "../src/mcp";
import { natsRelay, natsTransport, serveNats, type NatsConnection } from "../src/nats";
import { nodeHttp } from "../src/node-http";
import { traced, tracedTransport } from "../src/otel";
import { nodeHandler, serve } from "../src/server";
import { recordLogs } from "./support";

const methods = { ping: () => Success("pong") };
/** A value the compiler cannot tell is undefined: each option below is typed `T | undefined`. */
const unset = <T>(): T | undefined => undefined;

const SERVER_OPTIONS = {
  allowedHosts: unset<readonly string[]>(),
  allowedOrigins: unset<readonly string[]>(),
  cors: unset<boolean>(),
  inspector: unset<boolean>(),
  openrpc: unset<false>(),
  heartbeatMs: unset<number>(),
  maxBodyBytes: unset<number>(),
};

const INSTRUMENTS = {
  tracerProvider: undefined,
  meterProvider: undefined,
  propagator: undefined,
  semconv: unset<"stable">(),
  attributes: undefined,
  methods: undefined,
};

test("the HTTP handlers, the development server, otel, MCP and the inspector page take undefined as the default", async () => {
  const handler = fetchHandler(methods, SERVER_OPTIONS);
  const answer = await handler(
    new Request("http://localhost/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"jsonrpc":"2.0","method":"ping","id":1}',
    }),
  );
  expect(await answer.text()).toBe('{"jsonrpc":"2.0","result":"pong","id":1}');
  expect(typeof nodeHandler(methods, SERVER_OPTIONS)).toBe("function");
  traced({ ...INSTRUMENTS, carrier: undefined });
  tracedTransport(local(methods), { ...INSTRUMENTS, meta: unset<boolean>() });
  mcpHandler(mcpServer({ name: "x", version: "1.0.0" }), {
    ...SERVER_OPTIONS,
    maxBatchSize: unset<number>(),
    sessions: unset<boolean>(),
    relay: undefined,
  });
  // Node 18 has no globalThis.crypto: there the ids' maker must be given.
  const id: (() => string) | undefined = globalThis.crypto === undefined ? randomUUID : undefined;
  mcpSessions({
    max: unset<number>(),
    idleMs: undefined,
    replay: undefined,
    resumeMs: undefined,
    maxCalls: undefined,
    id,
  });
  expect(inspectorPage({ url: "/rpc", title: unset<string>() })).toContain("<title>JSON-RPC inspector</title>");
  const quiet = recordLogs();
  try {
    const dev = await serve("127.0.0.1", 0, { methods, debug: unset<boolean>(), ...SERVER_OPTIONS });
    dev.close();
  } finally {
    quiet.restore();
  }
  // The client transports: tests/client.test.ts runs them; here their types alone.
  http("http://localhost/", { headers: undefined, fetch: undefined, maxAnswerBytes: unset<number>() });
  nodeHttp("http://localhost/", { headers: undefined, agent: undefined, maxAnswerBytes: unset<number>() });
});

/** NATS: compiled only (tests/nats*.test.ts run a real server; this one has none). */
export const natsOptions = async (nc: NatsConnection): Promise<void> => {
  const service = await serveNats(nc, methods, {
    name: "p",
    version: "1.0.0",
    subject: "rpc.p",
    queue: unset<string>(),
    description: undefined,
    metadata: undefined,
    openrpc: undefined,
    discoverSubject: undefined,
  });
  natsTransport(nc, "rpc.p", { timeoutMs: unset<number>(), headers: undefined, inboxPrefix: undefined }).close();
  natsRelay(nc, "rpc.p", { timeoutMs: unset<number>(), maxAnswerBytes: undefined });
  await service.stop({ abort: unset<boolean>() });
};
