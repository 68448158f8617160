/**
 * Test helpers for the development server and its command: child processes of the built CLI
 * (dist/esm/cli.js), raw sockets and HTTP exchanges on the loopback interface. Every wait is
 * bounded, and every child started here is killed by `killAll`.
 */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import * as net from "node:net";
import { join, resolve } from "node:path";

/** The repository root (tests/helpers/../..). */
export const ROOT = resolve(__dirname, "..", "..");

/** The built command; the tests run after `npm run build`. */
export const CLI = join(ROOT, "dist", "esm", "cli.js");

/** The loopback address every test listens on. */
export const HOST = "127.0.0.1";

/** Upper bound of any single wait (a process starting, a socket closing). */
export const WAIT_MS = 10_000;

/** Fails with a clear message when the package has not been built. */
export const requireBuild = (): void => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before these tests`);
};

const children = new Set<ChildProcess>();

/** Kills every child process started by these helpers that is still running. */
export const killAll = (): void => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  children.clear();
};

/** A settled child process. */
export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Rejects after `ms` with `what` in the message, unless `promise` settles first. */
export const bounded = <T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
};

/** Resolves once `holds()` is true (looked at every few milliseconds), bounded as `bounded` is. */
export const until = (holds: () => boolean, what: string, ms = WAIT_MS): Promise<void> =>
  bounded(
    new Promise<void>((resolve) => {
      const look = (): void => {
        if (holds()) resolve();
        else setTimeout(look, 5).unref();
      };
      look();
    }),
    what,
    ms,
  );

/** `npm start`'s server: examples/start.mjs (the example methods, on the built package). */
export interface Examples {
  readonly child: ChildProcess;
  /** Its URL, from the command its banner ends with. */
  readonly url: string;
  readonly stderr: () => string;
}

/** Starts examples/start.mjs on a free port (PORT=0) and waits for its banner; `killAll` stops it. */
export const startExamples = async (): Promise<Examples> => {
  const child = spawn(process.execPath, [join("examples", "start.mjs")], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const url = await bounded(
    new Promise<string>((resolve, reject) => {
      child.stdout?.setEncoding("utf8").on("data", (text: string) => {
        stdout += text;
        // start.mjs ends its banner with the command that runs the client against it.
        const match = /RPC_URL=(\S+) node examples\/client\.mjs/.exec(stdout);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.on("exit", (code) => reject(new Error(`examples/start.mjs exited (${String(code)}):\n${stderr}`)));
    }),
    "examples/start.mjs to print its banner",
  ).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  return { child, url, stderr: () => stderr };
};

/** A child process of the CLI, its output collected. */
export interface Cli {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Settles when the process exits. */
  readonly exited: Promise<Exit>;
}

/** Starts `node dist/esm/cli.js ...args` in the repository root. */
export const spawnCli = (args: readonly string[]): Cli => {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr?.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = new Promise<Exit>((resolve) => {
    child.on("close", (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
};

/** Runs the CLI to its end (bounded) and returns its exit status and output. */
export const runCli = (args: readonly string[]): Promise<Exit> =>
  bounded(spawnCli(args).exited, `rpcserver ${args.join(" ")} to exit`);

/** The pattern of the server's listening line; group 1 is the port. */
export const LISTENING = /rpcserver: listening on http:\/\/\S+:(\d+)\//;

/** A CLI serving on a port, ready for requests. */
export interface Serving extends Cli {
  readonly port: number;
  readonly url: string;
}

/** Starts the CLI and waits for its listening line on stderr; rejects if it exits first. */
export const startCli = async (args: readonly string[]): Promise<Serving> => {
  const cli = spawnCli(args);
  const port = await bounded(
    new Promise<number>((resolve, reject) => {
      const check = (): void => {
        const match = LISTENING.exec(cli.stderr());
        if (match !== null) {
          cli.child.stderr?.off("data", check);
          resolve(Number(match[1]));
        }
      };
      cli.child.stderr?.on("data", check);
      void cli.exited.then((exit) =>
        reject(new Error(`rpcserver exited (${String(exit.code)}) before listening:\n${exit.stderr}`)),
      );
    }),
    `rpcserver ${args.join(" ")} to listen`,
  ).catch((error: unknown) => {
    cli.child.kill("SIGKILL");
    throw error;
  });
  return { ...cli, port, url: `http://${HOST}:${port}/` };
};

/** What came back on a raw socket before it closed. */
export interface RawReply {
  readonly text: string;
  readonly error: string | undefined;
}

/**
 * Opens a raw TCP connection, lets `drive` write to it, and collects whatever the server sends
 * until the connection closes (bounded).
 */
export const rawExchange = (port: number, drive: (socket: net.Socket) => void): Promise<RawReply> =>
  bounded(
    new Promise<RawReply>((resolve) => {
      const socket = net.connect(port, HOST);
      let text = "";
      let error: string | undefined;
      socket.setEncoding("latin1");
      socket.on("data", (chunk: string) => (text += chunk));
      socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
      socket.on("close", () => resolve({ text, error }));
      socket.on("connect", () => drive(socket));
    }),
    "a raw connection to close",
  );

/** The status code of the first HTTP response in a raw reply, if any. */
export const firstStatus = (reply: RawReply): number | undefined => {
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(reply.text);
  return match === null ? undefined : Number(match[1]);
};

/** The body of the first HTTP response in a raw reply that has a Content-Length. */
export const firstBody = (reply: RawReply): string => {
  const [head = "", rest = ""] = reply.text.split(/\r\n\r\n(.*)/s);
  const length = /content-length: (\d+)/i.exec(head);
  return length === null ? "" : Buffer.from(rest, "latin1").subarray(0, Number(length[1])).toString("utf8");
};

/**
 * A server of the tests' own (`script`, a path from the root: tests/fixtures/*.mjs, on the built
 * package) in a child process for the file's tests: started before them (once the build is there),
 * its port the first line it prints, killed after them. What it writes on stderr is read, not shown
 * (a server's expected log lines). `port()` is its port once started.
 */
export const usingFixture = (script: string): { readonly port: () => number } => {
  let child: ChildProcessWithoutNullStreams | undefined;
  let port = 0;
  beforeAll(async () => {
    if (!existsSync(join(ROOT, "dist/esm/mcp.js"))) throw new Error("run `npm run build` first");
    const started = spawn(process.execPath, [script], { cwd: ROOT });
    child = started;
    started.stderr.resume();
    port = await new Promise<number>((settle, fail) => {
      started.stdout.once("data", (chunk: Buffer) => settle(Number(chunk.toString())));
      // A child that dies before it prints its port fails the file at once, rather than at jest's time-out.
      started.once("exit", (code, signal) => fail(new Error(`${script} exited (${code ?? signal}) before its port`)));
    });
  });
  afterAll(async () => {
    // Gone already (by its own exit or a signal): its "exit" was told, and would not be told again.
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((settle) => child?.once("exit", settle));
    child.kill();
    await exited;
  });
  return { port: () => port };
};
