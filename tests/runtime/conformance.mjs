// The dispatch core's conformance cases, runnable on any JavaScript runtime: Node.js, Bun, Deno and
// a browser (bundled). `runConformance(rpc)` takes the package's exports and returns what passed.
import * as t from "io-ts";

const ANY = Symbol("any");

const equal = (actual, expected) => {
  if (expected === ANY) return true;
  if (typeof expected !== "object" || expected === null) return Object.is(actual, expected);
  if (typeof actual !== "object" || actual === null || Array.isArray(actual) !== Array.isArray(expected)) return false;
  const keys = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  for (const key of keys) if (!equal(actual[key], expected[key])) return false;
  return true;
};

const ok = (result, id) => ({ jsonrpc: "2.0", result, id });
const err = (code, message, id, data) => ({
  jsonrpc: "2.0",
  error: data === undefined ? { code, message } : { code, message, data },
  id,
});

const methods = (rpc) => ({
  // One declared parameter: named params arrive as one object, positional ones spread.
  subtract: (a, ...rest) => (typeof a === "object" ? rpc.Success(a.minuend - a.subtrahend) : rpc.Success(a - rest[0])),
  update: () => rpc.Success(),
  notify_hello: () => rpc.Success(),
  get_data: () => rpc.Success(["hello", 5]),
  sum: (...xs) => rpc.Success(xs.reduce((a, b) => a + b, 0)),
  boom: () => {
    throw new Error("secret");
  },
  nan: () => rpc.Success(NaN),
  later: () => Promise.resolve(rpc.Success("later")),
  refuse: () => {
    throw new rpc.JsonRpcError(7, "refused", { why: "test" });
  },
  add: rpc.withParams(t.tuple([t.number, t.number]), (a, b) => rpc.Success(a + b)),
});

/** [name, request, expected response (parsed JSON, or "" for nothing)] for `dispatch` and `asyncDispatch`. */
const cases = [
  ["positional params", '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}', ok(19, 1)],
  ["named params", '{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":3}', ok(19, 3)],
  ["notification", '{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}', ""],
  ["method not found", '{"jsonrpc":"2.0","method":"foobar","id":"1"}', err(-32601, "Method not found", "1", "foobar")],
  ["invalid JSON", '{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]', err(-32700, "Parse error", null, ANY)],
  ["invalid request", '{"jsonrpc":"2.0","method":1,"params":"bar"}', err(-32600, "Invalid Request", null, ANY)],
  ["empty batch", "[]", err(-32600, "Invalid Request", null, ANY)],
  ["invalid batch", "[1,2,3]", [1, 2, 3].map(() => err(-32600, "Invalid Request", null, ANY))],
  [
    "mixed batch",
    '[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"2"},{"foo":"boo"},{"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"},{"jsonrpc":"2.0","method":"get_data","id":"9"}]',
    [
      ok(7, "1"),
      ok(19, "2"),
      err(-32600, "Invalid Request", null, ANY),
      err(-32601, "Method not found", "5", "foo.get"),
      ok(["hello", 5], "9"),
    ],
  ],
  [
    "all notifications",
    '[{"jsonrpc":"2.0","method":"notify_hello","params":[1,2,4]},{"jsonrpc":"2.0","method":"update","params":[7]}]',
    "",
  ],
  ["uncaught exception, no debug", '{"jsonrpc":"2.0","method":"boom","id":1}', err(-32603, "Internal error", 1)],
  ["NaN refused by the serializer", '{"jsonrpc":"2.0","method":"nan","id":1}', err(-32603, "Internal error", 1)],
  ["JsonRpcError sent as given", '{"jsonrpc":"2.0","method":"refuse","id":1}', err(7, "refused", 1, { why: "test" })],
  ["io-ts params codec", '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}', ok(3, 1)],
  [
    "io-ts params refused",
    '{"jsonrpc":"2.0","method":"add","params":[1,"x"],"id":1}',
    err(-32602, "Invalid params", 1, ['params[1]: expected number, got "x"']),
  ],
  [
    "prototype names are not methods",
    '{"jsonrpc":"2.0","method":"__proto__","id":1}',
    err(-32601, "Method not found", 1, "__proto__"),
  ],
];

