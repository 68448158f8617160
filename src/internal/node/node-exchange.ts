/**
 * The one HTTP path (../http/exchange) on Node's own request and response: `nodeHandler`'s and the
 * development server's. `req` is read as that path reads a request, with no web object made (a
 * `Request`, `Headers` and web streams for each request cost half the speed): its headers as Node
 * parsed them, its body from its `data` events within the limit. The reply is written to `res`: a
 * text with its length, an event stream chunk by chunk at the client's pace (./body-writer).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { messageOf } from "../core/describe";
import type { Followed } from "../core/signal";
import { heldBySignal } from "../http/held-request";
import { answerExchange, type Incoming, type Read, type Reply, type Service } from "../http/exchange";
import { say, type HeaderValues } from "../http/route";
import { writeBody } from "./body-writer";
import { offFin, onFin } from "./client-fin";

/** What a server tells of each request it answers (the development server's log); `line` is its method and target. */
export interface RequestLog {
  /** Once the reply's head is written. */
  readonly answered: (line: string, reply: Reply) => void;
  /** A request that got no whole answer: the client went away first. */
  readonly left: (line: string, what: string) => void;
}

/** Nothing to do: what a cancel of a stream already gone rejects with is of no use. */
const ignore = (): void => undefined;

/**
 * The client going away, as dispatch follows it (`res` closing before the answer, or its FIN while
 * the answer is pending): a signal of a few listeners and no event target, where an
 * `AbortController` for every request cost a tenth of its time. A real signal is made only for a
 * `context` function's `Request`.
 */
class Departure implements Followed {
  aborted = false;
  private listeners: Array<() => void> = [];
  private controller: AbortController | undefined;

  addEventListener(_type: "abort", listener: () => void): void {
    this.listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    // In place: dispatch lets go of its one listener at every answer, and a new array each time is garbage on every request.
    const at = this.listeners.indexOf(listener);
    if (at !== -1) this.listeners.splice(at, 1);
  }

  /** The client left: each listener once, then the real signal if one was made. */
  readonly leave = (): void => {
    if (this.aborted) return;
    this.aborted = true;
    const { listeners } = this;
    this.listeners = [];
    for (const listener of listeners) listener();
    this.controller?.abort();
  };

  /** A real `AbortSignal` of the same departure. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }
}

/** Whether reading stopped before the body's end (the limit): the connection cannot be reused then. */
interface Reading {
  cut: boolean;
}

/**
 * The path and query as sent: Express and Connect take a mount path off `req.url`
 * (`app.use("/rpc", handler)` gives `/`) and keep the target as sent in `req.originalUrl`.
 */
const targetOf = (req: IncomingMessage): string => {
  const original = (req as { originalUrl?: unknown }).originalUrl;
  return typeof original === "string" ? original : (req.url ?? "/");
};

/** The URL of the `Request` a `context` function gets: the target on `localhost` (its host is the `Host` header). */
const urlOf = (req: IncomingMessage): string => {
  try {
    const url = new URL(targetOf(req), "http://localhost");
    return `http://localhost${url.pathname}${url.search}`;
  } catch {
    return "http://localhost/";
  }
};

/**
 * The web `Request` a `context` function gets: the POST's head (method, URL, headers) and the
 * client's signal; its body was read by the handler, so it has none.
 */
const requestOf = (req: IncomingMessage, departure: Departure): Request => {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i] as string, raw[i + 1] as string);
    } catch {
      // A value Node took that the Fetch API refuses: left out of the context's view, not the request's.
    }
  }
  // Held by its signal, so that a context that keeps only `request.signal` still sees the client leave.
  return heldBySignal(new Request(urlOf(req), { method: "POST", headers, signal: departure.signal }));
};

/**
 * A body a framework's parser already read (Express's `express.raw()`, `express.text()` or
 * `express.json()`), or `undefined` when the stream is still to be read.
 */
