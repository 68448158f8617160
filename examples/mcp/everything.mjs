/**
 * The conformance fixture: every tool, resource and prompt the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`) calls, named as it names them, declared with rpcserver/mcp
 * and served over Streamable HTTP:
 *
 *     npm run build && node examples/mcp/everything.mjs     # http://127.0.0.1:3000/mcp (PORT=0: a free port)
 *     npx conformance server --url http://127.0.0.1:3000/mcp
 *     node node_modules/@modelcontextprotocol/conformance-next/dist/index.js server \
 *       --url http://127.0.0.1:3000/mcp --spec-version 2026-07-28 --suite all
 *
 * One server for both protocol eras: the 2025-11-25 suite (0.1.16) and the 2026-07-28 one
 * (0.2.0-alpha.12, `conformance-next`), whose tools (`test_missing_capability`, the
 * `test_input_required_result_*` ones...) are here too. Processes that serve one client together
 * share `MCP_STATE_KEY` (the fixture has a fixed default). tests/mcp-conformance.test.ts runs the
 * suites against it on Node 22 (docs/mcp.md says which scenarios pass); on Node 18 run it with
 * --experimental-global-webcrypto (WebCrypto signs requestState).
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { audio, embedded, image, mcpHandler, mcpServer, mcpSessions, text, tool } from "rpcserver/mcp";
import { nodeGlue } from "./node-glue.mjs";

/** A 1x1 red PNG, and a WAV of one silent sample. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQIAAACAgA==";

const pause = (ms, signal) =>
  new Promise((settle, fail) => {
    const stop = () => (clearTimeout(timer), fail(signal.reason));
    const timer = setTimeout(() => (signal.removeEventListener("abort", stop), settle()), ms);
    signal.addEventListener("abort", stop, { once: true });
  });

/** A tool that asks the client and answers what it said: `elicitation/create` or `sampling/createMessage`. */
const asking = (description, input, ask, say) =>
  tool({ description, input, run: async (args, ctx) => E.map(say)(await ask(args, ctx)()) });

