/**
 * The contract of the example methods: what each method takes and answers, written once and read
 * by both ends.
 *
 * - the server, examples/methods.mjs, implements it (`npm start` and `npx rpcserver
 *   examples/methods.mjs` serve it);
 * - the client, examples/client.mjs, calls it: `node examples/client.mjs` while `npm start` runs;
 * - `rpc.discover` answers with its OpenRPC document.
 *
 * Each entry has an io-ts codec for its params (a tuple for positional params, `t.type` for named
 * ones) and for its result (a `Date` travels as ISO text through `DateFromISOString`), its summary,
 * the application errors it may answer with (their `data` decoded by the client with the codec
 * given here), and examples in their wire form (what JSON carries), which
 * `@open-rpc/test-coverage` runs against the server in the tests (tests/openrpc-coverage.test.ts).
 * It imports no server code: a front end can import it as it is.
 */
import * as t from "io-ts";
import { DateFromISOString } from "io-ts-types";
import { contract } from "rpcserver";

/** The longest `sleep`, so that a request cannot hold the server for long. */
export const MAX_SLEEP_MS = 5000;

/** The most numbers `count` streams, and the pause before each: a call lasts 5 s at most. */
export const MAX_COUNT = 100;
export const COUNT_STEP_MS = 50;

export const User = t.type({ id: t.number, name: t.string });

export const api = contract({
  /** No params: `{"jsonrpc":"2.0","method":"ping","id":1}` -> `"pong"`. */
  ping: {
    result: t.literal("pong"),
    summary: "Answers pong: is the server up?",
    examples: [{ name: "ping", params: [], result: "pong" }],
  },

  /** Positional params checked by a codec: `[1, 2]` -> `3`; `["1", 2]` -> -32602. */
  add: {
    params: t.tuple([t.number, t.number]),
    paramNames: ["a", "b"],
    result: t.number,
    summary: "Adds two numbers",
    tags: ["math"],
    examples: [{ name: "one plus two", params: [1, 2], result: 3 }],
  },

  /** A value of the right type but a bad value: InvalidParams, with a reason in `data`. */
  divide: {
    params: t.tuple([t.number, t.number]),
    paramNames: ["dividend", "divisor"],
    result: t.number,
    summary: "Divides two numbers",
    tags: ["math"],
    errors: [{ code: -32602, message: "Invalid params", data: t.literal("division by zero") }],
    examples: [{ name: "six by three", params: [6, 3], result: 2 }],
  },

  /** Named params (a JSON object arrives as one argument): `{"name":"Ada"}` -> `"Hello, Ada!"`. */
  greet: {
    params: t.type({ name: t.string }),
    result: t.string,
    summary: "Greets someone by name",
    examples: [{ name: "Ada", params: { name: "Ada" }, result: "Hello, Ada!" }],
  },

  /** An async method: waits `ms` milliseconds (at most 5 s), then answers with the time it waited. */
  sleep: {
    params: t.tuple([t.number]),
    paramNames: ["ms"],
    result: t.number,
    summary: `Waits, then answers with the milliseconds waited (at most ${MAX_SLEEP_MS})`,
    examples: [{ name: "ten milliseconds", params: [10], result: 10 }],
  },

  /** A result codec with a `Date` inside: `DateFromISOString` sends it as ISO text, and reads it back. */
  addDays: {
    params: t.type({ date: DateFromISOString, days: t.number }),
    result: DateFromISOString,
    summary: "The date a number of days after another",
    description: "Dates travel as ISO 8601 text; the method itself works on `Date` objects.",
    examples: [
      { name: "leap year", params: { date: "2024-02-28T00:00:00.000Z", days: 2 }, result: "2024-03-01T00:00:00.000Z" },
    ],
  },

  /** An application error: code 404 is outside the range JSON-RPC reserves. */
  getUser: {
    params: t.tuple([t.number]),
    paramNames: ["id"],
    result: User,
    summary: "A user by id",
    errors: [{ code: 404, message: "No such user", data: t.type({ id: t.number }) }],
    examples: [{ name: "Ada", params: [1], result: { id: 1, name: "Ada Lovelace" } }],
  },

  /** No example: each call changes the balance, so no fixed answer would hold. */
  withdraw: {
    params: t.tuple([t.number]),
    paramNames: ["amount"],
    result: t.number,
    summary: "Takes an amount from the balance (100 to start with) and answers with what is left",
    errors: [
      { code: -32602, message: "Invalid params", data: t.literal("the amount must be positive") },
      { code: 1, message: "Insufficient funds", data: t.type({ balance: t.number, amount: t.number }) },
    ],
  },

  /** Always fails: any exception but a JsonRpcError is -32603 Internal error. */
  crash: {
    summary: "Always fails with -32603 Internal error (its message is logged, not sent)",
  },

  /** A notification target: send it without an `id` and the server answers 204 No Content. */
  log: {
    params: t.tuple([t.string]),
    paramNames: ["message"],
    result: t.null,
    summary: "Prints a message on the server's stderr; send it as a notification",
    examples: [{ name: "hi", params: ["hi"], result: null }],
  },

  /**
   * A streaming method (an async generator): yields 1, 2, ... `to` (at most 100), 50 ms apart,
   * then answers. A client that accepts `text/event-stream` gets each value as it comes (the
   * inspector page lists them, and its Stop cancels the call); any other gets the answer alone.
   */
  count: {
    params: t.tuple([t.number]),
    paramNames: ["to"],
    stream: t.number,
    result: t.string,
    summary: `Counts from 1 to \`to\` (at most ${MAX_COUNT}), streaming each number, ${COUNT_STEP_MS} ms apart`,
    tags: ["streams"],
    examples: [{ name: "to three", params: [3], result: "counted to 3" }],
  },
});
