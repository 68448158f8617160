/**
 * `context`: a value your own server passes to every method, which clients can neither see nor
 * set. The development server passes none, so this example calls dispatch directly, the way your
 * own HTTP handler would: it works out who is calling from the HTTP request (here, a token
 * header), then dispatches with that user as the context.
 *
 *     npm run build && node examples/context.mjs
 */
import { asyncDispatch, JsonRpcError, Success } from "rpcserver";

const tokens = new Map([
  ["secret-token-of-ada", { name: "Ada", admin: true }],
  ["secret-token-of-bob", { name: "Bob", admin: false }],
]);

// With a context, it comes first; the request's params follow it.
const methods = {
  whoami: (user) => Success(user.name),
  deleteEverything: (user) => {
    if (!user.admin) throw new JsonRpcError(403, "Forbidden", { user: user.name });
    return Success("deleted");
  },
  echo: (user, text) => Success(`${user.name} says ${text}`),
};

/** What an HTTP handler would do with a POST body and its headers. */
const handle = async (body, headers) => {
  const user = tokens.get(headers.authorization ?? "") ?? { name: "anonymous", admin: false };
  return asyncDispatch(body, methods, { context: user });
};

const request = (method, params) => JSON.stringify({ jsonrpc: "2.0", method, ...(params && { params }), id: 1 });

console.log(await handle(request("whoami"), { authorization: "secret-token-of-ada" }));
console.log(await handle(request("echo", ["hi"]), { authorization: "secret-token-of-bob" }));
console.log(await handle(request("deleteEverything"), { authorization: "secret-token-of-bob" }));
console.log(await handle(request("deleteEverything"), { authorization: "secret-token-of-ada" }));
console.log(await handle(request("whoami"), {}));
