// Loads every subpath of the built package through Node's ESM loader and prints what it found.
import { readFileSync } from "node:fs";

const subpaths = JSON.parse(readFileSync(new URL("./subpaths.json", import.meta.url), "utf8"));
const found = {};
for (const [specifier, names] of Object.entries(subpaths)) {
  const mod = await import(specifier);
  found[specifier] = names.filter((name) => !(name in mod));
}
const root = await import("rpcserver");
const main = await import("rpcserver/main");
const asyncMain = await import("rpcserver/async_main");
const sentinels = await import("rpcserver/sentinels");
const methods = await import("rpcserver/methods");
const ping = () => root.Success("pong");
const identity = {
  dispatch: root.dispatch === main.dispatch_to_json,
  asyncDispatch: root.asyncDispatch === asyncMain.dispatch_to_json,
  nodata: root.NODATA === sentinels.NODATA,
  globalMethods: root.globalMethods === methods.global_methods,
};
const answer = root.dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', { ping });
const asyncAnswer = await root.asyncDispatch('{"jsonrpc":"2.0","method":"ping","id":2}', { ping: async () => ping() });
const schema = (await import("rpcserver/request.schema.json", { with: { type: "json" } })).default;
console.log(JSON.stringify({ missing: found, identity, answer, asyncAnswer, schemaTitle: schema.title }));
