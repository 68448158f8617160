/**
 * `nodeHandler`: `fetchHandler` on Node's own request and response (`node:http`, Express, Connect,
 * Fastify's raw ones, Koa's `ctx.req`/`ctx.res`). The request becomes a web `Request` whose body
 * is read from `req` as the handler asks for it (so the body limit stops reading, not only
 * counting), and the `Response` is written back to `res`: JSON with its length, an event stream
 * chunk by chunk at the client's pace (../node/body-writer). One HTTP path: what is answered, and
 * how, is `fetchHandler`'s.
 *
 * @module
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Entries } from "../contract/contract";
import type { Server } from "../contract/implement";
import type { NoContext } from "../core/context-marks";
import { messageOf } from "../core/describe";
import type { MethodsFor } from "../core/dispatch-context";
import type { AnyStage } from "../core/stages";
import { handlerOf, type AppOptionsArg, type FetchHandler, type TableOptionsArg } from "../http/fetch-handler";
import { say } from "../http/route";
import { writeBody } from "./body-writer";
import { offFin, onFin } from "./client-fin";

/**
 * A Node request handler: answers `req` on `res`. The Promise settles once the answer is written
 * (or the client left); it never rejects.
 *
 * @since 5.0.10
 * @category server
 */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Nothing to do: what a cancel of a stream already gone rejects with is of no use. */
const ignore = (): void => undefined;

/**
 * Methods a `Request` cannot be made with (the Fetch standard forbids them) that node:http may hand
 * over (TRACE). `fetchHandler` answers every method but POST, GET and OPTIONS alike (the guard's 403,
 * else 405 as the development server answers), so such a request is made with one of those
 * (DELETE), where it would fail to be made and be answered 400.
 */
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/** Methods whose requests have no body, by the Fetch standard. */
const BODILESS = new Set(["GET", "HEAD"]);

/**
 * The URL the `Request` is made with: the path and query as sent (the page calls that path); the
 * host is read from the `Host` header. Express and Connect take a mount path off `req.url`
 * (`app.use("/rpc", handler)` gives `/`) and keep the target as sent in `req.originalUrl`.
 */
const urlOf = (req: IncomingMessage): string => {
  const original = (req as { originalUrl?: unknown }).originalUrl;
  try {
    const url = new URL(typeof original === "string" ? original : (req.url ?? "/"), "http://localhost");
    return `http://localhost${url.pathname}${url.search}`;
  } catch {
    return "http://localhost/";
  }
};

/**
 * A body a framework's parser already read (Express's `express.raw()`, `express.text()` or
 * `express.json()`), or `undefined` when the stream is still to be read.
 */
const parsedBody = (req: IncomingMessage): string | Uint8Array | undefined => {
  const body = (req as { body?: unknown }).body;
  if (body === undefined || !req.readableEnded) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  // A parsed JSON value (express.json()): the same JSON again; its size was the parser's limit to check.
  return JSON.stringify(body);
};

/** Whether reading stopped before the body's end (the limit): the connection cannot be reused then. */
interface Reading {
  cut: boolean;
}

/**
 * `req`'s body as a web stream, read as it is pulled: `req` is paused while the stream's queue is
 * full, so a client sending more than the handler reads is held by TCP, not buffered here. A cancel
 * (the body over the limit) stops reading and leaves the connection to be closed after the answer.
 */
const bodyOf = (req: IncomingMessage, reading: Reading): ReadableStream<Uint8Array> =>
  new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on("data", (chunk: Buffer) => {
          if (reading.cut) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once("end", () => {
          if (!reading.cut) controller.close();
        });
        req.once("error", (e) => {
          if (!reading.cut) controller.error(e);
        });
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        reading.cut = true;
        req.pause();
      },
    },
    { highWaterMark: 4 },
  );

/**
 * The web `Request` of `req`: its method, path, headers and body, and `signal` for the client
 * leaving. A body something else read before (Fastify's own parsers), with nothing kept in
 * `req.body`, is a `Request` whose body is used: `fetchHandler` says what happened, where a stream
 * waiting for an end that already came would hang the request.
 */
const requestOf = async (req: IncomingMessage, signal: AbortSignal, reading: Reading): Promise<Request> => {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const given = req.method ?? "GET";
  const method = FORBIDDEN_METHODS.has(given) ? "DELETE" : given;
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal };
  if (BODILESS.has(method)) return new Request(urlOf(req), init);
  const parsed = parsedBody(req);
  if (parsed === undefined && req.readableEnded) {
    const used = new Request(urlOf(req), { ...init, body: "" });
    await used.arrayBuffer();
    return used;
  }
  init.body = parsed ?? bodyOf(req, reading);
  init.duplex = "half";
  return new Request(urlOf(req), init);
};

