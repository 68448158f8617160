/**
 * One HTTP exchange answered, whatever the runtime: the one HTTP path of `fetchHandler`,
 * `nodeHandler` and the development server. A request is read through {@link Incoming} (its head,
 * its body within a limit, the client's signal) and answered with a {@link Reply} (a status,
 * headers and a text, an event stream or nothing); each runtime's adapter only translates: the
 * fetch handler from a `Request` to a `Response` (./fetch-handler), Node from `req` to `res`
 * (../node/node-exchange), where making web objects for every request would cost half the speed.
 *
 * The order: the head by ./route (the guard's 403, the page, a preflight, 405, 415), the body read
 * within the service's limit (413), a body the service takes itself answered 202 (`takes`: MCP's
 * answers to its server's requests), the context made (a `JsonRpcError` thrown is the answer), then
 * `answerHttp` (./answer). Whatever fails here through no fault of the client is -32000 and an
 * error logged that says why; nothing here rejects for a client's request.
 *
 * @module
 */
import { messageOf } from "../core/describe";
import type { Methods } from "../core/methods";
import type { JsonOptions } from "../core/options";
import { refusedContext } from "../core/served-body";
import type { Followed } from "../core/signal";
import type { Relay } from "../core/relay";
import { answerHttp, relayHttp, type HttpStreamAnswer } from "./answer";
import type { Refusal } from "./browser-guard";
import { NO_HEADERS, refusedBody, route, say, SERVER_ERROR_BODY, type Gate, type HeaderValues } from "./route";

/**
 * What reading a POST's body came to: its bytes, `"over"`
 * once more than the limit came (the rest not read), `"used"` when something read it before the
 * handler was called, or a stream that broke off (the client left mid-upload).
 */
export type Read = Uint8Array | "over" | "used" | { readonly broken: unknown };

/** One request, as each runtime's adapter reads it. */
export interface Incoming {
  readonly method: string;
  /** The path and query, as sent: asked only for a log line or a request other than a POST (a fetch handler parses a URL for it). */
  readonly target: () => string;
  /** A header's value by its lower-case name, `undefined` when absent. */
  readonly header: (name: string) => string | undefined;
  /** The body, read until its end or past `limit` bytes. */
  readonly read: (limit: number) => Promise<Read>;
  /** The body will not be read (the request is answered by its head): let it go. */
  readonly discard: () => void;
  /** Aborts when the client goes away: the request's `signal` on the Fetch API, a lighter one on Node. */
  readonly signal: Followed;
  /** The request as a web `Request`, for the `context` function: made only when one is given. */
  readonly request: () => Request;
}

/** An answer, as each runtime's adapter writes it. */
export interface Reply {
  readonly status: number;
  readonly headers: HeaderValues;
  /** A text, an event stream, or nothing (`""` and `null` alike for a 204). */
  readonly body: string | ReadableStream<Uint8Array> | null;
  /** The status as a log line says it (`200 (inspector page)`). */
  readonly said: string;
  /** The browser guard's refusal, for a 403. */
  readonly refusal?: Refusal | undefined;
}

/** The context's answer: the options to dispatch with, or the reply that refuses the request. */
export type Made = { readonly options: JsonOptions } | { readonly refused: Reply };

/** What a handler serves, checked once when it is made (by ./handler-service, or the development server). */
export interface Service {
  /** The handler's name in its log lines (`fetchHandler`, `nodeHandler`, `serve`). */
  readonly who: string;
  readonly methods: Methods;
  readonly gate: Gate;
  /** The most bytes a body may have. */
  readonly limit: number;
  /** The options of one request's dispatch: its context made, or refused. */
  readonly dispatchOptions: (incoming: Incoming, cors: HeaderValues) => Made | Promise<Made>;
  /**
   * A body the handler takes itself, past the guard and instead of dispatching it, answered 202
   * (MCP: a POST of the client's answers to the server's requests). None by default.
   */
  readonly takes?: (body: Uint8Array, header: (name: string) => string | undefined) => boolean;
  /**
   * A body the handler refuses before dispatch, by its bytes and the request's headers: the
   * status and JSON body to answer (`null`: none), or `undefined` to dispatch it (MCP's 2026-07-28
   * checks of the envelope and headers). None by default.
   */
  readonly refuses?: (
    body: Uint8Array,
    header: (name: string) => string | undefined,
  ) => { readonly status: number; readonly body: string | null } | undefined;
  /**
   * Where a body past the checks goes instead of `methods` (MCP's workers behind NATS): relayed
   * with the request's headers, the messages and answer that come back answered as a dispatch's
   * would be. No context is made: the worker makes its own. None by default.
   */
  readonly relay?: Relay;
  /** Whether a body goes to `relay` (else it is dispatched here, as without one). Every body by default. */
  readonly relays?: (body: Uint8Array) => boolean;
}

const JSON_TYPE = "application/json";

