/**
 * The protocol's two eras on one `mcpHandler`, request by request (web `Request`s, no socket): a
 * request of the 2026-07-28 era (its `_meta` envelope, its headers) served statelessly beside the
 * 2025-11-25 handshake, and attacked: a missing or contradictory envelope, headers that contradict
 * the body, versions and methods it does not speak, undeclared capabilities, and a `requestState`
 * forged, altered, replayed on another call, or oversized. Each gets the spec's error and status;
 * nothing throws, and the server answers the next request.
 */
import { webcrypto } from "node:crypto";
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { asyncDispatch } from "../src/index";
import { mcpHandler, mcpServer, text, tool } from "../src/mcp";

const URL_ = "http://127.0.0.1:3000/mcp";
const VERSION = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
};

type Answer = {
  readonly status: number;
  readonly body: {
    readonly id?: unknown;
    readonly result?: Record<string, unknown>;
    readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
  } | null;
};

const ask = (name: string) =>
  tool({
    description: "Asks the user for a name",
    run: async (_args, ctx) =>
      E.map((answer: Record<string, unknown>) => [text(`Hello ${JSON.stringify(answer["content"])}`)])(
        await ctx.elicit({ message: "Name?", requestedSchema: { type: "object", properties: {} } }, name)(),
      ),
  });

const server = mcpServer({
  name: "eras",
  version: "1.0.0",
  stateKey: "a key every process of the test shares",
  caching: { ttlMs: 1000, cacheScope: "public" },
  tools: {
    add: tool({
      description: "Adds",
      input: t.type({ a: t.number, b: t.number }),
      run: ({ a, b }) => E.right(String(a + b)),
    }),
    samples: tool({ description: "Needs sampling", requires: { sampling: {} }, run: () => E.right("sampled") }),
    greet: ask("user_name"),
    other: ask("user_name"),
  },
  resources: {
    "test://a": { name: "a", read: (uri) => E.right({ uri, text: "A" }) },
  },
});
const handler = mcpHandler(server);

/** A POST of the 2026 era: the standard headers from the body unless `headers` says otherwise. */
const modern = async (
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
  id: unknown = 7,
): Promise<Answer> => {
  const body = { jsonrpc: "2.0", id, method, params: { _meta: META, ...params } };
  const named = params["name"] ?? params["uri"];
  const all: Record<string, string | undefined> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": VERSION,
    "Mcp-Method": method,
    ...(typeof named === "string" ? { "Mcp-Name": named } : {}),
    ...headers,
  };
  return send(JSON.stringify(body), all);
};

const send = async (body: string, headers: Record<string, string | undefined>): Promise<Answer> => {
  const given = Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const response = await handler(new Request(URL_, { method: "POST", headers: given, body }));
  const got = await response.text();
  return { status: response.status, body: got === "" ? null : (JSON.parse(got) as Answer["body"]) };
};

/**
 * WebCrypto (signing a requestState) on every Node: Node 18 has it only behind a flag, so there it is
 * given node:crypto's, the same implementation; and for the test of a runtime without it, taken
 * away while that test runs.
 */
const WEB_CRYPTO = Object.getOwnPropertyDescriptor(globalThis, "crypto");
if ((globalThis.crypto as typeof globalThis.crypto | undefined)?.subtle === undefined) {
  Object.defineProperty(globalThis, "crypto", { value: webcrypto, configurable: true, writable: true });
}
const webCrypto = test;
const noWebCrypto = (name: string, run: () => Promise<void>): void =>
  test(name, async () => {
    Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true, writable: true });
    try {
      await run();
    } finally {
      if (WEB_CRYPTO !== undefined) Object.defineProperty(globalThis, "crypto", WEB_CRYPTO);
      else Object.defineProperty(globalThis, "crypto", { value: webcrypto, configurable: true, writable: true });
    }
  });

