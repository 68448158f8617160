// What the benches that run their servers in child processes share (bench/streams.mjs and
// bench/stream-servers.mjs, bench/http-servers.mjs and bench/http-server.mjs): a server's side
// (listen on loopback and print the port; read a request's body) and the bench's side (start a
// child and read its port; the median of a round's figures).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** The median of `xs` (the upper one of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * A child process serving HTTP on loopback: `command args`, which prints its port on the first line
 * of its stdout. Its stdout stays readable (`child.stdout`) for what it prints after.
 */
export const httpChild = async (command, args, { stderr = "ignore" } = {}) => {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", stderr] });
  const port = await new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk) => {
      seen += chunk;
      const line = /^\D*(\d+)\s*\n/.exec(seen);
      if (line === null) return;
      child.stdout.off("data", onData);
      child.off("exit", onExit);
      resolve(Number(line[1]));
    };
    const onExit = (code) => reject(new Error(`${[command, ...args].join(" ")} exited with ${code}: ${seen}`));
    child.stdout.on("data", onData);
    child.once("exit", onExit);
    child.once("error", reject);
  });
  return { child, port };
};

/** A `node:http` server on 127.0.0.1 and a free port, which it prints (unless `quiet`); `handle` may reject. */
export const listen = async (handle, { quiet = false } = {}) => {
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      console.error(error);
      res.destroy();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  if (!quiet) console.log(server.address().port);
  return server;
};

/** A Node request's whole body. */
export const readBody = async (req) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
};

/**
 * The CPU time of process `pid` so far, in nanoseconds: the sum of its threads' time on a CPU
 * (/proc/<pid>/task/<tid>/schedstat's first field; /proc/<pid>/stat counts 10 ms ticks). Linux only.
 */
export const cpuNanos = (pid) => {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // A thread that ended between the listing and the read: its time is gone with it.
    }
  }
  return total;
};
