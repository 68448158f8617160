/**
 * Responses: fp-ts Either values (built with fp-ts's own `left` / `right`), the SuccessResponse and
 * ErrorResponse constructors, and the conversions to response objects.
 */
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import {
  dispatch,
  dispatchToResponse,
  dispatchToSerializable,
  Error,
  ErrorResponse,
  NODATA,
  Success,
  SuccessResponse,
  toDict,
  toErrorDict,
  toSerializable,
  toSuccessDict,
  type Methods,
  type Response,
} from "../src";
import { serializeError, serializeSuccess, type ResponseType } from "../src/response";
import { recordLogs, recordWarnings } from "./support";

let logs: ReturnType<typeof recordLogs>;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.restore());

const methods: Methods = {
  ping: () => Success("pong"),
  fail: () => Error(1, "Out of stock", { sku: "A-1" }),
};

describe("Responses from dispatchToResponse are fp-ts Eithers", () => {
  test("a success is right(SuccessResponse(result, id))", () => {
    const response = dispatchToResponse('{"jsonrpc":"2.0","method":"ping","id":1}', methods) as Response;
    expect(response).toStrictEqual(E.right(SuccessResponse("pong", 1)));
    expect(response).toStrictEqual(E.right({ result: "pong", id: 1 }));
    expect(E.isRight(response)).toBe(true);
    expect(E.isRight(response) && response.right).toStrictEqual({ result: "pong", id: 1 });
  });

  test("an error is left(ErrorResponse(code, message, data, id))", () => {
    const response = dispatchToResponse('{"jsonrpc":"2.0","method":"fail","id":"a"}', methods) as Response;
    expect(response).toStrictEqual(E.left(ErrorResponse(1, "Out of stock", { sku: "A-1" }, "a")));
    expect(E.isLeft(response) && response.left).toStrictEqual({
      code: 1,
      message: "Out of stock",
      data: { sku: "A-1" },
      id: "a",
    });
  });

  test("an error without data holds NODATA; a request that could not be read has id null", () => {
    expect(dispatchToResponse('{"jsonrpc":"2.0","method":"nope","id":1}', methods)).toStrictEqual(
      E.left(ErrorResponse(-32601, "Method not found", "nope", 1)),
    );
    expect(dispatchToResponse('{"jsonrpc":"2.0","method":"m","id":1,"x":0}', methods)).toStrictEqual(
      E.left(ErrorResponse(-32600, "Invalid Request", "x: is not a member of a JSON-RPC 2.0 request", null)),
    );
    expect(
      dispatchToResponse('{"jsonrpc":"2.0","method":"m","id":1}', {
        m: () => {
          throw new globalThis.Error("boom");
        },
      }),
    ).toStrictEqual(E.left(ErrorResponse(-32603, "Internal error", NODATA, 1)));
  });

  test("a batch is a list of Responses in request order; nothing to send is undefined", () => {
    expect(
      dispatchToResponse(
        '[{"jsonrpc":"2.0","method":"fail","id":2},{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","method":"ping","id":1}]',
        methods,
      ),
    ).toStrictEqual([E.left(ErrorResponse(1, "Out of stock", { sku: "A-1" }, 2)), E.right(SuccessResponse("pong", 1))]);
    expect(dispatchToResponse('{"jsonrpc":"2.0","method":"ping"}', methods)).toBeUndefined();
  });

  test("any fp-ts function works on a Response", () => {
    const describe = (response: Response) =>
      pipe(
        response,
        E.match(
          (error) => `error ${error.code}`,
          (success) => `result ${String(success.result)}`,
        ),
      );
    expect(describe(dispatchToResponse('{"jsonrpc":"2.0","method":"ping","id":1}', methods) as Response)).toBe(
      "result pong",
    );
    expect(describe(dispatchToResponse('{"jsonrpc":"2.0","method":"fail","id":1}', methods) as Response)).toBe(
      "error 1",
    );
    expect(
      pipe(
        dispatchToResponse('{"jsonrpc":"2.0","method":"fail","id":1}', methods) as Response,
        E.mapLeft((error) => error.message),
      ),
    ).toStrictEqual(E.left("Out of stock"));
  });
});

