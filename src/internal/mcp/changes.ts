/**
 * What changes while a server runs, and who hears of it: a list of the catalog (tools, prompts,
 * resources) or one resource's contents ({@link McpChange}), the notification each is on the wire,
 * and those who hear them: a client of the 2025 era between its requests ({@link Client}: a
 * connection, or a session over HTTP, each with the resources it subscribed to and its own log
 * level), and a 2026 era `subscriptions/listen` stream, by the part of its filter the server
 * honors ({@link honoredFilter}). The server tells its listeners ({@link Changes}); each wire
 * delivers what it hears its own way.
 *
 * @module
 */
import { logSafely } from "../core/logger";
import type { JsonObject, LogLevel } from "./protocol";

/**
 * A change of the server's: one of its lists (`"resources"` for resources and templates alike),
 * or the contents of the resource at `updated`: what `McpServer.onChange`'s listeners hear.
 *
 * @example
 * import type { McpChange } from "rpcserver/mcp";
 * const changes: McpChange[] = [{ list: "tools" }, { updated: "file:///notes.txt" }];
 *
 * @since 5.0.10
 * @category mcp
 */
export type McpChange = { readonly list: "tools" | "prompts" | "resources" } | { readonly updated: string };

/** A change as the notification that tells it, less `_meta`. */
export const notificationOf = (change: McpChange): { readonly method: string; readonly params: JsonObject } =>
  "list" in change
    ? { method: `notifications/${change.list}/list_changed`, params: {} }
    : { method: "notifications/resources/updated", params: { uri: change.updated } };

/**
 * The most resources one client may subscribe to, and the most `subscriptions/listen` streams
 * open at once on a server: a peer cannot grow either without bound.
 */
export const MOST_SUBSCRIPTIONS = 1024;

/**
 * The most `subscriptions/listen` streams open on one connection: below its requests in flight
 * (`maxInFlight`, 64 by default), so that streams never leave it unable to answer anything else.
 */
export const MOST_LISTENS_PER_CONNECTION = 16;

/** The most notifications a stream's reader may leave unread over HTTP: past them the stream ends. */
export const MOST_UNREAD = 256;

/**
 * A client of the 2025 era between its requests (a connection, a session): the resources it
 * subscribed to (`resources/subscribe`), the least severe log level it asked for
 * (`logging/setLevel`; `undefined`: the server's), and its capabilities (what it may be asked).
 */
export class Client {
  readonly uris = new Set<string>();
  level: LogLevel | undefined;
  /** What it declared it can do (`initialize`'s `capabilities`), once known. */
  capabilities: JsonObject | undefined;

  /** A list's change reaches every client; a resource's, those subscribed to it. */
  hears(change: McpChange): boolean {
    return "list" in change || this.uris.has(change.updated);
  }
}

/**
 * What a `subscriptions/listen` stream asks for (2026 era): each list's changes, and the updates of
 * the resources it names. Only what is asked for is sent.
 */
export interface Filter {
  readonly toolsListChanged?: boolean;
  readonly promptsListChanged?: boolean;
  readonly resourcesListChanged?: boolean;
  readonly resourceSubscriptions?: ReadonlyArray<string>;
}

/** What a server has that a stream may hear of: the features it declared. */
export interface Features {
  readonly tools: boolean;
  readonly prompts: boolean;
  readonly resources: boolean;
}

/**
 * The part of `asked` the server honors (what its `notifications/subscriptions/acknowledged`
 * says): each thing asked for that the server has, nothing it was not asked for.
 */
export const honoredFilter = (asked: Filter, features: Features): Filter => ({
  ...(asked.toolsListChanged === true && features.tools ? { toolsListChanged: true } : {}),
  ...(asked.promptsListChanged === true && features.prompts ? { promptsListChanged: true } : {}),
  ...(asked.resourcesListChanged === true && features.resources ? { resourcesListChanged: true } : {}),
  ...(asked.resourceSubscriptions !== undefined && asked.resourceSubscriptions.length > 0 && features.resources
    ? { resourceSubscriptions: [...asked.resourceSubscriptions] }
    : {}),
});

/** Does a stream with this (honored) filter, its resources' URIs in `uris`, hear of `change`? */
export const accepts = (filter: Filter, uris: ReadonlySet<string>, change: McpChange): boolean => {
  if (!("list" in change)) return uris.has(change.updated);
  switch (change.list) {
    case "tools":
      return filter.toolsListChanged === true;
    case "prompts":
      return filter.promptsListChanged === true;
    default:
      return filter.resourcesListChanged === true;
  }
};

/**
 * The listeners of one server's changes, each told in turn: one that throws is logged, and the
 * others still hear. A change made while one is told (by a listener) is told after it, so every
 * listener hears the changes in the order they were made.
 */
export class Changes {
  private readonly listeners = new Set<(change: McpChange) => void>();
  private readonly queue: McpChange[] = [];
  private telling = false;

  /** `listener` hears every change from now, until the function returned is called. */
  listen(listener: (change: McpChange) => void): () => void {
    const mine = (change: McpChange): void => listener(change);
    this.listeners.add(mine);
    return () => void this.listeners.delete(mine);
  }

  tell(change: McpChange): void {
    this.queue.push(change);
    if (this.telling) return;
    this.telling = true;
    try {
      for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
        for (const listener of this.listeners) {
          try {
            listener(next);
          } catch (thrown) {
            logSafely("rpcserver/mcp: a listener of the server's changes threw", thrown);
          }
        }
      }
    } finally {
      this.telling = false;
    }
  }
}
