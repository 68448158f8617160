/**
 * rpcserver/node-http: the client's HTTP transport for Node, on `node:http` and `node:https` with
 * a keep-alive agent. Node-only (it imports Node's modules); `rpcserver/client` stays free of
 * them, for browsers, Deno, Bun and workers, where its `http` on the standard `fetch` is the one.
 *
 * Why a second HTTP transport: on Node, the standard `fetch` (undici) costs about four times what
 * `node:http` costs a call on loopback (measured in docs/benchmarks.md); `nodeHttp` is `http`'s
 * semantics at `node:http`'s cost.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { client, open } from "rpcserver/client";
 * import { nodeHttp } from "rpcserver/node-http";
 * import { serve } from "rpcserver/server";
 * const api = contract({
 *   add: { params: t.tuple([t.number, t.number]), result: t.number },
 *   count: { params: t.tuple([t.number]), stream: t.number, result: t.string },
 * });
 * const methods = implement(api, {
 *   add: (a, b) => E.right(a + b),
 *   count: async function* (to) {
 *     for (let i = 1; i <= to; i++) yield i;
 *     return E.right(`counted to ${to}`);
 *   },
 * });
 * // A server to call: the development server, on a port the system picks.
 * const server = await serve("127.0.0.1", 0, { methods });
 * const calc = client(api, nodeHttp(`${server.url}rpc`));
 * await calc.add(1, 2)(); // { _tag: "Right", right: 3 }
 * // A streamed call: its values as the server sends them (an event stream), then its result.
 * const run = open(calc.count(3));
 * const values: number[] = [];
 * for await (const n of run) values.push(n);
 * values; // [1, 2, 3]
 * await run.result; // { _tag: "Right", right: "counted to 3" }
 * server.close();
 *
 * @module
 */
import * as http from "node:http";
import * as https from "node:https";
import { pipeline, type Readable } from "node:stream";
import { urlToHttpOptions } from "node:url";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import * as E from "fp-ts/Either";
import { NEVER, streamedId, type ParsedAnswer, type Transport, type TransportOptions } from "../client/transport";
import { aborted, failure, network, tooLarge, type TransportError } from "../client/errors";
import { decoded, eventAnswer, type EventChunks } from "../client/transports/event-answer";
import { isEventStream } from "../http/event-stream-reader";
import {
  answerLimit,
  answerOf,
  declaredLength,
  extraHeaders,
  headersOf,
  STREAM_HEADERS,
} from "../client/transports/http-answer";

/**
 * Options of the {@link nodeHttp} transport.
 *
 * @example
 * import { Agent } from "node:http";
 * import type { NodeHttpOptions } from "rpcserver/node-http";
 * const options: NodeHttpOptions = { agent: new Agent({ keepAlive: true, maxSockets: 8 }), maxAnswerBytes: 1024 * 1024 };
 *
 * @since 5.0.10
 * @category client
 */
export interface NodeHttpOptions {
  /**
   * Headers for each request, or a function giving them at each request (for a token that
   * expires). One named as a default (`content-type: application/json`, and `accept`:
   * `application/json`, or `text/event-stream, application/json` for a streamed call) replaces it,
   * whatever its case. `content-length` is added unless given.
   */
  readonly headers?:
    | Readonly<Record<string, string>>
    | (() => Readonly<Record<string, string>> | PromiseLike<Readonly<Record<string, string>>>)
    | undefined;
  /**
   * The agent that holds the connections: an `http.Agent` for an `http:` URL, an `https.Agent`
   * for `https:` (its TLS options: `ca`, `cert`, `rejectUnauthorized`...). Default: one of the
   * transport's own, with `keepAlive: true`, so that calls reuse their connection rather than
   * open one each (an idle connection does not keep the process alive). Give your own to bound
   * the sockets (`maxSockets`) or to close them (`agent.destroy()`).
   */
  readonly agent?: http.Agent | undefined;
  /**
   * The longest answer taken, in bytes of its body (as received, after any decompression);
   * `Infinity` for no bound. A longer one fails the call with `TransportError` `tooLarge` (its
   * `limit` is this) and is not read to its end: refused at its `content-length` when it has one,
   * else the connection is closed once that many bytes have come, so it is never held whole.
   * Default 64 MiB (`64 * 1024 * 1024`), as `http`'s. An event stream (a streamed call's answer)
   * is bounded event by event, as `http` bounds it: the stream itself goes on as long as the
   * method streams.
   */
  readonly maxAnswerBytes?: number | undefined;
}

/** What {@link readBody} answers for a body longer than the limit. */
const TOO_LARGE = Symbol("tooLarge");

/** UTF-8 as `fetch`'s `text()` decodes it: a byte-order mark dropped, a bad sequence U+FFFD. */
const utf8 = new TextDecoder();

