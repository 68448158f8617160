/**
 * The main thread of the worker example: starts worker.mjs and calls its methods.
 *
 *     npm run build && node examples/integrations/worker-main.mjs
 */
import { Worker } from "node:worker_threads";
import { userFromToken } from "./methods.mjs";

const worker = new Worker(new URL("./worker.mjs", import.meta.url));
const pending = new Map();
let nextId = 1;

worker.on("message", (text) => {
  const answers = JSON.parse(text);
  for (const answer of Array.isArray(answers) ? answers : [answers]) {
    pending.get(answer.id)?.(answer);
    pending.delete(answer.id);
  }
});

/** Sends `request` (one object, or an array for a batch) on behalf of `user`. */
const send = (user, request) => worker.postMessage({ user, request: JSON.stringify(request) });

/** Calls `method` as `user`; resolves to the whole answer object. */
const call = (user, method, ...params) => {
  const id = nextId++;
  const answer = new Promise((resolve) => pending.set(id, resolve));
  send(user, { jsonrpc: "2.0", method, params, id });
  return answer;
};

const ada = userFromToken("token-of-ada");
const bob = userFromToken("token-of-bob");

console.log(await call(ada, "whoami"));
console.log(await call(bob, "whoami"));
console.log(await call(ada, "divide", 1, 0));
send(ada, { jsonrpc: "2.0", method: "log", params: ["a notification: no answer"] });
const batch = [1, 2].map((n) => ({ jsonrpc: "2.0", method: "add", params: [n, n], id: nextId++ }));
const answered = batch.map((request) => new Promise((resolve) => pending.set(request.id, resolve)));
send(bob, batch);
console.log(await Promise.all(answered));
await worker.terminate();
