/**
 * What differs between the two conventions a connection speaks, LSP and MCP, held in one value per
 * convention and chosen once per connection (`cancellation`): the cancel notification (its method,
 * how its params name the request), what a cancelled request gets (LSP: -32800 at once; MCP:
 * nothing), and the progress notification (its method, where its token and value are, and where a
 * request carries its token, whose convention then says how its values go out and whether its
 * final result is emptied: core/progress-wire.ts). The rest of the connection reads these and never
 * asks which convention it is.
 *
 * @module
 */
import { isRecord } from "../core/guards";
import {
  LSP_PROGRESS,
  lspTokens,
  MCP_PROGRESS,
  mcpTokens,
  type Carrier,
  type ProgressToken,
  type Tokens,
} from "../core/progress-wire";
import type { Id } from "../core/request";
import type { Json } from "./messages";
import type { Cancellation } from "./options";

/** One convention's wire, as a connection uses it. */
export interface Dialect {
  /** The method of the cancellation notification, both ways. */
  readonly cancelMethod: string;
  /** The params of a cancellation of `id`. */
  readonly cancelParams: (id: Id) => Record<string, Id>;
  /** The id a cancellation's params name (they are an object). */
  readonly cancelledId: (params: Json) => unknown;
  /** Whether a cancelled request is answered -32800 (LSP), rather than left unanswered (MCP). */
  readonly answersCancelled: boolean;
  /** The method of the progress notifications that carry values. */
  readonly progressMethod: string;
  /** The member of a progress notification's params that holds its token. */
  readonly progressTokenKey: string;
  /** The value a progress notification carries (its params). */
  readonly valueOf: (params: Json) => unknown;
  /** The tokens a request carries, as a server reads them (their convention says how values go out); `undefined` for none. */
  readonly tokens: (request: Carrier) => Tokens | undefined;
  /**
   * A request's params with `token` put where the convention puts it; `undefined` when there is no
   * place for one (MCP's `_meta` that is not an object).
   */
  readonly withToken: (params: Json, token: ProgressToken) => Json | undefined;
}

/** LSP: `$/cancelRequest { id }`, answered -32800; `$/progress { token, value }` on `partialResultToken` (or `workDoneToken`). */
const LSP: Dialect = {
  cancelMethod: "$/cancelRequest",
  cancelParams: (id) => ({ id }),
  cancelledId: (params) => params["id"],
  answersCancelled: true,
  progressMethod: LSP_PROGRESS,
  progressTokenKey: "token",
  valueOf: (params) => params["value"],
  tokens: lspTokens,
  withToken: (params, token) => ({ ...params, partialResultToken: token }),
};

/** MCP: `notifications/cancelled { requestId, reason? }`, left unanswered; `notifications/progress` on `_meta.progressToken`. */
const MCP: Dialect = {
  cancelMethod: "notifications/cancelled",
  cancelParams: (id) => ({ requestId: id }),
  cancelledId: (params) => params["requestId"],
  answersCancelled: false,
  progressMethod: MCP_PROGRESS,
  progressTokenKey: "progressToken",
  valueOf: ({ progress, total, message }) => ({
    ...(progress !== undefined ? { progress } : {}),
    ...(total !== undefined ? { total } : {}),
    ...(message !== undefined ? { message } : {}),
  }),
  tokens: mcpTokens,
  withToken: (params, token) => {
    const meta = params["_meta"];
    return meta === undefined || isRecord(meta) ? { ...params, _meta: { ...meta, progressToken: token } } : undefined;
  },
};

/** The dialect of a connection's `cancellation` option. */
export const dialectOf = (cancellation: Cancellation): Dialect => (cancellation === "lsp" ? LSP : MCP);
