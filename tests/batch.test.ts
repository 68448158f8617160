/**
 * Batches and ids: the empty batch, maxBatchSize, notifications, and every response carrying its
 * request's id, in the batch's order.
 */
import {
  asyncDispatch,
  asyncDispatchToResponse,
  asyncDispatchToSerializable,
  dispatch,
  dispatchToResponse,
  dispatchToSerializable,
  Error,
  InvalidParams,
  Success,
  type Methods,
} from "../src";
import { jsonDispatchers, recordLogs } from "./support";

let calls = 0;
const methods: Methods = {
  ping: () => {
    calls += 1;
    return Success("pong");
  },
  echo: (...args: unknown[]) => {
    calls += 1;
    return Success(args);
  },
  fail: () => Error(1, "Failed"),
  invalid: () => InvalidParams(),
  boom: () => {
    throw new globalThis.Error("boom");
  },
};

const ping = (id?: unknown) => JSON.stringify({ jsonrpc: "2.0", method: "ping", ...(id === undefined ? {} : { id }) });
const batchOf = (...members: string[]) => `[${members.join(",")}]`;

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  calls = 0;
  logs = recordLogs();
});
afterEach(() => logs.restore());

const EMPTY =
  '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"the batch is empty"},"id":null}';

describe.each(jsonDispatchers)("%s", (_name, send) => {
  describe("the empty batch", () => {
    test("is answered by one -32600, not a list", async () => {
      expect(await send("[]", methods)).toBe(EMPTY);
      expect(await send(" [ ] ", methods)).toBe(EMPTY);
    });
  });

  describe("maxBatchSize", () => {
    const three = batchOf(ping(1), ping(2), ping(3));

    test("a batch over the limit is one -32600 and none of it runs", async () => {
      expect(await send(three, methods, { maxBatchSize: 2 })).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"size":3,"max":2}},"id":null}',
      );
      expect(calls).toBe(0);
    });

    test("a batch of notifications over the limit is still answered (nothing of it ran)", async () => {
      expect(await send(batchOf(ping(), ping()), methods, { maxBatchSize: 1 })).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"size":2,"max":1}},"id":null}',
      );
      expect(calls).toBe(0);
    });

    test("a batch at the limit runs", async () => {
      expect(await send(three, methods, { maxBatchSize: 3 })).toBe(
        '[{"jsonrpc":"2.0","result":"pong","id":1},{"jsonrpc":"2.0","result":"pong","id":2},{"jsonrpc":"2.0","result":"pong","id":3}]',
      );
      expect(calls).toBe(3);
    });

    test("a single request is not a batch: maxBatchSize 1 lets it through", async () => {
      expect(await send(ping(1), methods, { maxBatchSize: 1 })).toBe('{"jsonrpc":"2.0","result":"pong","id":1}');
    });

    test("undefined and null mean no limit", async () => {
      const big = batchOf(...Array.from({ length: 500 }, (_, i) => ping(i)));
      expect(JSON.parse(await send(big, methods, { maxBatchSize: null }))).toHaveLength(500);
      expect(JSON.parse(await send(big, methods, { maxBatchSize: undefined }))).toHaveLength(500);
      expect(JSON.parse(await send(big, methods))).toHaveLength(500);
    });
  });

  describe("notifications", () => {
    test("a notification sends nothing, but runs", async () => {
      expect(await send(ping(), methods)).toBe("");
      expect(calls).toBe(1);
    });

    test("a notification that fails sends nothing", async () => {
      for (const method of ["fail", "invalid", "boom", "missing"]) {
        expect(await send(`{"jsonrpc":"2.0","method":"${method}"}`, methods)).toBe("");
      }
      expect(await send('{"jsonrpc":"2.0","method":"ping","params":[1]}', { ping: () => Success() })).toBe("");
    });

    test("a batch of notifications sends nothing, and runs every one", async () => {
      expect(await send(batchOf(ping(), ping(), '{"jsonrpc":"2.0","method":"boom"}', ping()), methods)).toBe("");
      expect(calls).toBe(3);
    });

    test("notifications are left out of a batch's answer", async () => {
      expect(await send(batchOf(ping(), ping(1), ping(), ping(2)), methods)).toBe(
        '[{"jsonrpc":"2.0","result":"pong","id":1},{"jsonrpc":"2.0","result":"pong","id":2}]',
      );
      expect(calls).toBe(4);
    });

    test("id null is not a notification", async () => {
      expect(await send(ping(null), methods)).toBe('{"jsonrpc":"2.0","result":"pong","id":null}');
    });
  });

  describe("ids", () => {
    test.each([
      ["1", "1"],
      ["0", "0"],
      ["-5", "-5"],
      ["1.25", "1.25"],
      ["1e3", "1000"],
      ['"abc"', '"abc"'],
      ['""', '""'],
      ['"0"', '"0"'],
      ['"with \\"quotes\\" and ✓"', '"with \\"quotes\\" and ✓"'],
      ["null", "null"],
    ])("id %s is answered as %s on success and on every kind of error", async (id, written) => {
      const answer = (method: string) => send(`{"jsonrpc":"2.0","method":"${method}","id":${id}}`, methods);
      expect(await answer("ping")).toBe(`{"jsonrpc":"2.0","result":"pong","id":${written}}`);
      expect(await answer("fail")).toBe(`{"jsonrpc":"2.0","error":{"code":1,"message":"Failed"},"id":${written}}`);
      expect(await answer("invalid")).toBe(
        `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params"},"id":${written}}`,
      );
      expect(await answer("boom")).toBe(
        `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":${written}}`,
      );
      expect(await answer("missing")).toBe(
        `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"missing"},"id":${written}}`,
      );
    });

    test("each response of a batch carries its own request's id, in the batch's order", async () => {
      const members = [
        '{"jsonrpc":"2.0","method":"echo","params":["a"],"id":"a"}',
        '{"jsonrpc":"2.0","method":"fail","id":2}',
        '{"jsonrpc":"2.0","method":"echo","params":["n"]}',
        '{"jsonrpc":"2.0","method":"boom","id":null}',
        '{"jsonrpc":"2.0","method":"missing","id":"4"}',
        '{"jsonrpc":"2.0","method":"echo","params":["b"],"id":0}',
        '{"jsonrpc":"2.0","method":"echo","params":["c"],"id":"a"}',
      ];
      expect(await send(batchOf(...members), methods)).toBe(
        "[" +
          [
            '{"jsonrpc":"2.0","result":["a"],"id":"a"}',
            '{"jsonrpc":"2.0","error":{"code":1,"message":"Failed"},"id":2}',
            '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":null}',
            '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"missing"},"id":"4"}',
            '{"jsonrpc":"2.0","result":["b"],"id":0}',
            '{"jsonrpc":"2.0","result":["c"],"id":"a"}',
          ].join(",") +
          "]",
      );
    });

    test("a batch of 100 keeps its order", async () => {
      const members = Array.from({ length: 100 }, (_, i) =>
        JSON.stringify({ jsonrpc: "2.0", method: "echo", params: [i], id: 99 - i }),
      );
      const answer = JSON.parse(await send(batchOf(...members), methods)) as Array<{ result: number[]; id: number }>;
      expect(answer.map((r) => [r.result[0], r.id])).toStrictEqual(Array.from({ length: 100 }, (_, i) => [i, 99 - i]));
    });
  });
});

