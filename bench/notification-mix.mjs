// A notification against limit-sync after the traffic that went before it in the same process
// (issue 32, item 17): V8 shares what it learns of a function across every path through it, so
// the single requests, batches, errors and the other configurations of dispatch that bench.mjs runs
// in its one process change what a notification costs there.
//
//   npm run build && node bench/notification-mix.mjs [dist] [mix]
//
// mix: "0" nothing before (dispatch only ever sees notifications); "all" (the default) every
// scenario of bench.mjs through dispatch, then 1 and 4 no-op stages and dispatchToSerializable on
// the same scenarios; "texts" the scenarios through dispatch alone; "configs" the other
// configurations on the notification alone ("stages": the staged two, "ser": dispatchToSerializable); "t:018" the scenarios numbered so (0 single, 1 named,
// 2 notification, 3 batch, 4 not found, 5 invalid, 6 parse error, 7 throws, 8 codec).
// Prints the median CPU time per request of each (60 paired rounds of 20,000) and the median of the
// rounds' ratios. `dist` is a build's directory (default dist), so that two builds can be compared.
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { makeLimitSync, req, rpcMethodsOf, SCENARIOS } from "./dispatch-scenarios.mjs";
const dist = process.argv[2] ?? "dist";
const mode = process.argv[3] ?? "all";
const pollute = mode !== "0";
if (!/^(0|all|texts|configs|stages|ser|t:[0-8]+)$/.test(mode)) throw new Error(`notification-mix: no mix "${mode}"`);
const lib = await import(pathToFileURL(join(resolve(dist), "esm", "index.js")).href);
const E = await import("fp-ts/lib/Either.js");
const { dispatch, dispatchToSerializable, setLogger } = lib;
const limit = makeLimitSync();
const m1 = rpcMethodsOf(lib, true);
const ours = (text) => dispatch(text, m1);
const NOTE = req("add", [1, 2]);
if (lib.setLogger) setLogger({ error: () => {}, warn: () => {}, info: () => {} });
if (pollute) {
  const pass = (call) => E.right(call);
  const staged = (n) => {
    const o = { stages: Array.from({ length: n }, () => pass) };
    const m = rpcMethodsOf(lib, true);
    return (x) => dispatch(x, m, o);
  };
  const ser = (x) => {
    const v = dispatchToSerializable(x, m1);
    return v === undefined ? "" : JSON.stringify(v);
  };
  // bench.mjs's scenarios but the last (params of 1,000 integers), in its order.
  const texts = SCENARIOS.slice(0, 9).map((scenario) => scenario.text);
  const fs =
    mode === "texts" || mode.startsWith("t:")
      ? [ours]
      : mode === "configs"
        ? [staged(1), staged(4), ser]
        : mode === "ser"
          ? [ser]
          : mode === "stages"
            ? [staged(1), staged(4)]
            : [ours, staged(1), staged(4), ser];
  const xs = mode.startsWith("t:")
    ? mode
        .slice(2)
        .split("")
        .map((k) => texts[+k])
    : mode === "configs" || mode === "ser" || mode === "stages"
      ? [NOTE]
      : texts;
  for (const f of fs) for (const x of xs) for (let i = 0; i < 20000; i++) f(x);
}
const N = 20000;
const time = (f) => {
  const t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) f(NOTE);
  const d = process.cpuUsage(t0);
  return ((d.user + d.system) * 1000) / N;
};
for (let i = 0; i < 30; i++) {
  time(limit);
  time(ours);
}
const ratios = [],
  a = [],
  b = [];
for (let r = 0; r < 60; r++) {
  const x =
    r % 2
      ? [time(limit), time(ours)]
      : (() => {
          const o = time(ours);
          return [time(limit), o];
        })();
  a.push(x[0]);
  b.push(x[1]);
  ratios.push(x[1] / x[0]);
}
const med = (xs) => [...xs].sort((p, q) => p - q)[xs.length >> 1];
console.log(
  `${dist} mode=${mode}: limit ${med(a).toFixed(0)} ns, ours ${med(b).toFixed(0)} ns, ratio ${med(ratios).toFixed(3)}`,
);
