// The load of bench/nats.mjs, one per child process: `node bench/nats-client.mjs <nats url>`.
// Each line on its stdin is one round, as JSON: { target: "rpc" | "dispatch" | "echo" | "http", n,
// concurrency, base, port? }. The round sends n requests `add [i, 1]` (ids base..base+n-1),
// `concurrency` at a time, and checks each answer's exact text: over NATS a plain `nc.request` to
// bench.rpc or bench.dispatch (the answer `{"jsonrpc":"2.0","result":i+1,"id":i}`) or bench.echo
// (the body itself); over HTTP a POST to the development server on 127.0.0.1:port (keep-alive, one
// socket per request in flight). It prints { start, end, ok, wrong, failed, cpuUs } (start and end
// in ms since the epoch, so that the rounds of two processes can be put on one clock; cpuUs its own
// process.cpuUsage() over the round) and waits for the next line.
import { Agent, request } from "node:http";
import { createInterface } from "node:readline";
import { connect } from "@nats-io/transport-node";

const nc = await connect({ servers: process.argv[2] });
const SUBJECTS = { rpc: "bench.rpc", dispatch: "bench.dispatch", echo: "bench.echo" };
let agent;

const viaNats = (subject) => (body) =>
  nc.request(subject, body, { timeout: 10_000 }).then((message) => message.string());

const viaHttp = (port, concurrency) => {
  agent ??= new Agent({ keepAlive: true, maxSockets: concurrency });
  return (body) =>
    new Promise((resolve, reject) => {
      const headers = { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) };
      const req = request({ host: "127.0.0.1", port, method: "POST", path: "/", agent, headers }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
      req.end(body);
    });
};

const now = () => performance.timeOrigin + performance.now();

const round = async ({ target, n, concurrency, base, port }) => {
  const call = target === "http" ? viaHttp(port, concurrency) : viaNats(SUBJECTS[target]);
  let next = 0;
  let ok = 0;
  let wrong = 0;
  let failed = 0;
  const cpu = process.cpuUsage();
  const start = now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = base + next++;
        const body = `{"jsonrpc":"2.0","method":"add","params":[${i},1],"id":${i}}`;
        const expected = target === "echo" ? body : `{"jsonrpc":"2.0","result":${i + 1},"id":${i}}`;
        try {
          if ((await call(body)) === expected) ok += 1;
          else wrong += 1;
        } catch {
          failed += 1;
        }
      }
    }),
  );
  const end = now();
  const { user, system } = process.cpuUsage(cpu);
  return { start, end, ok, wrong, failed, cpuUs: user + system };
};

process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
createInterface({ input: process.stdin })
  .on("line", async (line) => process.stdout.write(`${JSON.stringify(await round(JSON.parse(line)))}\n`))
  .on("close", () => void nc.close().then(() => agent?.destroy()));
