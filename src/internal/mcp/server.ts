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
 * What it declares may change while it runs (`change`, `updated`): a 2025 era client hears of it
 * on its connection or its session's stream, a 2026 era one on its `subscriptions/listen` stream.
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
import { acceptsEvents } from "../http/accept";
import { settled, listed, templateMatcher, type Prompt, type Resource, type ResourceTemplate } from "./catalog";
import { ToolCall } from "./call";
import {
  accepts,
  Changes,
  Client,
  honoredFilter,
  MOST_LISTENS_PER_CONNECTION,
  MOST_SUBSCRIPTIONS,
  MOST_UNREAD,
  notificationOf,
  type McpChange,
  type Features,
} from "./changes";
import { checkHeaderNames, envelopeStage, META, MODERN_VERSIONS } from "./era";
import { guardedOutbox, missingCapability, noOutbox, peerOutbox, Replies, streamOutbox, type Outbox } from "./outbox";
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
import { inputsOutbox, statelessStage, type CacheHints, type EraContext, type StateOwner } from "./stateless";
import { contextOf, Running, type Tool } from "./tools";

/**
 * An MCP server as declared: who it is, and its tools, resources (by URI), resource templates (by
 * URI template) and prompts, each by name. A feature declared (`tools: {}` too) may change while
 * the server runs (`McpServer.change`); one not declared is not there.
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
  /**
   * Who the user of a call is (2026 era), from where it came: its HTTP request (`Authorization`, a
   * session cookie) or its connection. A `requestState` is then bound to that user as well as to
   * its call: another user's is refused (-32602), as one with none named where one is. Default:
   * no user, any client may carry a state on (it is still bound to its call, and expires).
   */
  readonly stateOwner?: StateOwner;
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
  /**
   * Adds, replaces (by name, or URI) and removes (`undefined`) tools, resources, templates and
   * prompts, then tells the clients each list that changed (`notifications/tools/list_changed`...).
   * A feature the server did not declare cannot be changed: a TypeError.
   */
  readonly change: (changes: McpChanges) => void;
  /** Tells the clients subscribed to the resource at `uri` that its contents changed (`notifications/resources/updated`). */
  readonly updated: (uri: string) => void;
  /**
   * `listener` hears each change from now (to carry it to other processes, say), until the
   * function returned is called.
   */
  readonly onChange: (listener: (change: McpChange) => void) => () => void;
  /** Ends every `subscriptions/listen` stream open on the server, each with its result (the graceful end, before a shutdown). */
  readonly close: () => void;
}

/**
 * What `McpServer.change` adds, replaces or removes: by name (by URI for resources, by URI
 * template for templates), a declaration, or `undefined` to remove it.
 *
 * @example
 * import * as E from "fp-ts/lib/Either.js";
 * import { tool, type McpChanges } from "rpcserver/mcp";
 * const changes: McpChanges = {
 *   tools: { shout: tool({ description: "Shouts", run: () => E.right("HI") }), whisper: undefined },
 * };
 *
 * @since 5.0.10
 * @category mcp
 */
export interface McpChanges {
  readonly tools?: Readonly<Record<string, Tool | undefined>>;
  readonly resources?: Readonly<Record<string, Resource | undefined>>;
  readonly templates?: Readonly<Record<string, ResourceTemplate | undefined>>;
  readonly prompts?: Readonly<Record<string, Prompt | undefined>>;
}

const Progress = t.unknown;
const NamedParams = t.type({ name: t.string });
const UriParams = t.type({ uri: t.string });

