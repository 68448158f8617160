/**
 * The example methods (examples/methods.mjs, in TypeScript): the handlers of the contract in
 * api.ts, for the development server.
 *
 *     npm run build && npx tsc -p examples/ts
 *     npx rpcserver .tmp/examples-ts/methods.js       # serves them on localhost:5000
 *     node .tmp/examples-ts/client.js                 # (in another terminal) calls them
 *
 * `implement(api, handlers)` checks that there is one handler per method of the contract, and
 * types each one by its entry: `add` receives `(a: number, b: number)`, `addDays` a `Date`, and a
 * handler whose Right is not the entry's result type does not compile. Params that do not fit the
 * codec never reach a handler (-32602 Invalid params). A handler answers an fp-ts Either (or a
 * TaskEither, or a Promise of an Either, as `sleep` does), or throws a `JsonRpcError`.
 */
import * as E from "fp-ts/lib/Either.js";
import { implement, InvalidParams, JsonRpcError, method, RpcError } from "rpcserver";
import { api, COUNT_STEP_MS, MAX_COUNT, MAX_SLEEP_MS, type User } from "./api.js";

const users = new Map<number, User>([
  [1, { id: 1, name: "Ada Lovelace" }],
  [2, { id: 2, name: "Alan Turing" }],
]);

let balance = 100;

export const handlers = implement(api, {
  ping: () => E.right("pong" as const),

  add: (a, b) => E.right(a + b),

  divide: (a, b) => (b === 0 ? InvalidParams("division by zero") : E.right(a / b)),

  greet: ({ name }) => E.right(`Hello, ${name}!`),

  sleep: async (ms) => {
    const wait = Math.min(Math.max(ms, 0), MAX_SLEEP_MS);
    await new Promise((resolve) => setTimeout(resolve, wait));
    return E.right(wait);
  },

  addDays: ({ date, days }) => E.right(new Date(date.getTime() + days * 86_400_000)),

  getUser: (id) => {
    const user = users.get(id);
    return user === undefined ? RpcError(404, "No such user", { id }) : E.right(user);
  },

  /** An application error thrown from deep inside the code: JsonRpcError is sent as given. */
  withdraw: (amount) => {
    if (amount <= 0) return InvalidParams("the amount must be positive");
    if (amount > balance) throw new JsonRpcError(1, "Insufficient funds", { balance, amount });
    balance -= amount;
    return E.right(balance);
  },

  /** Any other exception is -32603 Internal error; its message is logged, not sent (unless `debug`). */
  crash: () => {
    throw new Error("this message stays on the server");
  },

  log: (message) => {
    console.error(`client says: ${message}`);
    return E.right(null);
  },

  /**
   * Streams each number as it counts. A client that goes away (or the inspector's Stop) stops the
   * generator at its next `yield`, and its `finally` runs.
   */
  count: async function* (to) {
    const last = Math.min(Math.max(Math.trunc(to), 0), MAX_COUNT);
    let step = 0;
    try {
      while (step < last) {
        await new Promise((resolve) => setTimeout(resolve, COUNT_STEP_MS));
        step += 1;
        yield step;
      }
      return E.right(`counted to ${last}`);
    } finally {
      if (step < last) console.error(`count(${to}) stopped after ${step}`);
    }
  },
});

for (const [name, handler] of Object.entries(handlers)) method(handler, name);
