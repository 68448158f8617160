/**
 * Tests of the BUILT package (run after `npm run build`): its exports map, the ESM and CommonJS
 * entries of every subpath, the two builds agreeing on process-wide values, and its types
 * compiling under strict NodeNext resolution for both module formats.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const here = join(__dirname, "package");
const node = (file: string): Record<string, unknown> =>
  JSON.parse(execFileSync(process.execPath, [join(here, file)], { encoding: "utf8" })) as Record<string, unknown>;

const nothingMissing = (missing: unknown): void => {
  for (const [specifier, names] of Object.entries(missing as Record<string, string[]>)) {
    expect({ specifier, names }).toEqual({ specifier, names: [] });
  }
};

/** What esm.mjs and cjs.cjs report of rpcserver/pipeline: the same in both formats. */
const pipelineReport = {
  identity: { timeout: true, observe: true },
  answer: '{"jsonrpc":"2.0","result":"pong","id":3}',
  asyncAnswer: '[{"jsonrpc":"2.0","result":"pong","id":4}]',
  stagedAnswer: '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeoutMs":5}},"id":5}',
  observed: ["slow 5"],
};

beforeAll(() => {
  if (!existsSync(join(__dirname, "..", "dist", "esm", "index.js"))) {
    throw new globalThis.Error("dist/ is missing: run `npm run build` first (npm test does)");
  }
});

test("every subpath loads through the ESM entry with every public name", () => {
  const out = node("esm.mjs");
  nothingMissing(out["missing"]);
  expect(out["identity"]).toEqual({ dispatch: true, asyncDispatch: true, nodata: true, globalMethods: true });
  expect(out["answer"]).toBe('{"jsonrpc":"2.0","result":"pong","id":1}');
  expect(out["asyncAnswer"]).toBe('{"jsonrpc":"2.0","result":"pong","id":2}');
  expect(out["schemaTitle"]).toBe("JSON-RPC 2.0 request");
  expect(out["pipeline"]).toEqual(pipelineReport);
});

test("every subpath loads through the CommonJS entry; internals are not exported; both builds share state", () => {
  const out = node("cjs.cjs");
  nothingMissing(out["missing"]);
  expect(out["internal"]).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED");
  expect(out["dual"]).toEqual({
    nodata: true,
    globalMethods: true,
    esmSeesCjsMethod: '{"jsonrpc":"2.0","result":"pong","id":1}',
    jsonRpcError: '{"jsonrpc":"2.0","error":{"code":7,"message":"from cjs"},"id":1}',
  });
  expect(out["answer"]).toBe('{"jsonrpc":"2.0","result":"pong","id":1}');
  expect(out["schemaTitle"]).toBe("JSON-RPC 2.0 request");
  expect(out["pipeline"]).toEqual(pipelineReport);
});

test("subpaths.json lists every public name the built rpcserver/pipeline exports", () => {
  const listed = (JSON.parse(readFileSync(join(here, "subpaths.json"), "utf8")) as Record<string, string[]>)[
    "rpcserver/pipeline"
  ];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const built = require(join(__dirname, "..", "dist", "cjs", "pipeline.cjs")) as Record<string, unknown>;
  const exported = Object.keys(built).filter((name) => name !== "__esModule");
  expect([...(listed ?? [])].sort()).toEqual(exported.sort());
  for (const name of [
    "parse",
    "validate",
    "resolve",
    "call",
    "pipeline",
    "serialize",
    "toObjects",
    "toResponses",
    "dispatcher",
  ]) {
    expect(listed).toContain(name);
  }
});

test("the built types compile under strict NodeNext, ESM and CommonJS", () => {
  const tsc = join(__dirname, "..", "node_modules", "typescript", "bin", "tsc");
  let output = "";
  try {
    execFileSync(process.execPath, [tsc, "-p", join(here, "types", "tsconfig.json")], { encoding: "utf8" });
  } catch (error) {
    output = String((error as { stdout?: string }).stdout ?? error);
  }
  expect(output).toBe("");
});
