/**
 * A small set of methods to try the development server with:
 *
 *     npm start                                   # builds, then serves these on localhost:5000
 *     npx rpcserver examples/methods.mjs          # the same, through the command
 *     npx rpcserver examples/methods.mjs --openrpc  # prints their OpenRPC document
 *
 * Each method returns a Result (`Success`, `Error`, `InvalidParams`) or throws `JsonRpcError`.
 * Methods whose params are declared with an io-ts codec receive the decoded params; params that do
 * not fit get -32602 Invalid params with a report of the failing paths. A `result` codec encodes
 * what the method returns (a `Date` through `DateFromISOString` is sent as ISO text), and with the
 * params codec, the summary, the declared errors and the examples, makes the service describe
 * itself: the server answers `rpc.discover` with the OpenRPC document of these methods. The
 * examples are in their wire form (what is sent and received); `@open-rpc/test-coverage` runs them
 * against the server in the tests (tests/openrpc-coverage.test.ts).
 */
import * as t from "io-ts";
import { DateFromISOString } from "io-ts-types";
import { Error as RpcError, InvalidParams, JsonRpcError, method, Success } from "rpcserver";

/** No params: `{"jsonrpc":"2.0","method":"ping","id":1}` -> `"pong"`. */
method({
  name: "ping",
  result: t.literal("pong"),
  summary: "Answers pong: is the server up?",
  examples: [{ name: "ping", params: [], result: "pong" }],
})(() => Success("pong"));

/** Positional params checked by a codec: `[1, 2]` -> `3`; `["1", 2]` -> -32602. */
method({
  name: "add",
  params: t.tuple([t.number, t.number]),
  paramNames: ["a", "b"],
  result: t.number,
  summary: "Adds two numbers",
  tags: ["math"],
  examples: [{ name: "one plus two", params: [1, 2], result: 3 }],
})((a, b) => Success(a + b));

/** A value of the right type but a bad value: InvalidParams, with a reason in `data`. */
method({
  name: "divide",
  params: t.tuple([t.number, t.number]),
  paramNames: ["dividend", "divisor"],
  result: t.number,
  summary: "Divides two numbers",
  tags: ["math"],
  errors: [{ code: -32602, message: "Invalid params", data: t.literal("division by zero") }],
  examples: [{ name: "six by three", params: [6, 3], result: 2 }],
})((a, b) => (b === 0 ? InvalidParams("division by zero") : Success(a / b)));

/** Named params (a JSON object arrives as one argument): `{"name":"Ada"}` -> `"Hello, Ada!"`. */
method({
  name: "greet",
  params: t.type({ name: t.string }),
  result: t.string,
  summary: "Greets someone by name",
  examples: [{ name: "Ada", params: { name: "Ada" }, result: "Hello, Ada!" }],
})(({ name }) => Success(`Hello, ${name}!`));

/** The longest `sleep`, so that a request cannot hold the server for long. */
const MAX_SLEEP_MS = 5000;

/** An async method: waits `ms` milliseconds (at most 5 s), then answers with the time it waited. */
method({
  name: "sleep",
  params: t.tuple([t.number]),
  paramNames: ["ms"],
  result: t.number,
  summary: "Waits, then answers with the milliseconds waited (at most 5000)",
  examples: [{ name: "ten milliseconds", params: [10], result: 10 }],
})(async (ms) => {
  const wait = Math.min(Math.max(ms, 0), MAX_SLEEP_MS);
  await new Promise((resolve) => setTimeout(resolve, wait));
  return Success(wait);
});

/** A result codec with a `Date` inside: `DateFromISOString` sends it as ISO text, and reads it back. */
method({
  name: "addDays",
  params: t.type({ date: DateFromISOString, days: t.number }),
  result: DateFromISOString,
  summary: "The date a number of days after another",
  description: "Dates travel as ISO 8601 text; the method itself works on `Date` objects.",
  examples: [
    { name: "leap year", params: { date: "2024-02-28T00:00:00.000Z", days: 2 }, result: "2024-03-01T00:00:00.000Z" },
  ],
})(({ date, days }) => Success(new Date(date.getTime() + days * 86_400_000)));

const User = t.type({ id: t.number, name: t.string });

const users = new Map([
  [1, { id: 1, name: "Ada Lovelace" }],
  [2, { id: 2, name: "Alan Turing" }],
]);

/** An application error returned as a Result: code 404 is outside the range JSON-RPC reserves. */
method({
  name: "getUser",
  params: t.tuple([t.number]),
  paramNames: ["id"],
  result: User,
  summary: "A user by id",
  errors: [{ code: 404, message: "No such user", data: t.type({ id: t.number }) }],
  examples: [{ name: "Ada", params: [1], result: { id: 1, name: "Ada Lovelace" } }],
})((id) => {
  const user = users.get(id);
  return user === undefined ? RpcError(404, "No such user", { id }) : Success(user);
});

let balance = 100;

/**
 * An application error thrown from deep inside the code: JsonRpcError is sent as given. No
 * example: each call changes the balance, so no fixed answer would hold.
 */
method({
  name: "withdraw",
  params: t.tuple([t.number]),
  paramNames: ["amount"],
  result: t.number,
  summary: "Takes an amount from the balance (100 to start with) and answers with what is left",
  errors: [
    { code: -32602, message: "Invalid params", data: t.literal("the amount must be positive") },
    { code: 1, message: "Insufficient funds", data: t.type({ balance: t.number, amount: t.number }) },
  ],
})((amount) => {
  if (amount <= 0) return InvalidParams("the amount must be positive");
  if (amount > balance) throw new JsonRpcError(1, "Insufficient funds", { balance, amount });
  balance -= amount;
  return Success(balance);
});

/** Any other exception is -32603 Internal error; its message is logged, not sent (unless `debug`). */
method(
  function crash() {
    throw new Error("this message stays on the server");
  },
  { summary: "Always fails with -32603 Internal error (its message is logged, not sent)" },
);

/** A notification target: send it without an `id` and the server answers 204 No Content. */
method(
  function log(message) {
    console.error(`client says: ${String(message)}`);
    return Success();
  },
  {
    paramNames: ["message"],
    result: t.null,
    summary: "Prints a message on the server's stderr; send it as a notification",
    examples: [{ name: "hi", params: ["hi"], result: null }],
  },
);
