/**
 * The public names: version constants, codes, sentinels, every specification-spelling alias as the
 * same function object as its TypeScript name, and the deprecated names. What the type-level entry
 * exports, which TypeScript reports of the sources, is in tests/exports-types.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as index from "../src";
import * as asyncMain from "../src/async_main";
import * as batchModule from "../src/internal/client/batch";
import * as calls from "../src/internal/client/calls";
import * as clientEntry from "../src/client";
import * as clientError from "../src/internal/client/errors";
import * as httpTransport from "../src/internal/client/transports/http";
import * as localTransport from "../src/internal/client/transports/local";
import * as clientStreams from "../src/internal/client/streams";
import * as contractModule from "../src/internal/contract/contract";
import * as implementModule from "../src/internal/contract/implement";
import * as stubs from "../src/internal/client/client";
import * as codes from "../src/codes";
import * as main from "../src/main";
import * as methods from "../src/methods";
import * as response from "../src/response";
import * as result from "../src/result";
import * as sentinels from "../src/sentinels";
import * as server from "../src/server";
import * as typesEntry from "../src/types";
import { recordWarnings } from "./support";

describe("version", () => {
  test("__version__ and VERSION are both 5.0.10, the package's version", () => {
    expect(index.__version__).toBe("5.0.10");
    expect(index.VERSION).toBe("5.0.10");
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as { version: string };
    expect(pkg.version).toBe(index.__version__);
  });

  test("no @since tag names a release after the package's version (there is none)", () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
      );
    const since = walk(join(__dirname, "..", "src"))
      .filter((file) => file.endsWith(".ts"))
      .flatMap((file) => [...readFileSync(file, "utf8").matchAll(/@since (\S+)/g)].map((m) => m[1]));
    expect(since.length).toBeGreaterThan(100);
    expect([...new Set(since)]).toEqual([index.VERSION]);
  });
});

describe("codes", () => {
  test("the constants, ERROR_METHOD_NOT_FOUND included", () => {
    expect({ ...codes }).toStrictEqual({
      ERROR_PARSE_ERROR: -32700,
      ERROR_INVALID_REQUEST: -32600,
      ERROR_METHOD_NOT_FOUND: -32601,
      ERROR_INVALID_PARAMS: -32602,
      ERROR_INTERNAL_ERROR: -32603,
      ERROR_SERVER_ERROR: -32000,
      ERROR_TIMEOUT: -32001,
      ERROR_MESSAGE_TOO_LARGE: -32002,
      ERROR_REQUEST_CANCELLED: -32800,
      RESERVED_MIN: -32768,
      RESERVED_MAX: -32000,
    });
  });

  test("the package's codes namespace is the codes module", () => {
    expect(index.codes).toBe(codes);
    expect({ ...index.codes }).toStrictEqual({ ...codes });
  });
});

describe("sentinels", () => {
  test("NODATA and NOCONTEXT are distinct registered symbols", () => {
    expect(typeof sentinels.NODATA).toBe("symbol");
    expect(typeof sentinels.NOCONTEXT).toBe("symbol");
    expect(sentinels.NODATA).not.toBe(sentinels.NOCONTEXT);
    expect(sentinels.NODATA).toBe(Symbol.for("rpcserver.NODATA"));
    expect(sentinels.NOCONTEXT).toBe(Symbol.for("rpcserver.NOCONTEXT"));
    expect(index.NODATA).toBe(sentinels.NODATA);
    expect(index.NOCONTEXT).toBe(sentinels.NOCONTEXT);
  });
});

describe("the package's own names", () => {
  test.each([
    "method",
    "Success",
    "Error",
    "RpcError",
    "InvalidParams",
    "JsonRpcError",
    "dispatch",
    "dispatch_to_serializable",
    "dispatch_to_response",
    "async_dispatch",
    "async_dispatch_to_serializable",
    "async_dispatch_to_response",
    "dispatchToSerializable",
    "dispatchToResponse",
    "asyncDispatch",
    "asyncDispatchToSerializable",
    "asyncDispatchToResponse",
    "globalMethods",
    "global_methods",
    "toDict",
    "toSerializable",
    "setLogger",
    "contract",
    "implement",
    "server",
    "fromResult",
    "withContext",
    "withCodecs",
    "withParams",
  ])("%s is exported", (name) => {
    expect((index as Record<string, unknown>)[name]).toBeDefined();
  });

  test("the package's names are the modules' own objects", () => {
    expect(index.method).toBe(methods.method);
    expect(index.Success).toBe(result.Success);
    expect(index.Error).toBe(result.Error);
    // The non-shadowing name (issue 22) is the same function.
    expect(index.RpcError).toBe(result.Error);
    expect(result.RpcError).toBe(result.Error);
    expect(index.InvalidParams).toBe(result.InvalidParams);
    expect(index.dispatch).toBe(main.dispatch);
    expect(index.dispatchToSerializable).toBe(main.dispatchToSerializable);
    expect(index.dispatchToResponse).toBe(main.dispatchToResponse);
    expect(index.asyncDispatch).toBe(asyncMain.dispatchToJson);
    expect(index.asyncDispatchToSerializable).toBe(asyncMain.dispatchToSerializable);
    expect(index.asyncDispatchToResponse).toBe(asyncMain.dispatchToResponse);
    expect(index.globalMethods).toBe(methods.globalMethods);
    expect(index.toDict).toBe(response.toDict);
    // Typed DevServer here and http.Server in rpcserver/server; the main entry's loads the server
    // module when called (tests/server.test.ts serves through both).
    expect(typeof index.serve).toBe("function");
    expect(typeof server.serve).toBe("function");
    expect(index.contract).toBe(contractModule.contract);
    expect(index.implement).toBe(implementModule.implement);
    expect(index.server).toBe(implementModule.server);
    expect(index.fromResult).toBe(implementModule.fromResult);
    expect(index.withContext).toBe(methods.withContext);
    expect(index.withCodecs).toBe(methods.withCodecs);
  });
});

describe("rpcserver/client", () => {
  test("its names are the modules' own objects, and nothing else", () => {
    expect({ ...clientEntry }).toStrictEqual({
      client: stubs.client,
      http: httpTransport.http,
      local: localTransport.local,
      batch: batchModule.batch,
      notify: calls.notify,
      withOptions: calls.withOptions,
      matchClientError: clientError.matchClientError,
      StreamError: clientError.StreamError,
      open: clientStreams.open,
      foldStream: clientStreams.foldStream,
    });
  });

  test("the exports map and typesVersions carry it as they carry the other subpaths", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
      typesVersions: { "*": Record<string, string[]> };
    };
    const like = (name: string) => ({
      browser: { import: { types: `./dist/esm/${name}.d.ts`, default: `./dist/browser/${name}.js` } },
      import: { types: `./dist/esm/${name}.d.ts`, default: `./dist/esm/${name}.js` },
      require: { types: `./dist/cjs/${name}.d.cts`, default: `./dist/cjs/${name}.cjs` },
    });
    expect(pkg.exports["./client"]).toStrictEqual(like("client"));
    expect(pkg.exports["./pipeline"]).toStrictEqual(like("pipeline"));
    expect(pkg.typesVersions["*"]["client"]).toStrictEqual(["./dist/cjs/client.d.cts"]);
    expect(pkg.exports["./types"]).toStrictEqual(like("types"));
    expect(pkg.typesVersions["*"]["types"]).toStrictEqual(["./dist/cjs/types.d.cts"]);
    // The implementation's folders are closed: no subpath reaches them.
    expect(pkg.exports["./internal/*"]).toBeNull();
    // Its modules are its own: none is a subpath of the package.
    for (const internal of ["calls", "stubs", "clienterror", "clienttransport", "contract", "implement", "context"]) {
      expect(pkg.exports[`./${internal}`]).toBeUndefined();
    }
  });
});

describe("each public entry re-exports only what it documents", () => {
  /** The library's own helpers, marked `@internal`, that rpcserver/methods exported at run time before. */
  const methodInternals = [
    "paramsCodecOf",
    "resultCodecOf",
    "infoOf",
    "reserveName",
    "markOutcome",
    "isOutcome",
    "markContextual",
    "isContextual",
    "markDescribes",
    "describesOf",
    "reservedNameOf",
    "isMethodMap",
    "methodEntries",
    "lookup",
  ];

  test("rpcserver/methods: the registry and the method builders, none of the library's own helpers", () => {
    expect(Object.keys(methods).sort()).toEqual(
      ["globalMethods", "global_methods", "method", "withCodecs", "withContext", "withParams"].sort(),
    );
    for (const name of methodInternals) expect(name in methods).toBe(false);
  });

  test("rpcserver/result: the constructors, without checkError", () => {
    expect(Object.keys(result).sort()).toEqual(["Error", "InvalidParams", "RpcError", "Success"]);
    expect("checkError" in result).toBe(false);
  });

  test("rpcserver/response: the constructors and conversions, without the internal success and failure", () => {
    expect(Object.keys(response).sort()).toEqual(
      [
        "ErrorResponse",
        "SuccessResponse",
        "toDict",
        "toErrorDict",
        "toSerializable",
        "toSuccessDict",
        "to_dict",
        "to_error_dict",
        "to_serializable",
        "to_success_dict",
        "serializeError",
        "serializeSuccess",
        "serialize_error",
        "serialize_success",
      ].sort(),
    );
  });

  test("rpcserver/types exports no value at run time", () => {
    expect({ ...typesEntry }).toStrictEqual({});
  });
});

