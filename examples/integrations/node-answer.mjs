/**
 * `answerHttp`'s answer on a Node.js response (`http.ServerResponse`, which Express's `res`, Koa's
 * `ctx.res` and Fastify's `reply.raw` are): for servers that write to `res` themselves (plain
 * `node:http`, Express). Fastify, Koa and Hono send a web `ReadableStream` body on their own.
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

/**
 * A signal that aborts when `res` closes: after the answer, or before it when the client goes away.
 * Passed to `answerHttp`, it aborts the methods' signal and ends an event stream.
 */
export const closedSignal = (res) => {
  const gone = new AbortController();
  res.once("close", () => gone.abort());
  return gone.signal;
};

/**
 * Writes an event stream (the body of a streamed answer) to `res` as it comes, at the client's pace,
 * and ends it. A client that goes away ends it too: the rejection that says so needs nothing done.
 */
export const pipeEvents = (res, body) => pipeline(Readable.fromWeb(body), res).catch(() => undefined);

/** Writes the whole answer to `res`: its status and headers, then its body (text, nothing, or events). */
export const writeAnswer = async (res, answer) => {
  res.writeHead(answer.status, answer.headers);
  if (typeof answer.body === "string" || answer.body === null) res.end(answer.body ?? undefined);
  else await pipeEvents(res, answer.body);
};
