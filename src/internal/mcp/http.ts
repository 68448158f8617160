/**
 * `mcpHandler`: an MCP server over Streamable HTTP, as a fetch handler on the one HTTP path
 * (`fetchHandler`): a POST's requests answered as JSON, or, for a client that accepts an event
 * stream, with what `tools/call` sends while it runs (progress, log messages, requests to the
 * client) before its answer; the DNS-rebinding guard (`Host` and `Origin` checked) on; GET and
 * DELETE 405, as a server with no sessions and no stream of its own answers them. A POST of the
 * client's answers to the server's requests is handed to the server, 202.
 *
 * @module
 */
import type { Relay } from "../core/relay";
import { isRecord } from "../core/guards";
import { handlerOf, type FetchHandler, type SessionFetchHandler } from "../http/fetch-handler";
import { serviceOf, type FetchServerOptions } from "../http/handler-service";
import { screen } from "./era";
import { messagesIn, SESSION_HEADER, textOf } from "./protocol";
import type { McpServer } from "./server";
import { mcpSessions, sessionHandler, type McpSessions, type Table } from "./sessions";

/**
 * The options of `mcpHandler`: the HTTP path's (allowed hosts and origins, body limit, CORS), the
 * largest batch, and `sessions`. Unlike `fetchHandler`'s defaults, the inspector page and
 * `rpc.discover` are off here unless asked for (`inspector: true`, `openrpc: {}`).
 *
 * @since 5.0.10
 * @category mcp
 */
export type McpHandlerOptions = FetchServerOptions & {
  readonly maxBatchSize?: number | undefined;
  /**
   * Sessions of the 2025-11-25 era (`Mcp-Session-Id`, DELETE, a GET stream of the server's own,
   * `Last-Event-ID` replay of it and of a POST's stream): `true`, or `mcpSessions({ max, idleMs, replay })` to bound them and
   * keep a handle to `notify` through. They live in this process: a client must come back to it
   * (sticky routing). Default off: stateless, any process serves any request.
   */
  readonly sessions?: boolean | McpSessions | undefined;
  /**
   * Workers elsewhere answer the requests instead of this process: each POST past the checks
   * made here (the guard, the body limit, the 2026-07-28 era's envelope and headers, sessions)
   * is handed to `relay` (`natsRelay` of rpcserver/nats: workers that serve the same `mcpServer`
   * with `serveNats`), its progress and log messages streamed back as events. The server given
   * here is the workers' declaration (its tools, for the header checks), and it answers here what
   * lives with the client's connection: `subscriptions/listen` and `resources/subscribe`/`unsubscribe`
   * (the changes the front's server is told of reach them). In the 2025-11-25 era a tool's requests to the client (elicitation, sampling) are refused on a worker
   * (their answers could not reach it); the 2026-07-28 era's `input_required` works (give every
   * worker the same `stateKey`). docs/mcp.md, "Workers over NATS".
   */
  readonly relay?: Relay | undefined;
};

/**
 * The methods a front answers itself behind a relay: a stream of the server's changes and the
 * subscriptions to them live where the client's connection does (its POST's stream, its
 * session's GET stream), and the changes are announced to the front's server (`change`, `updated`).
 */
const AT_FRONT: ReadonlySet<string> = new Set(["subscriptions/listen", "resources/subscribe", "resources/unsubscribe"]);

/** Is the body one request (alone, or a batch of one) of a method the front answers itself? Read only when it names one. */
const atFront = (bytes: Uint8Array): boolean => {
  const text = textOf(bytes);
  if (!text.includes("subscri")) return false;
  const all = messagesIn(text);
  const one = all?.length === 1 ? all[0] : undefined;
  return isRecord(one) && typeof one["method"] === "string" && AT_FRONT.has(one["method"]);
};

/** The largest batch, and the most answers one POST may carry, unless `maxBatchSize` says. */
const DEFAULT_MAX_BATCH = 100;

/**
 * The client's answers in a body (one, or a batch of them), if that is all it holds: `undefined`
 * for anything else, left to dispatch. A body with neither `"result"` nor `"error"` in it is no
 * answer, and is not parsed twice; one with `"method"` in it may still be one (a form's field named
 * so, in an elicitation's answer), so each message is looked at whole.
 */
