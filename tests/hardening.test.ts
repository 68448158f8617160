/**
 * The hardening issue's defects, one test each: whatever a method, a codec, a stage (plain or
 * Around), a callback or an exception object does, every request with an id gets exactly one
 * answer, with the id it arrived with, and the host process survives; a failure in user code is
 * -32603 for that request alone.
 *
 * What could end the process (the default logger writing after the task, an unhandled rejection,
 * an abort listener's exception re-thrown by the event target) runs in a child process of the
 * BUILT package with the default logger on, and the test reads its exit status, stdout and stderr.
 * `RPCSERVER_DIST` points those children at another build (the one before the mend, to see them
 * fail). The rest runs in process, through both dispatchers.
 */
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import {
  asyncDispatch,
  dispatch,
  observe,
  Success,
  timeout,
  withParams,
  type AnyStage,
  type Around,
  type Methods,
  type Result,
} from "../src";
import { jsonDispatchers, recordLogs } from "./support";

const ROOT = resolve(__dirname, "..");
const DIST = resolve(process.env["RPCSERVER_DIST"] ?? join(ROOT, "dist"));
const ENTRY = pathToFileURL(join(DIST, "esm", "index.js")).href;

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `body` as an ES module in a new Node process, with `lib` the built package (default logger
 * on) and `print(x)` writing `x` as a JSON line. Bounded: 20 s.
 */
const run = (body: string): Run => {
  const code = `const lib = await import(${JSON.stringify(ENTRY)});
const print = (x) => process.stdout.write(JSON.stringify(x) + "\\n");
${body}`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 20_000,
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
};

/** What the child printed, one JSON value a line. */
const printed = (r: Run): unknown[] =>
  r.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as unknown);

const INTERNAL = (id: unknown): unknown => ({
  jsonrpc: "2.0",
  error: { code: -32603, message: "Internal error" },
  id,
});
const PONG = (id: unknown): unknown => ({ jsonrpc: "2.0", result: "pong", id });

/** Shared by the child scripts: exceptions whose every read throws. */
const HOSTILE = `
const stackThrows = () => { const e = new Error("boom"); Object.defineProperty(e, "stack", { get() { throw new Error("stack getter"); } }); return e; };
const everyTrapThrows = () => new Proxy({}, new Proxy({}, { get: () => () => { throw new Error("trap"); } }));
const errorProxy = () => new Proxy(new Error("boom"), new Proxy({}, { get: () => () => { throw new Error("trap"); } }));
const tagThrows = () => ({ get [Symbol.toStringTag]() { throw new Error("tag"); }, get name() { throw new Error("name"); }, get message() { throw new Error("message"); } });
const ping = () => lib.Success("pong");
const PING = (id) => JSON.stringify({ jsonrpc: "2.0", method: "ping", id });
`;