const parsedBody = (req: IncomingMessage): Uint8Array | undefined => {
  const body = (req as { body?: unknown }).body;
  if (body === undefined || !req.readableEnded) return undefined;
  if (body instanceof Uint8Array) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  // A text (express.text()), or a parsed JSON value (express.json()) as its JSON again: its size
  // was the parser's limit to check.
  return new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body));
};

/** One array of this realm of the chunks (dispatch checks `instanceof Uint8Array`). */
const joined = (chunks: readonly Buffer[], length: number): Uint8Array => {
  const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
};

/**
 * `req`'s body, read until its end or until more than `limit` bytes came: then reading stops (the
 * rest is held back by TCP, and the connection is closed after the answer), and a declared
 * `Content-Length` over the limit stops it before a byte is read. A body something read before,
 * with nothing kept in `req.body` (Fastify's own parsers), is `"used"`, where waiting for an end
 * that already came would hang the request.
 */
const readBody = (req: IncomingMessage, limit: number, reading: Reading): Promise<Read> => {
  const parsed = parsedBody(req);
  if (parsed !== undefined) return Promise.resolve(parsed);
  if (req.readableEnded) return Promise.resolve("used");
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) {
    reading.cut = true;
    return Promise.resolve("over");
  }
  return new Promise<Read>((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let settled = false;
    // Once settled, the rest of the body (if any) is not read: the listeners stay on this
    // request's `req`, which goes with it, and do nothing.
    const settle = (read: Read): void => {
      if (settled) return;
      settled = true;
      if (!(read instanceof Uint8Array)) req.off("data", onData);
      resolve(read);
    };
    const onData = (chunk: Buffer): void => {
      length += chunk.byteLength;
      if (length > limit) {
        reading.cut = true;
        req.pause();
        return settle("over");
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => settle(joined(chunks, length)));
    req.on("error", (broken) => settle({ broken }));
    // Closed before its end, with no error told (destroyed by something else). Node closes every
    // `req` once its exchange is over: the Error (a stack trace captured) is made only when it tells.
    req.on("close", () => {
      if (!settled) settle({ broken: new Error("the request closed before its body's end") });
    });
  });
};

/** A header of Node's (lower-case names), as one value. */
const headerOf =
  (req: IncomingMessage) =>
  (name: string): string | undefined => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  };

/** `req`, as the one HTTP path reads a request. */
const incomingOf = (req: IncomingMessage, departure: Departure, reading: Reading): Incoming => ({
  method: req.method ?? "GET",
  target: () => targetOf(req),
  header: headerOf(req),
  read: (limit) => readBody(req, limit, reading),
  // Drained, so that the connection can carry the next request.
  discard: () => void req.resume(),
  signal: departure,
  request: () => requestOf(req, departure),
});

/** The reply's head as Node writes it: a text's length, and the connection closed after a body not read to its end. */
const headOf = (reply: Reply, reading: Reading, length: number | undefined): HeaderValues => {
  if (!reading.cut && length === undefined) return reply.headers;
  const head: { [name: string]: string | number } = {};
  for (const name of Object.keys(reply.headers)) head[name] = reply.headers[name] as string | number;
  if (length !== undefined) head["Content-Length"] = length;
  if (reading.cut) head["Connection"] = "close";
  return head;
};

/** Writes the reply to `res`: its head, then its body (an event stream at the client's pace). */
const write = async (
  reply: Reply,
  res: ServerResponse,
  reading: Reading,
  line: string,
  log?: RequestLog,
): Promise<void> => {
  const { status, body } = reply;
  if (res.headersSent || res.destroyed) {
    if (body instanceof ReadableStream) body.cancel().catch(ignore);
    log?.left(line, "the client went away before the answer");
    return;
  }
  if (typeof body === "string" && status !== 204) {
    res.writeHead(status, headOf(reply, reading, Buffer.byteLength(body))).end(body);
  } else if (body === null || typeof body === "string") {
    res.writeHead(status, headOf(reply, reading, undefined)).end();
  } else {
    res.writeHead(status, headOf(reply, reading, undefined));
    log?.answered(line, reply);
    if (!(await writeBody(res, body)))
      log?.left(line, "the event stream ended before its answer (the client went away)");
    return;
  }
  log?.answered(line, reply);
};

