/**
 * `mcpServer`: an MCP server declared from its tools, resources, templates and prompts, made a
 * contract's server (methods and stages) that every rpcserver wire serves: a connection (stdio,
 * through `connect`) and HTTP (`mcpHandler`). It answers `initialize` (the client's protocol version
 * if supported, else the newest; capabilities from what is declared), `ping`, the declared
 * features' methods, `completion/complete` and `logging/setLevel`. `tools/call` is a streaming
 * method: what a tool sends while it runs (progress, log messages, requests to the client) are its
 * values, on the POST's event stream over HTTP; on a connection they go through its peer. A tool
 * that needs no stream (no generator, nothing sent before its answer) is answered as a plain method.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import type { Connection } from "../connection/options";
import { contract } from "../contract/contract";
import { server } from "../contract/implement";
import { isRecord, isThenable } from "../core/guards";
import type { Methods } from "../core/methods";
import type { AnyStage } from "../core/stages";
import { settled, listed, templateMatcher, type Prompt, type Resource, type ResourceTemplate } from "./catalog";
import { ToolCall } from "./call";
import { checkHeaderNames, envelopeStage, MODERN_VERSIONS } from "./era";
import { noOutbox, peerOutbox, Replies, streamOutbox } from "./outbox";
import {
  LOG_LEVELS,
  PROTOCOL_VERSIONS,
  RESOURCE_NOT_FOUND,
  SESSION_HEADER,
  type JsonObject,
  type LogLevel,
  type ToolResult,
} from "./protocol";
import { stateKeeper } from "./request-state";
import { inputsOutbox, statelessStage, type CacheHints, type EraContext } from "./stateless";
import { contextOf, Running, type Tool } from "./tools";

/**
 * An MCP server as declared: who it is, and its tools, resources (by URI), resource templates (by
 * URI template) and prompts, each by name.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface McpServerSpec {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  /** How to use the server, for the client's model. */
  readonly instructions?: string;
  readonly tools?: Readonly<Record<string, Tool>>;
  readonly resources?: Readonly<Record<string, Resource>>;
  readonly templates?: Readonly<Record<string, ResourceTemplate>>;
  readonly prompts?: Readonly<Record<string, Prompt>>;
  /** The least severe log level sent before the client sets one (`logging/setLevel`). Default `"info"`. */
  readonly logLevel?: LogLevel;
  /**
   * The key (any non-empty text) that signs the `requestState` of the 2026 era's `input_required`
   * results, the same for every process of the server (a state comes back to any of them). Default:
   * a key made at random when the server is made, so a state holds only on the process that made it.
   */
  readonly stateKey?: string;
  /** The 2026 era's caching hints on lists, reads and `server/discover`. Default `{ ttlMs: 0, cacheScope: "private" }`: not kept. */
  readonly caching?: CacheHints;
}

/**
 * An MCP server: its methods and stages (for `connect({ methods, stages, context: {}, cancellation:
 * "mcp" })`, or `mcpHandler` over HTTP), and what it answers `initialize` with.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface McpServer {
  readonly methods: Methods;
  readonly stages: ReadonlyArray<AnyStage>;
  readonly capabilities: JsonObject;
  /**
   * Hands the server a JSON-RPC response from the client (`session`: the `Mcp-Session-Id` it came
   * with, if any): `true` if it answered one of the server's requests asked of that session.
   */
  readonly reply: (message: unknown, session?: string) => boolean;
  /** A tool by its name (what the 2026 era checks a call's request against before dispatch: its `requires`, its `x-mcp-header`s). */
  readonly tool: (name: string) => Tool | undefined;
}

const Progress = t.unknown;
const NamedParams = t.type({ name: t.string });
const UriParams = t.type({ uri: t.string });