describe("constructors", () => {
  test("SuccessResponse(result, id) is { result, id }", () => {
    expect(SuccessResponse("pong", 1)).toStrictEqual({ result: "pong", id: 1 });
    expect(SuccessResponse(null, null)).toStrictEqual({ result: null, id: null });
  });

  test("ErrorResponse(code, message, data, id) is { code, message, data, id }", () => {
    expect(ErrorResponse(-32601, "Method not found", NODATA, 1)).toStrictEqual({
      code: -32601,
      message: "Method not found",
      data: NODATA,
      id: 1,
    });
    expect(ErrorResponse(-32700, "Parse error", "bad", null)).toStrictEqual({
      code: -32700,
      message: "Parse error",
      data: "bad",
      id: null,
    });
  });
});

describe("conversions", () => {
  test("toSuccessDict adds jsonrpc; an undefined result becomes null", () => {
    expect(toSuccessDict(SuccessResponse("pong", 1))).toStrictEqual({ jsonrpc: "2.0", result: "pong", id: 1 });
    expect(toSuccessDict(SuccessResponse(undefined, "x"))).toStrictEqual({ jsonrpc: "2.0", result: null, id: "x" });
  });

  test("toErrorDict leaves data out when it is NODATA, keeps it otherwise (null included)", () => {
    const withoutData = toErrorDict(ErrorResponse(-32601, "Method not found", NODATA, 1));
    expect(withoutData).toStrictEqual({ jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id: 1 });
    expect("data" in withoutData.error).toBe(false);
    expect(toErrorDict(ErrorResponse(1, "Oops", null, null))).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: 1, message: "Oops", data: null },
      id: null,
    });
    expect(toErrorDict(ErrorResponse(1, "Oops", [1], "a"))).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: 1, message: "Oops", data: [1] },
      id: "a",
    });
  });

  test("an error Result built by hand without data has no data member in any output form", () => {
    const methods: Methods = { m: () => E.left({ code: 1, message: "Oops" }) as never };
    const text = '{"jsonrpc":"2.0","method":"m","id":1}';
    const dict = toErrorDict(ErrorResponse(1, "Oops", undefined, 1));
    expect("data" in dict.error).toBe(false);
    expect(dispatchToSerializable(text, methods)).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: 1, message: "Oops" },
      id: 1,
    });
    expect(dispatch(text, methods)).toBe('{"jsonrpc":"2.0","error":{"code":1,"message":"Oops"},"id":1}');
    expect(dispatch(text, methods, { serializer: JSON.stringify })).toBe(dispatch(text, methods));
  });

  test("toDict picks the right conversion for each side of the Either", () => {
    expect(toDict(E.right(SuccessResponse(3, 1)))).toStrictEqual({ jsonrpc: "2.0", result: 3, id: 1 });
    expect(toDict(E.left(ErrorResponse(1, "Oops", NODATA, 1)))).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: 1, message: "Oops" },
      id: 1,
    });
  });

  test("toSerializable converts one Response, a list, or undefined", () => {
    const ok: Response = E.right(SuccessResponse(3, 1));
    const ko: Response = E.left(ErrorResponse(1, "Oops", "d", 2));
    expect(toSerializable(ok)).toStrictEqual({ jsonrpc: "2.0", result: 3, id: 1 });
    expect(toSerializable([ok, ko])).toStrictEqual([
      { jsonrpc: "2.0", result: 3, id: 1 },
      { jsonrpc: "2.0", error: { code: 1, message: "Oops", data: "d" }, id: 2 },
    ]);
    expect(toSerializable([])).toStrictEqual([]);
    expect(toSerializable(undefined)).toBeUndefined();
  });

  test("the conversions do not modify the Response", () => {
    const response = E.left(ErrorResponse(1, "Oops", NODATA, 1));
    toDict(response);
    toSerializable([response]);
    expect(response).toStrictEqual(E.left({ code: 1, message: "Oops", data: NODATA, id: 1 }));
  });
});

describe("deprecated names", () => {
  test("serializeError and serializeSuccess give what toErrorDict and toSuccessDict give", () => {
    const warnings = recordWarnings();
    try {
      const error = ErrorResponse(1, "Oops", NODATA, 1);
      const success = SuccessResponse("pong", 1);
      expect(serializeError(error)).toStrictEqual(toErrorDict(error));
      expect(serializeSuccess(success)).toStrictEqual(toSuccessDict(success));
    } finally {
      warnings.restore();
    }
  });

  test("ResponseType is the Response type", () => {
    const response: ResponseType = E.right(SuccessResponse(1, 1));
    const asResponse: Response = response;
    const back: ResponseType = asResponse;
    expect(toDict(back)).toStrictEqual({ jsonrpc: "2.0", result: 1, id: 1 });
  });
});
