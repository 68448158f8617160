/**
 * `context` (examples/context.mjs, in TypeScript): a value your own server passes to every method,
 * which clients can neither see nor set. Your HTTP handler works out who is calling (here, from a
 * token header) and dispatches with that caller as the context.
 *
 *     npm run build && npx tsc -p examples/ts && node .tmp/examples-ts/context.js
 *
 * `server(api).context<Caller>()` types it: every handler receives a `Caller` first, then its
 * params, and `app.dispatch(body, caller)` takes a `Caller` and nothing else. Forgetting the
 * context, or passing another type, does not compile.
 */
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { contract, JsonRpcError, server } from "rpcserver";

interface Caller {
  readonly name: string;
  readonly admin: boolean;
}

const api = contract({
  whoami: { result: t.string },
  deleteEverything: { result: t.string },
  echo: { params: t.tuple([t.string]), result: t.string },
});

const app = server(api)
  .context<Caller>()
  .implement({
    whoami: (caller) => E.right(caller.name),
    deleteEverything: (caller) => {
      if (!caller.admin) throw new JsonRpcError(403, "Forbidden", { user: caller.name });
      return E.right("deleted");
    },
    echo: (caller, text) => E.right(`${caller.name} says ${text}`),
  });

const tokens = new Map<string, Caller>([
  ["secret-token-of-ada", { name: "Ada", admin: true }],
  ["secret-token-of-bob", { name: "Bob", admin: false }],
]);

/** What an HTTP handler would do with a POST body and its headers. */
const handle = (body: string, headers: { readonly authorization?: string }): Promise<string> => {
  const caller = tokens.get(headers.authorization ?? "") ?? { name: "anonymous", admin: false };
  return app.dispatch(body, caller);
};

const request = (method: string, params?: unknown[]): string =>
  JSON.stringify({ jsonrpc: "2.0", method, ...(params && { params }), id: 1 });

console.log(await handle(request("whoami"), { authorization: "secret-token-of-ada" }));
console.log(await handle(request("echo", ["hi"]), { authorization: "secret-token-of-bob" }));
console.log(await handle(request("deleteEverything"), { authorization: "secret-token-of-bob" }));
console.log(await handle(request("deleteEverything"), { authorization: "secret-token-of-ada" }));
console.log(await handle(request("whoami"), {}));