/** What a body something read before the handler (a middleware's `c.req.json()`) leaves: nothing to dispatch. */
const READ_BEFORE =
  "the request's body was read before the handler was called (by a middleware or a body parser: Hono's " +
  "c.req.json()? Fastify's content-type parsers?); call the handler with the request before anything reads its body";

/** A JSON reply. */
const json = (status: number, cors: HeaderValues, body: string, said = String(status)): Reply => ({
  status,
  headers: cors === NO_HEADERS ? JSON_HEADERS : { ...JSON_HEADERS, ...cors },
  body,
  said,
});

const JSON_HEADERS: HeaderValues = { "Content-Type": JSON_TYPE };

/** The answer to a request this server failed (not its client): -32000 "Server error", and `why` logged as `who`'s error. */
export const serverError = (who: string, why: string, cors: HeaderValues): Reply => {
  say("error", `rpcserver: ${who}: ${why}`);
  return json(200, cors, SERVER_ERROR_BODY, "200 (server error)");
};

/** A context function's throw: a `JsonRpcError` is the answer (id `null`), anything else a server error. */
export const refusedBy = (who: string, thrown: unknown, o: JsonOptions, cors: HeaderValues): Reply => {
  const refusal = refusedContext(thrown, o.serializer);
  return refusal === undefined
    ? serverError(who, `the context function failed: ${messageOf(thrown)}`, cors)
    : json(200, cors, refusal, "200 (context refused)");
};

/** The reply of `answerHttp`'s answer, with the CORS headers. */
const replyOf = (answered: HttpStreamAnswer, cors: HeaderValues): Reply => ({
  status: answered.status,
  headers: cors === NO_HEADERS ? answered.headers : { ...answered.headers, ...cors },
  body: answered.body,
  said: answered.body instanceof ReadableStream ? "200 (event stream)" : String(answered.status),
});

/** A browser's GET of the inspector page when the page's module fails to load (a bundle's chunk gone). */
const PAGE_FAILED = "rpcserver: the inspector page could not be loaded\n";
/** A plain text's headers: the answers here that are no JSON-RPC (a body that could not be read, a page that did not load). */
const TEXT_HEADERS: HeaderValues = { "Content-Type": "text/plain; charset=utf-8" };

/** Answers one request: by its head, or its body dispatched. Never rejects for a client's request. */
export const answerExchange = async (service: Service, incoming: Incoming): Promise<Reply> => {
  const { who, gate, limit } = service;
  const routed = route(gate, incoming.method, incoming.target, incoming.header);
  if (routed instanceof Promise) {
    incoming.discard();
    return routed.catch((thrown): Reply => {
      say("error", `rpcserver: ${who}: the inspector page could not be loaded: ${messageOf(thrown)}`);
      return { status: 500, headers: TEXT_HEADERS, body: PAGE_FAILED, said: "500 (inspector page)" };
    });
  }
  if (!routed.dispatch) {
    incoming.discard();
    return routed;
  }
  const { cors } = routed;
  const read = await incoming.read(limit);
  if (read === "used") return serverError(who, READ_BEFORE, cors);
  if (read === "over") return json(413, cors, refusedBody(`the body is over ${limit} bytes`), "413 (body too large)");
  if (!(read instanceof Uint8Array)) {
    say("info", `rpcserver: ${who}: ${incoming.method} ${incoming.target()}: not answered (${messageOf(read.broken)})`);
    return {
      status: 400,
      headers: TEXT_HEADERS,
      body: "rpcserver: the request could not be read\n",
      said: "400 (the request could not be read)",
    };
  }
  if (service.takes?.(read, incoming.header) === true)
    return { status: 202, headers: cors, body: null, said: "202 (taken)" };
  const refused = service.refuses?.(read, incoming.header);
  if (refused !== undefined) {
    return refused.body === null
      ? { status: refused.status, headers: cors, body: null, said: `${refused.status} (refused)` }
      : json(refused.status, cors, refused.body, `${refused.status} (refused)`);
  }
  const { relay } = service;
  if (relay !== undefined && service.relays?.(read) !== false) {
    try {
      const headers = Object.fromEntries(incoming.request().headers);
      return replyOf(
        await relayHttp(read, relay, {
          accept: incoming.header("accept"),
          signal: incoming.signal,
          headers,
          failed: (thrown) => say("error", `rpcserver: ${who}: the relay failed: ${messageOf(thrown)}`),
        }),
        cors,
      );
    } catch (thrown) {
      return serverError(who, `the relay failed: ${messageOf(thrown)}`, cors);
    }
  }
  const made = await service.dispatchOptions(incoming, cors);
  if ("refused" in made) return made.refused;
  try {
    const answered = await answerHttp(read, service.methods, {
      ...made.options,
      accept: incoming.header("accept"),
      signal: incoming.signal,
    } as never);
    return replyOf(answered, cors);
  } catch (thrown) {
    return serverError(who, `dispatch failed: ${messageOf(thrown)}`, cors);
  }
};