const answersIn = (bytes: Uint8Array): unknown[] | undefined => {
  const text = textOf(bytes);
  if (!text.includes('"result"') && !text.includes('"error"')) return undefined;
  const all = messagesIn(text);
  return all !== undefined &&
    all.length > 0 &&
    all.every((one) => isRecord(one) && !("method" in one) && ("result" in one || "error" in one))
    ? all
    : undefined;
};

/**
 * An MCP server over Streamable HTTP, as a fetch handler (`(request: Request) => Promise<Response>`):
 * mount it at your MCP path (`/mcp`). Under Node, `nodeHandler`'s glue or any fetch adapter serves it;
 * with `sessions` (or a `sessions` not known to be off) it is a {@link SessionFetchHandler}, which
 * only a fetch adapter serves: `nodeHandler` does not compile with it.
 *
 * @example
 * import { mcpHandler, mcpServer } from "rpcserver/mcp";
 * const handler = mcpHandler(mcpServer({ name: "empty", version: "1.0.0" }));
 * const response = await handler(new Request("http://localhost/mcp", {
 *   method: "POST",
 *   headers: { "Content-Type": "application/json" },
 *   body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
 * }));
 * await response.text(); // '{"jsonrpc":"2.0","result":{},"id":1}'
 *
 * @since 5.0.10
 * @category mcp
 */
export function mcpHandler(mcp: McpServer, options?: McpHandlerOptions & { readonly sessions?: false }): FetchHandler;
export function mcpHandler(mcp: McpServer, options: McpHandlerOptions): SessionFetchHandler;
export function mcpHandler(mcp: McpServer, options: McpHandlerOptions = {}): FetchHandler {
  const { sessions, relay, ...rest } = options;
  if (relay !== undefined && typeof relay !== "function") {
    throw new TypeError("mcpHandler: relay must be a function of a body (natsRelay of rpcserver/nats)");
  }
  const table =
    sessions === undefined || sessions === false
      ? undefined
      : ((sessions === true ? mcpSessions() : sessions) as Table);
  // The sessions' clients hear of the server's changes on their streams.
  if (table !== undefined) mcp.onChange((change) => table.tell(change));
  const service = serviceOf(
    "mcpHandler",
    mcp.methods,
    {
      stages: mcp.stages,
      // Each call's tools see the request it came in (McpContext.request): headers, auth; and its session's client.
      context:
        table === undefined
          ? (request: Request) => ({ request, sessionless: true })
          : (request: Request) => ({ request, client: table.clientOf(request.headers.get(SESSION_HEADER)) }),
      inspector: false,
      openrpc: false,
      maxBatchSize: DEFAULT_MAX_BATCH,
      ...rest,
    },
    relay,
  );
  // Past the guard, a body of the client's answers is handed to the server instead of dispatched.
  // A batch of answers is bound as any batch is (past it, dispatch refuses it); each answer is
  // taken only from the session its request was asked of.
  const most = rest.maxBatchSize ?? DEFAULT_MAX_BATCH;
  const takes = (body: Uint8Array, header: (name: string) => string | undefined): boolean => {
    const answers = answersIn(body);
    if (answers === undefined || answers.length > most) return false;
    const session = header(SESSION_HEADER) || undefined;
    for (const answer of answers) mcp.reply(answer, session);
    return true;
  };
  // A 2026-07-28 request's envelope and headers checked before dispatch, each failure its HTTP status.
  const methods = mcp.methods as Readonly<Record<string, unknown>>;
  const era = { has: (method: string) => Object.hasOwn(methods, method), tool: mcp.tool };
  const answering = {
    ...service,
    takes,
    refuses: (body: Uint8Array, header: (name: string) => string | undefined) => screen(body, header, era),
    ...(service.relay !== undefined ? { relays: (body: Uint8Array) => !atFront(body) } : {}),
  };
  const stateless = handlerOf(answering);
  return table === undefined ? stateless : sessionHandler(table, answering, stateless);
}
