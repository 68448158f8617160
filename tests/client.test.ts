/**
 * rpcserver/client at run time: the client of a contract and of a table's type, over `local` and
 * over `http` against the development server (and tiny node:http servers that answer what a
 * server should not). Every kind of ClientError and every reason is produced by a real exchange;
 * batches, notifications, ids, the Proxy of the table client, and what a call leaves behind (no
 * listener on the caller's signal, no timer). The typing rules are in tests/contract-types.test.ts.
 */
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as TE from "fp-ts/TaskEither";
import * as t from "io-ts";
import { DateFromISOString } from "io-ts-types";
import { getEventListeners } from "node:events";
import { createServer, type Agent, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  contract,
  Error,
  implement,
  serve,
  server,
  Success,
  UndeclaredError,
  withCodecs,
  withContext,
  type Call,
  type DevServer,
  type ErrorResult,
} from "../src";
import {
  batch,
  client,
  http,
  local,
  matchClientError,
  notify,
  withOptions,
  type ClientError,
  type Transport,
} from "../src/client";
import { CALL } from "../src/internal/client/call";
import { nodeHttp } from "../src/node-http";
import { recordLogs } from "./support";

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  greet: {
    params: t.type({ name: t.string }),
    result: t.string,
    errors: [
      { code: 404, message: "No such person", data: t.type({ name: t.string, since: DateFromISOString }) },
      { code: 410, message: "Gone", data: t.number },
    ],
  },
  now: { result: DateFromISOString },
  tomorrow: { params: t.tuple([DateFromISOString]), result: DateFromISOString },
  log: { params: t.tuple([t.string]) },
  slow: { result: t.string },
});

/** A promise and its resolver, to wait for a handler to be running. */
const deferred = <A = void>(): { promise: Promise<A>; resolve: (value: A) => void } => {
  let resolve: (value: A) => void = () => undefined;
  const promise = new Promise<A>((r) => (resolve = r));
  return { promise, resolve };
};

const logged: string[] = [];
let slowStarted = deferred();
const methods = implement(api, {
  add: (a, b) => E.right(a + b),
  greet: ({ name }) =>
    name === "ghost"
      ? Error(404, "No such person", { name, since: "1970-01-01T00:00:00.000Z" })
      : name === "gone"
        ? UndeclaredError(410, "Gone", "not a number") // breaks its declaration, on purpose
        : name === "plain"
          ? UndeclaredError(500, "Plain")
          : E.right(`hi ${name}`),
  now: () => E.right(new Date(0)),
  tomorrow: (day) => E.right(new Date(day.getTime() + 86_400_000)),
  log: (line) => {
    logged.push(line);
    return E.right(null);
  },
  // Never answers: for timeouts and aborts.
  slow: () => () => {
    slowStarted.resolve();
    return new Promise(() => undefined);
  },
});

/** A transport that records each body it sends through `inner`. */
const recording = (inner: Transport): { transport: Transport; bodies: unknown[] } => {
  const bodies: unknown[] = [];
  return {
    bodies,
    transport: (body, options) => {
      bodies.push(JSON.parse(body));
      return inner(body, options);
    },
  };
};

/** A transport that answers `answer(request)` (the parsed body) as the server's text. */
const answering =
  (answer: (request: unknown) => string): Transport =>
  (body) =>
    TE.right(answer(JSON.parse(body)));

const idOf = (request: unknown): unknown => (request as { id?: unknown }).id;

/**
 * The requests as sent, each id replaced by its rank among the ids of `bodies` (1 for the first
 * one seen): ids come from one counter for the whole process, so their values depend on the calls
 * made before; their ranks show the order, and that no id is sent twice.
 */
const ranked = (bodies: unknown[]): unknown[] => {
  const ranks = new Map<unknown, number>();
  const rank = (request: unknown): unknown => {
    const id = idOf(request);
    if (id === undefined) return request;
    expect(typeof id).toBe("number");
    if (!ranks.has(id)) ranks.set(id, ranks.size + 1);
    return { ...(request as object), id: ranks.get(id) };
  };
  return bodies.map((body) => (Array.isArray(body) ? body.map(rank) : rank(body)));
};

let dev: DevServer;
let devUrl = "";
beforeAll(async () => {
  // Its "listening" line is not this suite's business.
  const quiet = recordLogs();
  try {
    dev = await serve("127.0.0.1", 0, { methods });
  } finally {
    quiet.restore();
  }
  devUrl = `http://127.0.0.1:${(dev.address() as AddressInfo).port}/`;
});
afterAll(() => {
  dev.closeAllConnections();
  dev.close();
});