/** A 2026 `tools/call` of `greet` on another server's handler `to`: `extra` params, `headers` beside the era's. */
const greetOn = async (
  to: (request: Request) => Promise<Response>,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) => {
  const response = await to(
    new Request(URL_, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "greet",
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { _meta: META, name: "greet", arguments: {}, ...extra },
      }),
    }),
  );
  return (await response.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
};

/** The answer is an error of `code` with HTTP `status`, the request's id echoed. */
const refusedWith = (answer: Answer, status: number, code: number, id: unknown = 7): void => {
  expect({ status: answer.status, code: answer.body?.error?.code, id: answer.body?.id }).toEqual({ status, code, id });
};

describe("the 2026-07-28 era beside the 2025-11-25 era", () => {
  test("server/discover: the versions, the capabilities, the server's identity in _meta, resultType and caching hints", async () => {
    const answer = await modern("server/discover");
    expect(answer.status).toBe(200);
    expect(answer.body?.result).toEqual({
      supportedVersions: [VERSION],
      capabilities: expect.objectContaining({
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
      }) as unknown,
      resultType: "complete",
      ttlMs: 1000,
      cacheScope: "public",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "eras", version: "1.0.0" } },
    });
  });

  test("a call: resultType complete and the server's identity; the 2025 era's answer to the same call is unchanged", async () => {
    const now = await modern("tools/call", { name: "add", arguments: { a: 1, b: 2 } });
    expect(now.body?.result).toEqual({
      content: [{ type: "text", text: "3" }],
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "eras", version: "1.0.0" } },
    });
    const before = await send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "add", arguments: { a: 1, b: 2 } },
      }),
      { "Content-Type": "application/json", Accept: "application/json", "MCP-Protocol-Version": "2025-11-25" },
    );
    expect(before).toEqual({
      status: 200,
      body: { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "3" }] } },
    });
  });

  test("initialize still starts a 2025 session; with the 2026 envelope it is a removed method: 404, -32601", async () => {
    const legacy = await send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      }),
      { "Content-Type": "application/json", Accept: "application/json" },
    );
    expect(legacy.body?.result?.["protocolVersion"]).toBe("2025-11-25");
    for (const removed of [
      "initialize",
      "ping",
      "logging/setLevel",
      "resources/subscribe",
      "resources/unsubscribe",
      "unknown/method",
    ]) {
      refusedWith(await modern(removed, removed.startsWith("resources/") ? { uri: "test://a" } : {}), 404, -32601);
    }
  });

  test("a missing or incomplete _meta envelope: 400, -32602, the id echoed", async () => {
    const headers = {
      "Content-Type": "application/json",
      "MCP-Protocol-Version": VERSION,
      "Mcp-Method": "server/discover",
    };
    const without = (params: unknown): string =>
      JSON.stringify({ jsonrpc: "2.0", id: "x", method: "server/discover", params });
    refusedWith(await send(without({}), headers), 400, -32602, "x");
    refusedWith(await send(without(undefined), headers), 400, -32602, "x");
    refusedWith(await send(without({ _meta: "not an object" }), headers), 400, -32602, "x");
    refusedWith(
      await send(without({ _meta: { "io.modelcontextprotocol/protocolVersion": VERSION } }), headers),
      400,
      -32602,
      "x",
    );
    refusedWith(
      await send(without({ _meta: { "io.modelcontextprotocol/clientCapabilities": {} } }), headers),
      400,
      -32602,
      "x",
    );
    refusedWith(
      await send(without({ _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": [] } }), headers),
      400,
      -32602,
      "x",
    );
    refusedWith(
      await modern("tools/list", { _meta: { ...META, "io.modelcontextprotocol/logLevel": "loud" } }),
      400,
      -32602,
    );
  });

  test("headers that contradict the body: 400, -32020 (a version checked against the header before it is looked up)", async () => {
    refusedWith(await modern("tools/list", {}, { "MCP-Protocol-Version": undefined }), 400, -32020);
    refusedWith(await modern("tools/list", {}, { "MCP-Protocol-Version": "2025-11-25" }), 400, -32020);
    refusedWith(
      await modern("tools/list", { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "v999.0.0" } }),
      400,
      -32020,
    );
    refusedWith(await modern("tools/list", {}, { "Mcp-Method": undefined }), 400, -32020);
    refusedWith(await modern("tools/list", {}, { "Mcp-Method": "TOOLS/LIST" }), 400, -32020);
    refusedWith(
      await modern("tools/call", { name: "add", arguments: { a: 1, b: 2 } }, { "Mcp-Name": "samples" }),
      400,
      -32020,
    );
    refusedWith(await modern("resources/read", { uri: "test://a" }, { "Mcp-Name": undefined }), 400, -32020);
    refusedWith(
      await modern("tools/call", { name: "add", arguments: { a: 1, b: 2 } }, { "Mcp-Name": "=?base64?YWRk?" }),
      400,
      -32020,
    );
    // Padding around a value is no difference; a name in base64 is its decoding.
    expect(
      (await modern("tools/call", { name: "add", arguments: { a: 1, b: 2 } }, { "Mcp-Name": "  add  " })).status,
    ).toBe(200);
    expect(
      (await modern("tools/call", { name: "add", arguments: { a: 1, b: 2 } }, { "Mcp-Name": "=?base64?YWRk?=" }))
        .status,
    ).toBe(200);
  });

  test("a version of neither era: 400, -32022 naming the versions spoken and the one asked", async () => {
    const answer = await modern(
      "tools/list",
      { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "v999.0.0" } },
      { "MCP-Protocol-Version": "v999.0.0" },
    );
    refusedWith(answer, 400, -32022);
    expect(answer.body?.error?.data).toEqual({ supported: [VERSION], requested: "v999.0.0" });
  });

  test("a tool that needs a capability the request does not declare: 400, -32021 naming it", async () => {
    const answer = await modern("tools/call", { name: "samples", arguments: {} });
    refusedWith(answer, 400, -32021);
    expect(answer.body?.error?.data).toEqual({ requiredCapabilities: { sampling: {} } });
    const declared = await modern("tools/call", {
      name: "samples",
      _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": { sampling: {} } },
    });
    expect(declared.body?.result?.["content"]).toEqual([{ type: "text", text: "sampled" }]);
  });

  test("a batch, and a notification, of the 2026 era: 400 -32600, and 202 with no body", async () => {
    const one = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } };
    refusedWith(
      await send(JSON.stringify([one, one]), { "Content-Type": "application/json", "MCP-Protocol-Version": VERSION }),
      400,
      -32600,
      null,
    );
    const note = await send(
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized", params: { _meta: META } }),
      {
        "Content-Type": "application/json",
        "MCP-Protocol-Version": VERSION,
      },
    );
    expect(note).toEqual({ status: 202, body: null });
  });

  test("a missing resource: -32602 with its URI, not -32002", async () => {
    const answer = await modern("resources/read", { uri: "test://none" });
    expect(answer.body?.error).toEqual({
      code: -32602,
      message: expect.any(String) as string,
      data: { uri: "test://none" },
    });
  });

  webCrypto(
    "input_required: an ask with no answer ends the call with it and a signed state; the answer completes it",
    async () => {
      const first = await modern("tools/call", { name: "greet", arguments: {} });
      expect(first.body?.result).toEqual({
        resultType: "input_required",
        inputRequests: { user_name: { method: "elicitation/create", params: expect.any(Object) as unknown } },
        requestState: expect.any(String) as string,
        _meta: expect.any(Object) as unknown,
      });
      const state = first.body?.result?.["requestState"] as string;
      const answered = await modern(
        "tools/call",
        {
          name: "greet",
          arguments: {},
          requestState: state,
          inputResponses: { user_name: { action: "accept", content: { name: "Ann" } } },
        },
        {},
        8,
      );
      expect(answered.body?.result?.["content"]).toEqual([{ type: "text", text: 'Hello {"name":"Ann"}' }]);
      expect(answered.body?.result?.["resultType"]).toBe("complete");
      // An answer of the wrong shape is asked again, never taken.
      const wrong = await modern("tools/call", { name: "greet", arguments: {}, inputResponses: { user_name: 12345 } });
      expect(wrong.body?.result?.["resultType"]).toBe("input_required");
      refusedWith(await modern("tools/call", { name: "greet", arguments: {}, inputResponses: null }), 400, -32602);
    },
  );

  webCrypto(
    "a requestState forged, altered, another call's, oversized or not a text: -32602, and the server goes on",
    async () => {
      const first = await modern("tools/call", { name: "greet", arguments: {} });
      const state = first.body?.result?.["requestState"] as string;
      const [payload = "", signature = ""] = state.split(".");
      const forged = `${Buffer.from(JSON.stringify({ call: 'tools/call "greet"', answers: { user_name: { action: "accept" } }, expires: Date.now() + 1e6 })).toString("base64url")}.${signature}`;
      const flipped = `${payload.slice(0, -1)}${payload.endsWith("A") ? "B" : "A"}.${signature}`;
      for (const requestState of [
        `${state}-TAMPERED`,
        forged,
        flipped,
        "not.a.state",
        "",
        "x".repeat(70 * 1024),
        `${payload}.${"A".repeat(43)}`,
        42,
        { nested: true },
      ]) {
        const answer = await modern("tools/call", { name: "greet", arguments: {}, requestState });
        expect({ requestState: String(requestState).slice(0, 20), code: answer.body?.error?.code }).toEqual({
          requestState: String(requestState).slice(0, 20),
          code: -32602,
        });
      }
      // Bound to its call: the same state on another tool is refused.
      const elsewhere = await modern("tools/call", { name: "other", arguments: {}, requestState: state });
      expect(elsewhere.body?.error?.code).toBe(-32602);
      // And a state signed under another key (another server's) does not hold here.
      const stranger = mcpHandler(
        mcpServer({ name: "eras", version: "1.0.0", stateKey: "another key", tools: { greet: ask("user_name") } }),
      );
      const theirState = (await greetOn(stranger)).result?.["requestState"];
      expect(
        (await modern("tools/call", { name: "greet", arguments: {}, requestState: theirState })).body?.error?.code,
      ).toBe(-32602);
      expect((await modern("tools/list")).status).toBe(200);
    },
  );

  webCrypto("stateOwner: a requestState is its user's; another user's, or none where one was, is refused", async () => {
    const owned = mcpHandler(
      mcpServer({
        name: "eras",
        version: "1.0.0",
        stateKey: "a key every process of the test shares",
        stateOwner: ({ httpRequest }) => httpRequest?.headers.get("authorization") ?? undefined,
        tools: { greet: ask("user_name") },
      }),
    );
    const call = (authorization: string | undefined, extra: Record<string, unknown> = {}) =>
      greetOn(owned, extra, authorization !== undefined ? { Authorization: authorization } : {});
    const first = await call("Bearer ann");
    const requestState = first.result?.["requestState"] as string;
    // The user's name is not in the state: only its tag.
    expect(Buffer.from(requestState.split(".")[0] ?? "", "base64url").toString()).not.toContain("ann");
    const answers = { user_name: { action: "accept", content: { name: "Ann" } } };
    expect((await call("Bearer bob", { requestState, inputResponses: answers })).error).toEqual({
      code: -32602,
      message: "Invalid params: requestState is another user's",
    });
    expect((await call(undefined, { requestState, inputResponses: answers })).error?.code).toBe(-32602);
    expect((await call("Bearer ann", { requestState, inputResponses: answers })).result?.["content"]).toEqual([
      { type: "text", text: 'Hello {"name":"Ann"}' },
    ]);
    // A state made with no user named holds for no user.
    const anonymous = (await call(undefined)).result?.["requestState"] as string;
    expect((await call("Bearer ann", { requestState: anonymous })).error?.code).toBe(-32602);
  });

  test("lists and reads carry the caching hints; input_required results and calls do not", async () => {
    for (const [method, params] of [
      ["tools/list", {}],
      ["resources/list", {}],
      ["resources/templates/list", {}],
      ["resources/read", { uri: "test://a" }],
    ] as const) {
      const answer = await modern(method, params);
      expect({
        method,
        ttlMs: answer.body?.result?.["ttlMs"],
        cacheScope: answer.body?.result?.["cacheScope"],
      }).toEqual({
        method,
        ttlMs: 1000,
        cacheScope: "public",
      });
    }
    const called = await modern("tools/call", { name: "add", arguments: { a: 1, b: 1 } });
    expect(called.body?.result?.["ttlMs"]).toBeUndefined();
  });

  noWebCrypto(
    "without WebCrypto (as Node 18 unflagged): an ask is -32603 naming what is missing; the rest is served",
    async () => {
      const answer = await modern("tools/call", { name: "greet", arguments: {} });
      expect(answer.body?.error).toEqual({ code: -32603, message: expect.stringContaining("WebCrypto") as string });
      const state = await modern("tools/call", { name: "greet", arguments: {}, requestState: "YQ.YQ" });
      expect(state.body?.error?.code).toBe(-32603);
      expect(
        (await modern("tools/call", { name: "add", arguments: { a: 1, b: 2 } })).body?.result?.["content"],
      ).toEqual([{ type: "text", text: "3" }]);
    },
  );

  test("an x-mcp-header that is no HTTP field name is refused when the server is made, naming the tool", () => {
    const regional = (name: unknown) =>
      tool({
        description: "By region",
        input: {
          jsonSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": name } } },
        },
        run: () => E.right("ok"),
      });
    for (const name of ["My Region", "Ré", "", 7]) {
      expect(() => mcpServer({ name: "x", version: "1", tools: { regional: regional(name) } })).toThrow(
        /^mcpServer: the tool regional's argument region has x-mcp-header/,
      );
    }
    expect(() => mcpServer({ name: "x", version: "1", tools: { regional: regional("Region") } })).not.toThrow();
  });

  test("an empty stateKey is refused when the server is made", () => {
    expect(() => mcpServer({ name: "x", version: "1", stateKey: "" })).toThrow(/stateKey/);
  });

  test("over a connection (no headers): the envelope's checks are the server's stages, each its JSON-RPC error", async () => {
    type Got = { result?: Record<string, unknown>; error?: { code: number; data?: unknown } };
    const over = async (method: string, params?: unknown): Promise<Got> =>
      JSON.parse(
        (await asyncDispatch(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), server.methods, {
          stages: server.stages,
          context: {},
        })) as string,
      ) as Got;
    const version = (requested: string) => ({ ...META, "io.modelcontextprotocol/protocolVersion": requested });
    expect(
      (await over("tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": VERSION } })).error?.code,
    ).toBe(-32602);
    expect((await over("tools/list", { _meta: version("v999.0.0") })).error).toEqual({
      code: -32022,
      message: "Unsupported protocol version",
      data: { supported: [VERSION], requested: "v999.0.0" },
    });
    expect((await over("ping", { _meta: META })).error?.code).toBe(-32601);
    expect((await over("tools/call", { _meta: META, name: "samples" })).error).toEqual({
      code: -32021,
      message: "Missing required client capability",
      data: { requiredCapabilities: { sampling: {} } },
    });
    expect(
      (await over("tools/call", { _meta: META, name: "add", arguments: { a: 1, b: 2 } })).result?.["resultType"],
    ).toBe("complete");
    // The 2025 era on the same server and wire: ping, and a call answered as before.
    expect((await over("ping")).result).toEqual({});
    expect((await over("tools/call", { name: "add", arguments: { a: 1, b: 2 } })).result).toEqual({
      content: [{ type: "text", text: "3" }],
    });
  });
});
