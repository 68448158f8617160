// Loads every subpath of the built package through require() and prints what it found; also checks
// that the CommonJS and ESM builds agree on the process-wide values (the dual-package hazard).
const subpaths = require("./subpaths.json");

const found = {};
for (const [specifier, names] of Object.entries(subpaths)) {
  const mod = require(specifier);
  found[specifier] = names.filter((name) => !(name in mod));
}
const root = require("rpcserver");
let internal = "exported";
try {
  require("rpcserver/options");
} catch (error) {
  internal = error.code;
}
(async () => {
  const esm = await import("rpcserver");
  root.method(function sharedPing() {
    return root.Success("pong");
  });
  const dual = {
    nodata: esm.NODATA === root.NODATA,
    globalMethods: esm.globalMethods === root.globalMethods,
    esmSeesCjsMethod: esm.dispatch('{"jsonrpc":"2.0","method":"sharedPing","id":1}'),
    jsonRpcError: esm.dispatch('{"jsonrpc":"2.0","method":"fail","id":1}', {
      fail: () => {
        throw new root.JsonRpcError(7, "from cjs");
      },
    }),
  };
  const answer = root.dispatch('{"jsonrpc":"2.0","method":"ping","id":1}', { ping: () => root.Success("pong") });
  const schema = require("rpcserver/request.schema.json");
  console.log(JSON.stringify({ missing: found, internal, dual, answer, schemaTitle: schema.title }));
})();
