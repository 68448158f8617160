/**
 * A client of the example server, typed by the same contract (examples/api.mjs) that the server
 * implements. Start the server, then run this in another terminal:
 *
 *     npm start
 *     node examples/client.mjs          # RPC_URL=http://host:port/ to call another server
 *
 * Each client function takes the method's params (encoded by the contract's params codec before
 * they are sent) and returns a TaskEither: Right with the result decoded by the result codec (a
 * `Date` comes back a `Date`), or Left with a ClientError. Nothing is sent until the TaskEither is
 * run. Exits with status 1 when the server cannot be reached.
 */
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { batch, client, http, matchClientError, notify, withOptions } from "rpcserver/client";
import { api } from "./api.mjs";

const url = process.env.RPC_URL || "http://localhost:5000/";
const remote = client(api, http(url), { timeoutMs: 5000 });

const describe = matchClientError({
  ServerError: (e) => `error ${e.code} ${e.message}${e.data === undefined ? "" : ` ${JSON.stringify(e.data)}`}`,
  TransportError: (e) => `no answer (${e.reason}${e.reason === "network" ? `: is the server running at ${url}?` : ""})`,
  InvalidAnswer: (e) => `a bad answer (${e.reason})`,
  InvalidCall: (e) => `not sent (${String(e.cause)})`,
});

let unreachable = false;

/** Runs a call and prints what it answered. */
const show = (label, call, format = JSON.stringify) =>
  pipe(
    call,
    TE.match(
      (error) => {
        if (error._tag === "TransportError" && error.reason === "network") unreachable = true;
        return `${label}: ${describe(error)}`;
      },
      (result) => `${label} = ${format(result)}`,
    ),
  )().then(console.log);

console.log(`Calling ${url} with the contract of examples/api.mjs`);
await show("add(1, 2)", remote.add(1, 2));
if (unreachable) process.exit(1);
await show('greet({ name: "Ada" })', remote.greet({ name: "Ada" }));
await show(
  "addDays({ date: 2024-02-28, days: 2 })",
  remote.addDays({ date: new Date("2024-02-28T00:00:00.000Z"), days: 2 }),
  (date) => `${date.toISOString()} (a ${date.constructor.name})`,
);
await show("getUser(1)", remote.getUser(1));
await show("getUser(9)", remote.getUser(9));
await show("divide(1, 0)", remote.divide(1, 0));
await show("sleep(1000) with a 100 ms time-out", pipe(remote.sleep(1000), withOptions({ timeoutMs: 100 })));
await show('log("hi") as a notification', notify(remote.log("hi from examples/client.mjs")), () => "sent");

// Three calls in one request body, each with its own Either, in the order given.
const [sum, greeting, pong] = await batch([remote.add(2, 3), remote.greet({ name: "Alan" }), remote.ping()])();
console.log(
  "batch:",
  [sum, greeting, pong]
    .map((answer) => (E.isRight(answer) ? JSON.stringify(answer.right) : describe(answer.left)))
    .join(", "),
);