/** Writes `response` to `res`: its head, then its body (an event stream at the client's pace). */
const write = async (response: Response, res: ServerResponse, reading: Reading): Promise<void> => {
  if (res.headersSent || res.destroyed) {
    response.body?.cancel().catch(ignore);
    return;
  }
  const headers: OutgoingHttpHeaders = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  // The rest of a body over the limit was never read: the connection ends with this answer.
  if (reading.cut) headers["connection"] = "close";
  const body = response.body;
  if (body === null) {
    res.writeHead(response.status, headers).end();
    return;
  }
  if (response.headers.get("content-type")?.startsWith("text/event-stream") === true) {
    res.writeHead(response.status, headers);
    await writeBody(res, body);
    return;
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  headers["content-length"] = bytes.byteLength;
  res.writeHead(response.status, headers).end(bytes);
};

/**
 * A client that half-closes after its request (shutdown(SHUT_WR), `nc -N`) still gets its answer,
 * as from the development server: by default node:http ends such a socket at its FIN, before an
 * async dispatch can reply, unless its server is half-open. The server `req` came through is made
 * so (its other routes then answer such a client too, which is all the mode changes); `server` and
 * `httpAllowHalfOpen` are node:http's, unlisted but there since Node 0.x: where absent, nothing is done.
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
const begun = (req: IncomingMessage, res: ServerResponse): void => {
  say(
    "error",
    `rpcserver: nodeHandler: ${req.method ?? "?"} ${req.url ?? "?"}: not dispatched: the response was begun ` +
      "before the handler was called (by a middleware?); call the handler before anything writes to res",
  );
  if (!res.writableEnded) res.destroy();
};

/** Answers one request with `handle`. */
const answer = async (handle: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  if (res.headersSent) return begun(req, res);
  halfOpen(req);
  // The client going away (`res` closing before the answer, or a FIN while it is pending, as the
  // development server reads one) aborts the request's signal, and so the methods'.
  const gone = new AbortController();
  const leave = (): void => gone.abort();
  res.once("close", leave);
  const { socket } = req;
  onFin(socket, leave);
  const reading: Reading = { cut: false };
  try {
    const response = await handle(await requestOf(req, gone.signal, reading));
    await write(response, res, reading);
  } finally {
    // A keep-alive socket outlives this request: it keeps no listener of it. Nor does `res` once
    // answered: an abort after a whole answer would stop nothing, and costs a DOMException.
    offFin(socket, leave);
    res.removeListener("close", leave);
  }
};

/**
 * JSON-RPC over HTTP as a Node request handler, `(req, res) => Promise<void>`: `fetchHandler` (`rpcserver/fetch`)
 * (the same options, answers and checks) on Node's `IncomingMessage` and `ServerResponse`.
 *
 * When to use it: to serve methods from `node:http`, Express, Connect, Fastify or Koa in one line,
 * an event stream written at the client's pace.
 *
 * Details:
 * - The body is read from `req` as the handler asks for it: a body over `maxBodyBytes` (1 MiB by
 *   default) is not read further, answered 413, and its connection closed after the answer. A body
 *   a framework's parser read first (`req.body`: Express's `raw`, `text` or `json`) is taken as it
 *   is (a parsed JSON value as its JSON again).
 * - `context(request)` gets the web `Request` (its headers), as `fetchHandler`'s does.
 * - The client going away aborts the methods' signal and ends an event stream.
 * - A client that half-closes after its request still gets its answer: the `node:http` server
 *   the handler is called from is made half-open (`httpAllowHalfOpen`), as the development server is.
 *
 * @example
 * import { createServer } from "node:http";
 * import { Success } from "rpcserver";
 * import { nodeHandler } from "rpcserver/server";
 * const handler = nodeHandler({ add: (a: number, b: number) => Success(a + b) }, { maxBatchSize: 100 });
 * const server = createServer((req, res) => void handler(req, res));
 * // Express: app.post("/rpc", handler). Koa: ctx.respond = false; await handler(ctx.req, ctx.res).
 * server.close();
 *
 * @since 5.0.10
 * @category server
 */
export function nodeHandler<M extends Entries, In, Cur>(
  app: Server<M, In, Cur>,
  ...options: AppOptionsArg<In>
): NodeHandler;
export function nodeHandler<C = NoContext, X = NoContext, const S extends ReadonlyArray<AnyStage> = readonly []>(
  methods: MethodsFor<C>,
  ...options: TableOptionsArg<C, X, S>
): NodeHandler;
export function nodeHandler(methodsOrApp: unknown, options?: unknown): NodeHandler {
  const handle = handlerOf("nodeHandler", methodsOrApp, options);
  return (req, res) =>
    answer(handle, req, res).catch((thrown: unknown) => {
      // A request Node took that the Fetch API refuses, or a bug of this module: never a rejection.
      say(
        "info",
        `rpcserver: nodeHandler: ${req.method ?? "?"} ${req.url ?? "?"}: not answered (${messageOf(thrown)})`,
      );
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(400, { "content-type": "text/plain; charset=utf-8", connection: "close" });
        res.end("rpcserver: the request could not be read\n");
      } else res.destroy();
    });
}