describe("1. the default logger survives exceptions it cannot read", () => {
  test.each([
    ["an Error whose stack getter throws", "stackThrows()"],
    ["a Proxy whose every trap throws", "everyTrapThrows()"],
    ["an Error behind a Proxy whose every trap throws", "errorProxy()"],
    ["an object whose Symbol.toStringTag, name and message getters throw", "tagThrows()"],
  ])("%s, thrown by a method, a stage and an observe callback, sync and async", (_name, make) => {
    const r = run(`${HOSTILE}
const raise = () => { throw ${make}; };
const methods = { ping, boom: raise };
const observed = { stages: [lib.observe(raise)] };
const staged = { stages: [(call) => (call.request.method === "ping" ? raise() : lib.Success(call))] };
print(JSON.parse(lib.dispatch(JSON.stringify({ jsonrpc: "2.0", method: "boom", id: 1 }), methods)));
print(JSON.parse(await lib.asyncDispatch(JSON.stringify({ jsonrpc: "2.0", method: "boom", id: 2 }), methods)));
print(JSON.parse(lib.dispatch(PING(3), methods, observed)));
print(JSON.parse(await lib.asyncDispatch(PING(4), methods, observed)));
print(JSON.parse(await lib.asyncDispatch(PING(5), methods, staged)));
await new Promise((r) => setTimeout(r, 20));
print("alive");
`);
    expect(r.stderr).not.toMatch(/Uncaught|Unhandled|node:internal/);
    expect(r.status).toBe(0);
    expect(printed(r)).toEqual([INTERNAL(1), INTERNAL(2), PONG(3), PONG(4), INTERNAL(5), "alive"]);
    expect(r.stderr).toContain('rpcserver: method "boom" raised an exception');
    expect(r.stderr).toContain("rpcserver: an observe callback threw");
  });

  test("the development server answers the next request after a method throws such an exception", () => {
    const r = run(`${HOSTILE}
const server = await lib.serve("127.0.0.1", 0, { methods: { ping, boom: () => { throw stackThrows(); } } });
const url = "http://127.0.0.1:" + server.address().port + "/";
const post = async (body) => (await fetch(url, { method: "POST", body })).json();
print(await post(JSON.stringify({ jsonrpc: "2.0", method: "boom", id: 1 })));
await new Promise((r) => setTimeout(r, 20));
print(await post(PING(2)));
server.close();
`);
    expect(r.status).toBe(0);
    expect(printed(r)).toEqual([INTERNAL(1), PONG(2)]);
    expect(r.stderr).toContain('rpcserver: method "boom" raised an exception');
  });
});

describe("2. no unhandled rejection", () => {
  test("timeout in front of an Around stage whose handler returns a rejected Promise", () => {
    const r = run(`${HOSTILE}
const rejecting = { _tag: "Around", asyncOnly: false, around: () => () => () => Promise.reject(new Error("around rejected")) };
print(JSON.parse(await lib.asyncDispatch(PING(1), { ping }, { stages: [lib.timeout(1000), rejecting] })));
await new Promise((r) => setTimeout(r, 20));
`);
    expect(r.stderr).not.toMatch(/Unhandled|node:internal/);
    expect(r.status).toBe(0);
    expect(printed(r)).toEqual([INTERNAL(1)]);
  });

  test("sync dispatch with an Around stage returning a rejected Promise: -32603 for its request, the host lives", () => {
    const r = run(`${HOSTILE}
const rejecting = { _tag: "Around", asyncOnly: false, around: () => () => () => Promise.reject(new Error("around rejected")) };
print(JSON.parse(lib.dispatch(PING(1), { ping }, { stages: [rejecting] })));
await new Promise((r) => setTimeout(r, 20));
print("alive");
`);
    expect(r.status).toBe(0);
    expect(printed(r)).toEqual([
      {
        jsonrpc: "2.0",
        error: { code: -32603, message: "Internal error", data: "A stage returned a Promise; use asyncDispatch" },
        id: 1,
      },
      "alive",
    ]);
  });

  test("an async observe callback that rejects: the answer, then the host lives and logs it", () => {
    const r = run(`${HOSTILE}
const stages = [lib.observe(async () => { throw new Error("metrics backend down"); })];
print(JSON.parse(await lib.asyncDispatch(PING(1), { ping }, { stages })));
print(JSON.parse(lib.dispatch(PING(2), { ping }, { stages })));
await new Promise((r) => setTimeout(r, 20));
print("alive");
`);
    expect(r.status).toBe(0);
    expect(printed(r)).toEqual([PONG(1), PONG(2), "alive"]);
    expect(r.stderr).toContain("rpcserver: an observe callback rejected");
    expect(r.stderr).toContain("metrics backend down");
  });
});