describe("specification spellings are the same function objects", () => {
  test.each([
    ["main", "dispatch", main.dispatch, main.dispatchToJson],
    ["main", "dispatch_to_json", main.dispatch_to_json, main.dispatchToJson],
    ["main", "dispatch_to_serializable", main.dispatch_to_serializable, main.dispatchToSerializable],
    ["main", "dispatch_to_response", main.dispatch_to_response, main.dispatchToResponse],
    ["async_main", "dispatch_to_json", asyncMain.dispatch_to_json, asyncMain.dispatchToJson],
    ["async_main", "asyncDispatch", asyncMain.asyncDispatch, asyncMain.dispatchToJson],
    ["async_main", "dispatch_to_serializable", asyncMain.dispatch_to_serializable, asyncMain.dispatchToSerializable],
    [
      "async_main",
      "asyncDispatchToSerializable",
      asyncMain.asyncDispatchToSerializable,
      asyncMain.dispatchToSerializable,
    ],
    ["async_main", "dispatch_to_response", asyncMain.dispatch_to_response, asyncMain.dispatchToResponse],
    ["async_main", "asyncDispatchToResponse", asyncMain.asyncDispatchToResponse, asyncMain.dispatchToResponse],
    ["response", "to_dict", response.to_dict, response.toDict],
    ["response", "to_success_dict", response.to_success_dict, response.toSuccessDict],
    ["response", "to_error_dict", response.to_error_dict, response.toErrorDict],
    ["response", "to_serializable", response.to_serializable, response.toSerializable],
    ["response", "serialize_error", response.serialize_error, response.serializeError],
    ["response", "serialize_success", response.serialize_success, response.serializeSuccess],
    ["methods", "global_methods", methods.global_methods, methods.globalMethods],
    ["index", "dispatch_to_serializable", index.dispatch_to_serializable, index.dispatchToSerializable],
    ["index", "dispatch_to_response", index.dispatch_to_response, index.dispatchToResponse],
    ["index", "async_dispatch", index.async_dispatch, index.asyncDispatch],
    [
      "index",
      "async_dispatch_to_serializable",
      index.async_dispatch_to_serializable,
      index.asyncDispatchToSerializable,
    ],
    ["index", "async_dispatch_to_response", index.async_dispatch_to_response, index.asyncDispatchToResponse],
    ["index", "global_methods", index.global_methods, index.globalMethods],
    ["index", "to_dict", index.to_dict, index.toDict],
    ["index", "to_success_dict", index.to_success_dict, index.toSuccessDict],
    ["index", "to_error_dict", index.to_error_dict, index.toErrorDict],
    ["index", "to_serializable", index.to_serializable, index.toSerializable],
  ])("%s.%s", (_module, _name, alias, canonical) => {
    expect(canonical).toBeDefined();
    expect(alias).toBe(canonical);
  });

  test("dispatch_to_json in main and in async_main are different functions (sync and async)", () => {
    expect(main.dispatch_to_json).not.toBe(asyncMain.dispatch_to_json);
    expect(typeof main.dispatch_to_json('{"jsonrpc":"2.0","method":"x"}', {})).toBe("string");
    const pending = asyncMain.dispatch_to_json('{"jsonrpc":"2.0","method":"x"}', {});
    expect(pending).toBeInstanceOf(Promise);
    return expect(pending).resolves.toBe("");
  });
});