const parse = (text) => (text === "" ? "" : JSON.parse(text));

export const runConformance = async (rpc) => {
  const quiet = () => undefined;
  const previous = rpc.setLogger({ error: quiet, warn: quiet, info: quiet });
  const failures = [];
  let passed = 0;
  const check = (name, actual, expected) => {
    if (equal(actual, expected)) passed += 1;
    else failures.push(`${name}: got ${JSON.stringify(actual)}`);
  };
  const table = methods(rpc);
  for (const [name, request, expected] of cases) {
    check(`sync ${name}`, parse(rpc.dispatch(request, table)), expected);
    check(`async ${name}`, parse(await rpc.asyncDispatch(request, table)), expected);
  }
  check(
    "sync refuses a Promise",
    parse(rpc.dispatch('{"jsonrpc":"2.0","method":"later","id":1}', table)),
    err(-32603, "Internal error", 1, ANY),
  );
  check(
    "async awaits a Promise",
    parse(await rpc.asyncDispatch('{"jsonrpc":"2.0","method":"later","id":1}', table)),
    ok("later", 1),
  );
  const bytes = new TextEncoder().encode('{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":1}');
  check("UTF-8 bytes", parse(rpc.dispatch(bytes, table)), ok(1, 1));
  check(
    "invalid UTF-8",
    parse(rpc.dispatch(new Uint8Array([0xff, 0xfe]), table)),
    err(-32700, "Parse error", null, ANY),
  );
  check("version", rpc.__version__, "5.0.10");
  // A code that is not an integer warns (process.emitWarning, or console.warn where there is no
  // process) and the error is still sent as given.
  const odd = rpc.dispatch('{"jsonrpc":"2.0","method":"odd","id":1}', { odd: () => rpc.Error(1.5, "odd") });
  check("odd error code sent as given", parse(odd), err(1.5, "odd", 1));
  let range = "none";
  try {
    rpc.dispatch("{}", table, { maxBatchSize: 0 });
  } catch (error) {
    range = error instanceof RangeError ? "RangeError" : String(error);
  }
  check("bad maxBatchSize", range, "RangeError");
  // The host survives what user code does where nobody waits for it: a listener on timeout's signal
  // that throws (every runtime's event target re-throws it as an uncaught error), an async observe
  // callback that rejects. The runtime would end this run before it reported.
  const order = [];
  const slow = (ctx) =>
    new Promise((resolve) => {
      ctx.signal.addEventListener("abort", () => {
        order.push("listener");
        throw new Error("listener threw");
      });
      ctx.signal.onabort = () => {
        order.push("onabort");
        throw new Error("onabort threw");
      };
      ctx.signal.addEventListener("abort", () => order.push("capture"), { capture: true });
      ctx.signal.addEventListener("abort", { handleEvent: () => order.push("object") }, { once: true });
      setTimeout(() => resolve(rpc.Success("late")), 50);
    });
  const stages = [
    rpc.observe(async () => {
      throw new Error("metrics down");
    }),
    rpc.timeout(5),
  ];
  check(
    "timeout with a throwing abort listener, observe rejecting",
    parse(await rpc.asyncDispatch('{"jsonrpc":"2.0","method":"slow","id":1}', { slow }, { context: {}, stages })),
    err(-32001, "Request timed out", 1, { timeoutMs: 5 }),
  );
  await new Promise((resolve) => setTimeout(resolve, 80));
  // Once each; the order is the runtime's (Bun runs capture listeners first, and after the guard its
  // onabort handler), so it is checked on Node only (tests/stages.test.ts).
  check("the host survived them, every abort listener ran once", [...order].sort(), [
    "capture",
    "listener",
    "object",
    "onabort",
  ]);
  check(
    "Response is an fp-ts Either",
    rpc.dispatchToResponse('{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":1}', table),
    {
      _tag: "Right",
      right: { result: 1, id: 1 },
    },
  );
  rpc.setLogger(previous);
  return { passed, failed: failures.length, failures };
};
