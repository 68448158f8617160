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

// rpcserver/pipeline: the stages shared with the main entry, and a tiny pipeline run through it.
const pl = await import("rpcserver/pipeline");
const pipelineIdentity = { timeout: pl.timeout === root.timeout, observe: pl.observe === root.observe };
const syncEnv = pl.environment({ ping }, undefined, false);
const pipelineAnswer = pl.toJson(syncEnv)(pl.pipeline(pl.Sync)(syncEnv)('{"jsonrpc":"2.0","method":"ping","id":3}'));
const asyncEnv = pl.environment({ ping: async () => ping() }, undefined, true);
const asyncPipelineAnswer = pl.toJson(asyncEnv)(
  await pl.pipeline(pl.Async)(asyncEnv)('[{"jsonrpc":"2.0","method":"ping","id":4},{"jsonrpc":"2.0","method":"ping"}]'),
);
const observed = [];
const stagedAnswer = await root.asyncDispatch(
  '{"jsonrpc":"2.0","method":"slow","id":5}',
  { slow: () => new Promise(() => undefined) },
  { stages: [pl.observe((o) => observed.push(`${o.method} ${o.id}`)), pl.timeout(5)] },
);

// rpcserver/client and the main entry's contract names (client-report.cjs, shared with cjs.cjs).
const clientReport = (await import("./client-report.cjs")).default;
const client = await clientReport({
  root,
  rpcClient: await import("rpcserver/client"),
  t: await import("io-ts"),
  E: await import("fp-ts/lib/Either.js"),
});

console.log(
  JSON.stringify({
    missing: found,
    identity,
    answer,
    asyncAnswer,
    schemaTitle: schema.title,
    pipeline: {
      identity: pipelineIdentity,
      answer: pipelineAnswer,
      asyncAnswer: asyncPipelineAnswer,
      stagedAnswer,
      observed,
    },
    client,
  }),
);
