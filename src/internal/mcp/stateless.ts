/**
 * The 2026-07-28 era's answers, past the checks of ./era: an around stage that, for a request of
 * that era, stamps every result (`resultType`, the server's identity in `_meta`, the caching hints
 * of lists and reads), makes a missing resource -32602 with its URI, and runs a call that asks the
 * client something (`elicit`, `sample`, `request`) as MCP's multi-round requests: each ask answered
 * from the request's `inputResponses` (or the answers its signed `requestState` carries), and an
 * ask with no answer yet ending the call with an `input_required` result that lists what to ask
 * and a new state. The handler runs again, whole, on each round: its asks are matched by key.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Kind, URIS } from "fp-ts/HKT";
import type { Connection } from "../connection/options";
import type { Effect } from "../core/effect";
import { messageOf } from "../core/describe";
import { isRecord } from "../core/guards";
import { ErrorResponse, SuccessResponse, type Response } from "../core/response";
import { isNotification, type Around, type Call, type Handler } from "../core/stages";
import { clientCapabilitiesOf, isModern, META, metaOf } from "./era";
import { missingCapability, type Outbox } from "./outbox";
import { LOG_LEVELS, RESOURCE_NOT_FOUND, type JsonObject, type LogLevel } from "./protocol";
import type { StateKeeper } from "./request-state";

/**
 * How long a client may keep a list's or a read's result (`ttlMs`, milliseconds), and for whom
 * (`cacheScope`: `"public"` for any user, `"private"` for this one): the 2026 era's caching hints.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface CacheHints {
  readonly ttlMs: number;
  readonly cacheScope: "public" | "private";
}

/** The methods whose results carry the caching hints. */
const CACHEABLE: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

/** The methods that may answer `input_required`. */
const ASKING: ReadonlySet<string> = new Set(["tools/call", "prompts/get", "resources/read"]);

/** Is `answer` a well-formed answer to an ask of `method` (anything else is asked again)? */
const answers = (method: string, answer: unknown): boolean => {
  if (!isRecord(answer)) return false;
  switch (method) {
    case "elicitation/create":
      return (
        ["accept", "decline", "cancel"].includes(answer["action"] as string) &&
        (answer["content"] === undefined || isRecord(answer["content"]))
      );
    case "sampling/createMessage":
      return typeof answer["role"] === "string" && (isRecord(answer["content"]) || Array.isArray(answer["content"]));
    case "roots/list":
      return Array.isArray(answer["roots"]);
    default:
      return true;
  }
};

/** One 2026 call's asks: its client's capabilities and answers, what it asked with no answer, and the answers it took. */
export interface Inputs {
  readonly capabilities: JsonObject;
  readonly given: JsonObject;
  readonly asked: Record<string, { readonly method: string; readonly params: JsonObject }>;
  readonly taken: Record<string, unknown>;
  readonly logLevel: LogLevel | undefined;
  count: number;
}

/** What the handler's context holds for a request of the 2026 era: its asks' inputs; a `subscriptions/listen`'s id. */
export interface EraContext {
  readonly inputs?: Inputs;
  readonly listenId?: string | number | null;
}

/**
 * A 2026 call's outbox: notifications as `base` sends them (a log message only if the request
 * asked for that level), and asks answered from the call's inputs. An ask the client cannot answer
 * (its capability not declared in this request) is a Left at once; one not answered yet is
 * recorded, and a Left: the call's answer is then `input_required`, whatever the handler made of it.
 */
export const inputsOutbox = (inputs: Inputs | undefined, base: Outbox): Outbox =>
  inputs === undefined
    ? base
    : {
        send: (method, params) => {
          if (method !== "notifications/message") return base.send(method, params);
          const { logLevel } = inputs;
          if (
            logLevel !== undefined &&
            LOG_LEVELS.indexOf(params["level"] as LogLevel) >= LOG_LEVELS.indexOf(logLevel)
          ) {
            base.send(method, params);
          }
        },
        sent: base.sent,
        ask: (method, params, key) => () => {
          inputs.count += 1;
          const named = key ?? `${method}#${inputs.count}`;
          const missing = missingCapability(method, inputs.capabilities);
          if (missing !== undefined) return Promise.resolve(E.left(new Error(missing)));
          const answer = inputs.given[named];
          if (answers(method, answer)) {
            inputs.taken[named] = answer;
            return Promise.resolve(E.right(answer as JsonObject));
          }
          inputs.asked[named] = { method, params };
          return Promise.resolve(E.left(new Error(`input required: ${named} (the call answers input_required)`)));
        },
      };