/** The decompressor of a `content-encoding`, as `fetch` decompresses; none for `identity` or one it does not know. */
const decompressor = (encoding: string | undefined): NodeJS.ReadWriteStream | undefined => {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return createGunzip();
    case "deflate":
      return createInflate();
    case "br":
      return createBrotliDecompress();
    default:
      return undefined;
  }
};

/**
 * The body of `response` to `done` as text, or `TOO_LARGE` past `limit` bytes (refused at its
 * `content-length` when it declares one, else counted as it comes); what failed while it came to
 * `failed`. The chunks are kept as they come and decoded once at the end.
 */
const readBody = (
  response: http.IncomingMessage,
  limit: number,
  done: (text: string | typeof TOO_LARGE) => void,
  failed: (cause: unknown) => void,
): void => {
  const encoding = response.headers["content-encoding"];
  const length = declaredLength(response.headers["content-length"], encoding);
  if (Number.isSafeInteger(length) && length > limit) {
    response.destroy();
    return done(TOO_LARGE);
  }
  const decompress = decompressor(encoding);
  const body: Readable = decompress === undefined ? response : (response.pipe(decompress) as unknown as Readable);
  const chunks: Buffer[] = [];
  let bytes = 0;
  let ended = false;
  const fail = (cause: unknown): void => {
    response.destroy();
    failed(cause);
  };
  body.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > limit) {
      // Closing the connection stops the server's sending: the rest is never read.
      response.destroy();
      if (decompress !== undefined) body.destroy();
      return done(TOO_LARGE);
    }
    chunks.push(chunk);
  });
  body.on("end", () => {
    ended = true;
    done(chunks.length === 1 ? utf8.decode(chunks[0]) : utf8.decode(Buffer.concat(chunks, bytes)));
  });
  body.on("error", fail);
  if (decompress !== undefined) response.on("error", fail);
  // The connection closed before the body ended (the server went away): no answer.
  response.on("close", () => {
    if (!ended && !response.complete) failed(new Error("the connection closed before the answer ended"));
  });
};

/** Nothing to do: a failure of the decompressing pipeline reaches its reader, which reports it. */
const ignore = (): void => undefined;

/**
 * The body of a response that is an event stream (decompressed as `fetch` does) as the source that
 * `eventAnswer` reads, the parser and the values' logic being `http`'s own. Pulled a chunk at a
 * time, so the stream stays paused between reads: while `onValue` waits for the consumer, nothing
 * more is read, the sockets' buffers fill, and the server's writes wait (back-pressure). Left
 * before its end, the response is destroyed, which closes the connection: the server sees the
 * client go and stops the method. One that has come whole (the answer was its last event) is
 * drained instead, so that the connection goes back to the agent for the next call.
 */
const eventChunks = (response: http.IncomingMessage): EventChunks => {
  const decompress = decompressor(response.headers["content-encoding"]);
  // A pipeline, not `pipe`: a failure at either end destroys the other and reaches the reader.
  const body: Readable =
    decompress === undefined ? response : (pipeline(response, decompress, ignore) as unknown as Readable);
  const chunks = body.iterator({ destroyOnReturn: false });
  return decoded({
    next: () => chunks.next(),
    cancel: () => {
      if (response.complete && body === response) {
        // What is left is buffered already (the stream's end included): reading it emits `end`.
        while (response.read() !== null);
        return;
      }
      response.destroy();
      if (body !== response) body.destroy();
    },
  });
};

/** Whether `headers` names `name` (lower case), in any case. */
const hasHeader = (headers: Readonly<Record<string, string>>, name: string): boolean =>
  Object.keys(headers).some((key) => key.toLowerCase() === name);

/** How one request is sent: `http.request` or `https.request`, and the options every request shares. */
interface Target {
  readonly request: typeof http.request;
  readonly options: http.RequestOptions;
}

/**
 * POSTs one body and answers as `http` does: its answer, or the TransportError of what failed; an
 * event stream read as it arrives, its values handed to `onValue`. Never rejects.
 */