/**
 * A client that half-closes after its request (shutdown(SHUT_WR), `nc -N`) still gets its answer:
 * by default node:http ends such a socket at its FIN, before an async dispatch can reply, unless its
 * server is half-open. The server `req` came through is made so (its other routes then answer such
 * a client too, which is all the mode changes); `server` and `httpAllowHalfOpen` are node:http's,
 * unlisted but there since Node 0.x: where absent, nothing is done.
 */
const halfOpen = (req: IncomingMessage): void => {
  const server = (req.socket as { server?: { httpAllowHalfOpen?: unknown } } | null)?.server;
  if (server?.httpAllowHalfOpen === false) server.httpAllowHalfOpen = true;
};

/**
 * A response something began before the handler was called (a middleware that wrote, then called
 * `next()`): no answer can follow it, so nothing is dispatched (a method's effects for an answer
 * never sent), an error says why, and a response left unfinished is ended by closing its connection,
 * as a client must not take a part for the whole. One the middleware finished is left as it is.
 */
const begun = (who: string, res: ServerResponse, line: string): void => {
  say(
    "error",
    `rpcserver: ${who}: ${line}: not dispatched: the response was begun ` +
      "before the handler was called (by a middleware?); call the handler before anything writes to res",
  );
  if (!res.writableEnded) res.destroy();
};

/** Answers `req` on `res`; resolves once the answer is written or the client left. */
const exchange = async (
  service: Service,
  req: IncomingMessage,
  res: ServerResponse,
  line: string,
  log: RequestLog | undefined,
): Promise<void> => {
  if (res.headersSent) return begun(service.who, res, line);
  halfOpen(req);
  // The client going away (`res` closing before the answer, or a FIN while it is pending) aborts
  // the request's signal, and so the methods'. A FIN is either a half-close (`nc -N`) or a client
  // gone, which TCP cannot tell apart until we write: as Go's net/http does, the methods are told
  // to stop, and whatever they answer is still written (the server is half-open).
  const departure = new Departure();
  const { leave } = departure;
  res.on("close", leave);
  const { socket } = req;
  const reading: Reading = { cut: false };
  let pending = true;
  // A request pipelined behind another, its connection gone: Node gives its `res` no socket and
  // never closes it, so an event stream written to it would wait for a `drain` that never comes
  // (its method never stopped, its `finally` never run, this Promise never settled). Closed here
  // as Node closes the `res` it was answering. One entry of ./client-fin's per request, whose
  // FIN or close aborts the departure while the answer is pending.
  const gone = (): void => {
    if (pending) leave();
    if (!socket.destroyed || res.socket !== null || res.writableFinished || res.destroyed) return;
    res.destroy();
    res.emit("close");
  };
  onFin(socket, gone);
  try {
    let reply: Reply;
    try {
      reply = await answerExchange(service, incomingOf(req, departure, reading));
    } finally {
      // A keep-alive socket outlives this request: it keeps no listener of it. Nor does `res` once
      // answered: an abort after a whole answer would stop nothing. An
      // event stream left mid-way is cancelled by ./body-writer, which aborts the methods' signal.
      pending = false;
      res.removeListener("close", leave);
    }
    await write(reply, res, reading, line, log);
  } finally {
    offFin(socket, gone);
  }
};

/**
 * The request handler of `service` on Node: `(req, res) => Promise<void>`, which never rejects. A
 * request stream's error (a client's reset mid-upload) is a body not read: logged at info level,
 * answered 400 if the connection still takes it.
 */
export const nodeExchange =
  (service: Service, log?: RequestLog) =>
  (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const line = `${req.method ?? "?"} ${req.url ?? "?"}`;
    return exchange(service, req, res, line, log).catch((thrown: unknown) => {
      // Only a bug of this module gets here; the process must not die of an unhandled rejection.
      say("error", `rpcserver: ${service.who}: ${line}: could not answer: ${messageOf(thrown)}`);
      res.destroy();
    });
  };