const mcp = contract({
  initialize: {
    params: t.intersection([t.type({ protocolVersion: t.string }), t.partial({ capabilities: t.UnknownRecord })]),
    result: t.UnknownRecord,
    summary: "Starts the session",
  },
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
  "subscriptions/listen": {
    params: t.type({
      notifications: t.partial({
        toolsListChanged: t.boolean,
        promptsListChanged: t.boolean,
        resourcesListChanged: t.boolean,
        resourceSubscriptions: t.array(t.string),
      }),
    }),
    result: t.UnknownRecord,
    stream: Progress,
    summary: "A stream of the server's changes (2026-07-28)",
  },
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

/** A call's context: its era's, its signal, and where it came from (a connection; over HTTP, its request, and its session's client). */
type Ctx = EraContext & {
  readonly signal?: AbortSignal;
  readonly peer?: Connection;
  readonly request?: Request;
  readonly client?: Client;
  /** The call came from an HTTP front through a relay (./relayed): the client's answers go to the front. */
  readonly relayed?: boolean;
  /** Over HTTP without sessions: nothing reaches the client between its requests. */
  readonly sessionless?: boolean;
};

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
const entries = <V>(record: Readonly<Record<string, V | undefined>> | undefined): Array<[string, V | undefined]> =>
  Object.entries(record ?? {});
const mapOf = <V>(record: Readonly<Record<string, V>> | undefined): Map<string, V> =>
  new Map(entries(record) as Array<[string, V]>);

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
 * mcp.capabilities; // { logging: {}, tools: { listChanged: true } }
 * mcp.change({ tools: { add: undefined } }); // removed: its clients hear notifications/tools/list_changed
 *
 * @since 5.0.10
 * @category mcp
 */
export const mcpServer = (spec: McpServerSpec): McpServer => {
  for (const [name, declared] of entries(spec.tools)) if (declared !== undefined) checkHeaderNames(name, declared);
  const tools = mapOf(spec.tools);
  const resources = mapOf(spec.resources);
  const templates = mapOf(spec.templates);
  const prompts = mapOf(spec.prompts);
  const features: Features = {
    tools: spec.tools !== undefined,
    prompts: spec.prompts !== undefined,
    resources: spec.resources !== undefined || spec.templates !== undefined,
  };
  const level: LogLevel = spec.logLevel ?? "info";
  const replies = new Replies();
  const changes = new Changes();
  /** The `subscriptions/listen` streams open, each ended (gracefully) by its function. */
  const listening = new Set<() => void>();
  /** The ids of the streams open on each connection. */
  const peerListens = new WeakMap<Connection, Set<unknown>>();
  const matchersOf = () =>
    Array.from(templates, ([template, declared]) => ({ declared, match: templateMatcher(template) }));
  let matchers = matchersOf();
  // What may be completed: a prompt's arguments, a template's variables (those added later too).
  const completes = features.prompts || features.resources;
  const capabilities: JsonObject = {
    logging: {},
    ...(completes ? { completions: {} } : {}),
    ...(features.prompts ? { prompts: { listChanged: true } } : {}),
    ...(features.resources ? { resources: { subscribe: true, listChanged: true } } : {}),
    ...(features.tools ? { tools: { listChanged: true } } : {}),
  };
  // Over HTTP without sessions a subscription could never be told of an update: not offered.
  const unsubscribable: JsonObject = features.resources
    ? { ...capabilities, resources: { listChanged: true } }
    : capabilities;
  const serverInfo = {
    name: spec.name,
    version: spec.version,
    ...(spec.title !== undefined ? { title: spec.title } : {}),
  };

  /** The client of the 2025 era a call came from, between its requests: its session's, or its connection's. */
  const peers = new WeakMap<Connection, Client>();
  const clientOf = (ctx: Ctx): Client | undefined => {
    if (ctx.client !== undefined || ctx.peer === undefined) return ctx.client;
    const { peer } = ctx;
    const known = peers.get(peer);
    if (known !== undefined) return known;
    const client = new Client();
    peers.set(peer, client);
    const stop = changes.listen((change) => {
      if (!client.hears(change)) return;
      const { method, params } = notificationOf(change);
      void peer.transport(JSON.stringify({ jsonrpc: "2.0", method, params }), { signal: NEVER, ids: [undefined] })();
    });
    void peer.closed.then(stop, stop);
    return client;
  };
  // A 2026 request names its own level (its inputs' outbox sends what it asked for, no more).
  const levelOf = (ctx: Ctx) => (): LogLevel => (ctx.inputs !== undefined ? "debug" : (clientOf(ctx)?.level ?? level));
  /**
   * A call's outbox: in the 2026 era, its asks answered from the request's inputs; in the 2025 era,
   * `base`, its asks refused at once where they could never be answered: on a worker behind a relay
   * (the client's answer would reach the front, not this process), over HTTP to a client that takes
   * no event stream (nothing carries them), or of a capability the client did not declare.
   */
  const outboxOf = (ctx: Ctx, base: Outbox): Outbox => {
    if (ctx.inputs !== undefined) return inputsOutbox(ctx.inputs, base);
    // Read when the handler asks, not for every call (most never ask).
    return guardedOutbox(base, (method) => {
      const { request } = ctx;
      if (ctx.relayed === true) return "the client cannot be asked here: the call was relayed to a worker";
      if (request !== undefined && !acceptsEvents(request.headers.get("accept"))) {
        return "the client takes no event stream (Accept: text/event-stream): nothing can carry a request to it";
      }
      const declared = clientOf(ctx)?.capabilities;
      return declared === undefined ? undefined : missingCapability(method, declared);
    });
  };

  /** The contents of the resource at `uri`, static or from the first template it matches. */
  const read = async (uri: string, signal: AbortSignal) => {
    const found = resources.get(uri);
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
      initialize: (ctx, { protocolVersion, capabilities: declared }) => {
        // A connection's client hears of changes from now, and is asked only what it declared it can answer.
        const client = clientOf(ctx);
        if (client !== undefined) client.capabilities = declared ?? {};
        return E.right({
          protocolVersion: PROTOCOL_VERSIONS.find((known) => known === protocolVersion) ?? PROTOCOL_VERSIONS[0],
          capabilities: ctx.sessionless === true ? unsubscribable : capabilities,
          serverInfo,
          ...(spec.instructions !== undefined ? { instructions: spec.instructions } : {}),
        });
      },
      "notifications/initialized": () => E.right(null),
      ping: () => E.right({}),
      "server/discover": () =>
        E.right({
          supportedVersions: MODERN_VERSIONS,
          capabilities,
          ...(spec.instructions !== undefined ? { instructions: spec.instructions } : {}),
        }),
      "logging/setLevel": (ctx, params) => {
        // The client's own: where there is none to keep it for (stateless HTTP), it sets nothing.
        const client = clientOf(ctx);
        if (client !== undefined) client.level = params.level;
        return E.right({});
      },
      "tools/list": () => E.right({ tools: Array.from(tools, ([name, declared]) => ({ name, ...declared.listed })) }),
      "tools/call": (ctx, params) => callTool(ctx, params),
      "resources/list": () =>
        E.right({ resources: Array.from(resources, ([uri, declared]) => ({ uri, ...listed(declared) })) }),
      "resources/templates/list": () =>
        E.right({
          resourceTemplates: Array.from(templates, ([uriTemplate, declared]) => ({
            uriTemplate,
            ...listed(declared),
          })),
        }),
      "resources/read": (ctx, { uri }) => read(uri, signalOf(ctx)),
      "resources/subscribe": (ctx, { uri }) => {
        const uris = clientOf(ctx)?.uris;
        if (uris !== undefined && !uris.has(uri) && uris.size >= MOST_SUBSCRIPTIONS) {
          return err(-32603, `Subscription limit reached (${MOST_SUBSCRIPTIONS} resources)`);
        }
        uris?.add(uri);
        return E.right({});
      },
      "resources/unsubscribe": (ctx, { uri }) => {
        clientOf(ctx)?.uris.delete(uri);
        return E.right({});
      },
      "subscriptions/listen": (ctx, { notifications }) => listen(ctx, notifications),
      "prompts/list": () =>
        E.right({
          prompts: Array.from(prompts, ([name, declared]) => ({
            name,
            ...(declared.title !== undefined ? { title: declared.title } : {}),
            ...(declared.description !== undefined ? { description: declared.description } : {}),
            ...(declared.arguments !== undefined ? { arguments: declared.arguments } : {}),
          })),
        }),
      "prompts/get": async (ctx, { name, arguments: args = {} }) => {
        const declared = prompts.get(name);
        if (declared === undefined) return err(-32602, `Unknown prompt: ${name}`);
        const missing = (declared.arguments ?? []).filter((a) => a.required === true && args[a.name] === undefined);
        if (missing.length > 0) return err(-32602, `Missing arguments: ${missing.map((a) => a.name).join(", ")}`);
        const signal = signalOf(ctx);
        const signalNow = (): AbortSignal => signal;
        const outbox = outboxOf(ctx, ctx.peer !== undefined ? peerOutbox(ctx.peer, signalNow) : noOutbox);
        const got = await settled(declared.get(args, signal, contextOf(signalNow, outbox, levelOf(ctx), ctx)));
        if (E.isLeft(got)) return err(-32602, got.left);
        return E.right(Array.isArray(got.right) ? { messages: got.right } : (got.right as JsonObject));
      },
      "completion/complete": async (_ctx, { ref, argument }) => {
        const owner =
          ref.type === "ref/prompt"
            ? prompts.get(ref.name ?? "")
            : ref.type === "ref/resource"
              ? templates.get(ref.uri ?? "")
              : undefined;
        const complete = owner?.complete;
        const completer =
          complete !== undefined && Object.hasOwn(complete, argument.name) ? complete[argument.name] : undefined;
        const values = completer === undefined ? [] : (await completer(argument.value, {})).slice(0, 100);
        return E.right({ completion: { values, total: values.length, hasMore: false } });
      },
    });

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
    const declared = tools.get(params.name);
    if (declared === undefined) return err(-32602, `Unknown tool: ${params.name}`);
    const signal = (): AbortSignal => signalOf(ctx);
    const meta = params._meta;
    const token = isRecord(meta) ? meta["progressToken"] : undefined;
    const progress = typeof token === "string" || typeof token === "number";
    const { peer } = ctx;
    if (peer !== undefined) {
      const outbox = outboxOf(ctx, peerOutbox(peer, signal));
      const started = declared.start(params.arguments, contextOf(signal, outbox, levelOf(ctx), ctx));
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
      contextOf(signal, outboxOf(ctx, streamOutbox(call.push, replies, signal, sessionOf(ctx))), levelOf(ctx), ctx),
    );
    return started instanceof Running || isThenable(started) || !call.idle
      ? streamed(call.begin(started))
      : answered(started);
  };

  /**
   * `subscriptions/listen` (2026 era only): the acknowledgement of what it will hear first, then each
   * change its filter accepts, each stamped with the request's id; it ends when the client leaves or
   * cancels (no answer), or with its result when the server closes it. Over HTTP, the POST's event
   * stream ({@link ToolCall} again: pushed messages, then an end); on a connection, its notifications.
   */
  const listen = (ctx: Ctx, asked: Parameters<typeof honoredFilter>[0]): Called => {
    const id = ctx.listenId;
    if (id === undefined) return err(-32601, "Method not found: subscriptions/listen is of the 2026-07-28 era");
    if (id === null) return err(-32600, "subscriptions/listen needs an id: the one a cancel names it by");
    if (ctx.request !== undefined && !acceptsEvents(ctx.request.headers.get("accept"))) {
      return err(-32600, "subscriptions/listen answers an event stream: accept text/event-stream");
    }
    if ((asked.resourceSubscriptions?.length ?? 0) > MOST_SUBSCRIPTIONS) {
      return err(-32602, `Invalid params: at most ${MOST_SUBSCRIPTIONS} resourceSubscriptions`);
    }
    if (listening.size >= MOST_SUBSCRIPTIONS) return err(-32603, "Subscription limit reached");
    const { peer } = ctx;
    // On a connection: ids a cancel can tell apart, and streams that leave the connection room to answer.
    const mine = peer === undefined ? undefined : (peerListens.get(peer) ?? new Set<unknown>());
    if (peer !== undefined && mine !== undefined) {
      if (mine.has(id)) return err(-32600, `a subscriptions/listen of id ${JSON.stringify(id)} is under way`);
      if (mine.size >= MOST_LISTENS_PER_CONNECTION) {
        return err(-32603, `Subscription limit reached (${MOST_LISTENS_PER_CONNECTION} on a connection)`);
      }
      peerListens.set(peer, mine);
    }
    const filter = honoredFilter(asked, features);
    const uris = new Set(filter.resourceSubscriptions);
    const stamp = { [META.subscriptionId]: id };
    const signal = signalOf(ctx);
    const call = new ToolCall(false, noWait);
    const outbox = peer !== undefined ? peerOutbox(peer, () => signal) : streamOutbox(call.push, replies, () => signal);
    outbox.send("notifications/subscriptions/acknowledged", { notifications: filter, _meta: stamp });
    const result = { resultType: "complete", _meta: stamp } as unknown as ToolResult;
    const ended = new Promise<ToolResult>((end) => {
      if (Object.keys(filter).length === 0) return end(result);
      mine?.add(id);
      const stop = changes.listen((change) => {
        if (!accepts(filter, uris, change)) return;
        const { method, params } = notificationOf(change);
        outbox.send(method, { ...params, _meta: stamp });
        // A reader this far behind is not reading: its stream ends, and it listens again (and lists).
        if (call.backlog > MOST_UNREAD) over();
      });
      const over = (): void => {
        stop();
        listening.delete(over);
        mine?.delete(id);
        signal.removeEventListener("abort", over);
        end(result);
      };
      listening.add(over);
      if (signal.aborted) over();
      else signal.addEventListener("abort", over, { once: true });
    });
    if (peer === undefined) return streamed(call.begin(ended));
    return ended.then(async (answer) => {
      await outbox.sent();
      return answered(answer);
    });
  };

  const present = new Set<string>([
    "initialize",
    "notifications/initialized",
    "ping",
    "server/discover",
    "logging/setLevel",
    ...(features.tools ? FEATURE_METHODS.tools : []),
    ...(features.resources ? FEATURE_METHODS.resources : []),
    ...(features.prompts ? FEATURE_METHODS.prompts : []),
    ...(completes ? FEATURE_METHODS.completions : []),
    ...(features.tools || features.resources || features.prompts ? ["subscriptions/listen"] : []),
  ]);
  const methods = Object.fromEntries(Object.entries(app.methods as Methods).filter(([name]) => present.has(name)));
  const stateless = statelessStage(
    serverInfo,
    spec.caching ?? { ttlMs: 0, cacheScope: "private" },
    stateKeeper(spec.stateKey),
    spec.stateOwner,
  );
  const tool = (name: string): Tool | undefined => tools.get(name);

  /** The feature each part of a change is of. */
  const FEATURE_OF = { tools: "tools", prompts: "prompts", resources: "resources", templates: "resources" } as const;
  /** Applies one part of a change to its table: `true` if there was one. */
  const apply = <V>(table: Map<string, V>, given: Readonly<Record<string, V | undefined>> | undefined): boolean => {
    if (given === undefined) return false;
    for (const [key, declared] of entries(given)) {
      if (declared === undefined) table.delete(key);
      else table.set(key, declared);
    }
    return true;
  };

  return {
    methods,
    stages: [...app.stages, envelopeStage({ has: (method) => present.has(method), tool }), stateless],
    capabilities,
    reply: (message, session) => replies.take(message, session),
    tool,
    change: (given) => {
      // All checked before anything changes: a change is made whole or not at all.
      for (const kind of Object.keys(given) as Array<keyof McpChanges>) {
        if (given[kind] !== undefined && !features[FEATURE_OF[kind]]) {
          throw new TypeError(
            `McpServer.change: the server declared no ${kind}; declare them (\`${kind}: {}\`) to change them`,
          );
        }
      }
      for (const [name, declared] of entries(given.tools)) if (declared !== undefined) checkHeaderNames(name, declared);
      const changed: McpChange[] = [];
      if (apply(tools, given.tools)) changed.push({ list: "tools" });
      if (apply(prompts, given.prompts)) changed.push({ list: "prompts" });
      const someResources = apply(resources, given.resources);
      if (apply(templates, given.templates)) matchers = matchersOf();
      if (someResources || given.templates !== undefined) changed.push({ list: "resources" });
      for (const change of changed) changes.tell(change);
    },
    updated: (uri) => changes.tell({ updated: uri }),
    onChange: (listener) => changes.listen(listener),
    close: () => {
      for (const close of Array.from(listening)) close();
    },
  };
};