const post = (
  target: Target,
  body: string,
  extra: Readonly<Record<string, string>> | undefined,
  options: TransportOptions,
  limit: number,
): Promise<E.Either<TransportError, string | ParsedAnswer>> =>
  new Promise((settle) => {
    const { signal } = options;
    if (signal.aborted) return settle(E.left(aborted(signal.reason)));
    const headers = options.onValue === undefined ? headersOf(extra) : headersOf(extra, STREAM_HEADERS);
    if (extra === undefined || !hasHeader(extra, "content-length")) {
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    let settled = false;
    let request: http.ClientRequest | undefined;
    const finish = (answer: E.Either<TransportError, string | ParsedAnswer>): void => {
      if (settled) return;
      settled = true;
      if (signal !== NEVER) signal.removeEventListener("abort", onAbort);
      settle(answer);
    };
    const onAbort = (): void => {
      finish(E.left(aborted(signal.reason)));
      request?.destroy();
    };
    try {
      request = target.request({ ...target.options, headers });
    } catch (cause) {
      // An invalid header (a newline in a value, say): nothing was sent.
      return finish(E.left(network(cause)));
    }
    // A call that nothing can abort adds no listener (see NEVER).
    if (signal !== NEVER) signal.addEventListener("abort", onAbort, { once: true });
    request.on("error", (cause) => finish(E.left(failure(signal, cause))));
    request.on("response", (response) => {
      // As `http`: an event stream is read as one whatever the call asked (a plain call's values are dropped).
      if (isEventStream(response.headers["content-type"])) {
        return void eventAnswer(eventChunks(response), options, streamedId(body, options), limit).then(finish);
      }
      const status = response.statusCode ?? 0;
      readBody(
        response,
        limit,
        (text) =>
          finish(text === TOO_LARGE ? E.left(tooLarge(limit)) : answerOf(status >= 200 && status < 300, status, text)),
        (cause) => finish(E.left(failure(signal, cause))),
      );
    });
    request.end(body);
  });

/**
 * A transport that POSTs each request body to `url` on `node:http` (`node:https` for an `https:`
 * URL) over a keep-alive agent, with `content-type: application/json` and the headers of
 * `options`. The same answers as `http`'s: a response whose body is JSON is the answer, whatever
 * its status; any other status than 2xx is a `TransportError` of reason `status` (with the body);
 * an empty 2xx body (notifications) is `""`; a request that fails is `network`, one whose call's
 * signal aborts it is `aborted` (the request is destroyed); an answer longer than `maxAnswerBytes`
 * (default 64 MiB) is `tooLarge`, refused without being read whole. A gzip, deflate or brotli
 * answer is decompressed, as `fetch` does.
 *
 * A streamed call (`open`, `for await`, `foldStream`) is read as `http` reads it: it accepts
 * `text/event-stream` beside `application/json`, and a server that streams answers with
 * server-sent events, read as they arrive. Each `$/progress` whose `token` is the call's id is one
 * value, handed on before more is read (the response is paused meanwhile, so a slow consumer slows
 * the server); the message that is no notification is the answer. Leaving the loop or aborting
 * destroys the response, which the server sees. A server that streams nothing answers JSON, read as
 * any answer is; a plain call accepts JSON only.
 *
 * Node-only. Throws a `TypeError` when `url` is not `http:` or `https:`, and a `RangeError` when
 * `maxAnswerBytes` is not a positive integer (or `Infinity`).
 *
 * @example
 * import { Agent } from "node:http";
 * import * as t from "io-ts";
 * import { contract } from "rpcserver";
 * import { client } from "rpcserver/client";
 * import { nodeHttp } from "rpcserver/node-http";
 * const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
 * const calc = client(api, nodeHttp("http://127.0.0.1:5000/rpc", { headers: () => ({ authorization: "Bearer t1" }) }));
 * // Your own agent: at most 4 connections.
 * const agent = new Agent({ keepAlive: true, maxSockets: 4 });
 * const pooled = client(api, nodeHttp("http://127.0.0.1:5000/rpc", { agent }));
 * agent.destroy(); // when done: closes its connections
 *
 * @since 5.0.10
 * @category client
 */
export const nodeHttp = (url: string | URL, options: NodeHttpOptions = {}): Transport => {
  const limit = answerLimit("nodeHttp", options.maxAnswerBytes);
  const parsed = new URL(url);
  const secure = parsed.protocol === "https:";
  if (!secure && parsed.protocol !== "http:") {
    throw new TypeError(`nodeHttp: the url must be http: or https:, got ${parsed.protocol}`);
  }
  const { protocol, hostname, port, path, auth } = urlToHttpOptions(parsed);
  const agent = options.agent ?? (secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true }));
  const shared: http.RequestOptions = { protocol, hostname, path, method: "POST", agent };
  if (port !== undefined && port !== "") Object.assign(shared, { port });
  if (auth !== undefined) Object.assign(shared, { auth });
  const target: Target = { request: secure ? https.request : http.request, options: shared };
  const { headers } = options;
  return (body, transportOptions) => () => {
    if (typeof headers !== "function") return post(target, body, headers, transportOptions, limit);
    return Promise.resolve()
      .then(() => extraHeaders(headers))
      .then(
        (extra) => post(target, body, extra, transportOptions, limit),
        (cause: unknown) => E.left(failure(transportOptions.signal, cause)),
      );
  };
};