test("7. an abort listener that throws when timeout aborts: the batch is answered, the host lives, the throw is logged", () => {
  const r = run(`
const slow = (ctx) => new Promise((resolve) => {
  ctx.signal.addEventListener("abort", () => { throw new Error("listener threw"); });
  ctx.signal.onabort = () => { throw new Error("onabort threw"); };
  setTimeout(() => resolve(lib.Success("late")), 100);
});
const body = JSON.stringify([{ jsonrpc: "2.0", method: "slow", id: 1 }, { jsonrpc: "2.0", method: "slow", id: 2 }]);
print(JSON.parse(await lib.asyncDispatch(body, { slow }, { context: {}, stages: [lib.timeout(10)] })));
await new Promise((r) => setTimeout(r, 150));
print("alive");
`);
  const timedOut = (id: number): unknown => ({
    jsonrpc: "2.0",
    error: { code: -32001, message: "Request timed out", data: { timeoutMs: 10 } },
    id,
  });
  expect(r.status).toBe(0);
  expect(printed(r)).toEqual([[timedOut(1), timedOut(2)], "alive"]);
  expect(r.stderr).toContain("listener threw");
  expect(r.stderr).toContain("onabort threw");
});

// ---------------------------------------------------------------------------------------------
// In process: answers and ids

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

const ping = (): Result => Success("pong");
const request = (method: string, id: unknown, params?: unknown): object => ({
  jsonrpc: "2.0",
  method,
  ...(params === undefined ? {} : { params }),
  ...(id === undefined ? {} : { id }),
});
const body = (...requests: object[]): string => JSON.stringify(requests.length === 1 ? requests[0] : requests);
const wire = (text: string): unknown => (text === "" ? undefined : JSON.parse(text));

/** An Around stage of yours: `handler(next)` is its handler around the rest. */
const around = (handler: (next: (call: never) => unknown) => (call: never) => unknown): Around =>
  ({ _tag: "Around", asyncOnly: false, around: () => handler as never }) as Around;

