/**
 * One trace across three processes, with the real OpenTelemetry SDK in each: this test (the
 * client: `tracedTransport(http(...))` with `traceHeaders()`), an HTTP service
 * (tests/fixtures/otel-service.mjs: `fetchHandler` with `traced`, whose methods call the worker
 * through `tracedTransport(natsTransport(nc, subject, { headers: traceHeaders() }))`) and a NATS
 * worker (tests/fixtures/otel-worker.mjs: `serveNats` with `traced`, the parent read from the
 * message's NATS headers), over a real socket and a real nats-server. The fixtures run the BUILT
 * package and print each span they end as a JSON line. For a call with object params and one with
 * positional params, the four spans (client CLIENT, service SERVER, service CLIENT, worker SERVER)
 * share one trace id, each the child of the one before; `params._meta` is not used (the default),
 * so the headers alone carry the context.
 */
import { SpanKind } from "@opentelemetry/api";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { contract } from "../src";
import { client, http } from "../src/client";
import { traceHeaders, tracedTransport } from "../src/otel";
import { startNatsServer, type NatsServer } from "./fixtures/nats-server.cjs";
import { killFixtures, spawnFixture, type Fixture } from "./helpers/nats";
import { registerGlobals, telemetry } from "./helpers/otel";
import { until } from "./helpers/processes";

interface PrintedSpan {
  readonly process: string;
  readonly name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: Record<string, unknown>;
}

const SUBJECT = "rpc.otel.worker";
const api = contract({
  relay: { params: t.type({ x: t.number }), result: t.type({ doubled: t.number }) },
  relaySum: { params: t.tuple([t.number, t.number]), result: t.number },
});

let server: NatsServer;
let service: Fixture;
let worker: Fixture;
let url: string;
const sdk = telemetry();

beforeAll(async () => {
  registerGlobals();
  server = await startNatsServer();
  const env = { NATS_URL: server.url, NATS_SUBJECT: SUBJECT };
  worker = spawnFixture("otel-worker.mjs", [], env);
  service = spawnFixture("otel-service.mjs", [], env);
  await worker.line((line) => line["ready"] === true, "the worker serving");
  url = String((await service.line((line) => line["ready"] === true, "the service listening"))["url"]);
});

afterAll(async () => {
  killFixtures();
  await server?.stop();
});

/** The spans a fixture printed so far. */
const printed = (fixture: Fixture): PrintedSpan[] =>
  fixture.lines.filter((line) => "span" in line).map((line) => line["span"] as PrintedSpan);

/** The client of this process: the trace context in the HTTP headers. */
const calculator = () =>
  client(
    api,
    tracedTransport(http(url, { headers: traceHeaders() }), {
      tracerProvider: sdk.tracerProvider,
      meterProvider: sdk.meterProvider,
    }),
  );
type Calc = ReturnType<typeof calculator>;

test.each([
  ["object params", "relay", (calc: Calc) => calc.relay({ x: 21 })(), { doubled: 42 }],
  ["positional params", "relaySum", (calc: Calc) => calc.relaySum(40, 2)(), 42],
] as const)("%s: client -> HTTP service -> NATS worker, one trace", async (_, method, call, expected) => {
  sdk.reset();
  const before = { service: printed(service).length, worker: printed(worker).length };
  expect(await call(calculator())).toStrictEqual(E.right(expected));

  const clientSpan = sdk.spans()[0];
  expect(clientSpan?.kind).toBe(SpanKind.CLIENT);
  expect(clientSpan?.name).toBe(method);
  // Each span is printed as it ends: the service's server span ends once the answer is made, which
  // may be a moment after this process has it.
  await until(
    () => printed(service).length === before.service + 2 && printed(worker).length === before.worker + 1,
    "the service's two spans and the worker's one",
  );
  const fromService = printed(service).slice(before.service);
  const serviceServer = fromService.find((span) => span.kind === SpanKind.SERVER);
  const serviceClient = fromService.find((span) => span.kind === SpanKind.CLIENT);
  const workerServer = printed(worker)[before.worker];
  expect([serviceServer?.name, serviceClient?.name, workerServer?.name]).toStrictEqual([
    method,
    method === "relay" ? "double" : "add",
    method === "relay" ? "double" : "add",
  ]);
  // One trace id across the three processes.
  const traceId = clientSpan?.spanContext().traceId;
  expect([serviceServer?.traceId, serviceClient?.traceId, workerServer?.traceId]).toStrictEqual([
    traceId,
    traceId,
    traceId,
  ]);
  expect(workerServer?.kind).toBe(SpanKind.SERVER);
  // Each the child of the one before it, across the three processes.
  expect(serviceServer?.parentSpanId).toBe(clientSpan?.spanContext().spanId);
  expect(serviceClient?.parentSpanId).toBe(serviceServer?.spanId);
  expect(workerServer?.parentSpanId).toBe(serviceClient?.spanId);
  // The params reached the worker as the service wrote them (no `_meta`): it answered.
  expect(workerServer?.attributes["error.type"]).toBeUndefined();
});
