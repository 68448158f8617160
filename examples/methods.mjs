/**
 * The example methods: the handlers of the contract in examples/api.mjs, to try the development
 * server with.
 *
 *     npm start                                   # builds, then serves these on localhost:5000
 *     node examples/client.mjs                    # (in another terminal) calls them, typed by the contract
 *     npx rpcserver examples/methods.mjs          # the same server, through the command
 *     npx rpcserver examples/methods.mjs --openrpc  # prints their OpenRPC document
 *
 * `implement(api, handlers)` checks that there is one handler per method of the contract. Each
 * handler receives its params decoded by the contract's params codec (params that do not fit get
 * -32602 Invalid params with a report of the failing paths) and answers an fp-ts Either: its Right
 * is the result, encoded by the contract's result codec before it is sent (a `Date` goes out as ISO
 * text), its Left the error (`Error(...)`, `InvalidParams(...)`). A handler may also answer a
 * TaskEither or a Promise of an Either (`sleep`), or throw a `JsonRpcError` (`withdraw`); a method
 * whose entry has a `stream` codec may be an async generator that yields values before its answer
 * (`count`).
 *
 * The handlers are registered with `method(...)`, in `globalMethods`, which `serve()` (npm start)
 * and the `rpcserver` command serve.
 */
import * as E from "fp-ts/lib/Either.js";
import { Error as RpcError, implement, InvalidParams, JsonRpcError, method } from "rpcserver";
import { api, COUNT_STEP_MS, MAX_COUNT, MAX_SLEEP_MS } from "./api.mjs";

const users = new Map([
  [1, { id: 1, name: "Ada Lovelace" }],
  [2, { id: 2, name: "Alan Turing" }],
]);

let balance = 100;

const handlers = implement(api, {
  ping: () => E.right("pong"),

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