/** The rest of the pipeline, in async dispatch (the stage is `asyncOnly`). */
type Next = (call: Call) => Response | PromiseLike<Response>;

/** A state that could not be made or read (no WebCrypto here): the call's error, -32603, says why. */
const unsigned = (thrown: unknown): Error => new Error(messageOf(thrown));

/** What a call is, for its state: its method and what it names. */
const callOf = (method: string, params: JsonObject): string =>
  `${method} ${JSON.stringify(params["name"] ?? params["uri"] ?? null)}`;

/**
 * Who a call's user is, from where it came (`McpServerSpec.stateOwner`): what its `requestState`
 * is bound to, besides its call. `undefined`: no user.
 *
 * @example
 * import type { StateOwner } from "rpcserver/mcp";
 * const byToken: StateOwner = ({ httpRequest }) => httpRequest?.headers.get("authorization") ?? undefined;
 *
 * @since 5.0.10
 * @category mcp
 */
export type StateOwner = (from: { readonly httpRequest?: Request; readonly peer?: Connection }) => string | undefined;

/** The 2026 era's stage, for a server of this identity, caching hints, state keeper and users. */
export const statelessStage = (
  serverInfo: JsonObject,
  caching: CacheHints,
  keeper: StateKeeper,
  ownerOf: StateOwner = () => undefined,
): Around => {
  const identity = { [META.serverInfo]: serverInfo };
  const stamped = (method: string, result: unknown): JsonObject => {
    const given = isRecord(result) ? result : {};
    return {
      ...given,
      resultType: typeof given["resultType"] === "string" ? given["resultType"] : "complete",
      ...(CACHEABLE.has(method) ? caching : {}),
      _meta: { ...(isRecord(given["_meta"]) ? given["_meta"] : {}), ...identity },
    };
  };
  const answer = async (call: Call, next: Next): Promise<Response> => {
    const { request } = call;
    const { method } = request;
    const params = (request.params ?? {}) as JsonObject;
    const id = request.id ?? null;
    let inputs: Inputs | undefined;
    let owner: string | undefined;
    if (ASKING.has(method)) {
      const from = (call.context ?? {}) as { readonly request?: Request; readonly peer?: Connection };
      owner = ownerOf({
        ...(from.request !== undefined ? { httpRequest: from.request } : {}),
        ...(from.peer !== undefined ? { peer: from.peer } : {}),
      });
      let carried: JsonObject = {};
      if (params["requestState"] !== undefined) {
        const opened = await keeper.open(params["requestState"], callOf(method, params), owner).catch(unsigned);
        if (opened instanceof Error) return E.left(ErrorResponse(-32603, opened.message, undefined, id));
        if ("refused" in opened)
          return E.left(ErrorResponse(-32602, `Invalid params: ${opened.refused}`, undefined, id));
        carried = opened.answers;
      }
      const level = metaOf(params)?.[META.logLevel];
      inputs = {
        capabilities: clientCapabilitiesOf(params),
        given: { ...carried, ...(isRecord(params["inputResponses"]) ? params["inputResponses"] : {}) },
        asked: {},
        taken: {},
        logLevel: typeof level === "string" ? (level as LogLevel) : undefined,
        count: 0,
      };
    }
    const extra = inputs !== undefined ? { inputs } : method === "subscriptions/listen" ? { listenId: id } : undefined;
    const context = extra === undefined ? call.context : { ...(call.context as object), ...extra };
    const response = await next({ request, context });
    if (inputs !== undefined && Object.keys(inputs.asked).length > 0) {
      const requestState = await keeper
        .sign({ call: callOf(method, params), answers: inputs.taken }, owner)
        .catch(unsigned);
      if (requestState instanceof Error) return E.left(ErrorResponse(-32603, requestState.message, undefined, id));
      return E.right(
        SuccessResponse(
          { resultType: "input_required", inputRequests: inputs.asked, requestState, _meta: identity },
          id as never,
        ),
      );
    }
    if (E.isRight(response)) return E.right(SuccessResponse(stamped(method, response.right.result), response.right.id));
    const failed = response.left;
    return failed.code === RESOURCE_NOT_FOUND && typeof params["uri"] === "string"
      ? E.left(ErrorResponse(-32602, failed.message, { uri: params["uri"] }, failed.id))
      : response;
  };
  return {
    _tag: "Around",
    asyncOnly: true,
    around:
      <F extends URIS>(_F: Effect<F>) =>
      (next: Handler<F>): Handler<F> =>
      (call) =>
        isModern(call.request.params) && !isNotification(call.request)
          ? (answer(call, next as unknown as Next) as unknown as Kind<F, Response>)
          : next(call),
  };
};
