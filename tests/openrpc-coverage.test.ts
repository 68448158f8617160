/**
 * A client no one here wrote, driven by the document alone: `@open-rpc/test-coverage` reads the
 * OpenRPC document the development server itself answers `rpc.discover` with (the built
 * `rpcserver examples/methods.mjs`), calls the server at the URL the document gives in `servers`,
 * over its own HTTP transport, and checks every answer:
 *
 * - its examples rule sends each example's params (by name or by position, as `paramStructure`
 *   says) and expects the example's result: every example of every method must pass;
 * - its json-schema-faker rule sends generated params to the methods whose every valid input has a
 *   success answer, and checks each result against the result schema.
 *
 * Runs offline: the only network is the loopback interface.
 */
import coverage from "@open-rpc/test-coverage";
import ExamplesRule from "@open-rpc/test-coverage/build/rules/examples-rule";
import JsonSchemaFakerRule from "@open-rpc/test-coverage/build/rules/json-schema-faker-rule";
import type { Call } from "@open-rpc/test-coverage/build/coverage";
import type { OpenRpcDocument } from "../src";
import { HOST, killAll, requireBuild, startCli, type Serving } from "./helpers/processes";

let server: Serving;
let document: OpenRpcDocument;

/** A reporter that reports nothing: the calls it is given back are what the test checks. */
const quiet = {
  onBegin: () => undefined,
  onTestBegin: () => undefined,
  onTestEnd: () => undefined,
  onEnd: () => undefined,
};

beforeAll(async () => {
  requireBuild();
  server = await startCli(["examples/methods.mjs", "--host", HOST, "--port", "0"]);
  const response = await fetch(server.url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", method: "rpc.discover", id: 1 }),
  });
  document = ((await response.json()) as { result: OpenRpcDocument }).result;
});

afterAll(() => {
  killAll();
});

/** What went wrong with a call, for a readable failure. */
const outcome = (call: Call): { title: string; valid: boolean | undefined; reason?: string } => ({
  title: `${call.methodName}: ${call.title}`,
  valid: call.valid,
  ...(call.valid === true ? {} : { reason: call.reason ?? JSON.stringify(call.error ?? call.requestError) }),
});

test("the document names the server it came from", () => {
  expect(document.servers).toEqual([{ name: "development server", url: server.url }]);
});

test("@open-rpc/test-coverage: every example of every method passes against the development server", async () => {
  const calls = await coverage({
    openrpcDocument: document as never,
    transport: "http",
    reporters: [quiet],
    rules: [new ExamplesRule()],
  });
  const examples = document.methods.flatMap((m) => (m.examples ?? []).map((example) => `${m.name}/${example.name}`));
  // Every method with a fixed answer has examples; withdraw (it changes the balance) and crash
  // (it always fails) have none.
  expect(document.methods.filter((m) => (m.examples ?? []).length === 0).map((m) => m.name)).toEqual([
    "withdraw",
    "crash",
  ]);
  expect(examples.length).toBeGreaterThanOrEqual(8);
  expect(calls).toHaveLength(examples.length);
  expect(calls.map(outcome).filter((call) => call.valid !== true)).toEqual([]);
  // The rule also passes a result that differs from the example's but fits the schema: here each
  // result must be the example's own.
  for (const call of calls) {
    expect({ method: call.methodName, result: call.result }).toEqual({
      method: call.methodName,
      result: call.expectedResult,
    });
  }
  expect(calls.map((call) => call.methodName).sort()).toEqual(examples.map((name) => name.split("/")[0]).sort());
});

test("@open-rpc/test-coverage: generated params, results checked against the result schemas", async () => {
  const only = ["ping", "add", "greet"];
  const calls = await coverage({
    openrpcDocument: document as never,
    transport: "http",
    reporters: [quiet],
    rules: [new JsonSchemaFakerRule({ only, numCalls: 10 } as never)],
    only,
  });
  // The faker rule skips methods with examples; so that it calls these, their examples are removed.
  expect(calls).toEqual([]);
  const bare = { ...document, methods: document.methods.map(({ examples: _examples, ...m }) => m) };
  const generated = await coverage({
    openrpcDocument: bare as never,
    transport: "http",
    reporters: [quiet],
    rules: [new JsonSchemaFakerRule({ only, numCalls: 10 } as never)],
    only,
  });
  expect(generated.length).toBe(1 + 10 + 10);
  expect(generated.map(outcome).filter((call) => call.valid !== true)).toEqual([]);
});