describe.each(jsonDispatchers)("%s", (_name, send) => {
  const batch = body(request("ping", 1), request("ping", "two"), request("ping", undefined), request("ping", 3));
  const answers = [PONG(1), PONG("two"), PONG(3)];

  describe("3. answers keep the id their request arrived with", () => {
    test.each<[string, AnyStage]>([
      [
        "an Around stage that passes next a request with another id",
        around(
          (next) => (call: { request: object }) => next({ ...call, request: { ...call.request, id: 42 } } as never),
        ),
      ],
      [
        "a stage that sets the id in place",
        (call) => {
          (call.request as { id?: unknown }).id = 99;
          return E.right(call);
        },
      ],
      [
        "a stage that deletes the id in place",
        (call) => {
          delete (call.request as { id?: unknown }).id;
          return E.right(call);
        },
      ],
      [
        "a stage that sets an object id in place",
        (call) => {
          (call.request as { id?: unknown }).id = { not: "an id" };
          return E.right(call);
        },
      ],
    ])("%s", async (_what, stage) => {
      expect(wire(await send(batch, { ping }, { stages: [stage] }))).toEqual(answers);
    });
  });

  describe("4. an Around stage's handler that answers something other than a Response: -32603 for that request alone", () => {
    test.each<[string, unknown]>([
      ["undefined", undefined],
      ["42", 42],
      ["a Right of something other than a success", E.right({ nothing: true })],
    ])("%s", async (_what, value) => {
      const stage = around(
        (next) => (call: { request: { id?: unknown } }) => (call.request.id === "two" ? value : next(call as never)),
      );
      expect(wire(await send(batch, { ping }, { stages: [stage] }))).toEqual([
        PONG(1),
        {
          jsonrpc: "2.0",
          error: { code: -32603, message: "Internal error", data: "A stage did not return a Response" },
          id: "two",
        },
        PONG(3),
      ]);
      expect(logs.entries.map((entry) => entry.args[0])).toContain(
        'rpcserver: a stage for method "ping" returned something other than a Response',
      );
    });

    test("a handler that throws answers its request alone", async () => {
      const stage = around((next) => (call: { request: { id?: unknown } }) => {
        if (call.request.id === "two") throw new Error("around threw");
        return next(call as never);
      });
      expect(wire(await send(batch, { ping }, { stages: [stage] }))).toEqual([PONG(1), INTERNAL("two"), PONG(3)]);
    });
  });

  describe("6. user code that fails answers its own request alone (-32603), never the whole batch (-32000)", () => {
    const hostileRead =
      (key: string): AnyStage =>
      (call) =>
        E.right({
          ...call,
          request: Object.defineProperty({ ...call.request }, key, {
            enumerable: true,
            get: () => {
              if ((call.request as { id?: unknown }).id === "two") throw new Error(`${key} getter`);
              return (call.request as unknown as Record<string, unknown>)[key];
            },
          }),
        } as never);

    test.each(["params", "id", "method"])("a stage passes a request whose %s getter throws", async (key) => {
      const methods = { ping: (..._args: unknown[]) => Success("pong") };
      expect(wire(await send(batch, methods, { stages: [hostileRead(key)] }))).toEqual([
        PONG(1),
        INTERNAL("two"),
        PONG(3),
      ]);
    });

    test("a stage passes a request that is a Proxy whose every trap throws", async () => {
      const trap = (): never => {
        throw new Error("trap");
      };
      const stage: AnyStage = (call) =>
        E.right({
          ...call,
          request:
            (call.request as { id?: unknown }).id === "two"
              ? new Proxy({}, new Proxy({}, { get: () => trap }))
              : call.request,
        } as never);
      expect(wire(await send(batch, { ping }, { stages: [stage] }))).toEqual([PONG(1), INTERNAL("two"), PONG(3)]);
    });

    const two = body(request("ping", 1), request("m", 2, [1]));

    test("a params codec whose decode returns something other than a Validation", async () => {
      const codec = { ...t.array(t.number), decode: () => ({ not: "a validation" }) } as unknown as t.Any;
      const methods: Methods = { ping, m: withParams(codec, () => Success(1)) };
      expect(wire(await send(two, methods))).toEqual([
        PONG(1),
        {
          jsonrpc: "2.0",
          error: { code: -32603, message: "Internal error", data: "The params codec did not return a Validation" },
          id: 2,
        },
      ]);
    });

    test("a params codec whose Left has errors that throw when read", async () => {
      const errors = [
        new Proxy(
          {},
          {
            get: () => {
              throw new Error("error getter");
            },
          },
        ),
      ];
      const codec = { ...t.array(t.number), decode: () => E.left(errors) } as unknown as t.Any;
      const methods: Methods = { ping, m: withParams(codec, () => Success(1)) };
      expect(wire(await send(two, methods))).toEqual([PONG(1), INTERNAL(2)]);
    });

    test("a method whose length getter throws", async () => {
      const m = (): Result => Success(1);
      Object.defineProperty(m, "length", {
        get: () => {
          throw new Error("length getter");
        },
      });
      expect(wire(await send(two, { ping, m }))).toEqual([PONG(1), INTERNAL(2)]);
    });

    test("a Proxy function as a method, whose every trap throws", async () => {
      const m = new Proxy(
        () => Success(1),
        new Proxy(
          {},
          {
            get: () => () => {
              throw new Error("trap");
            },
          },
        ),
      );
      expect(wire(await send(two, { ping, m }))).toEqual([PONG(1), INTERNAL(2)]);
    });

    test("a notification failing the same ways is still never answered", async () => {
      const stage = hostileRead("method");
      const notifications = body(request("ping", undefined), request("ping", "two"));
      expect(wire(await send(notifications, { ping }, { stages: [stage] }))).toEqual([INTERNAL("two")]);
    });

    // The validator is user code too: when it fails, its member is an Invalid Request (-32600, id
    // null), as when a validator refuses one; the rest of the batch is answered as usual.
    const INVALID = (data: string): unknown => ({
      jsonrpc: "2.0",
      error: { code: -32600, message: "Invalid Request", data },
      id: null,
    });
    const onM = (misbehave: (value: unknown) => unknown) => ({
      decode: (value: unknown) => ((value as { method?: unknown }).method === "m" ? misbehave(value) : E.right(value)),
    });
    test.each<[string, { decode: (value: unknown) => unknown }, string]>([
      [
        "an io-ts validator whose decode throws",
        onM(() => {
          throw new Error("decoder threw");
        }),
        "decoder threw",
      ],
      [
        "an io-ts validator whose decode returns something other than a Validation",
        onM(() => 42),
        "the validator did not return a Validation",
      ],
      [
        "an io-ts validator that decodes to a request whose id getter throws",
        onM((value) =>
          E.right(
            Object.defineProperty({ ...(value as object) }, "id", {
              get: () => {
                throw new Error("id getter");
              },
            }),
          ),
        ),
        "id getter",
      ],
      [
        "an io-ts validator that decodes to a Proxy whose getOwnPropertyDescriptor trap throws",
        onM((value) =>
          E.right(
            new Proxy(value as object, {
              getOwnPropertyDescriptor: () => {
                throw new Error("descriptor trap");
              },
            }),
          ),
        ),
        "descriptor trap",
      ],
    ])("%s", async (_what, validator, data) => {
      expect(wire(await send(two, { ping, m: () => Success(1) }, { validator: validator as never }))).toEqual([
        PONG(1),
        INVALID(data),
      ]);
    });
  });
});

