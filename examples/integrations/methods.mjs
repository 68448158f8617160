/**
 * What every integration example shares: the methods, how a token becomes a user, and the limits.
 * Nothing here touches the network or a `node:` module, so the Hono app runs it on Node, Bun and
 * Deno alike.
 *
 * Each method takes the context first: `{ user }`, worked out by the transport from the request
 * (an `Authorization` header, a token in the environment) and passed as dispatch's `context`.
 * Clients can neither see nor set it.
 */
import { Error as RpcError, InvalidParams, Success } from "rpcserver";

/**
 * The most requests one batch may hold: a larger batch is one -32600 error and none of it runs.
 * 100 is plenty for any client that batches on purpose, and caps the work one HTTP request can
 * start (every member of a batch runs at once).
 */
export const MAX_BATCH_SIZE = 100;

/**
 * The largest body, in bytes: 1 MiB. JSON-RPC requests are small; a larger body is refused before
 * it is read whole (413 over HTTP), so a client cannot make the server buffer or parse megabytes.
 */
export const BODY_LIMIT = 1024 * 1024;

/** Where the examples listen unless HOST and PORT say otherwise (PORT=0 picks a free port). */
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 3000;

/** Host and port from environment variables (an object such as `process.env`). */
export const listenOn = (env) => ({
  host: env.HOST || DEFAULT_HOST,
  port: env.PORT === undefined || env.PORT === "" ? DEFAULT_PORT : Number(env.PORT),
});

/** Known tokens. A real application checks a signed token or looks a session up instead. */
const tokens = new Map([
  ["token-of-ada", { name: "Ada", admin: true }],
  ["token-of-bob", { name: "Bob", admin: false }],
]);

const ANONYMOUS = Object.freeze({ name: "anonymous", admin: false });

/** The user a token belongs to; anonymous for a missing or unknown token. */
export const userFromToken = (token) => tokens.get(token ?? "") ?? ANONYMOUS;

/** The user of an `Authorization: Bearer <token>` header value (possibly undefined). */
export const userFromAuthorization = (header) => userFromToken(/^Bearer\s+(\S+)$/i.exec(header ?? "")?.[1]);

/**
 * What `nodeHandler` and `fetchHandler` are told: the caller, from the request's
 * `Authorization: Bearer <token>`, as the methods' context, and the limits.
 */
export const handlerOptions = {
  context: (request) => ({ user: userFromAuthorization(request.headers.get("Authorization") ?? undefined) }),
  maxBatchSize: MAX_BATCH_SIZE,
  maxBodyBytes: BODY_LIMIT,
};

export const methods = {
  /** Who is calling, as the transport worked it out: `"Ada"`, or `"anonymous"`. */
  whoami: (context) => Success(context.user.name),

  /** `[1, 2]` -> `3`; anything but two numbers -> -32602. */
  add: (_context, a, b) =>
    typeof a === "number" && typeof b === "number" ? Success(a + b) : InvalidParams("add takes two numbers"),

  /** An application error, code 1, on division by zero. */
  divide: (_context, a, b) => {
    if (typeof a !== "number" || typeof b !== "number") return InvalidParams("divide takes two numbers");
    return b === 0 ? RpcError(1, "Division by zero") : Success(a / b);
  },

  /**
   * Counts to `to` (at most 1000), a step every `ms` milliseconds (1 unless given, at most 1000),
   * each step a value streamed before the answer: a client whose `Accept` names `text/event-stream`
   * gets each as `$/progress` on the request's id (`answerHttp`); any other, the answer alone. A
   * client that goes away stops it: its `signal` aborts and its next `yield` ends it (the `finally`
   * logs where it stopped, on stderr).
   */
  count: async function* (context, to, ms = 1) {
    if (!Number.isInteger(to) || to < 0 || to > 1000) return InvalidParams("count takes an integer from 0 to 1000");
    if (!Number.isInteger(ms) || ms < 1 || ms > 1000) return InvalidParams("count's ms is an integer from 1 to 1000");
    let at = 0;
    try {
      while (at < to && !context.signal?.aborted) {
        await new Promise((resolve) => setTimeout(resolve, ms));
        at += 1;
        yield at;
      }
      return Success(`counted to ${at}`);
    } finally {
      if (at < to) console.error(`[count] ${context.user.name}: stopped at ${at} of ${to}`);
    }
  },

  /** A notification target: send it without an `id`; nothing is answered. Logs on stderr. */
  log: (context, message) => {
    console.error(`[log] ${context.user.name}: ${String(message)}`);
    return Success();
  },
};