const mcp = contract({
  initialize: { params: t.type({ protocolVersion: t.string }), result: t.UnknownRecord, summary: "Starts the session" },
  "notifications/initialized": { summary: "The client is ready (a notification)" },
  ping: { result: t.UnknownRecord },
  "server/discover": { result: t.UnknownRecord, summary: "What the server speaks and offers (2026-07-28)" },
  "logging/setLevel": {
    params: t.type({ level: t.keyof(Object.fromEntries(LOG_LEVELS.map((l) => [l, null])) as Record<LogLevel, null>) }),
    result: t.UnknownRecord,
  },
  "tools/list": { result: t.UnknownRecord },
  "tools/call": {
    params: t.intersection([NamedParams, t.partial({ arguments: t.UnknownRecord })]),
    result: t.UnknownRecord,
    stream: Progress,
  },
  "resources/list": { result: t.UnknownRecord },
  "resources/templates/list": { result: t.UnknownRecord },
  "resources/read": { params: UriParams, result: t.UnknownRecord },
  "resources/subscribe": { params: UriParams, result: t.UnknownRecord },
  "resources/unsubscribe": { params: UriParams, result: t.UnknownRecord },
  "prompts/list": { result: t.UnknownRecord },
  "prompts/get": {
    params: t.intersection([NamedParams, t.partial({ arguments: t.record(t.string, t.string) })]),
    result: t.UnknownRecord,
  },
  "completion/complete": {
    params: t.type({
      ref: t.intersection([t.type({ type: t.string }), t.partial({ name: t.string, uri: t.string })]),
      argument: t.type({ name: t.string, value: t.string }),
    }),
    result: t.UnknownRecord,
  },
});

/** Which methods each capability brings (the rest are always there). */
const FEATURE_METHODS = {
  tools: ["tools/list", "tools/call"],
  resources: [
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
  ],
  prompts: ["prompts/list", "prompts/get"],
  completions: ["completion/complete"],
} as const;

type Ctx = EraContext & { readonly signal?: AbortSignal; readonly peer?: Connection; readonly request?: Request };

/** What `tools/call` answers: a result now or later, or the one stream of a tool's call. */
type Called =
  | E.Either<{ readonly code: number; readonly message: string }, JsonObject>
  | Promise<E.Either<never, JsonObject>>
  | AsyncGenerator<unknown, E.Either<never, JsonObject>>;

/** A tool's result, as the contract's `result` (any object) types it. */
const answered = (result: ToolResult): E.Either<never, JsonObject> => E.right(result as unknown as JsonObject);

/** A tool's call as the contract types a streaming handler's answer: the core reads it by its shape (`next`, `Symbol.asyncIterator`). */
const streamed = (call: ToolCall): Called => call as unknown as AsyncGenerator<unknown, E.Either<never, JsonObject>>;

const noWait = (): undefined => undefined;

/** The session a call over HTTP came in (its `Mcp-Session-Id`), whose answers alone its asks take. */
const sessionOf = (ctx: Ctx): string | undefined => ctx.request?.headers.get(SESSION_HEADER) || undefined;

const NEVER = new AbortController().signal;
const signalOf = (ctx: Ctx): AbortSignal => ctx.signal ?? NEVER;
const err = (code: number, message: string) => E.left({ code, message } as const);
const has = <V>(record: Readonly<Record<string, V>> | undefined, key: string): V | undefined =>
  record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
const entries = <V>(record: Readonly<Record<string, V>> | undefined): Array<[string, V]> =>
  Object.entries(record ?? {});

/**
 * An MCP server from its declaration.
 *
 * @example
 * import * as E from "fp-ts/lib/Either.js";
 * import * as t from "io-ts";
 * import { mcpServer, text, tool } from "rpcserver/mcp";
 * const mcp = mcpServer({
 *   name: "calculator",
 *   version: "1.0.0",
 *   tools: {
 *     add: tool({ description: "Adds two numbers", input: t.type({ a: t.number, b: t.number }), run: ({ a, b }) => E.right([text(String(a + b))]) }),
 *   },
 * });
 * mcp.capabilities; // { logging: {}, tools: { listChanged: false } }
 *
 * @since 5.0.10
 * @category mcp
 */
