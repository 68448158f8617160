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

  // rpcserver/pipeline through require(): the stages shared with the main entry, and a tiny pipeline.
  const pl = require("rpcserver/pipeline");
  const ping = () => root.Success("pong");
  const syncEnv = pl.environment({ ping }, undefined, false);
  const asyncEnv = pl.environment({ ping: async () => ping() }, undefined, true);
  const observed = [];
  const pipeline = {
    identity: { timeout: pl.timeout === root.timeout, observe: pl.observe === root.observe },
    answer: pl.toJson(syncEnv)(pl.pipeline(pl.Sync)(syncEnv)('{"jsonrpc":"2.0","method":"ping","id":3}')),
    asyncAnswer: pl.toJson(asyncEnv)(
      await pl.pipeline(pl.Async)(asyncEnv)(
        '[{"jsonrpc":"2.0","method":"ping","id":4},{"jsonrpc":"2.0","method":"ping"}]',
      ),
    ),
    stagedAnswer: await root.asyncDispatch(
      '{"jsonrpc":"2.0","method":"slow","id":5}',
      { slow: () => new Promise(() => undefined) },
      { stages: [pl.observe((o) => observed.push(`${o.method} ${o.id}`)), pl.timeout(5)] },
    ),
    observed,
  };
  // rpcserver/client through require(), and across the builds: a contract and its table from the
  // CommonJS build called by the ESM build's client (the marks and the contract's tag are shared).
  const client = await require("./client-report.cjs")({
    root,
    rpcClient: require("rpcserver/client"),
    t: require("io-ts"),
    E: require("fp-ts/lib/Either"),
  });
  const t = require("io-ts");
  const E = require("fp-ts/lib/Either");
  const esmClient = await import("rpcserver/client");
  const api = root.contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
  dual.clientAcrossBuilds = await esmClient
    .client(api, esmClient.local(root.implement(api, { add: (a, b) => E.right(a + b) })))
    .add(1, 2)();
  const internals = {};
  // The flat names of before the internal/ folders, and the folders themselves (closed by "./internal/*": null).
  const closed = ["calls", "stubs", "clienterror", "clienttransport", "contract", "implement", "context"];
  for (const name of [...closed, "internal/core/methods", "internal/client/calls", "internal/core/methods.js"]) {
    try {
      require(`rpcserver/${name}`);
      internals[name] = "exported";
    } catch (error) {
      internals[name] = error.code;
    }
  }
  console.log(
    JSON.stringify({ missing: found, internal, internals, dual, answer, schemaTitle: schema.title, pipeline, client }),
  );
})();
