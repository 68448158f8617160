/**
 * The JSON-RPC 2.0 specification's own examples (section 7), through `dispatch` and `asyncDispatch`.
 *
 * Each row holds the request, the response the specification shows, and the exact response we send.
 * Our error responses may carry a `data` member the specification does not show; with `data` left
 * out, every response must be exactly the specification's (same code, message, id and order).
 */
import { Success, type Methods } from "../src";
import { jsonDispatchers, jsonParseMessage } from "./support";

type Params = { readonly minuend: number; readonly subtrahend: number };

const sum = (...numbers: number[]) => Success(numbers.reduce((total, n) => total + n, 0));

const methods: Methods = {
  subtract: (...args: unknown[]) => {
    if (args.length === 1) {
      const { minuend, subtrahend } = args[0] as Params;
      return Success(minuend - subtrahend);
    }
    const [minuend, subtrahend] = args as [number, number];
    return Success(minuend - subtrahend);
  },
  update: (..._args: number[]) => Success(),
  sum,
  notify_hello: (_n: number) => Success(),
  notify_sum: sum,
  get_data: () => Success(["hello", 5]),
};

const INVALID_JSON = '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]';
const INVALID_BATCH_JSON =
  '[\n  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},\n  {"jsonrpc": "2.0", "method"\n]';

interface Example {
  readonly name: string;
  readonly request: string;
  /** The response in the specification, `undefined` for "nothing is returned". */
  readonly spec: unknown;
  /** What we send, parsed; `undefined` when we send `""`. */
  readonly ours: unknown;
}

const notAnObject = { code: -32600, message: "Invalid Request", data: "a request must be an object" };

const examples: Example[] = [
  {
    name: "rpc call with positional parameters",
    request: '{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}',
    spec: { jsonrpc: "2.0", result: 19, id: 1 },
    ours: { jsonrpc: "2.0", result: 19, id: 1 },
  },
  {
    name: "rpc call with positional parameters, reversed",
    request: '{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}',
    spec: { jsonrpc: "2.0", result: -19, id: 2 },
    ours: { jsonrpc: "2.0", result: -19, id: 2 },
  },
  {
    name: "rpc call with named parameters",
    request: '{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}',
    spec: { jsonrpc: "2.0", result: 19, id: 3 },
    ours: { jsonrpc: "2.0", result: 19, id: 3 },
  },
  {
    name: "rpc call with named parameters, reordered",
    request: '{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}',
    spec: { jsonrpc: "2.0", result: 19, id: 4 },
    ours: { jsonrpc: "2.0", result: 19, id: 4 },
  },
  {
    name: "a notification",
    request: '{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}',
    spec: undefined,
    ours: undefined,
  },
  {
    name: "a notification of a method that does not exist",
    request: '{"jsonrpc": "2.0", "method": "foobar"}',
    spec: undefined,
    ours: undefined,
  },
  {
    name: "rpc call of non-existent method",
    request: '{"jsonrpc": "2.0", "method": "foobar", "id": "1"}',
    spec: { jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id: "1" },
    ours: { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "foobar" }, id: "1" },
  },
  {
    name: "rpc call with invalid JSON",
    request: INVALID_JSON,
    spec: { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null },
    ours: {
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error", data: jsonParseMessage(INVALID_JSON) },
      id: null,
    },
  },
  {
    name: "rpc call with invalid Request object",
    request: '{"jsonrpc": "2.0", "method": 1, "params": "bar"}',
    spec: { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: null },
    ours: {
      jsonrpc: "2.0",
      error: { code: -32600, message: "Invalid Request", data: "method: must be a string" },
      id: null,
    },
  },
  {
    name: "rpc call Batch, invalid JSON",
    request: INVALID_BATCH_JSON,
    spec: { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null },
    ours: {
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error", data: jsonParseMessage(INVALID_BATCH_JSON) },
      id: null,
    },
  },
  {
    name: "rpc call with an empty Array",
    request: "[]",
    spec: { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: null },
    ours: { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request", data: "the batch is empty" }, id: null },
  },
  {
    name: "rpc call with an invalid Batch (but not empty)",
    request: "[1]",
    spec: [{ jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: null }],
    ours: [{ jsonrpc: "2.0", error: notAnObject, id: null }],
  },
  {
    name: "rpc call with invalid Batch",
    request: "[1,2,3]",
    spec: [
      { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: null },
      { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: null },
      { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: null },
    ],
    ours: [
      { jsonrpc: "2.0", error: notAnObject, id: null },
      { jsonrpc: "2.0", error: notAnObject, id: null },
      { jsonrpc: "2.0", error: notAnObject, id: null },
    ],
  },
  {
    name: "rpc call Batch",
    request: `[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`,
    spec: [
      { jsonrpc: "2.0", result: 7, id: "1" },
      { jsonrpc: "2.0", result: 19, id: "2" },
      { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: null },
      { jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id: "5" },
      { jsonrpc: "2.0", result: ["hello", 5], id: "9" },
    ],
    ours: [
      { jsonrpc: "2.0", result: 7, id: "1" },
      { jsonrpc: "2.0", result: 19, id: "2" },
      {
        jsonrpc: "2.0",
        error: { code: -32600, message: "Invalid Request", data: 'jsonrpc: must be exactly "2.0"' },
        id: null,
      },
      { jsonrpc: "2.0", error: { code: -32601, message: "Method not found", data: "foo.get" }, id: "5" },
      { jsonrpc: "2.0", result: ["hello", 5], id: "9" },
    ],
  },
  {
    name: "rpc call Batch (all notifications)",
    request: `[
        {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
    ]`,
    spec: undefined,
    ours: undefined,
  },
];

/** A response (or list of them) with every error's `data` member removed. */
const withoutData = (response: unknown): unknown => {
  if (Array.isArray(response)) return response.map(withoutData);
  if (typeof response !== "object" || response === null || !("error" in response)) return response;
  const { error, ...rest } = response as { error: { data?: unknown } };
  const { data: _data, ...errorWithoutData } = error;
  return { ...rest, error: errorWithoutData };
};

describe.each(jsonDispatchers)("JSON-RPC 2.0 specification examples through %s", (_name, send) => {
  test.each(examples)("$name", async ({ request, spec, ours }) => {
    const text = await send(request, methods);
    if (ours === undefined) {
      expect(text).toBe("");
      expect(spec).toBeUndefined();
      return;
    }
    const parsed: unknown = JSON.parse(text);
    expect(parsed).toStrictEqual(ours);
    expect(withoutData(parsed)).toStrictEqual(spec);
  });

  test("the single responses are written compactly, members in the order jsonrpc, result/error, id", async () => {
    expect(await send('{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}', methods)).toBe(
      '{"jsonrpc":"2.0","result":19,"id":1}',
    );
    expect(await send('{"jsonrpc": "2.0", "method": "foobar", "id": "1"}', methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"foobar"},"id":"1"}',
    );
  });
});
