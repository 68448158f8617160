// NATS streams: values per second that one streamed call carries over NATS, `serveNats` to
// `natsTransport` (`open`, a consumer that takes each value at once), and the CPU time each value
// costs the process (both ends run in it). Issue 32 numbered the value messages and made the
// transport hold them as bytes: this is what that costs.
//
//   npm run build && node bench/nats-streams.mjs        full run
//   node bench/nats-streams.mjs --quick                 smoke run
//
// A real nats-server on 127.0.0.1 and a free port (tests/fixtures/nats-server.cjs). Two kinds of
// values, interleaved round by round: a small one (a number) and a record of about 1 KB. A round
// is one call streaming VALUES values; every value is checked (in order) and the answer too. The figures
// are medians over the rounds.
import * as t from "io-ts";
import { contract, implement } from "rpcserver";
import { client, open } from "rpcserver/client";
import { natsTransport, serveNats } from "rpcserver/nats";
import { connect } from "../tests/fixtures/nats.cjs";
import { startNatsServer } from "../tests/fixtures/nats-server.cjs";

const QUICK = process.argv.includes("--quick");
const ROUNDS = QUICK ? 3 : 9;
const VALUES = QUICK ? 5_000 : 50_000;

const record = { name: "x".repeat(200), tags: Array.from({ length: 40 }, (_, i) => `tag-${i}`), n: 0 };
const api = contract({
  small: { params: t.tuple([t.number]), stream: t.unknown, result: t.number },
  large: { params: t.tuple([t.number]), stream: t.unknown, result: t.number },
});
const methods = implement(api, {
  small: async function* (n) {
    for (let i = 1; i <= n; i += 1) yield i;
    return { _tag: "Right", right: n };
  },
  large: async function* (n) {
    for (let i = 1; i <= n; i += 1) yield { ...record, n: i };
    return { _tag: "Right", right: n };
  },
});

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await startNatsServer();
const [serving, calling] = await Promise.all([connect(server.url), connect(server.url)]);
const service = await serveNats(serving, methods, { name: "bench", version: "1.0.0", subject: "rpc.bench" });
const rpc = client(api, natsTransport(calling, "rpc.bench"));

const round = async (kind) => {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const run = open(rpc[kind](VALUES));
  let taken = 0;
  for await (const value of run) {
    taken += 1;
    if ((kind === "small" ? value : value.n) !== taken) throw new Error(`${kind}: value ${taken} out of order`);
  }
  const result = await run.result;
  const { user, system } = process.cpuUsage(cpu);
  const ms = performance.now() - started;
  if (taken !== VALUES || result._tag !== "Right")
    throw new Error(`${kind}: ${taken} values, ${JSON.stringify(result)}`);
  return { perSecond: (VALUES / ms) * 1000, cpuUs: (user + system) / VALUES };
};

const figures = { small: [], large: [] };
await round("small");
await round("large");
for (let i = 0; i < ROUNDS; i += 1) for (const kind of ["small", "large"]) figures[kind].push(await round(kind));

for (const [kind, rounds] of Object.entries(figures)) {
  const perSecond = median(rounds.map((r) => r.perSecond));
  const cpuUs = median(rounds.map((r) => r.cpuUs));
  console.log(`${kind}: ${Math.round(perSecond).toLocaleString("en")} values/s, ${cpuUs.toFixed(2)} µs CPU per value`);
}
await service.stop();
await Promise.all([serving.close(), calling.close()]);
await server.stop();
