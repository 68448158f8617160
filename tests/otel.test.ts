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
import {
  asyncDispatch,
  contract,
  dispatch,
  Error as RpcErrorResult,
  implement,
  InvalidParams,
  Success,
  timeout,
  withContext,
} from "../src";
import { fetchHandler } from "../src/fetch";
import { mcpHandler, mcpServer, tool } from "../src/mcp";
import { batch, client, http, local, notify, type Transport } from "../src/client";
import { traced, traceHeaders, tracedTransport, type TracedOptions } from "../src/otel";
import { cutsHeld, tapsHeld } from "../src/internal/core/stream";
import { connect } from "../src/connection";
import { tcpPair } from "./helpers/real-channels";
import { AlwaysOffSampler, TracerProvider } from "@opentelemetry/sdk-trace";
import { SECONDS_BUCKETS } from "../src/internal/otel/semconv";
import { headersOf } from "./fixtures/nats.cjs";
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
    // One measurement, of a duration: a number of seconds, never negative.
    expect(point.sum).toBeGreaterThanOrEqual(0);
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

  test("an MCP tool's values: an event for each one sent, none for those with no progress token to go on", async () => {
    const { stage, spans } = setup();
    const mcp = mcpServer({
      name: "traced",
      version: "1.0.0",
      tools: {
        count: tool({
          description: "Counts to 3",
          run: async function* () {
            for (let progress = 1; progress <= 3; progress += 1) yield { progress };
            return E.right("counted");
          },
        }),
      },
    });
    const handler = mcpHandler({ ...mcp, stages: [stage, ...mcp.stages] });
    const call = (meta: unknown) =>
      handler(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
          body: request(
            "tools/call",
            { name: "count", arguments: {}, ...(meta === undefined ? {} : { _meta: meta }) },
            1,
          ),
        }),
      ).then((response) => response.text());
    expect(await call({ progressToken: "p" })).toContain('"result":{"content":[{"type":"text","text":"counted"}]}');
    expect(await call(undefined)).toContain('"result":{"content":[{"type":"text","text":"counted"}]}');
    const events = [1, 2, 3].map((index) => ["rpcserver.stream.value", { "rpcserver.stream.index": index }]);
    expect(spans().map((span) => span.events.map((event) => [event.name, event.attributes]))).toStrictEqual([
      events,
      [],
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

  test("a _meta member named __proto__ stays an own member the method sees, never _meta's prototype", async () => {
    const { stage } = setup({ methods });
    // As text: in an object literal `__proto__` would set the prototype; JSON.parse makes it a member.
    const text = (meta: string, id: number): string =>
      `{"jsonrpc":"2.0","method":"echo","params":{"_meta":{"traceparent":"${TRACEPARENT}",${meta}}},"id":${id}}`;
    expect(
      await asyncDispatch(text('"__proto__":{"admin":true},"progressToken":1', 1), methods, { stages: [stage] }),
    ).toBe('{"jsonrpc":"2.0","result":{"_meta":{"__proto__":{"admin":true},"progressToken":1}},"id":1}');
    expect(await asyncDispatch(text('"__proto__":{"admin":true}', 2), methods, { stages: [stage] })).toBe(
      '{"jsonrpc":"2.0","result":{"_meta":{"__proto__":{"admin":true}}},"id":2}',
    );
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

describe("the server stage: what it holds and how it ends", () => {
  test("methods as a list of names: another name is _OTHER from the start", async () => {
    const { stage, spans } = setup({ methods: ["add"] });
    await asyncDispatch(request("add", { a: 1, b: 1 }, 1), methods, { stages: [stage] });
    await asyncDispatch(request("sum", [1], 2), methods, { stages: [stage] });
    expect(
      spans().map((span) => [span.name, span.attributes["rpc.method"], span.attributes["rpc.method_original"]]),
    ).toStrictEqual([
      ["add", "add", undefined],
      ["jsonrpc", "_OTHER", "sum"],
    ]);
  });

  test("methods as a function: its answer says which names are recognized", async () => {
    const asked: string[] = [];
    const { stage, spans } = setup({
      methods: (name) => {
        asked.push(name);
        return name.startsWith("s");
      },
    });
    await asyncDispatch(request("add", { a: 1, b: 1 }, 1), methods, { stages: [stage] });
    await asyncDispatch(request("sum", [1], 2), methods, { stages: [stage] });
    expect(asked).toStrictEqual(["add", "sum"]);
    expect(spans().map((span) => [span.name, span.attributes["rpc.method"]])).toStrictEqual([
      ["jsonrpc", "_OTHER"],
      ["sum", "sum"],
    ]);
  });

  test("every call lets go of its stream tap: answered, streamed, refused, failed, sync or async", async () => {
    const { stage } = setup({ methods });
    expect(tapsHeld()).toBe(0);
    dispatch(request("sum", [1, 2], 1), methods, { stages: [stage] });
    expect(tapsHeld()).toBe(0);
    await asyncDispatch(request("add", { a: 1, b: 2 }, 1), methods, { stages: [stage] });
    await asyncDispatch(request("refuse", undefined, 2), methods, { stages: [stage] });
    await asyncDispatch(request("count", [2], 3), methods, { stages: [stage] });
    await asyncDispatch(request("nope", undefined, 4), methods, { stages: [stage] });
    expect([tapsHeld(), cutsHeld()]).toStrictEqual([0, 0]);
  });

  test("a span that records nothing (a sampler's no) takes no stream tap", async () => {
    const seen: number[] = [];
    const peek = { peek: () => Success(seen.push(tapsHeld())) };
    const recording = setup({ methods: peek });
    await asyncDispatch(request("peek", undefined, 1), peek, { stages: [recording.stage] });
    const sampledOut = new TracerProvider({ sampler: new AlwaysOffSampler() });
    await asyncDispatch(request("peek", undefined, 2), peek, {
      stages: [traced({ methods: peek, tracerProvider: sampledOut })],
    });
    expect(seen).toStrictEqual([1, 0]);
    expect(tapsHeld()).toBe(0);
  });

  // A stage after `traced` that passes on a request whose `id` cannot be read, then `timeout` (a
  // library stage, trusted and not netted) that reads it: the rest of the pipeline throws, or
  // rejects when the stage answered with a Promise, and the request's own net answers it.
  const breaker = (call: { request: object; context: unknown }) =>
    E.right({
      ...call,
      request: Object.defineProperty({ ...call.request }, "id", {
        get: () => {
          throw new RangeError("unreadable");
        },
      }),
    });

  test.each([
    ["throws", breaker],
    ["rejects", (call: { request: object; context: unknown }) => Promise.resolve(breaker(call))],
  ])("the rest of the pipeline %s: the span ends with the exception's class in error.type", async (_, broken) => {
    const { stage, spans, points } = setup({ methods });
    const answer = await asyncDispatch(request("add", { a: 1, b: 2 }, 1), methods, {
      stages: [stage, broken, timeout(1000)],
    });
    expect(JSON.parse(answer)).toMatchObject({ error: { code: -32603 }, id: 1 });
    const span = only(spans());
    expect(span.attributes["error.type"]).toBe("RangeError");
    expect(span.attributes["rpc.status_code"]).toBeUndefined();
    expect(span.status).toStrictEqual({ code: SpanStatusCode.ERROR, message: "RangeError" });
    expect(only(await points()).attributes["error.type"]).toBe("RangeError");
    expect(tapsHeld()).toBe(0);
  });

  test("the carrier may be headers read by name: a NATS message's, a fetch Request's", async () => {
    const fromNats = headersOf({ traceparent: TRACEPARENT });
    const fromFetch = new Headers({ TraceParent: TRACEPARENT });
    for (const headers of [fromNats, fromFetch]) {
      const { stage, spans } = setup({ methods, carrier: (call) => (call.context as { headers: Headers }).headers });
      await asyncDispatch(request("sum", [1], 1), methods, { stages: [stage], context: { headers } });
      expect(only(spans()).parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    }
  });
});

describe("a call cut before its answer, on a real connection", () => {
  /** Waits until `done` holds: a macrotask at a time, at most ten seconds. */
  const until = async (done: () => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  // A stage after `traced` that never settles: the request is answered -32800 by the connection
  // when its caller cancels, and nothing answers it through the pipeline, ever.
  const hang = (): Promise<never> => new Promise<never>(() => undefined);

  test.each([
    ["a method the list names", { methods }, "add", "add"],
    ["a name, with no list of methods", {}, "made.up", "_OTHER"],
  ])("%s: $/cancelRequest ends the span (-32800) and lets go of its tap", async (_, options, name, recorded) => {
    const { stage, spans, points } = setup(options);
    const tcp = await tcpPair("newline");
    const served = connect(tcp.channels[0], { methods, stages: [stage, hang] });
    const calling = connect(tcp.channels[1]);
    try {
      const controller = new AbortController();
      const answer = calling.transport(request(name, { a: 1, b: 2 }, 1), { signal: controller.signal, ids: [1] })();
      await until(() => tapsHeld() === 1, "the request to reach the stage");
      controller.abort();
      expect(await answer).toMatchObject(E.left({ _tag: "TransportError", reason: "aborted" }));
      await until(() => spans().length === 1, "the span to end");
      const span = only(spans());
      expect([span.attributes["rpc.status_code"], span.attributes["rpc.method"]]).toStrictEqual(["-32800", recorded]);
      expect(span.status).toStrictEqual({ code: SpanStatusCode.ERROR, message: "Request cancelled" });
      expect(only(await points()).attributes["rpc.status_code"]).toBe("-32800");
      expect([tapsHeld(), cutsHeld()]).toStrictEqual([0, 0]);
    } finally {
      calling.close();
      served.close();
      await tcp.dispose();
    }
  });
});

describe("a call cut before its answer, in dispatch", () => {
  const hang = (): Promise<never> => new Promise<never>(() => undefined);

  test("a timeout outside the stage: the span ends with its -32001", async () => {
    const { stage, spans } = setup({ methods });
    const answer = await asyncDispatch(request("add", { a: 1, b: 2 }, 1), methods, {
      stages: [timeout(20), stage, hang],
    });
    expect(JSON.parse(answer)).toMatchObject({ error: { code: -32001 }, id: 1 });
    expect(only(spans()).attributes["rpc.status_code"]).toBe("-32001");
    expect([tapsHeld(), cutsHeld()]).toStrictEqual([0, 0]);
  });

  test("two traced stages: a cut ends both spans, once each; a stream's values reach both", async () => {
    const outer = setup({ methods });
    const inner = setup({ methods });
    const answer = await asyncDispatch(request("add", { a: 1, b: 2 }, 1), methods, {
      stages: [timeout(20), outer.stage, inner.stage, hang],
    });
    expect(JSON.parse(answer)).toMatchObject({ error: { code: -32001 }, id: 1 });
    for (const { spans, points } of [outer, inner]) {
      expect(only(spans()).attributes["rpc.status_code"]).toBe("-32001");
      expect(only(await points()).count).toBe(1);
    }
    await asyncDispatch(request("count", [2], 2), methods, { stages: [outer.stage, inner.stage] });
    for (const { spans } of [outer, inner]) expect(spans()[1]?.events.map((event) => event.name)).toHaveLength(2);
    expect([tapsHeld(), cutsHeld()]).toStrictEqual([0, 0]);
  });

  test("a signal the caller aborted before the call: the method's answer ends the span", async () => {
    const taking = { add: (_ctx: { signal: AbortSignal }, p: { a: number; b: number }) => Success(p.a + p.b) };
    const { stage, spans } = setup({ methods: taking });
    const answer = await asyncDispatch(request("add", { a: 1, b: 2 }, 1), taking, {
      stages: [stage],
      context: { signal: AbortSignal.abort() },
    });
    expect(answer).toBe('{"jsonrpc":"2.0","result":3,"id":1}');
    expect(only(spans()).attributes["rpc.status_code"]).toBeUndefined();
    expect(only(spans()).attributes["rpc.method"]).toBe("add");
  });

  test("the caller's own signal in the context: the span ends -32800 when it aborts", async () => {
    const { stage, spans } = setup({ methods });
    const controller = new AbortController();
    void asyncDispatch(request("add", { a: 1, b: 2 }, 1), methods, {
      stages: [stage, hang],
      context: { signal: controller.signal },
    });
    expect([spans(), cutsHeld()]).toStrictEqual([[], 1]);
    controller.abort();
    expect(only(spans()).attributes["rpc.status_code"]).toBe("-32800");
    expect([tapsHeld(), cutsHeld()]).toStrictEqual([0, 0]);
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
    const transport = tracedTransport(local(served, { stages: [traced(providers)] }), { ...providers, meta: true });
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

describe("what the client transport sends", () => {
  /** A transport that records each body it is given, over `inner`. */
  const recording = (inner: Transport): Transport & { readonly bodies: string[] } => {
    const bodies: string[] = [];
    return Object.assign(
      (body: string, options: Parameters<Transport>[1]) => {
        bodies.push(body);
        return inner(body, options);
      },
      { bodies },
    );
  };
  // A server that takes exactly the params it declares, without `traced`: any other member is -32602.
  const strict = {
    add: (p: Record<string, unknown>) =>
      Object.keys(p).every((key) => key === "a" || key === "b")
        ? Success(Number(p["a"]) + Number(p["b"]))
        : InvalidParams(`unknown params: ${Object.keys(p).join(", ")}`),
    sum: (...xs: number[]) => Success(xs.reduce((a, b) => a + b, 0)),
  };

  test("by default, the body as written: a strict server without traced answers", async () => {
    const sdk = telemetry();
    const inner = recording(local(strict));
    const calc = client(
      api,
      tracedTransport(inner, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }),
    );
    expect(await calc.add({ a: 1, b: 2 })()).toStrictEqual(E.right(3));
    expect(JSON.parse(only(inner.bodies))).toMatchObject({ params: { a: 1, b: 2 } });
    expect(JSON.parse(only(inner.bodies)).params).toStrictEqual({ a: 1, b: 2 });
    expect(only(sdk.spans()).status.code).toBe(SpanStatusCode.UNSET);
  });

  test("meta: true: object params carry _meta; positional params are left as they are", async () => {
    const sdk = telemetry();
    const inner = recording(local(served));
    const calc = client(
      api,
      tracedTransport(inner, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, meta: true }),
    );
    expect(await calc.add({ a: 1, b: 2 })()).toStrictEqual(E.right(3));
    expect(await calc.sum(1, 2)()).toStrictEqual(E.right(3));
    const [added, summed] = inner.bodies.map((body) => JSON.parse(body) as { params: unknown });
    const clientAdd = sdk.spans().find((span) => span.name === "add");
    expect(added?.params).toStrictEqual({
      a: 1,
      b: 2,
      _meta: { traceparent: `00-${clientAdd?.spanContext().traceId}-${clientAdd?.spanContext().spanId}-01` },
    });
    expect(summed?.params).toStrictEqual([1, 2]);
  });

  test("the wrapped transport's members are kept: close, nextId", () => {
    let closed = 0;
    const inner = Object.assign(local(served), { close: () => (closed += 1), nextId: () => 41 });
    const wrapped = tracedTransport(inner);
    wrapped.close();
    expect(closed).toBe(1);
    expect(wrapped.nextId()).toBe(41);
  });
});

describe("one trace over HTTP, on a real socket", () => {
  const sdk = telemetry();
  const providers = { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider };
  let running: Running;
  // Methods that take the context (the request's headers) first, as fetchHandler hands it.
  const { withCodecs } = withContext<{ headers: Headers }>();
  const withHeaders = {
    add: withCodecs({ params: t.type({ a: t.number, b: t.number }), result: t.number }, (_ctx, p) =>
      Success(p.a + p.b),
    ),
    sum: withCodecs({ params: t.tuple([t.number, t.number]), result: t.number }, (_ctx, a, b) => Success(a + b)),
  };
  beforeAll(async () => {
    // As docs/otel.md writes it: the stage in fetchHandler's `stages`, the request's Headers the carrier.
    const stage = traced<{ headers: Headers }>({
      ...providers,
      methods: served,
      carrier: (call) => call.context.headers,
    });
    running = await serveFetch(
      // `request: Request` written out: with a typed stage, fetchHandler does not infer the context from an unannotated function.
      fetchHandler(withHeaders, { context: (request: Request) => ({ headers: request.headers }), stages: [stage] }),
    );
  });
  afterAll(() => running.close());
  beforeEach(() => sdk.reset());

  test("object params with meta: true: the context in params._meta", async () => {
    const calc = client(api, tracedTransport(http(running.url), { ...providers, meta: true }));
    expect(await calc.add({ a: 2, b: 3 })()).toStrictEqual(E.right(5));
    const [serverSpan, clientSpan] = sdk.spans();
    expectChild(clientSpan, serverSpan);
  });

  test("object params, by default: the context in the headers alone", async () => {
    const calc = client(api, tracedTransport(http(running.url, { headers: traceHeaders() }), providers));
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