describe("deprecated functions", () => {
  /** A fresh copy of the response module (and of the once-per-process memory of warnings). */
  const freshResponse = async (): Promise<typeof response> => {
    let fresh: typeof response | undefined;
    await jest.isolateModulesAsync(async () => {
      fresh = await import("../src/response");
    });
    if (fresh === undefined) throw new globalThis.Error("the module did not load");
    return fresh;
  };

  test("serializeError and serializeSuccess each warn DeprecationWarning exactly once per process", async () => {
    const warnings = recordWarnings();
    try {
      const fresh = await freshResponse();
      expect(fresh.serializeError).not.toBe(response.serializeError);
      const error = fresh.ErrorResponse(1, "Oops", sentinels.NODATA, 1);
      const success = fresh.SuccessResponse("pong", 1);
      expect(fresh.serializeError(error)).toStrictEqual({ jsonrpc: "2.0", error: { code: 1, message: "Oops" }, id: 1 });
      fresh.serializeError(error);
      fresh.serialize_error(error);
      expect(warnings.warnings()).toStrictEqual([
        {
          message: "serializeError is deprecated and will be removed in 6.0; use toErrorDict instead",
          type: "DeprecationWarning",
        },
      ]);
      expect(fresh.serializeSuccess(success)).toStrictEqual({ jsonrpc: "2.0", result: "pong", id: 1 });
      fresh.serializeSuccess(success);
      fresh.serialize_success(success);
      expect(warnings.warnings()).toStrictEqual([
        {
          message: "serializeError is deprecated and will be removed in 6.0; use toErrorDict instead",
          type: "DeprecationWarning",
        },
        {
          message: "serializeSuccess is deprecated and will be removed in 6.0; use toSuccessDict instead",
          type: "DeprecationWarning",
        },
      ]);
    } finally {
      warnings.restore();
    }
  });

  test("the non-deprecated conversions do not warn", async () => {
    const warnings = recordWarnings();
    try {
      const fresh = await freshResponse();
      fresh.toErrorDict(fresh.ErrorResponse(1, "Oops", sentinels.NODATA, 1));
      fresh.toSuccessDict(fresh.SuccessResponse("pong", 1));
      expect(warnings.warnings()).toStrictEqual([]);
    } finally {
      warnings.restore();
    }
  });

  test("without process.emitWarning (a browser), the warning goes to console.warn", async () => {
    const emitWarning = process.emitWarning;
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    (process as { emitWarning?: unknown }).emitWarning = undefined;
    try {
      const fresh = await freshResponse();
      fresh.serializeSuccess(fresh.SuccessResponse(1, 1));
      expect(warn.mock.calls).toStrictEqual([
        ["DeprecationWarning: serializeSuccess is deprecated and will be removed in 6.0; use toSuccessDict instead"],
      ]);
    } finally {
      process.emitWarning = emitWarning;
      warn.mockRestore();
    }
  });
});
