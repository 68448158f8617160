/**
 * The development server's request handler: each request checked by the browser guard, answered
 * 403, 405, a CORS preflight or the inspector page (a browser's GET of `/`: ./inspector-route), or
 * its POST body dispatched and answered by `answerHttp`: 200 or 204, or, when its `Accept` asks for
 * `text/event-stream`, 202 for notifications alone or an event stream of the values methods stream
 * (written by ./body-writer); with the server's logging, which never throws.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { answerHttp, type HttpStreamAnswer } from "../http/answer";
import { ERROR_SERVER_ERROR } from "../core/codes";
import { messageOf } from "../core/describe";
import { log } from "../core/logger";
import type { Methods } from "../core/methods";
import type { Options } from "../core/options";
import { toHttp } from "../http/json-answer";
import type { GuardedHeaders, Refusal } from "./browser-guard";
import { writeBody } from "./body-writer";
import { isPagePath, isPageRequest, PAGE_HEADERS, varyingByAccept } from "./inspector-route";

/** Logging must never stop the server, so a logger that throws is ignored. */
export const say = (level: "error" | "warn" | "info", message: string): void => {
  try {
    log()[level](message);
  } catch {
    // Nothing to do: the server goes on.
  }
};

/** What a request that made dispatch itself fail gets (a bad option, say): -32000, and a log line. */
const SERVER_ERROR_BODY = JSON.stringify({
  jsonrpc: "2.0",
  error: { code: ERROR_SERVER_ERROR, message: "Server error" },
  id: null,
});

type Headers = { readonly [name: string]: string | number };

const NO_HEADERS: Headers = {};
const JSON_TYPE: Headers = { "Content-Type": "application/json" };

const send = (res: ServerResponse, status: number, headers: Headers, body = ""): void => {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, { ...headers, ...(status === 204 ? {} : { "Content-Length": Buffer.byteLength(body) }) });
  res.end(status === 204 ? undefined : body);
};

/** An event stream's answer: its head, then its events as they come, the client's pace kept. */
const stream = async (res: ServerResponse, answered: HttpStreamAnswer, line: string, cors: Headers): Promise<void> => {
  const body = answered.body as ReadableStream<Uint8Array>;
  res.writeHead(200, cors === NO_HEADERS ? answered.headers : { ...answered.headers, ...cors });
  say("info", `rpcserver: ${line} 200 (event stream)`);
  const whole = await writeBody(res, body);
  if (!whole) say("info", `rpcserver: ${line}: the event stream ended before its answer (the client went away)`);
};

/**
 * Dispatches one POST body and sends the answer: 200 with JSON, or 204 when there is nothing to send;
 * with `text/event-stream` in `Accept`, 202 for notifications alone, or an event stream.
 */
const answer = async (
  bytes: Uint8Array,
  methods: Methods | undefined,
  options: Options,
  req: IncomingMessage,
  res: ServerResponse,
  line: string,
  cors: Headers,
): Promise<void> => {
  // `res` closing before the answer is written (the client went away) aborts the handlers' signal,
  // and so does the client's FIN while the answer is pending. A FIN is either a half-close (`nc -N`)
  // or a client gone (a socket destroyed), which TCP cannot tell apart until we write: as Go's
  // net/http does, the methods are told to stop, and whatever they answer is still written (the
  // server is half-open), so a half-closed client gets its answer, and a method that never ends
  // (an endless stream) is not left running for a client that left.
  const gone = new AbortController();
  const leave = (): void => gone.abort();
  res.once("close", leave);
  const { socket } = req;
  if (socket.readableEnded) leave();
  else socket.once("end", leave);
  let answered: HttpStreamAnswer;
  try {
    answered = await answerHttp(bytes, methods, { ...options, accept: req.headers.accept, signal: gone.signal });
  } catch (thrown) {
    say("error", `rpcserver: ${line}: dispatch failed: ${messageOf(thrown)}`);
    answered = toHttp(SERVER_ERROR_BODY);
  }
  // A keep-alive socket outlives this request: it keeps no listener of it.
  socket.removeListener("end", leave);
  if (res.destroyed) {
    if (answered.body instanceof ReadableStream) answered.body.cancel().catch(() => undefined);
    say("info", `rpcserver: ${line}: the client went away before the answer`);
    return;
  }
  if (typeof answered.body === "string") {
    send(res, 200, cors === NO_HEADERS ? JSON_TYPE : { ...JSON_TYPE, ...cors }, answered.body);
  } else if (answered.body === null) {
    send(res, answered.status, cors);
  } else {
    return stream(res, answered, line, cors);
  }
  say("info", `rpcserver: ${line} ${answered.status}`);
};

