/**
 * rpcserver/otel with the real OpenTelemetry SDK (@opentelemetry/sdk-trace's in-memory exporter,
 * @opentelemetry/sdk-metrics read on demand, @opentelemetry/core's W3C propagator): each span and
 * measurement attribute by attribute against the semantic conventions for JSON-RPC (success, an
 * error answer, a notification, a null id, an unknown method, a streamed call, a thrown exception),
 * the older names beside them under OTEL_SEMCONV_STABILITY_OPT_IN=rpc/dup, and one trace from the
 * client to the server over `local` and over HTTP on a real socket (the context in `params._meta`,
 * and in the headers), the server span the child of the client span.
 */
import { SpanKind, SpanStatusCode, trace, type Attributes } from "@opentelemetry/api";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { answerHttp, asyncDispatch, contract, dispatch, Error as RpcErrorResult, implement, Success } from "../src";
import { batch, client, http, local, notify } from "../src/client";
import { traced, traceHeaders, tracedTransport, type TracedOptions } from "../src/otel";
import { SECONDS_BUCKETS } from "../src/internal/otel/semconv";
import { serveFetch, type Running } from "./fixtures/sse";
import { registerGlobals, telemetry } from "./helpers/otel";

beforeAll(registerGlobals);

const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

const methods = {
  add: (p: { a: number; b: number }) => Success(p.a + p.b),
  sum: (...xs: number[]) => Success(xs.reduce((a, b) => a + b, 0)),
  refuse: () => RpcErrorResult(404, "No such person"),
  echo: (p: unknown) => Success(p),
  nested: () => {
    // A span of the method's own: a child of the server span, through the active context.
    trace.getTracer("app").startSpan("inner").end();
    return Success("done");
  },
  count: async function* (to: number) {
    for (let i = 1; i <= to; i++) yield i;
    return Success("counted");
  },
  boom: () => {
    throw new TypeError("boom");
  },
};

const request = (method: string, params: unknown, id?: unknown): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    method,
    ...(params === undefined ? {} : { params }),
    ...(id === undefined ? {} : { id }),
  });

/** A stage on a fresh SDK pair, and what they recorded. */
const setup = (options: TracedOptions = {}) => {
  const sdk = telemetry();
  const stage = traced({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, ...options });
  return { ...sdk, stage };
};

const only = <A>(items: ReadonlyArray<A>): A => {
  expect(items).toHaveLength(1);
  return items[0] as A;
};

