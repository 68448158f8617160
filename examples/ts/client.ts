/**
 * A client of the example server (examples/client.mjs, in TypeScript), typed by the same contract
 * (api.ts) that the server implements. Serve the methods, then run this in another terminal:
 *
 *     npm run build && npx tsc -p examples/ts
 *     npx rpcserver .tmp/examples-ts/methods.js     # or `npm start`: the same methods
 *     node .tmp/examples-ts/client.js               # RPC_URL=http://host:port/ to call another server
 *
 * Each client function takes the method's params, typed by the contract (`remote.add("1", 2)` does
 * not compile), and returns a TaskEither: Right with the result decoded by the result codec (a
 * `Date` comes back a `Date`, typed `Date`), or Left with a ClientError whose declared errors
 * narrow by code (`getUser`'s 404 has `data: { id: number }`). Nothing is sent until the
 * TaskEither is run. Exits with status 1 when the server cannot be reached.
 */
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import {
  batch,
  client,
  http,
  matchClientError,
  notify,
  withOptions,
  type ClientError,
  type ServerError,
} from "rpcserver/client";
import { api } from "./api.js";

const url = process.env["RPC_URL"] || "http://localhost:5000/";
const remote = client(api, http(url), { timeoutMs: 5000 });

const describe = matchClientError<string>({
  ServerError: (e: ServerError) =>
    `error ${e.code} ${e.message}${e.data === undefined ? "" : ` ${JSON.stringify(e.data)}`}`,
  TransportError: (e) => `no answer (${e.reason}${e.reason === "network" ? `: is the server running at ${url}?` : ""})`,
  InvalidAnswer: (e) => `a bad answer (${e.reason})`,
  InvalidCall: (e) => `not sent (${String(e.cause)})`,
});

let unreachable = false;

/** Runs a call and prints what it answered. */
const show = <A>(
  label: string,
  call: TE.TaskEither<ClientError, A>,
  format: (result: A) => string = (result) => JSON.stringify(result),
): Promise<void> =>
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

console.log(`Calling ${url} with the contract of examples/ts/api.ts`);
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
await show('log("hi") as a notification', notify(remote.log("hi from examples/ts/client.ts")), () => "sent");

// Three calls in one request body, each with its own Either, typed by its method, in the order given.
const [sum, greeting, pong] = await batch([remote.add(2, 3), remote.greet({ name: "Alan" }), remote.ping()])();
const answers: ReadonlyArray<E.Either<ClientError, unknown>> = [sum, greeting, pong];
console.log(
  "batch:",
  answers.map((answer) => (E.isRight(answer) ? JSON.stringify(answer.right) : describe(answer.left))).join(", "),
);

// A declared error narrows by its code: getUser declares 404 with `data: { id: number }`.
const missing = await remote.getUser(9)();
if (E.isLeft(missing) && missing.left._tag === "ServerError" && missing.left.declared === true) {
  const { code, data } = missing.left;
  if (code === 404) console.log(`declared: 404, no user with id ${data.id.toFixed(0)}`);
}
