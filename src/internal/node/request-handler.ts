/**
 * The development server's request handler: each request checked by the browser guard, answered
 * 403, 405, a CORS preflight or the inspector page (a browser's GET of `/`), as ../http/route decides, or
 * its POST body dispatched and answered by `answerHttp`: 200 or 204, or, when its `Accept` asks for
 * `text/event-stream`, 202 for notifications alone or an event stream of the values methods stream
 * (written by ./body-writer); with the server's logging, which never throws.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { answerHttp, type HttpStreamAnswer } from "../http/answer";
import { messageOf } from "../core/describe";
import type { Methods } from "../core/methods";
import type { Options } from "../core/options";
import { toHttp } from "../http/json-answer";
import { NO_HEADERS, route, say, SERVER_ERROR_BODY, type Gate, type HeaderValues as Headers } from "../http/route";
import type { Refusal } from "../http/browser-guard";
import { writeBody } from "./body-writer";
import { offFin, onFin } from "./client-fin";

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
  onFin(socket, leave);
  let answered: HttpStreamAnswer;
  try {
    answered = await answerHttp(bytes, methods, { ...options, accept: req.headers.accept, signal: gone.signal });
  } catch (thrown) {
    say("error", `rpcserver: ${line}: dispatch failed: ${messageOf(thrown)}`);
    answered = toHttp(SERVER_ERROR_BODY);
  }
  // A keep-alive socket outlives this request: it keeps no listener of it. Nor does `res`: once
  // answered, an abort would stop nothing and cost a DOMException per request (an event stream
  // left mid-way is cancelled by body-writer, which aborts the methods' signal).
  offFin(socket, leave);
  res.removeListener("close", leave);
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

/**
 * Refusals logged at warn level, each header value once: a page that keeps retrying must not flood
 * the log. Past this many distinct values, refusals are logged at info level only.
 */
const MAX_WARNED_REFUSALS = 100;

/** The development server's gate: the shared one (../http/route), and the refusals it has logged. */
export interface NodeGate extends Gate {
  readonly warned: Set<string>;
}

const logRefusal = (gate: NodeGate, refusal: Refusal, line: string): void => {
  const key = `${refusal.header} ${refusal.value}`;
  const first = !gate.warned.has(key) && gate.warned.size < MAX_WARNED_REFUSALS;
  if (first) gate.warned.add(key);
  say(first ? "warn" : "info", `rpcserver: ${line} 403: ${refusal.message.trimEnd()}`);
};

/** A header of Node's (lower-case names), as one value. */
const headerOf =
  (req: IncomingMessage) =>
  (name: string): string | undefined => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  };

/** The request handler: one per server, all requests concurrent. */
export const handler =
  (methods: Methods | undefined, options: Options, gate: NodeGate) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    const line = `${req.method ?? "?"} ${req.url ?? "?"}`;
    req.on("error", (e) => say("info", `rpcserver: ${line}: request stream error (${messageOf(e)}); not answered`));
    res.on("error", (e) => say("info", `rpcserver: ${line}: response stream error (${messageOf(e)})`));

    const routed = route(gate, req.method, req.url ?? "", headerOf(req));
    if (!routed.dispatch) {
      req.resume(); // drain the body: it is never dispatched, and the connection can be reused
      if (routed.refusal !== undefined) logRefusal(gate, routed.refusal, line);
      send(res, routed.status, routed.headers, routed.body);
      if (routed.refusal === undefined) say("info", `rpcserver: ${line} ${routed.said}`);
      return;
    }
    const { cors } = routed;

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