describe("the server stage, attribute by attribute", () => {
  test("a success: a SERVER span named after the method, and the duration in seconds", async () => {
    const { stage, spans, points } = setup({ methods });
    expect(await asyncDispatch(request("add", { a: 1, b: 2 }, 7), methods, { stages: [stage] })).toBe(
      '{"jsonrpc":"2.0","result":3,"id":7}',
    );
    const span = only(spans());
    expect(span.name).toBe("add");
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toStrictEqual({
      "rpc.system.name": "jsonrpc",
      "rpc.method": "add",
      "jsonrpc.protocol.version": "2.0",
      "jsonrpc.request.id": "7",
    });
    expect(span.status).toStrictEqual({ code: SpanStatusCode.UNSET });
    expect(span.instrumentationScope.name).toBe("rpcserver");
    const point = only(await points());
    expect(point).toMatchObject({
      name: "rpc.server.call.duration",
      unit: "s",
      attributes: { "rpc.system.name": "jsonrpc", "rpc.method": "add" },
      count: 1,
      boundaries: SECONDS_BUCKETS,
    });
    // Seconds: well under one for a method that returns at once.
    expect(point.sum).toBeLessThan(1);
  });

  test("an error answer: rpc.status_code and error.type as strings, the status ERROR", async () => {
    const { stage, spans, points } = setup({ methods });
    await asyncDispatch(request("refuse", undefined, "r-1"), methods, { stages: [stage] });
    const span = only(spans());
    expect(span.attributes).toStrictEqual({
      "rpc.system.name": "jsonrpc",
      "rpc.method": "refuse",
      "jsonrpc.protocol.version": "2.0",
      "jsonrpc.request.id": "r-1",
      "rpc.status_code": "404",
      "error.type": "404",
    });
    expect(span.status).toStrictEqual({ code: SpanStatusCode.ERROR, message: "No such person" });
    expect(only(await points()).attributes).toStrictEqual({
      "rpc.system.name": "jsonrpc",
      "rpc.method": "refuse",
      "rpc.status_code": "404",
      "error.type": "404",
    });
  });

  test("a notification and a null id: no jsonrpc.request.id", async () => {
    const { stage, spans } = setup({ methods });
    await asyncDispatch(request("add", { a: 1, b: 1 }), methods, { stages: [stage] });
    await asyncDispatch(request("add", { a: 1, b: 1 }, null), methods, { stages: [stage] });
    expect(spans().map((span) => span.attributes["jsonrpc.request.id"])).toStrictEqual([undefined, undefined]);
    expect(spans().map((span) => span.name)).toStrictEqual(["add", "add"]);
  });

  test("an unknown method, with the table given: _OTHER, the name in rpc.method_original, the span named jsonrpc", async () => {
    const { stage, spans, points } = setup({ methods });
    await asyncDispatch(request("nope", undefined, 1), methods, { stages: [stage] });
    const span = only(spans());
    expect(span.name).toBe("jsonrpc");
    expect(span.attributes).toStrictEqual({
      "rpc.system.name": "jsonrpc",
      "rpc.method": "_OTHER",
      "jsonrpc.protocol.version": "2.0",
      "rpc.method_original": "nope",
      "jsonrpc.request.id": "1",
      "rpc.status_code": "-32601",
      "error.type": "-32601",
    });
    expect(only(await points()).attributes["rpc.method"]).toBe("_OTHER");
  });

  test("an unknown method without a list: recognized until the answer says -32601", async () => {
    const { stage, spans, points } = setup();
    await asyncDispatch(request("nope", undefined, 1), methods, { stages: [stage] });
    await asyncDispatch(request("add", { a: 1, b: 1 }, 2), methods, { stages: [stage] });
    const [unknown, known] = spans();
    expect(unknown?.name).toBe("jsonrpc");
    expect(unknown?.attributes).toMatchObject({ "rpc.method": "_OTHER", "rpc.method_original": "nope" });
    expect(known?.name).toBe("add");
    expect(known?.attributes["rpc.method_original"]).toBeUndefined();
    expect((await points()).map((p) => p.attributes["rpc.method"]).sort()).toStrictEqual(["_OTHER", "add"]);
  });

  test("sync dispatch too", () => {
    const { stage, spans } = setup({ methods });
    expect(dispatch(request("sum", [1, 2], 1), methods, { stages: [stage] })).toBe(
      '{"jsonrpc":"2.0","result":3,"id":1}',
    );
    expect(only(spans()).name).toBe("sum");
  });

  test("a streamed call: one span on each side, an event per value, ended with the stream", async () => {
    const { stage, spans, tracerProvider, meterProvider } = setup();
    const streamApi = contract({ count: { params: t.tuple([t.number]), stream: t.number, result: t.string } });
    const streamMethods = implement(streamApi, {
      count: async function* (to) {
        for (let i = 1; i <= to; i++) yield i;
        return E.right("counted");
      },
    });
    const transport = tracedTransport(local(streamMethods, { stages: [stage] }), { tracerProvider, meterProvider });
    const counting = client(streamApi, transport).count(3);
    const values: number[] = [];
    for await (const value of counting) values.push(value);
    expect(values).toStrictEqual([1, 2, 3]);
    const events = [1, 2, 3].map((index) => ["rpcserver.stream.value", { "rpcserver.stream.index": index }]);
    expect(
      spans().map((span) => [span.kind, span.name, span.events.map((event) => [event.name, event.attributes])]),
    ).toStrictEqual([
      [SpanKind.SERVER, "count", events],
      [SpanKind.CLIENT, "count", events],
    ]);
  });

  test("a method that throws: -32603 answered, recorded as its code", async () => {
    const { stage, spans } = setup({ methods });
    await asyncDispatch(request("boom", undefined, 1), methods, { stages: [stage] });
    expect(only(spans()).attributes).toMatchObject({ "error.type": "-32603", "rpc.status_code": "-32603" });
  });

  test("the method runs in the span's context: its own spans are children", async () => {
    const { stage, spans, tracerProvider } = setup({ methods });
    trace.setGlobalTracerProvider(tracerProvider);
    try {
      await asyncDispatch(request("nested", undefined, 1), methods, { stages: [stage] });
    } finally {
      trace.disable();
    }
    const [inner, server] = spans();
    expect(server?.name).toBe("nested");
    expect(inner?.name).toBe("inner");
    expect(inner?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
    expect(inner?.spanContext().traceId).toBe(server?.spanContext().traceId);
  });

  test("the parent from params._meta; the method sees its params without the trace members", async () => {
    const { stage, spans } = setup({ methods });
    const params = { kept: 1, _meta: { traceparent: TRACEPARENT, progressToken: "p" } };
    expect(await asyncDispatch(request("echo", params, 1), methods, { stages: [stage] })).toBe(
      '{"jsonrpc":"2.0","result":{"kept":1,"_meta":{"progressToken":"p"}},"id":1}',
    );
    await asyncDispatch(request("echo", { _meta: { traceparent: TRACEPARENT } }, 2), methods, { stages: [stage] });
    const [first, second] = spans();
    expect(first?.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(first?.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    expect(second?.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
  });

  test("the parent from the carrier a context gives, when _meta has none", async () => {
    const { stage, spans } = setup({
      methods,
      carrier: (call) => (call.context as { headers: Record<string, string> }).headers,
    });
    await asyncDispatch(request("sum", [1], 1), methods, {
      stages: [stage],
      context: { headers: { TraceParent: TRACEPARENT } },
    });
    expect(only(spans()).parentSpanContext?.spanId).toBe("b7ad6b7169203331");
  });
});

describe("OTEL_SEMCONV_STABILITY_OPT_IN", () => {
  const saved = process.env["OTEL_SEMCONV_STABILITY_OPT_IN"];
  afterEach(() => {
    if (saved === undefined) delete process.env["OTEL_SEMCONV_STABILITY_OPT_IN"];
    else process.env["OTEL_SEMCONV_STABILITY_OPT_IN"] = saved;
  });

  test("rpc/dup: the older attributes and rpc.server.duration in milliseconds beside the current ones", async () => {
    process.env["OTEL_SEMCONV_STABILITY_OPT_IN"] = "http, rpc/dup";
    const { stage, spans, points } = setup({ methods });
    await asyncDispatch(request("refuse", undefined, 3), methods, { stages: [stage] });
    await asyncDispatch(request("add", { a: 1, b: 1 }, null), methods, { stages: [stage] });
    const [refused, nullId] = spans();
    expect(refused?.attributes).toStrictEqual({
      "rpc.system.name": "jsonrpc",
      "rpc.method": "refuse",
      "jsonrpc.protocol.version": "2.0",
      "jsonrpc.request.id": "3",
      "rpc.system": "jsonrpc",
      "rpc.jsonrpc.version": "2.0",
      "rpc.jsonrpc.request_id": "3",
      "rpc.status_code": "404",
      "error.type": "404",
      "rpc.jsonrpc.error_code": 404,
      "rpc.jsonrpc.error_message": "No such person",
    } satisfies Attributes);
    // v1.37.0 recorded a null id as "".
    expect(nullId?.attributes["rpc.jsonrpc.request_id"]).toBe("");
    expect(nullId?.attributes["jsonrpc.request.id"]).toBeUndefined();
    const older = (await points()).filter((p) => p.name === "rpc.server.duration");
    expect(older.map((p) => [p.unit, p.attributes])).toStrictEqual([
      ["ms", { "rpc.system": "jsonrpc", "rpc.method": "refuse" }],
      ["ms", { "rpc.system": "jsonrpc", "rpc.method": "add" }],
    ]);
    expect(older[0]?.boundaries).toStrictEqual(SECONDS_BUCKETS.map((s) => s * 1000));
  });

  test.each([["rpc"], [""], ["http/dup"]])("%p: the current conventions alone", async (value) => {
    process.env["OTEL_SEMCONV_STABILITY_OPT_IN"] = value;
    const { stage, spans, points } = setup({ methods });
    await asyncDispatch(request("add", { a: 1, b: 1 }, 1), methods, { stages: [stage] });
    expect(
      Object.keys(only(spans()).attributes).filter((name) => name.startsWith("rpc.jsonrpc") || name === "rpc.system"),
    ).toStrictEqual([]);
    expect((await points()).map((p) => p.name)).toStrictEqual(["rpc.server.call.duration"]);
  });

  test("the option wins over the variable", async () => {
    process.env["OTEL_SEMCONV_STABILITY_OPT_IN"] = "rpc/dup";
    const { stage, spans } = setup({ methods, semconv: "stable" });
    await asyncDispatch(request("add", { a: 1, b: 1 }, 1), methods, { stages: [stage] });
    expect(only(spans()).attributes["rpc.system"]).toBeUndefined();
  });
});

const api = contract({
  add: { params: t.type({ a: t.number, b: t.number }), result: t.number },
  sum: { params: t.tuple([t.number, t.number]), result: t.number },
  refuse: { result: t.unknown },
});
const served = implement(api, {
  add: ({ a, b }) => E.right(a + b),
  sum: (a, b) => E.right(a + b),
  refuse: () => E.left({ code: 404, message: "No such person", data: undefined }),
});

/** The client's and the server's spans of one call: the server's a child of the client's, in one trace. */
const expectChild = (
  clientSpan: ReturnType<ReturnType<typeof telemetry>["spans"]>[number] | undefined,
  serverSpan: typeof clientSpan,
) => {
  expect(clientSpan?.kind).toBe(SpanKind.CLIENT);
  expect(serverSpan?.kind).toBe(SpanKind.SERVER);
  expect(serverSpan?.spanContext().traceId).toBe(clientSpan?.spanContext().traceId);
  expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);
};

describe("the client transport", () => {
  test("over local: a CLIENT span, the server's span its child, the client's duration", async () => {
    const sdk = telemetry();
    const providers = { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider };
    const calc = client(
      api,
      tracedTransport(local(served, { stages: [traced({ ...providers, methods: served })] }), providers),
    );
    expect(await calc.add({ a: 1, b: 2 })()).toStrictEqual(E.right(3));
    const [serverSpan, clientSpan] = sdk.spans();
    expectChild(clientSpan, serverSpan);
    expect(clientSpan?.name).toBe("add");
    expect(clientSpan?.attributes).toStrictEqual({
      "rpc.system.name": "jsonrpc",
      "rpc.method": "add",
      "jsonrpc.protocol.version": "2.0",
      "jsonrpc.request.id": String(serverSpan?.attributes["jsonrpc.request.id"]),
    });
    expect((await sdk.points()).map((p) => [p.name, p.unit, p.attributes])).toStrictEqual([
      ["rpc.server.call.duration", "s", { "rpc.system.name": "jsonrpc", "rpc.method": "add" }],
      ["rpc.client.call.duration", "s", { "rpc.system.name": "jsonrpc", "rpc.method": "add" }],
    ]);
  });

  test("an error answer: ERROR and error.type on the client span", async () => {
    const sdk = telemetry();
    const calc = client(
      api,
      tracedTransport(local(served), { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }),
    );
    await calc.refuse()();
    const span = only(sdk.spans());
    expect(span.status).toStrictEqual({ code: SpanStatusCode.ERROR, message: "No such person" });
    expect(span.attributes).toMatchObject({ "rpc.status_code": "404", "error.type": "404" });
  });

  test("a batch: a span per request, each answered by its own; a notification's ends with the exchange", async () => {
    const sdk = telemetry();
    const providers = { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider };
    const transport = tracedTransport(local(served, { stages: [traced(providers)] }), providers);
    const calc = client(api, transport);
    await batch([calc.add({ a: 1, b: 1 }), calc.refuse(), notify(calc.sum(1, 2))])();
    const clientSpans = sdk.spans().filter((span) => span.kind === SpanKind.CLIENT);
    const serverSpans = sdk.spans().filter((span) => span.kind === SpanKind.SERVER);
    expect(
      clientSpans.map((span) => [
        span.name,
        span.attributes["error.type"],
        span.attributes["jsonrpc.request.id"] === undefined,
      ]),
    ).toStrictEqual([
      ["add", undefined, false],
      ["refuse", "404", false],
      ["sum", undefined, true],
    ]);
    // add's params are an object: its server span is its client span's child; the others' params are not.
    const add = serverSpans.find((span) => span.name === "add");
    expectChild(clientSpans[0], add);
  });

  test("a transport's failure: error.type is its reason", async () => {
    const sdk = telemetry();
    const calc = client(
      api,
      tracedTransport(http("http://127.0.0.1:9/"), {
        tracerProvider: sdk.tracerProvider,
        meterProvider: sdk.meterProvider,
      }),
    );
    const answer = await calc.add({ a: 1, b: 2 })();
    expect(E.isLeft(answer)).toBe(true);
    const span = only(sdk.spans());
    expect(span.attributes["error.type"]).toBe("network");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe("one trace over HTTP, on a real socket", () => {
  const sdk = telemetry();
  const providers = { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider };
  let running: Running;
  // Methods that take the context (the request's headers) first, as answerHttp hands it.
  const withHeaders = {
    add: (_headers: unknown, p: { a: number; b: number }) => Success(p.a + p.b),
    sum: (_headers: unknown, a: number, b: number) => Success(a + b),
  };
  beforeAll(async () => {
    const stage = traced<{ headers: Record<string, string> }>({
      ...providers,
      methods: served,
      carrier: (call) => call.context.headers,
    });
    running = await serveFetch(async (req) => {
      const headers: Record<string, string> = {};
      req.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const answer = await answerHttp(await req.text(), withHeaders, { context: { headers }, stages: [stage] });
      return new Response(answer.body, answer);
    });
  });
  afterAll(() => running.close());
  beforeEach(() => sdk.reset());

  test("object params: the context in params._meta", async () => {
    const calc = client(api, tracedTransport(http(running.url), providers));
    expect(await calc.add({ a: 2, b: 3 })()).toStrictEqual(E.right(5));
    const [serverSpan, clientSpan] = sdk.spans();
    expectChild(clientSpan, serverSpan);
  });

  test("positional params: the context in the headers (traceHeaders)", async () => {
    const calc = client(api, tracedTransport(http(running.url, { headers: traceHeaders() }), providers));
    expect(await calc.sum(2, 3)()).toStrictEqual(E.right(5));
    const [serverSpan, clientSpan] = sdk.spans();
    expectChild(clientSpan, serverSpan);
  });
});