/** A tiny node:http server answering each POST as `respond` says; it records the requests' headers. */
const tiny = async (
  respond: (body: string) => { status?: number; type?: string; body: string },
): Promise<{ url: string; headers: IncomingHttpHeaders[]; close: () => void }> => {
  const headers: IncomingHttpHeaders[] = [];
  const s: Server = createServer((req, res) => {
    headers.push(req.headers);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const { status = 200, type = "application/json", body } = respond(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(status, { "content-type": type }).end(body);
    });
  });
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/`,
    headers,
    close: () => {
      s.closeAllConnections();
      s.close();
    },
  };
};

/** The answer to the request in `body`, with its id: what a JSON-RPC server sends. */
const echoId = (body: string, member: object): string =>
  JSON.stringify({ jsonrpc: "2.0", ...member, id: idOf(JSON.parse(body)) });

describe.each([
  ["local", (): Transport => local(methods)],
  ["http (the dev server)", (): Transport => http(devUrl)],
])("the client of a contract over %s", (_name, transport) => {
  test("positional params as arguments, named as one object, none; results decoded (a Date)", async () => {
    const rpc = client(api, transport());
    expect(await rpc.add(1, 2)()).toStrictEqual(E.right(3));
    expect(await rpc.greet({ name: "ann" })()).toStrictEqual(E.right("hi ann"));
    const now = await rpc.now()();
    expect(now).toStrictEqual(E.right(new Date(0)));
    expect(E.isRight(now) && now.right instanceof Date).toBe(true);
    // Params encoded by the codec on the way out (ISO text), the result decoded on the way back.
    expect(await rpc.tomorrow(new Date(0))()).toStrictEqual(E.right(new Date(86_400_000)));
    // A call is a TaskEither: fp-ts's combinators take it.
    expect(
      await pipe(
        rpc.add(1, 2),
        TE.map((n) => n * 2),
      )(),
    ).toStrictEqual(E.right(6));
  });

  test("a server error, its data decoded by the contract's codec for its code", async () => {
    const rpc = client(api, transport());
    expect(await rpc.greet({ name: "ghost" })()).toStrictEqual(
      E.left({
        _tag: "ServerError",
        declared: true,
        code: 404,
        message: "No such person",
        data: { name: "ghost", since: new Date(0) },
      }),
    );
    // Data the codec refuses is kept as sent; an error without data has none.
    expect(await rpc.greet({ name: "gone" })()).toStrictEqual(
      E.left({ _tag: "ServerError", code: 410, message: "Gone", data: "not a number" }),
    );
    const plain = await rpc.greet({ name: "plain" })();
    expect(plain).toStrictEqual(E.left({ _tag: "ServerError", code: 500, message: "Plain" }));
    expect(E.isLeft(plain) && "data" in plain.left).toBe(false);
  });

  test("the server's -32602 for params its codec refuses, sent by a client that bypasses the types", async () => {
    const rpc = client(api, transport());
    const answer = await (rpc.add as (...args: unknown[]) => ReturnType<typeof rpc.add>)("1", 2)();
    expect(E.isLeft(answer) && answer.left._tag === "ServerError" && answer.left.code).toBe(-32602);
  });

  test("a notification: sent without an id, the server runs it, nothing awaited", async () => {
    logged.length = 0;
    const rpc = client(api, transport());
    expect(await notify(rpc.log("one"))()).toStrictEqual(E.right(undefined));
    expect(logged).toStrictEqual(["one"]);
  });

  test("a batch: a tuple and a record of Eithers, notifications inside", async () => {
    logged.length = 0;
    const rpc = client(api, transport());
    expect(
      await batch([rpc.add(1, 2), rpc.greet({ name: "ghost" }), notify(rpc.log("two")), rpc.now()])(),
    ).toStrictEqual([
      E.right(3),
      E.left({
        _tag: "ServerError",
        declared: true,
        code: 404,
        message: "No such person",
        data: { name: "ghost", since: new Date(0) },
      }),
      E.right(undefined),
      E.right(new Date(0)),
    ]);
    expect(await batch({ x: rpc.add(1, 1), y: rpc.greet({ name: "b" }), z: notify(rpc.log("three")) })()).toStrictEqual(
      { x: E.right(2), y: E.right("hi b"), z: E.right(undefined) },
    );
    // Only notifications: the server answers nothing, each member is Right.
    expect(await batch([notify(rpc.log("four"))])()).toStrictEqual([E.right(undefined)]);
    expect(logged).toStrictEqual(["two", "three", "four"]);
  });

  test("timeouts: the client's, a call's own, and a batch's", async () => {
    const rpc = client(api, transport(), { timeoutMs: 10 });
    expect(await rpc.slow()()).toStrictEqual(E.left({ _tag: "TransportError", reason: "timeout", timeoutMs: 10 }));
    expect(await pipe(rpc.slow(), withOptions({ timeoutMs: 15 }))()).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "timeout", timeoutMs: 15 }),
    );
    // withOptions with timeoutMs undefined keeps the client's.
    expect(await pipe(rpc.slow(), withOptions({ timeoutMs: undefined }))()).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "timeout", timeoutMs: 10 }),
    );
    const plain = client(api, transport());
    expect(await pipe(plain.slow(), withOptions({ timeoutMs: 5 }))()).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "timeout", timeoutMs: 5 }),
    );
    const timeout = { _tag: "TransportError", reason: "timeout", timeoutMs: 5 };
    expect(await batch([plain.add(1, 2), plain.slow()], { timeoutMs: 5 })()).toStrictEqual([
      E.left(timeout),
      E.left(timeout),
    ]);
    // Without options of its own, a batch takes its first call's: the client's, or withOptions'.
    const clientWide = { _tag: "TransportError", reason: "timeout", timeoutMs: 10 };
    expect(await batch([rpc.slow(), rpc.add(1, 2)])()).toStrictEqual([E.left(clientWide), E.left(clientWide)]);
    expect(await batch([pipe(plain.slow(), withOptions({ timeoutMs: 5 })), plain.add(1, 2)])()).toStrictEqual([
      E.left(timeout),
      E.left(timeout),
    ]);
  });

  test("aborted: by a signal aborted before the call, and during it", async () => {
    const rpc = client(api, transport());
    const before = new AbortController();
    before.abort("changed my mind");
    expect(await pipe(rpc.add(1, 2), withOptions({ signal: before.signal }))()).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "aborted", cause: "changed my mind" }),
    );
    slowStarted = deferred();
    const during = new AbortController();
    const pending = pipe(rpc.slow(), withOptions({ signal: during.signal }))();
    await slowStarted.promise;
    during.abort("user left");
    expect(await pending).toStrictEqual(E.left({ _tag: "TransportError", reason: "aborted", cause: "user left" }));
    // The client's own signal aborts its calls, a batch's its batch.
    const wide = new AbortController();
    wide.abort("closing");
    expect(await client(api, transport(), { signal: wide.signal }).add(1, 2)()).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "aborted", cause: "closing" }),
    );
    expect(await batch([rpc.add(1, 2)], { signal: wide.signal })()).toStrictEqual([
      E.left({ _tag: "TransportError", reason: "aborted", cause: "closing" }),
    ]);
  });

  test("a result the contract's codec refuses: resultRefused, with the codec's report", async () => {
    // The client believes `add` answers a string: the server's number is refused.
    const believes = contract({ add: { params: t.tuple([t.number, t.number]), result: t.string } });
    const answer = await client(believes, transport()).add(1, 2)();
    expect(answer).toMatchObject(E.left({ _tag: "InvalidAnswer", reason: "resultRefused", result: 3 }));
    expect(
      E.isLeft(answer) && answer.left._tag === "InvalidAnswer" && answer.left.reason === "resultRefused"
        ? answer.left.message
        : "",
    ).toMatch(/string/);
  });
});

describe("answers that are not this call's: InvalidAnswer", () => {
  test("notJson: over http, a 200 whose body is HTML; over a transport, any text", async () => {
    const html = await tiny(() => ({ type: "text/html", body: "<html>hello</html>" }));
    try {
      expect(await client(api, http(html.url)).add(1, 2)()).toStrictEqual(
        E.left({ _tag: "InvalidAnswer", reason: "notJson", body: "<html>hello</html>" }),
      );
    } finally {
      html.close();
    }
    expect(
      await client(
        api,
        answering(() => "{"),
      ).add(1, 2)(),
    ).toStrictEqual(E.left({ _tag: "InvalidAnswer", reason: "notJson", body: "{" }));
  });

  test.each([
    ["no jsonrpc member", (body: string) => JSON.stringify({ result: 3, id: idOf(JSON.parse(body)) })],
    ["another version", (body: string) => echoId(body, { result: 3 }).replace('"2.0"', '"1.0"')],
    ["an error without a code", (body: string) => echoId(body, { error: { message: "x" } })],
    ["an error whose message is not text", (body: string) => echoId(body, { error: { code: 1, message: 2 } })],
    ["neither result nor error", (body: string) => echoId(body, {})],
    ["a number", () => "42"],
    ["null", () => "null"],
  ])("notJsonRpc: %s", async (_what, answer) => {
    const over = await tiny((body) => ({ body: answer(body) }));
    try {
      const got = await client(api, http(over.url)).add(1, 2)();
      expect(got).toMatchObject(E.left({ _tag: "InvalidAnswer", reason: "notJsonRpc" }));
    } finally {
      over.close();
    }
  });

  test("unknownId: an answer whose id matches no request", async () => {
    const other = await tiny(() => ({ body: '{"jsonrpc":"2.0","result":3,"id":999}' }));
    try {
      expect(await client(api, http(other.url)).add(1, 2)()).toStrictEqual(
        E.left({ _tag: "InvalidAnswer", reason: "unknownId", id: 999 }),
      );
    } finally {
      other.close();
    }
    // A string id that looks like ours is still not ours.
    expect(
      await client(
        api,
        answering((r) => echoId("{}", { result: 3 }).replace("}", `,"id":"${String(idOf(r))}"}`)),
      ).add(1, 2)(),
    ).toMatchObject(E.left({ _tag: "InvalidAnswer", reason: "unknownId" }));
  });

  test("an error with a null id (the server could not read the request) is still the call's answer", async () => {
    const answer = await client(
      api,
      answering(() => '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}'),
    ).add(1, 2)();
    expect(answer).toStrictEqual(E.left({ _tag: "ServerError", code: -32700, message: "Parse error" }));
  });

  test("noAnswer: a call answered with nothing (a 204)", async () => {
    const silent = await tiny(() => ({ status: 204, body: "" }));
    try {
      expect(await client(api, http(silent.url)).add(1, 2)()).toStrictEqual(
        E.left({ _tag: "InvalidAnswer", reason: "noAnswer" }),
      );
    } finally {
      silent.close();
    }
  });
});

describe("the transport failed: TransportError", () => {
  test("status: a server answering 500 with text", async () => {
    const broken = await tiny(() => ({ status: 500, type: "text/plain", body: "Internal Server Error" }));
    try {
      expect(await client(api, http(broken.url)).add(1, 2)()).toStrictEqual(
        E.left({ _tag: "TransportError", reason: "status", status: 500, body: "Internal Server Error" }),
      );
    } finally {
      broken.close();
    }
  });

  test("a JSON-RPC error sent with a 4xx or 5xx is read as the answer", async () => {
    const strict = await tiny((body) => ({
      status: 401,
      body: echoId(body, { error: { code: 401, message: "Unauthorized" } }),
    }));
    try {
      expect(await client(api, http(strict.url)).add(1, 2)()).toStrictEqual(
        E.left({ _tag: "ServerError", code: 401, message: "Unauthorized" }),
      );
    } finally {
      strict.close();
    }
  });

  test("network: a closed port", async () => {
    const s = createServer();
    await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
    const port = (s.address() as AddressInfo).port;
    await new Promise((resolve) => s.close(resolve));
    const answer = await client(api, http(`http://127.0.0.1:${port}/`)).add(1, 2)();
    expect(answer).toMatchObject(E.left({ _tag: "TransportError", reason: "network" }));
    // fetch's own TypeError ("fetch failed"), of Node's realm rather than jest's: read by its name.
    expect(
      E.isLeft(answer) && answer.left._tag === "TransportError" && answer.left.reason === "network"
        ? (answer.left.cause as { name?: unknown }).name
        : undefined,
    ).toBe("TypeError");
  });

  test("network: a transport that rejects or throws rather than answering a Left (the call never rejects)", async () => {
    const rejecting: Transport = () => () => Promise.reject(new globalThis.Error("socket gone"));
    expect(await client(api, rejecting).add(1, 2)()).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "network", cause: new globalThis.Error("socket gone") }),
    );
    // The same through a call with a signal (the guarded path), a batch, and a transport that throws.
    const signal = new AbortController().signal;
    expect(await pipe(client(api, rejecting).add(1, 2), withOptions({ signal }))()).toMatchObject(
      E.left({ _tag: "TransportError", reason: "network" }),
    );
    expect(await batch([client(api, rejecting).add(1, 2)])()).toMatchObject([
      E.left({ _tag: "TransportError", reason: "network" }),
    ]);
    const throwing: Transport = () => {
      throw new globalThis.Error("not even a TaskEither");
    };
    expect(await client(api, throwing).add(1, 2)()).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "network", cause: new globalThis.Error("not even a TaskEither") }),
    );
  });

  test("network: a headers function that throws", async () => {
    const answer = await client(
      api,
      http(devUrl, {
        headers: () => {
          throw new globalThis.Error("no token");
        },
      }),
    ).add(1, 2)();
    expect(answer).toStrictEqual(
      E.left({ _tag: "TransportError", reason: "network", cause: new globalThis.Error("no token") }),
    );
  });

  test("aborted during an http call: fetch is stopped", async () => {
    const hanging = await tiny(() => ({ body: "" }));
    const s = createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
    const seen = deferred();
    s.on("request", () => seen.resolve());
    try {
      const controller = new AbortController();
      const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}/`;
      const pending = pipe(client(api, http(url)).add(1, 2), withOptions({ signal: controller.signal }))();
      await seen.promise;
      controller.abort("stop");
      expect(await pending).toStrictEqual(E.left({ _tag: "TransportError", reason: "aborted", cause: "stop" }));
    } finally {
      hanging.close();
      s.closeAllConnections();
      s.close();
    }
  });
});

describe("the call could not be sent: InvalidCall", () => {
  const counting = (): { transport: Transport; sent: () => number } => {
    let sent = 0;
    return {
      sent: () => sent,
      transport: (body, options) => {
        sent++;
        return local(methods)(body, options);
      },
    };
  };

  test("a BigInt param: not JSON, nothing sent", async () => {
    const big = contract({ big: { params: t.tuple([t.bigint]) } });
    const { transport, sent } = counting();
    const answer = await client(big, transport).big(1n)();
    expect(answer).toMatchObject(E.left({ _tag: "InvalidCall", method: "big" }));
    expect(E.isLeft(answer) && answer.left._tag === "InvalidCall" ? answer.left.cause : undefined).toBeInstanceOf(
      TypeError,
    );
    expect(sent()).toBe(0);
  });

  test("an encode that throws: the error is the cause, nothing sent; in a batch, the batch is not sent", async () => {
    const refusing = new t.Type<number, number, unknown>("Refusing", t.number.is, t.number.validate, () => {
      throw new RangeError("cannot encode");
    });
    const c = contract({ add: { params: t.tuple([refusing]) }, ok: { params: t.tuple([t.number]) } });
    const { transport, sent } = counting();
    const rpc = client(c, transport);
    expect(await rpc.add(1)()).toStrictEqual(
      E.left({ _tag: "InvalidCall", method: "add", cause: new RangeError("cannot encode") }),
    );
    const notSent = { _tag: "InvalidCall", method: "add", cause: new RangeError("cannot encode") };
    expect(await batch([rpc.ok(1), rpc.add(1)])()).toStrictEqual([E.left(notSent), E.left(notSent)]);
    expect(sent()).toBe(0);
  });

  test("a cycle in a batch's params names the member it is in; nothing of the batch is sent", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    const c = contract({ a: { params: t.UnknownRecord }, b: {} });
    const rpc = client(c, local({}));
    expect(await batch([rpc.b(), rpc.a(cyclic)])()).toMatchObject([
      E.left({ _tag: "InvalidCall", method: "a" }),
      E.left({ _tag: "InvalidCall", method: "a" }),
    ]);
  });
});

describe("what each call sends", () => {
  test("the request objects: params encoded, none for a method without, no id for a notification", async () => {
    const { transport, bodies } = recording(local(methods));
    const rpc = client(api, transport);
    await rpc.add(1, 2)();
    await rpc.greet({ name: "ann" })();
    await rpc.now()();
    await rpc.tomorrow(new Date(0))();
    await notify(rpc.log("x"))();
    expect(ranked(bodies)).toStrictEqual([
      { jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 },
      { jsonrpc: "2.0", method: "greet", params: { name: "ann" }, id: 2 },
      { jsonrpc: "2.0", method: "now", id: 3 },
      { jsonrpc: "2.0", method: "tomorrow", params: ["1970-01-01T00:00:00.000Z"], id: 4 },
      { jsonrpc: "2.0", method: "log", params: ["x"] },
    ]);
  });

  test("ids are unique: across calls, reruns of one call, batches, and clients", async () => {
    const { transport, bodies } = recording(local(methods));
    const rpc = client(api, transport);
    const again = rpc.add(1, 2);
    await again();
    await again();
    await batch([rpc.add(1, 2), rpc.now(), notify(rpc.log("x")), rpc.add(3, 4)])();
    await Promise.all([rpc.add(1, 1)(), rpc.add(2, 2)()]);
    const ids = bodies.flatMap((body) => (Array.isArray(body) ? body : [body])).map(idOf);
    const sent = ids.filter((id) => id !== undefined);
    expect(sent).toHaveLength(7);
    expect(new Set(sent).size).toBe(7);
    // Another client, on another transport, takes its ids from the same counter: none of these.
    const other = recording(local(methods));
    await client(api, other.transport).add(1, 2)();
    expect(sent).not.toContain(idOf(other.bodies[0]));
  });

  test("a batch is one request body; an empty batch sends nothing", async () => {
    const { transport, bodies } = recording(local(methods));
    const rpc = client(api, transport);
    await batch([rpc.add(1, 2), notify(rpc.log("x"))])();
    expect(ranked(bodies)).toStrictEqual([
      [
        { jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 },
        { jsonrpc: "2.0", method: "log", params: ["x"] },
      ],
    ]);
    expect(await batch([])()).toStrictEqual([]);
    expect(await batch({})()).toStrictEqual({});
    expect(bodies).toHaveLength(1);
  });
});

describe("batch answers", () => {
  test("a whole-batch error (the server's -32600 for too large a batch) is every member's", async () => {
    const rpc = client(api, local(methods, { maxBatchSize: 1 }));
    const answers = await batch({ a: rpc.add(1, 2), b: rpc.now() })();
    expect(answers.a).toMatchObject(E.left({ _tag: "ServerError", code: -32600 }));
    expect(answers.b).toStrictEqual(answers.a);
  });

  test("a member the server does not answer is noAnswer; the others keep theirs, by id not by order", async () => {
    const partial = answering((requests) => {
      const [first, , third] = requests as Array<{ id: number }>;
      return JSON.stringify([
        { jsonrpc: "2.0", result: "third", id: third?.id },
        { jsonrpc: "2.0", result: 1, id: first?.id },
      ]);
    });
    const c = contract({ n: { result: t.number }, s: { result: t.string } });
    const rpc = client(c, partial);
    expect(await batch([rpc.n(), rpc.n(), rpc.s()])()).toStrictEqual([
      E.right(1),
      E.left({ _tag: "InvalidAnswer", reason: "noAnswer" }),
      E.right("third"),
    ]);
  });

  test("a batch answered by something that is no list nor error: notJsonRpc for each; not JSON: notJson", async () => {
    const rpc = client(
      api,
      answering(() => '{"hello":1}'),
    );
    expect(await batch([rpc.add(1, 2), rpc.now()])()).toStrictEqual([
      E.left({ _tag: "InvalidAnswer", reason: "notJsonRpc", answer: { hello: 1 } }),
      E.left({ _tag: "InvalidAnswer", reason: "notJsonRpc", answer: { hello: 1 } }),
    ]);
    const garbled = client(
      api,
      answering(() => "<"),
    );
    expect(await batch([garbled.add(1, 2)])()).toStrictEqual([
      E.left({ _tag: "InvalidAnswer", reason: "notJson", body: "<" }),
    ]);
  });

  test("calls of two clients in one batch each keep their own answer (one id counter for the body)", async () => {
    const { transport, bodies } = recording(local(methods));
    const one = client(api, transport);
    const two = client(api, transport);
    expect(await batch([one.add(1, 2), two.add(3, 4)])()).toStrictEqual([E.right(3), E.right(7)]);
    const ids = (bodies[0] as unknown[]).map(idOf);
    expect(new Set(ids).size).toBe(2);
  });

  test("calls of two transports in one batch: a TypeError where the batch is made, nothing sent to either server", async () => {
    // Two servers, each reached with its own credentials: a batch sent through the first call's
    // transport would run the second client's call on the first server, as the first client.
    const [a, b] = await Promise.all([tiny(() => ({ body: "[]" })), tiny(() => ({ body: "[]" }))]);
    try {
      const ann = client(api, http(a.url, { headers: { authorization: "Bearer ann" } }));
      const bob = client(api, http(b.url, { headers: { authorization: "Bearer bob" } }));
      expect(() => batch([ann.add(1, 2), bob.add(3, 4)])).toThrow(
        new TypeError(
          "batch: member 1 is a call of another transport than member 0's: one batch is one request body, " +
            "sent through one transport; batch each client's calls on their own",
        ),
      );
      expect(() => batch({ mine: notify(ann.log("x")), theirs: bob.now() })).toThrow(
        /^batch: member "theirs" is a call of another transport than member "mine"'s/,
      );
      // One client's calls, and a call of its own `withOptions`, still share a batch.
      expect(await batch([ann.add(1, 2), pipe(ann.add(3, 4), withOptions({ timeoutMs: 5_000 }))])()).toHaveLength(2);
      expect(a.headers).toHaveLength(1);
      expect(b.headers).toHaveLength(0);
    } finally {
      a.close();
      b.close();
    }
  });

  test("a record's key __proto__ is a member of the answers; each call is read once, as it is checked", async () => {
    const rpc = client(api, local(methods));
    // A computed key: an own member named __proto__, as JSON.parse would make it.
    const answers = await batch({ ["__proto__"]: rpc.add(1, 2), b: rpc.add(3, 4) })();
    expect(Object.keys(answers)).toStrictEqual(["__proto__", "b"]);
    expect(Object.getPrototypeOf(answers)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(answers, "__proto__")?.value).toStrictEqual(E.right(3));
    // A member whose call changes after it was checked (a Proxy) is sent as it was checked.
    const other = client(api, local(methods));
    let reads = 0;
    const shifty = new Proxy(rpc.add(5, 6), {
      get: (target, key, receiver) =>
        (reads += key === CALL ? 1 : 0) > 1 && key === CALL
          ? (other.add(5, 6) as unknown as Record<symbol, unknown>)[CALL]
          : Reflect.get(target, key, receiver),
    });
    expect(await batch([rpc.add(1, 1), shifty])()).toStrictEqual([E.right(2), E.right(11)]);
    expect(reads).toBe(1);
  });

  test("a batch's transport failure is every member's", async () => {
    const down: Transport = () => TE.left({ _tag: "TransportError", reason: "status", status: 503, body: "down" });
    const rpc = client(api, down);
    const failure = E.left({ _tag: "TransportError", reason: "status", status: 503, body: "down" });
    expect(await batch([rpc.add(1, 2), notify(rpc.log("x"))])()).toStrictEqual([failure, failure]);
  });
});

describe("headers", () => {
  const echo = (body: string) => ({ body: echoId(body, { result: 3 }) });

  test("static, a function, an async function: each reaches the server; content-type is JSON", async () => {
    const over = await tiny(echo);
    try {
      let token = 0;
      await client(api, http(over.url, { headers: { authorization: "Bearer static" } })).add(1, 2)();
      const sync = client(api, http(over.url, { headers: () => ({ authorization: `Bearer sync-${++token}` }) }));
      await sync.add(1, 2)();
      await sync.add(1, 2)();
      await client(
        api,
        http(over.url, { headers: async () => Promise.resolve({ authorization: "Bearer async", "x-trace": "7" }) }),
      ).add(1, 2)();
      expect(over.headers.map((h) => h.authorization)).toStrictEqual([
        "Bearer static",
        "Bearer sync-1",
        "Bearer sync-2",
        "Bearer async",
      ]);
      expect(over.headers[3]?.["x-trace"]).toBe("7");
      expect(over.headers.every((h) => h["content-type"] === "application/json")).toBe(true);
    } finally {
      over.close();
    }
  });

  test("each transport option given as undefined is its default, also under exactOptionalPropertyTypes", async () => {
    const over = await tiny(echo);
    try {
      const unset = <T>(): T | undefined => undefined;
      const options = { headers: unset<Record<string, string>>(), maxAnswerBytes: unset<number>() };
      const overFetch = client(api, http(over.url, { ...options, fetch: unset<typeof fetch>() }));
      const overNode = client(api, nodeHttp(over.url, { ...options, agent: unset<Agent>() }));
      expect([await overFetch.add(1, 2)(), await overNode.add(1, 2)()]).toStrictEqual([E.right(3), E.right(3)]);
      // @ts-expect-error a header's value is a string
      expect(() => http(over.url, { headers: { n: 1 } })).not.toThrow();
    } finally {
      over.close();
    }
  });

  test("reaching a server's context: a node:http front end turning the header into the context", async () => {
    const c = contract({ whoami: { result: t.string } });
    const auth = (call: Call<{ authorization: string | undefined }>): E.Either<ErrorResult, Call<{ user: string }>> =>
      call.context.authorization === "Bearer t1"
        ? E.right({ request: call.request, context: { user: "ann" } })
        : E.left({ code: 401, message: "Unauthorized", data: undefined });
    const app = server(c)
      .context<{ authorization: string | undefined }>()
      .use(auth)
      .implement({ whoami: (ctx) => E.right(ctx.user) });
    const front = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        void app
          .dispatch(Buffer.concat(chunks).toString("utf8"), { authorization: req.headers.authorization })
          .then((answer) => res.writeHead(200, { "content-type": "application/json" }).end(answer));
      });
    });
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}/`;
      expect(
        await client(c, http(url, { headers: async () => ({ authorization: "Bearer t1" }) })).whoami()(),
      ).toStrictEqual(E.right("ann"));
      expect(await client(c, http(url)).whoami()()).toStrictEqual(
        E.left({ _tag: "ServerError", code: 401, message: "Unauthorized" }),
      );
    } finally {
      front.closeAllConnections();
      front.close();
    }
  });

  test("the fetch option is the one used", async () => {
    const calls: string[] = [];
    const fake = (async (url: string | URL | Request, init?: RequestInit) => {
      calls.push(`${String(url)} ${String(init?.method)}`);
      const body = JSON.parse(String(init?.body)) as { id: number };
      return new Response(JSON.stringify({ jsonrpc: "2.0", result: 3, id: body.id }), { status: 200 });
    }) as typeof fetch;
    expect(await client(api, http("http://example.invalid/rpc", { fetch: fake })).add(1, 2)()).toStrictEqual(
      E.right(3),
    );
    expect(calls).toStrictEqual(["http://example.invalid/rpc POST"]);
  });
});