test("timeout's context option that throws is that request's failure alone (-32603), logged", async () => {
  const context = (): never => {
    throw new Error("attach threw");
  };
  const slow = async (): Promise<Result> => Success("slow");
  const text = body(request("slow", 1), request("ping", 2));
  const stages = [timeout(1000, { context })];
  expect(wire(await asyncDispatch(text, { slow, ping }, { context: {}, stages }))).toEqual([INTERNAL(1), INTERNAL(2)]);
  expect(logs.entries.map((entry) => entry.args[0])).toEqual([
    "rpcserver: a stage of the request with id 1 raised an exception",
    "rpcserver: a stage of the request with id 2 raised an exception",
  ]);
});

describe("5. timeout's delay", () => {
  test("ms above 2^31 - 1, the longest delay a timer holds, is a RangeError; 2^31 - 1 is accepted", () => {
    expect(() => timeout(2 ** 31)).toThrow(
      new RangeError("timeout: ms must be at most 2147483647 (about 24.8 days, the longest timer), got 2147483648"),
    );
    expect(() => timeout(Number.MAX_SAFE_INTEGER)).toThrow(RangeError);
    expect(timeout(2 ** 31 - 1)._tag).toBe("Around");
  });
});

test("observe and timeout, the library's own stages, answer each request once, with its id, sync and async", async () => {
  const seen: unknown[] = [];
  const stages = [observe((o) => void seen.push(o.id)), timeout(1000)];
  const text = body(request("ping", 1), request("ping", 2));
  expect(wire(await asyncDispatch(text, { ping }, { stages }))).toEqual([PONG(1), PONG(2)]);
  expect(wire(dispatch(text, { ping }, { stages: [stages[0] as Around] }))).toEqual([PONG(1), PONG(2)]);
  expect(seen).toEqual([1, 2, 1, 2]);
});

test("an Around stage whose around(F)(next) is not a handler is a TypeError from dispatch, as a bad option is; a Promise it returned is not left unhandled", async () => {
  const rejected = Promise.reject(new Error("made while composing"));
  const malformed = { _tag: "Around", asyncOnly: false, around: () => () => rejected } as unknown as Around;
  const message = "an Around stage's around(F)(next) must return a handler function, got object";
  expect(() => dispatch(body(request("ping", 1)), { ping }, { stages: [malformed] })).toThrow(new TypeError(message));
  await expect(asyncDispatch(body(request("ping", 1)), { ping }, { stages: [malformed] })).rejects.toThrow(message);
  // Marked handled by dispatch: awaiting it here still sees the rejection.
  await expect(rejected).rejects.toThrow("made while composing");
});
