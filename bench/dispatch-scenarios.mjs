// The dispatch bench's shared parts (bench/bench.mjs, bench/notification-mix.mjs): the scenarios'
// request texts and expected answers, the methods behind them, and the hand-written sync lower bound.
import * as t from "io-ts";

export const ADD_TEXT = '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}';

// Scenarios: request text, the expected answer, and how many requests one text holds.

export const req = (method, params, id) =>
  JSON.stringify({
    jsonrpc: "2.0",
    method,
    ...(params === undefined ? {} : { params }),
    ...(id === undefined ? {} : { id }),
  });

export const BATCH_SIZE = 100;
export const SUM_SIZE = 1000;
export const range = (n, from = 1) => Array.from({ length: n }, (_, i) => i + from);

export const SCENARIOS = [
  { id: "single", title: "single request, positional params", text: ADD_TEXT, expect: { result: 3, id: 1 } },
  {
    id: "named",
    title: "single request, named params",
    text: req("addNamed", { a: 1, b: 2 }, 1),
    expect: { result: 3, id: 1 },
  },
  { id: "notification", title: "notification", text: req("add", [1, 2]), expect: { nothing: true } },
  {
    id: "batch",
    title: `batch of ${BATCH_SIZE} (per request)`,
    text: `[${range(BATCH_SIZE)
      .map((i) => req("add", [i, i], i))
      .join(",")}]`,
    perRequest: BATCH_SIZE,
    expect: { batch: range(BATCH_SIZE).map((i) => ({ result: 2 * i, id: i })) },
  },
  { id: "not-found", title: "method not found", text: req("nope", [1, 2], 1), expect: { code: -32601, ids: [1] } },
  {
    id: "invalid",
    title: "invalid request",
    text: '{"jsonrpc":"2.0","method":1,"id":1}',
    // JSON-RPC 2.0 wants id null when the id cannot be detected; here it can, so 1 is accepted too.
    expect: { code: -32600, ids: [null, 1] },
  },
  {
    id: "parse-error",
    title: "parse error",
    text: '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1',
    expect: { code: -32700, ids: [null] },
  },
  {
    id: "throws",
    title: "method throws",
    text: req("fail", [], 1),
    // The code for an uncaught exception is the library's choice (-32603 in most; json-rpc-2.0 uses 0).
    expect: { code: "any", ids: [1] },
  },
  {
    id: "codec",
    title: "io-ts params codec (peers: no codec)",
    text: req("addChecked", [1, 2], 1),
    expect: { result: 3, id: 1 },
  },
  {
    id: "sum1000",
    title: `params of ${SUM_SIZE} integers`,
    text: req("sum", range(SUM_SIZE), 1),
    expect: { result: (SUM_SIZE * (SUM_SIZE + 1)) / 2, id: 1 },
  },
];

// The methods: plain ones for the lower bounds, rpcserver's for rpcserver.

export const boom = () => {
  throw new Error("boom");
};
export const sumOf = (xs) => {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s;
};

// Plain functions for the lower bounds: params spread, named params as one argument.
export const plain = {
  add: (a, b) => a + b,
  addNamed: ({ a, b }) => a + b,
  addChecked: (a, b) => a + b,
  sum: (...xs) => sumOf(xs),
  fail: boom,
};
export const plainAsync = {
  add: async (a, b) => a + b,
  addNamed: async ({ a, b }) => a + b,
  addChecked: async (a, b) => a + b,
  sum: async (...xs) => sumOf(xs),
  fail: async () => boom(),
};

export const errorResponse = (code, message, id) => ({ jsonrpc: "2.0", error: { code, message }, id });
export const PARSE_ERROR_TEXT = JSON.stringify(errorResponse(-32700, "Parse error", null));

/** limit-sync: JSON.parse, a shape check, a Map lookup, the call with params spread, JSON.stringify. */
export const makeLimitSync = () => {
  const table = new Map(Object.entries(plain));
  const one = (r) => {
    if (typeof r !== "object" || r === null || r.jsonrpc !== "2.0" || typeof r.method !== "string") {
      return errorResponse(-32600, "Invalid Request", null);
    }
    const id = r.id;
    const f = table.get(r.method);
    if (f === undefined) return id === undefined ? undefined : errorResponse(-32601, "Method not found", id);
    let result;
    try {
      const p = r.params;
      result = p === undefined ? f() : Array.isArray(p) ? f(...p) : f(p);
    } catch {
      return id === undefined ? undefined : errorResponse(-32603, "Internal error", id);
    }
    return id === undefined ? undefined : { jsonrpc: "2.0", result, id };
  };
  return (text) => {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return PARSE_ERROR_TEXT;
    }
    if (Array.isArray(message)) {
      const out = [];
      for (let i = 0; i < message.length; i++) {
        const r = one(message[i]);
        if (r !== undefined) out.push(r);
      }
      return out.length === 0 ? "" : JSON.stringify(out);
    }
    const r = one(message);
    return r === undefined ? "" : JSON.stringify(r);
  };
};

/**
 * rpcserver's methods for the scenarios, made with `lib`'s `Success` and `withParams` (the build
 * under test: the package's own, or another dist's), `addChecked` with an io-ts params codec or not.
 */
export const rpcMethodsOf = ({ Success, withParams }, codec) => ({
  add: (a, b) => Success(a + b),
  addNamed: ({ a, b }) => Success(a + b),
  addChecked: codec ? withParams(t.tuple([t.number, t.number]), (a, b) => Success(a + b)) : (a, b) => Success(a + b),
  sum: (...xs) => Success(sumOf(xs)),
  fail: boom,
});