describe("local with a server's methods and options", () => {
  test("the context reaches the handlers through the server's stages", async () => {
    const c = contract({ whoami: { result: t.string } });
    const app = server(c)
      .context<{ token: string }>()
      .use((call: Call<{ token: string }>) => E.right({ request: call.request, context: { user: call.context.token } }))
      .implement({ whoami: (ctx) => E.right(ctx.user) });
    expect(await client(c, local(app.methods, app.options({ token: "ann" }))).whoami()()).toStrictEqual(E.right("ann"));
  });
});

describe("the client of a table known by its type", () => {
  const table = {
    add: withCodecs({ params: t.tuple([t.number, t.number]) }, (a, b) => Success(a + b)),
    echo: (p: { text: string }) => Success(p.text),
    list: (xs: number[]) => Success(xs.length),
    when: () => Success(new Date(0)),
    hello: withContext<{ user: string }>().withCodecs({ params: t.type({ greeting: t.string }) }, (ctx, p) =>
      Success(`${p.greeting}, ${ctx.user}`),
    ),
  };

  test("params as given (one plain object by name, else by position), results as JSON, not decoded", async () => {
    const { transport, bodies } = recording(http(devUrl));
    const rpc = client<typeof table>(transport);
    expect(await rpc.add(1, 2)()).toStrictEqual(E.right(3));
    // The dev server serves the contract's methods, not this table's: -32601, as sent.
    expect(await rpc.echo({ text: "hi" })()).toMatchObject(E.left({ _tag: "ServerError", code: -32601 }));
    await rpc.list([1, 2])();
    await rpc.when()();
    expect(ranked(bodies)).toStrictEqual([
      { jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 },
      { jsonrpc: "2.0", method: "echo", params: { text: "hi" }, id: 2 },
      { jsonrpc: "2.0", method: "list", params: [[1, 2]], id: 3 },
      { jsonrpc: "2.0", method: "when", id: 4 },
    ]);
    const local_ = client<typeof table>(local(table));
    expect(await local_.when()()).toStrictEqual(E.right("1970-01-01T00:00:00.000Z"));
    expect(await local_.echo({ text: "hi" })()).toStrictEqual(E.right("hi"));
    expect(await local_.list([1, 2, 3])()).toStrictEqual(E.right(3));
  });

  test("a method taking a context is called without it: the server gives it", async () => {
    const rpc = client<typeof table>(local(table, { context: { user: "ann" } }));
    expect(await rpc.hello({ greeting: "hi" })()).toStrictEqual(E.right("hi, ann"));
    // Plain functions taking a context: the client is told so with "context".
    const plain = { whoami: (ctx: { user: string }) => Success(ctx.user) };
    const told = client<typeof plain, "context">(local(plain, { context: { user: "bob" } }));
    expect(await told.whoami()()).toStrictEqual(E.right("bob"));
  });

  test("the Proxy answers undefined for then, toJSON and symbols: await does not hang", async () => {
    const rpc = client<typeof table>(local(table));
    const loose = rpc as unknown as Record<string | symbol, unknown>;
    expect(loose["then"]).toBeUndefined();
    expect(loose["toJSON"]).toBeUndefined();
    expect(loose[Symbol.iterator]).toBeUndefined();
    expect(loose[Symbol.toPrimitive]).toBeUndefined();
    expect(loose[Symbol.for("nodejs.util.inspect.custom")]).toBeUndefined();
    // Awaiting a value that is no thenable is the point: it must give the client back.
    // eslint-disable-next-line @typescript-eslint/await-thenable
    expect(await rpc).toBe(rpc);
    expect(await Promise.resolve(rpc)).toBe(rpc);
    expect(JSON.stringify(rpc)).toBe("{}");
    // Each name is one function, made once.
    expect(rpc.add).toBe(rpc.add);
  });

  test("a contract client is no thenable either", async () => {
    const rpc = client(api, local(methods));
    expect((rpc as unknown as { then?: unknown }).then).toBeUndefined();
    // eslint-disable-next-line @typescript-eslint/await-thenable
    expect(await rpc).toBe(rpc);
  });
});

