/**
 * Reads a Node.js request body (an `http.IncomingMessage`) into bytes, refusing more than `limit`
 * bytes: for servers without a body parser of their own (Koa, plain `node:http`). Express,
 * Fastify and Hono have one, with a limit option.
 *
 * Rejects with an error whose `status` is 413 (and `expose` true, for Koa) as soon as the declared
 * `Content-Length` or the bytes received go over the limit; the rest of the body is drained,
 * unread, so that the 413 can still be sent.
 */
export const readBody = (request, limit) =>
  new Promise((resolve, reject) => {
    const tooLarge = () => {
      request.removeListener("data", onData);
      request.resume(); // drain, so the answer can be written
      reject(Object.assign(new Error(`the body is over ${limit} bytes`), { status: 413, expose: true }));
    };
    const chunks = [];
    let size = 0;
    const onData = (chunk) => {
      size += chunk.length;
      if (size > limit) tooLarge();
      else chunks.push(chunk);
    };
    if (Number(request.headers["content-length"]) > limit) {
      tooLarge();
      return;
    }
    request.on("data", onData);
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