const NOT_ALLOWED = "rpcserver: send JSON-RPC 2.0 requests with POST\n";

/**
 * How long a browser may keep a preflight's answer: 10 minutes, so a page does not preflight every
 * call, and a change of the server's options is seen soon (Chrome caps it at 2 hours anyway).
 */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Refusals logged at warn level, each header value once: a page that keeps retrying must not flood
 * the log. Past this many distinct values, refusals are logged at info level only.
 */
const MAX_WARNED_REFUSALS = 100;

/** What the handler checks before it dispatches: the guard, and whether CORS is on. */
export interface Gate {
  /** Set again once listening: the address bound (`localhost` may be 127.0.0.1 or ::1) decides. */
  guard: (headers: GuardedHeaders) => Refusal | undefined;
  readonly cors: boolean;
  readonly warned: Set<string>;
  /** The inspector page's HTML, answered to a browser's GET of `/`; `undefined` when it is off. */
  readonly page: string | undefined;
}

/** The CORS headers of an answer to an allowed `origin`, or none. */
const corsHeaders = (gate: Gate, origin: string | undefined): Headers =>
  gate.cors && origin !== undefined ? { "Access-Control-Allow-Origin": origin, Vary: "Origin" } : NO_HEADERS;

/** A preflight from an allowed origin: 204 with what the page may send. */
const preflight = (req: IncomingMessage, res: ServerResponse, cors: Headers): void => {
  const asked = req.headers["access-control-request-headers"];
  const privateNetwork = req.headers["access-control-request-private-network"] === "true";
  send(res, 204, {
    ...cors,
    Vary: "Origin, Access-Control-Request-Headers",
    "Access-Control-Allow-Methods": "POST",
    ...(asked === undefined ? {} : { "Access-Control-Allow-Headers": asked }),
    ...(privateNetwork ? { "Access-Control-Allow-Private-Network": "true" } : {}),
    "Access-Control-Max-Age": PREFLIGHT_MAX_AGE_SECONDS,
  });
};

const refuse = (res: ServerResponse, gate: Gate, refusal: Refusal, line: string): void => {
  const key = `${refusal.header} ${refusal.value}`;
  const first = !gate.warned.has(key) && gate.warned.size < MAX_WARNED_REFUSALS;
  if (first) gate.warned.add(key);
  say(first ? "warn" : "info", `rpcserver: ${line} 403: ${refusal.message.trimEnd()}`);
  send(res, 403, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" }, refusal.message);
};

/** The request handler: one per server, all requests concurrent. */
export const handler =
  (methods: Methods | undefined, options: Options, gate: Gate) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    const line = `${req.method ?? "?"} ${req.url ?? "?"}`;
    req.on("error", (e) => say("info", `rpcserver: ${line}: request stream error (${messageOf(e)}); not answered`));
    res.on("error", (e) => say("info", `rpcserver: ${line}: response stream error (${messageOf(e)})`));

    const headers = req.headers;
    const refusal = gate.guard(headers);
    if (refusal !== undefined) {
      req.resume(); // drain the body: it is never dispatched
      refuse(res, gate, refusal, line);
      return;
    }
    const cors = corsHeaders(gate, headers.origin);

    if (req.method !== "POST") {
      req.resume(); // drain the body so the connection can be reused
      if (gate.page !== undefined && isPageRequest(req.method, req.url, headers)) {
        send(res, 200, PAGE_HEADERS, gate.page);
        say("info", `rpcserver: ${line} 200 (inspector page)`);
        return;
      }
      if (req.method === "OPTIONS" && cors !== NO_HEADERS && headers["access-control-request-method"] !== undefined) {
        preflight(req, res, cors);
        say("info", `rpcserver: ${line} 204 (CORS preflight)`);
        return;
      }
      const vary = gate.page !== undefined && isPagePath(req.method, req.url) ? varyingByAccept(cors) : cors;
      send(res, 405, { ...vary, Allow: "POST", "Content-Type": "text/plain; charset=utf-8" }, NOT_ALLOWED);
      say("info", `rpcserver: ${line} 405`);
      return;
    }

    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      // A Uint8Array of this realm: dispatch checks `instanceof Uint8Array`.
      const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      answer(bytes, methods, options, req, res, line, cors).catch((thrown: unknown) => {
        // Only a bug of this module gets here; the process must not die of an unhandled rejection.
        say("error", `rpcserver: ${line}: could not answer: ${messageOf(thrown)}`);
        res.destroy();
      });
    });
  };