const elicitSay = (answer) => [
  text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`),
];
const option = (value, title) => ({ const: value, title });

/**
 * The 2026-07-28 era's multi-round asks: each names its input request (`user_name`...), and the
 * tool runs again, whole, with the client's answers, until none is missing.
 */
const askName = (ctx, key = "user_name") =>
  ctx.elicit(
    {
      mode: "form",
      message: "What is your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    },
    key,
  )();
const askModel = (ctx) =>
  ctx.sample(
    { messages: [{ role: "user", content: { type: "text", text: "Say hello" } }], maxTokens: 50 },
    "model_reply",
  )();
const askRoots = (ctx) => ctx.request("roots/list", {}, "client_roots")();
const said = (answer) => JSON.stringify(answer.content ?? answer.roots ?? answer);
/** A tool that asks what `asks` asks, all at once, and answers with what the client said. */
const multiRound = (description, asks) =>
  tool({
    description,
    run: async (_args, ctx) => {
      const answered = E.sequenceArray(await Promise.all(asks.map((ask) => ask(ctx))));
      return E.map((all) => [text(`Received: ${all.map(said).join(", ")}`)])(answered);
    },
  });

/**
 * The suite's hooks change a list by declaring one of its entries again, as it is: every listener
 * hears of the change, and the list the other scenarios read stays the same.
 */
const redeclare = (list, name) => {
  everything.change({ [list]: { [name]: spec[list][name] } });
  return E.right(`${name} declared again`);
};

const spec = {
  name: "rpcserver-everything",
  version: "1.0.0",
  // Every process of the fixture signs requestState with this key (2026-07-28 era).
  stateKey: process.env.MCP_STATE_KEY ?? "rpcserver-everything-fixture-key",
  caching: { ttlMs: 60_000, cacheScope: "public" },
  tools: {
    test_simple_text: tool({
      description: "Returns a simple text",
      run: () => E.right([text("This is a simple text response for testing.")]),
    }),
    test_image_content: tool({ description: "Returns an image", run: () => E.right([image(PNG, "image/png")]) }),
    test_audio_content: tool({ description: "Returns audio", run: () => E.right([audio(WAV, "audio/wav")]) }),
    test_embedded_resource: tool({
      description: "Returns an embedded resource",
      run: () =>
        E.right([
          embedded({
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content.",
          }),
        ]),
    }),
    test_multiple_content_types: tool({
      description: "Returns text, an image and a resource",
      run: () =>
        E.right([
          text("Multiple content types test:"),
          image(PNG, "image/png"),
          embedded({
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: '{"test":"data","value":123}',
          }),
        ]),
    }),
    test_tool_with_logging: tool({
      description: "Sends three log messages while it runs",
      run: async (_args, { log, signal }) => {
        log("info", "Tool execution started");
        await pause(50, signal);
        log("info", "Tool processing data");
        await pause(50, signal);
        log("info", "Tool execution completed");
        return E.right("Logging completed");
      },
    }),
    test_error_handling: tool({
      description: "Always fails",
      run: () => E.left("This tool intentionally returns an error for testing"),
    }),
    test_tool_with_progress: tool({
      description: "Reports progress 0, 50 and 100 of 100",
      run: async function* (_args, { signal }) {
        yield { progress: 0, total: 100 };
        await pause(50, signal);
        yield { progress: 50, total: 100 };
        await pause(50, signal);
        yield { progress: 100, total: 100 };
        return E.right("Progress completed");
      },
    }),
    test_sampling: asking(
      "Asks the client's model",
      t.type({ prompt: t.string }),
      ({ prompt }, ctx) =>
        ctx.sample({ messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 }),
      (answer) => [text(`LLM response: ${answer.content?.text ?? JSON.stringify(answer.content)}`)],
    ),
    test_elicitation: asking(
      "Asks the user for a name and an email address",
      t.type({ message: t.string }),
      ({ message }, ctx) =>
        ctx.elicit({
          message,
          requestedSchema: {
            type: "object",
            properties: {
              username: { type: "string", description: "User's response" },
              email: { type: "string", description: "User's email address" },
            },
            required: ["username", "email"],
          },
        }),
      (answer) => [text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)],
    ),
    test_elicitation_sep1034_defaults: asking(
      "Asks the user, with a default for each field",
      undefined,
      (_args, ctx) =>
        ctx.elicit({
          message: "Please review your information",
          requestedSchema: {
            type: "object",
            properties: {
              name: { type: "string", default: "John Doe" },
              age: { type: "integer", default: 30 },
              score: { type: "number", default: 95.5 },
              status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
              verified: { type: "boolean", default: true },
            },
          },
        }),
      elicitSay,
    ),
    test_elicitation_sep1330_enums: asking(
      "Asks the user to choose, with each kind of enum",
      undefined,
      (_args, ctx) =>
        ctx.elicit({
          message: "Please choose",
          requestedSchema: {
            type: "object",
            properties: {
              untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
              titledSingle: {
                type: "string",
                oneOf: [
                  option("value1", "First Option"),
                  option("value2", "Second Option"),
                  option("value3", "Third Option"),
                ],
              },
              legacyEnum: {
                type: "string",
                enum: ["opt1", "opt2", "opt3"],
                enumNames: ["Option One", "Option Two", "Option Three"],
              },
              untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
              titledMulti: {
                type: "array",
                items: {
                  anyOf: [
                    option("value1", "First Choice"),
                    option("value2", "Second Choice"),
                    option("value3", "Third Choice"),
                  ],
                },
              },
            },
          },
        }),
      elicitSay,
    ),
    // The 2026-07-28 suite's hooks: each changes a list, which its subscriptions/listen streams hear of.
    test_trigger_tool_change: tool({
      description: "Declares the tool test_simple_text again (notifications/tools/list_changed)",
      run: () => redeclare("tools", "test_simple_text"),
    }),
    test_trigger_prompt_change: tool({
      description: "Declares the prompt test_simple_prompt again (notifications/prompts/list_changed)",
      run: () => redeclare("prompts", "test_simple_prompt"),
    }),
    test_missing_capability: tool({
      description: "Needs the client's sampling capability (2026-07-28: -32021 without it)",
      requires: { sampling: {} },
      run: () => E.right("The client declared sampling"),
    }),
    test_streaming_elicitation: multiRound("Asks the user for a name (2026-07-28: input_required)", [askName]),
    test_logging_tool: tool({
      description: "Logs at info (2026-07-28: sent only when the request asks for a log level)",
      run: (_args, { log }) => {
        log("info", "Logging tool ran");
        return E.right("Logged");
      },
    }),
    test_input_required_result_elicitation: multiRound("Asks the user for a name", [askName]),
    test_input_required_result_sampling: multiRound("Asks the client's model", [askModel]),
    test_input_required_result_list_roots: multiRound("Asks the client's roots", [askRoots]),
    test_input_required_result_request_state: tool({
      description: "Asks for a confirmation, carrying state",
      run: async (_args, ctx) => {
        const answer = await ctx.elicit(
          {
            mode: "form",
            message: "Confirm?",
            requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
          },
          "confirm",
        )();
        return E.map((confirmed) => [text(`state-ok: ${said(confirmed)}`)])(answer);
      },
    }),
    test_input_required_result_multiple_inputs: multiRound("Asks the user, the model and the roots at once", [
      askName,
      askModel,
      askRoots,
    ]),
    test_input_required_result_multi_round: tool({
      description: "Asks the user twice, one round after the other",
      run: async (_args, ctx) => {
        const first = await askName(ctx, "step_1");
        if (E.isLeft(first)) return first;
        const second = await askName(ctx, "step_2");
        return E.map((answer) => [text(`Rounds: ${said(first.right)}, ${said(answer)}`)])(second);
      },
    }),
    test_input_required_result_tampered_state: multiRound("Asks the user, carrying state", [askName]),
    test_input_required_result_capabilities: multiRound("Asks only what the client can answer", [askName, askModel]),
    test_custom_header: tool({
      description: "Echoes a region sent as the Mcp-Param-Region header too (2026-07-28, x-mcp-header)",
      input: {
        jsonSchema: {
          type: "object",
          properties: { region: { type: "string", "x-mcp-header": "Region" } },
          required: ["region"],
        },
      },
      run: ({ region }) => E.right(`Region: ${region}`),
    }),
    json_schema_2020_12_tool: tool({
      description: "Tool with JSON Schema 2020-12 features",
      input: {
        jsonSchema: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          $defs: {
            address: {
              $anchor: "addressDef",
              type: "object",
              properties: { street: { type: "string" }, city: { type: "string" } },
            },
          },
          properties: {
            name: { type: "string" },
            address: { $ref: "#/$defs/address" },
            contactMethod: { type: "string", enum: ["phone", "email"] },
            phone: { type: "string" },
            email: { type: "string" },
          },
          allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
          if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
          then: { required: ["phone"] },
          else: { required: ["email"] },
          additionalProperties: false,
        },
      },
      run: (args) => E.right(`Received: ${JSON.stringify(args)}`),
    }),
  },
  resources: {
    "test://static-text": {
      name: "static-text",
      description: "A text resource",
      mimeType: "text/plain",
      read: (uri) => E.right({ uri, mimeType: "text/plain", text: "This is the content of the static text resource." }),
    },
    "test://static-binary": {
      name: "static-binary",
      description: "A binary resource (a PNG)",
      mimeType: "image/png",
      read: (uri) => E.right({ uri, mimeType: "image/png", blob: PNG }),
    },
    "test://watched-resource": {
      name: "watched-resource",
      description: "A resource to subscribe to",
      mimeType: "text/plain",
      read: (uri) => E.right({ uri, mimeType: "text/plain", text: "Watched resource content" }),
    },
  },
  templates: {
    "test://template/{id}/data": {
      name: "template-data",
      description: "Data for an id",
      mimeType: "application/json",
      read: (uri, { id }) =>
        E.right({
          uri,
          mimeType: "application/json",
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        }),
      complete: { id: (value) => ["1", "2", "3", "123"].filter((id) => id.startsWith(value)) },
    },
  },
  prompts: {
    test_simple_prompt: {
      description: "A prompt without arguments",
      get: () => E.right([{ role: "user", content: text("This is a simple prompt for testing.") }]),
    },
    test_prompt_with_arguments: {
      description: "A prompt with two arguments",
      arguments: [
        { name: "arg1", description: "First test argument", required: true },
        { name: "arg2", description: "Second test argument", required: true },
      ],
      get: ({ arg1, arg2 }) =>
        E.right([{ role: "user", content: text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`) }]),
      complete: { arg1: (value) => ["paris", "park", "party"].filter((word) => word.startsWith(value)) },
    },
    test_prompt_with_embedded_resource: {
      description: "A prompt that embeds a resource",
      arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
      get: ({ resourceUri }) =>
        E.right([
          {
            role: "user",
            content: embedded({
              uri: resourceUri,
              mimeType: "text/plain",
              text: "Embedded resource content for testing.",
            }),
          },
          { role: "user", content: text("Please process the embedded resource above.") },
        ]),
    },
    test_input_required_result_prompt: {
      description: "A prompt that asks the user for a name first",
      get: async (_args, _signal, ctx) =>
        E.map((answer) => [{ role: "user", content: text(`Write a greeting for ${said(answer)}`) }])(
          await askName(ctx),
        ),
    },
    test_prompt_with_image: {
      description: "A prompt with an image",
      get: () =>
        E.right([
          { role: "user", content: image(PNG, "image/png") },
          { role: "user", content: text("Please analyze the image above.") },
        ]),
    },
  },
};
export const everything = mcpServer(spec);

// Run as a program (not imported, as examples/mcp/nats.mjs imports the declaration): served here.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Sessions on: the suite's server-sse-multiple-streams asks for an `Mcp-Session-Id`. Their ids from
  // node:crypto, as Node 18 has no `globalThis.crypto` (elsewhere, `sessions: true` is enough).
  const handler = mcpHandler(everything, { sessions: mcpSessions({ id: randomUUID }) });
  listen(handler, process.env.PORT);
}

/** Serves `handler` on 127.0.0.1:`port` at /mcp (`port` 0 or `"0"`: a free one; none: 3000), and says where. */
export function listen(handler, port) {
  const serveNode = nodeGlue(handler);
  const HOST = "127.0.0.1";
  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? "/", "http://localhost");
    if (pathname !== "/mcp") return res.writeHead(404).end();
    serveNode(req, res).catch((error) => {
      console.error(`everything: ${error}`);
      res.destroy();
    });
  });
  const at = port === undefined || port === "" ? 3000 : Number(port);
  server.listen(at, HOST, () => console.log(`listening on http://${HOST}:${server.address().port}/mcp`));
  return server;
}
