/**
 * A small set of methods to try the development server with:
 *
 *     npm start                                   # builds, then serves these on localhost:5000
 *     npx rpcserver examples/methods.mjs          # the same, through the command
 *
 * Each method returns a Result (`Success`, `Error`, `InvalidParams`) or throws `JsonRpcError`.
 * Methods whose params are declared with an io-ts codec receive the decoded params; params that do
 * not fit get -32602 Invalid params with a report of the failing paths.
 */
import * as t from "io-ts";
import { Error as RpcError, InvalidParams, JsonRpcError, method, Success } from "rpcserver";

/** No params: `{"jsonrpc":"2.0","method":"ping","id":1}` -> `"pong"`. */
method(function ping() {
  return Success("pong");
});

/** Positional params checked by a codec: `[1, 2]` -> `3`; `["1", 2]` -> -32602. */
method({ name: "add", params: t.tuple([t.number, t.number]) })((a, b) => Success(a + b));

/** A value of the right type but a bad value: InvalidParams, with a reason in `data`. */
method({ name: "divide", params: t.tuple([t.number, t.number]) })((a, b) =>
  b === 0 ? InvalidParams("division by zero") : Success(a / b),
);

/** Named params (a JSON object arrives as one argument): `{"name":"Ada"}` -> `"Hello, Ada!"`. */
method({ name: "greet", params: t.type({ name: t.string }) })(({ name }) => Success(`Hello, ${name}!`));

/** The longest `sleep`, so that a request cannot hold the server for long. */
const MAX_SLEEP_MS = 5000;

/** An async method: waits `ms` milliseconds (at most 5 s), then answers with the time it waited. */
method({ name: "sleep", params: t.tuple([t.number]) })(async (ms) => {
  const wait = Math.min(Math.max(ms, 0), MAX_SLEEP_MS);
  await new Promise((resolve) => setTimeout(resolve, wait));
  return Success(wait);
});

const users = new Map([
  [1, { id: 1, name: "Ada Lovelace" }],
  [2, { id: 2, name: "Alan Turing" }],
]);

/** An application error returned as a Result: code 404 is outside the range JSON-RPC reserves. */
method({ name: "getUser", params: t.tuple([t.number]) })((id) => {
  const user = users.get(id);
  return user === undefined ? RpcError(404, "No such user", { id }) : Success(user);
});

let balance = 100;

/** An application error thrown from deep inside the code: JsonRpcError is sent as given. */
method({ name: "withdraw", params: t.tuple([t.number]) })((amount) => {
  if (amount <= 0) return InvalidParams("the amount must be positive");
  if (amount > balance) throw new JsonRpcError(1, "Insufficient funds", { balance, amount });
  balance -= amount;
  return Success(balance);
});

/** Any other exception is -32603 Internal error; its message is logged, not sent (unless `debug`). */
method(function crash() {
  throw new Error("this message stays on the server");
});

/** A notification target: send it without an `id` and the server answers 204 No Content. */
method(function log(message) {
  console.error(`client says: ${String(message)}`);
  return Success();
});