describe("the other output forms", () => {
  test("nothing to send is undefined from the *ToSerializable and *ToResponse functions", async () => {
    const notifications = batchOf(ping(), ping());
    expect(dispatchToSerializable(ping(), methods)).toBeUndefined();
    expect(dispatchToSerializable(notifications, methods)).toBeUndefined();
    expect(dispatchToResponse(ping(), methods)).toBeUndefined();
    expect(dispatchToResponse(notifications, methods)).toBeUndefined();
    expect(await asyncDispatchToSerializable(ping(), methods)).toBeUndefined();
    expect(await asyncDispatchToSerializable(notifications, methods)).toBeUndefined();
    expect(await asyncDispatchToResponse(ping(), methods)).toBeUndefined();
    expect(await asyncDispatchToResponse(notifications, methods)).toBeUndefined();
  });

  test("the empty batch is one object, not a list, in every form", async () => {
    const expected = {
      jsonrpc: "2.0",
      error: { code: -32600, message: "Invalid Request", data: "the batch is empty" },
      id: null,
    };
    expect(dispatchToSerializable("[]", methods)).toStrictEqual(expected);
    expect(await asyncDispatchToSerializable("[]", methods)).toStrictEqual(expected);
    expect(dispatchToResponse("[]", methods)).toStrictEqual({
      _tag: "Left",
      left: { code: -32600, message: "Invalid Request", data: "the batch is empty", id: null },
    });
  });

  test("a batch with one answered member is still a list", async () => {
    expect(dispatchToSerializable(batchOf(ping(), ping(1)), methods)).toStrictEqual([
      { jsonrpc: "2.0", result: "pong", id: 1 },
    ]);
    expect(await asyncDispatch(batchOf(ping(1)), methods)).toBe('[{"jsonrpc":"2.0","result":"pong","id":1}]');
  });
});

describe("a bad maxBatchSize", () => {
  const bad: unknown[] = [0, -1, 1.5, NaN, Infinity, -Infinity, "3", true, {}, 2 ** 53];

  test.each(bad)("%p: the sync functions throw RangeError and run nothing", (maxBatchSize) => {
    const options = { maxBatchSize: maxBatchSize as number };
    for (const request of [ping(1), batchOf(ping(1))]) {
      expect(() => dispatch(request, methods, options)).toThrow(RangeError);
      expect(() => dispatchToSerializable(request, methods, options)).toThrow(RangeError);
      expect(() => dispatchToResponse(request, methods, options)).toThrow(RangeError);
    }
    expect(() => dispatch(ping(1), methods, options)).toThrow(
      `maxBatchSize must be a positive integer, null or undefined, got ${String(maxBatchSize)}`,
    );
    expect(calls).toBe(0);
  });

  test.each(bad)("%p: the async functions reject with RangeError and run nothing", async (maxBatchSize) => {
    const options = { maxBatchSize: maxBatchSize as number };
    for (const request of [ping(1), batchOf(ping(1))]) {
      await expect(asyncDispatch(request, methods, options)).rejects.toThrow(RangeError);
      await expect(asyncDispatchToSerializable(request, methods, options)).rejects.toThrow(RangeError);
      await expect(asyncDispatchToResponse(request, methods, options)).rejects.toThrow(RangeError);
    }
    expect(calls).toBe(0);
  });

  test("the async functions reject rather than throw synchronously", () => {
    let promise: Promise<string> | undefined;
    expect(() => {
      promise = asyncDispatch(ping(1), methods, { maxBatchSize: 0 });
    }).not.toThrow();
    return expect(promise).rejects.toBeInstanceOf(RangeError);
  });
});