describe("client(): TypeErrors", () => {
  test("neither a contract nor a transport; a contract without a transport", () => {
    expect(() => client({} as never, local(methods))).toThrow(TypeError);
    expect(() => client(api, undefined as never)).toThrow(TypeError);
    expect(() => client(api, {} as never)).toThrow(TypeError);
  });
});

describe("a call leaves nothing behind", () => {
  const abortListeners = (signal: AbortSignal): number => getEventListeners(signal, "abort").length;

  test("no listener on the caller's signal once a call answers, times out, or is aborted; none on a batch's", async () => {
    const rpc = client(api, local(methods));
    const controller = new AbortController();
    const { signal } = controller;
    const bounded = withOptions({ signal, timeoutMs: 60_000 });
    expect(await pipe(rpc.add(1, 2), bounded)()).toStrictEqual(E.right(3));
    expect(abortListeners(signal)).toBe(0);
    expect(await pipe(rpc.greet({ name: "ghost" }), bounded)()).toMatchObject(E.left({ _tag: "ServerError" }));
    expect(abortListeners(signal)).toBe(0);
    expect(await pipe(rpc.slow(), withOptions({ signal, timeoutMs: 5 }))()).toMatchObject(
      E.left({ reason: "timeout" }),
    );
    expect(abortListeners(signal)).toBe(0);
    expect(await batch([rpc.add(1, 2), rpc.now()], { signal, timeoutMs: 60_000 })()).toStrictEqual([
      E.right(3),
      E.right(new Date(0)),
    ]);
    expect(abortListeners(signal)).toBe(0);
    // While a call runs, it has one; after it is aborted, none.
    slowStarted = deferred();
    const pending = pipe(rpc.slow(), withOptions({ signal }))();
    await slowStarted.promise;
    expect(abortListeners(signal)).toBe(1);
    controller.abort();
    await pending;
    expect(abortListeners(signal)).toBe(0);
  });

  test("over http too: the caller's signal is left as it was", async () => {
    const signal = new AbortController().signal;
    const rpc = client(api, http(devUrl), { signal, timeoutMs: 60_000 });
    expect(await rpc.add(1, 2)()).toStrictEqual(E.right(3));
    expect(await batch([rpc.add(1, 2)])()).toStrictEqual([E.right(3)]);
    expect(abortListeners(signal)).toBe(0);
  });

  test("the timer of a call's timeout is cleared when it answers", async () => {
    const set = jest.spyOn(globalThis, "setTimeout");
    const clear = jest.spyOn(globalThis, "clearTimeout");
    try {
      const rpc = client(api, local(methods), { timeoutMs: 123_456 });
      expect(await rpc.add(1, 2)()).toStrictEqual(E.right(3));
      expect(await batch([rpc.add(1, 2)], { timeoutMs: 123_457 })()).toStrictEqual([E.right(3)]);
      const ours = set.mock.results
        .filter((_result, i) => [123_456, 123_457].includes(set.mock.calls[i]?.[1] as number))
        .map((result) => result.value as unknown);
      expect(ours).toHaveLength(2);
      for (const timer of ours) expect(clear).toHaveBeenCalledWith(timer);
    } finally {
      set.mockRestore();
      clear.mockRestore();
    }
  });
});

describe("ClientError with matchClientError", () => {
  test("every kind goes to its own case", async () => {
    const kind = matchClientError({
      ServerError: (e) => `server ${e.code}`,
      TransportError: (e) => `transport ${e.reason}`,
      InvalidAnswer: (e) => `answer ${e.reason}`,
      InvalidCall: (e) => `call ${e.method}`,
    });
    const rpc = client(api, local(methods));
    const errors: ClientError[] = [];
    const collect = async (call: TE.TaskEither<ClientError, unknown>): Promise<void> => {
      const answer = await call();
      if (E.isLeft(answer)) errors.push(answer.left);
    };
    await collect(rpc.greet({ name: "ghost" }));
    await collect(pipe(rpc.slow(), withOptions({ timeoutMs: 1 })));
    await collect(
      client(
        api,
        answering(() => "<"),
      ).add(1, 2),
    );
    await collect(client(contract({ big: { params: t.tuple([t.bigint]) } }), local({})).big(1n));
    expect(errors.map(kind)).toStrictEqual(["server 404", "transport timeout", "answer notJson", "call big"]);
  });
});