export const mcpServer = (spec: McpServerSpec): McpServer => {
  const { tools, resources, templates, prompts } = spec;
  for (const [name, declared] of entries(tools)) checkHeaderNames(name, declared);
  let level: LogLevel = spec.logLevel ?? "info";
  const subscribed = new Set<string>();
  const replies = new Replies();
  const matchers = entries(templates).map(([template, declared]) => ({
    template,
    declared,
    match: templateMatcher(template),
  }));
  const completes =
    entries(prompts).some(([, p]) => p.complete !== undefined) ||
    entries(templates).some(([, r]) => r.complete !== undefined);
  const hasResources = resources !== undefined || templates !== undefined;
  const capabilities: JsonObject = {
    logging: {},
    ...(completes ? { completions: {} } : {}),
    ...(prompts !== undefined ? { prompts: { listChanged: false } } : {}),
    ...(hasResources ? { resources: { subscribe: true, listChanged: false } } : {}),
    ...(tools !== undefined ? { tools: { listChanged: false } } : {}),
  };
  const serverInfo = {
    name: spec.name,
    version: spec.version,
    ...(spec.title !== undefined ? { title: spec.title } : {}),
  };
  // The 2026 era has no `resources/subscribe` (nor, yet here, `subscriptions/listen`).
  const modernCapabilities: JsonObject = {
    ...capabilities,
    ...(hasResources ? { resources: { listChanged: false } } : {}),
  };

  /** The contents of the resource at `uri`, static or from the first template it matches. */
  const read = async (uri: string, signal: AbortSignal) => {
    const found = has(resources, uri);
    const answer = found !== undefined ? found.read(uri, signal) : readTemplate(uri, signal);
    if (answer === undefined) return err(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`);
    const contents = await settled(answer);
    return E.isLeft(contents)
      ? err(RESOURCE_NOT_FOUND, contents.left)
      : E.right({ contents: Array.isArray(contents.right) ? contents.right : [contents.right] });
  };
  const readTemplate = (uri: string, signal: AbortSignal) => {
    for (const { declared, match } of matchers) {
      const variables = match(uri);
      if (variables !== undefined) return declared.read(uri, variables, signal);
    }
    return undefined;
  };

  const app = server(mcp)
    .context<Ctx>()
    .implement({
      initialize: (_ctx, { protocolVersion }) =>
        E.right({
          protocolVersion: PROTOCOL_VERSIONS.find((known) => known === protocolVersion) ?? PROTOCOL_VERSIONS[0],
          capabilities,
          serverInfo,
          ...(spec.instructions !== undefined ? { instructions: spec.instructions } : {}),
        }),
      "notifications/initialized": () => E.right(null),
      ping: () => E.right({}),
      "server/discover": () =>
        E.right({
          supportedVersions: MODERN_VERSIONS,
          capabilities: modernCapabilities,
          ...(spec.instructions !== undefined ? { instructions: spec.instructions } : {}),
        }),
      "logging/setLevel": (_ctx, params) => {
        level = params.level;
        return E.right({});
      },
      "tools/list": () => E.right({ tools: entries(tools).map(([name, declared]) => ({ name, ...declared.listed })) }),
      "tools/call": (ctx, params) => callTool(ctx, params),
      "resources/list": () =>
        E.right({ resources: entries(resources).map(([uri, declared]) => ({ uri, ...listed(declared) })) }),
      "resources/templates/list": () =>
        E.right({
          resourceTemplates: entries(templates).map(([uriTemplate, declared]) => ({
            uriTemplate,
            ...listed(declared),
          })),
        }),
      "resources/read": (ctx, { uri }) => read(uri, signalOf(ctx)),
      "resources/subscribe": (_ctx, { uri }) => {
        subscribed.add(uri);
        return E.right({});
      },
      "resources/unsubscribe": (_ctx, { uri }) => {
        subscribed.delete(uri);
        return E.right({});
      },
      "prompts/list": () =>
        E.right({
          prompts: entries(prompts).map(([name, declared]) => ({
            name,
            ...(declared.title !== undefined ? { title: declared.title } : {}),
            ...(declared.description !== undefined ? { description: declared.description } : {}),
            ...(declared.arguments !== undefined ? { arguments: declared.arguments } : {}),
          })),
        }),
      "prompts/get": async (ctx, { name, arguments: args = {} }) => {
        const declared = has(prompts, name);
        if (declared === undefined) return err(-32602, `Unknown prompt: ${name}`);
        const missing = (declared.arguments ?? []).filter((a) => a.required === true && args[a.name] === undefined);
        if (missing.length > 0) return err(-32602, `Missing arguments: ${missing.map((a) => a.name).join(", ")}`);
        const signal = signalOf(ctx);
        const signalNow = (): AbortSignal => signal;
        const outbox = inputsOutbox(ctx.inputs, ctx.peer !== undefined ? peerOutbox(ctx.peer, signalNow) : noOutbox);
        const got = await settled(declared.get(args, signal, contextOf(signalNow, outbox, levelNow, ctx)));
        if (E.isLeft(got)) return err(-32602, got.left);
        return E.right(Array.isArray(got.right) ? { messages: got.right } : (got.right as JsonObject));
      },
      "completion/complete": async (_ctx, { ref, argument }) => {
        const owner =
          ref.type === "ref/prompt"
            ? has(prompts, ref.name ?? "")
            : ref.type === "ref/resource"
              ? has(templates, ref.uri ?? "")
              : undefined;
        const complete = has(owner?.complete, argument.name);
        const values = complete === undefined ? [] : (await complete(argument.value, {})).slice(0, 100);
        return E.right({ completion: { values, total: values.length, hasMore: false } });
      },
    });

  const levelNow = (): LogLevel => level;

  /**
   * `tools/call`: the tool's answer as a method's, when it gives one at once or later and sent
   * nothing the answer waits for; else one stream the core drains ({@link ToolCall}), whose values
   * are what the tool sends while it runs (its progress; over HTTP, its log messages and requests
   * to the client too, each a value on the POST's event stream) and whose end is its result. On a
   * connection, its messages go through the peer.
   */
  const callTool = (
    ctx: Ctx,
    params: { readonly name: string; readonly arguments?: JsonObject; readonly _meta?: unknown },
  ): Called => {
    const declared = has(tools, params.name);
    if (declared === undefined) return err(-32602, `Unknown tool: ${params.name}`);
    const signal = (): AbortSignal => signalOf(ctx);
    const meta = params._meta;
    const token = isRecord(meta) ? meta["progressToken"] : undefined;
    const progress = typeof token === "string" || typeof token === "number";
    const { peer } = ctx;
    if (peer !== undefined) {
      const outbox = inputsOutbox(ctx.inputs, peerOutbox(peer, signal));
      const started = declared.start(params.arguments, contextOf(signal, outbox, levelNow, ctx));
      if (started instanceof Running) return streamed(new ToolCall(progress, outbox.sent).begin(started));
      // The answer waits for the notifications the tool sent (read once it has answered).
      const after = (result: ToolResult): E.Either<never, JsonObject> | Promise<E.Either<never, JsonObject>> => {
        const sent = outbox.sent();
        return sent === undefined ? answered(result) : sent.then(() => answered(result));
      };
      return isThenable(started) ? started.then(after) : after(started);
    }
    const call = new ToolCall(progress, noWait);
    const started = declared.start(
      params.arguments,
      contextOf(
        signal,
        inputsOutbox(ctx.inputs, streamOutbox(call.push, replies, signal, sessionOf(ctx))),
        levelNow,
        ctx,
      ),
    );
    return started instanceof Running || isThenable(started) || !call.idle
      ? streamed(call.begin(started))
      : answered(started);
  };

  const present = new Set<string>([
    "initialize",
    "notifications/initialized",
    "ping",
    "server/discover",
    "logging/setLevel",
    ...(tools !== undefined ? FEATURE_METHODS.tools : []),
    ...(hasResources ? FEATURE_METHODS.resources : []),
    ...(prompts !== undefined ? FEATURE_METHODS.prompts : []),
    ...(completes ? FEATURE_METHODS.completions : []),
  ]);
  const methods = Object.fromEntries(Object.entries(app.methods as Methods).filter(([name]) => present.has(name)));
  const stateless = statelessStage(
    serverInfo,
    spec.caching ?? { ttlMs: 0, cacheScope: "private" },
    stateKeeper(spec.stateKey),
  );
  return {
    methods,
    stages: [
      ...app.stages,
      envelopeStage({ has: (method) => present.has(method), tool: (name) => has(tools, name) }),
      stateless,
    ],
    capabilities,
    reply: (message, session) => replies.take(message, session),
    tool: (name) => has(tools, name),
  };
};
