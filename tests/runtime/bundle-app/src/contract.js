// The contract a server and its browser client share: a module of its own that imports `contract`
// from "rpcserver" (issue 22: this is the import that failed to bundle, from `serve`'s node:http).
import * as t from "io-ts";
import { contract } from "rpcserver";

export const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  greet: { params: t.type({ name: t.string }), result: t.string },
});
