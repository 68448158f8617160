/**
 * Helpers of tests/integrations.test.ts and tests/deploy-docs.test.ts: servers as child processes
 * (on Node.js, Bun, Deno or workerd), waiting for their "listening on <url>" line or for their port
 * to answer, stopping them all, a request over a real socket that names its own `Host`; and which
 * Node.js versions a framework supports, read from the `engines` its packages declare.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import * as http from "node:http";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";

/** The repository root. */
export const ROOT = resolve(__dirname, "..", "..");

/** The integration examples. */
export const EXAMPLES = join(ROOT, "examples", "integrations");

/** The loopback address every example listens on in the tests. */
export const HOST = "127.0.0.1";

/** Upper bound of any single wait: a process starting (Deno's first start is the slowest), an answer. */
export const WAIT_MS = 20_000;

/** How long a process may take to stop on SIGTERM before it is killed. */
const STOP_MS = 5_000;

/** Fails with a clear message when the package has not been built (the examples import dist/). */
export const requireBuild = (): void => {
  if (!existsSync(join(ROOT, "dist", "esm", "index.js"))) {
    throw new Error("dist/ is missing: run `npm run build` first (the examples import the built package)");
  }
};

/** The Bun and Deno binaries that `npm ci --prefix runtimes` installs. */
export const RUNTIMES = {
  bun: join(ROOT, "runtimes", "node_modules", "@oven", "bun-linux-x64", "bin", "bun"),
  deno: join(ROOT, "runtimes", "node_modules", "@deno", "linux-x64-glibc", "deno"),
} as const;

/** The path of a runtime's binary; throws (the test fails, never skips) when it is not installed. */
export const runtime = (name: keyof typeof RUNTIMES): string => {
  const path = RUNTIMES[name];
  if (!existsSync(path)) {
    throw new Error(`${name} is not installed at ${path}: run \`npm ci --prefix runtimes\``);
  }
  return path;
};

/** Rejects after `ms` with `what` in the message, unless `promise` settles first. */
export const bounded = <T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
};

/** Polls `check` until it holds (bounded): for output that arrives on its own schedule. */
export const eventually = async (check: () => boolean, what: string): Promise<void> =>
  bounded(
    (async () => {
      while (!check()) await new Promise((r) => setTimeout(r, 20));
    })(),
    what,
  );

/** A child process, its output collected. */
export interface Child {
  readonly process: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Settles with the exit code (or the signal's name) when the process has exited. */
  readonly exited: Promise<number | string | null>;
}

const children = new Set<Child>();

/**
 * Starts `command args` in `cwd` (the repository root unless given), with HOST=127.0.0.1 and PORT=0
 * in its environment.
 */
export const spawnChild = (
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  cwd: string = ROOT,
): Child => {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, HOST, PORT: "0", NO_COLOR: "1", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr?.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = new Promise<number | string | null>((resolve) => {
    child.on("close", (code, signal) => resolve(code ?? signal));
    child.on("error", (error) => {
      stderr += `spawn failed: ${error.message}`;
      resolve(null);
    });
  });
  const handle = { process: child, stdout: () => stdout, stderr: () => stderr, exited };
  children.add(handle);
  void exited.then(() => children.delete(handle));
  return handle;
};

/** A server example, started and listening. */
export interface Server extends Child {
  /** The URL its "listening on <url>" line gave. */
  readonly url: string;
}

/** Starts a server example and waits for its "listening on <url>" line on stdout. */
export const startServer = async (
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  cwd: string = ROOT,
): Promise<Server> => {
  const child = spawnChild(command, args, env, cwd);
  const url = await bounded(
    new Promise<string>((resolve, reject) => {
      const check = (): void => {
        const match = /listening on (\S+)/.exec(child.stdout());
        if (match?.[1] !== undefined) resolve(match[1]);
      };
      child.process.stdout?.on("data", check);
      void child.exited.then((how) =>
        reject(new Error(`${args.join(" ")} exited (${String(how)}) before listening:\n${child.stderr()}`)),
      );
    }),
    `${args.join(" ")} to listen`,
  );
  return { ...child, url };
};

/** A port on 127.0.0.1 that nothing listens on, for a server that cannot be told port 0 and say which it took. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on("error", reject);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });

/** What came back over the socket. */
export interface Exchanged {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

/**
 * One request over a new connection to `url`, with `headers` as given: `Host` too, which fetch would
 * not let a request name (a rebinding's `Host` is another name than the address connected to).
 */
export const exchange = (
  url: string,
  {
    method = "POST",
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array },
): Promise<Exchanged> =>
  bounded(
    new Promise<Exchanged>((resolve, reject) => {
      const request = http.request(url, { method, headers, agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", reject);
      });
      request.on("error", reject);
      request.end(body);
    }),
    `${method} ${url} with ${JSON.stringify(headers)}`,
  );

/**
 * Starts a server that prints nothing when it listens (workerd) and waits until `url` answers any
 * request: each refused connection is retried, until the child exits or the wait is over.
 */
export const startListening = async (
  command: string,
  args: readonly string[],
  url: string,
  cwd: string = ROOT,
): Promise<Server> => {
  const child = spawnChild(command, args, {}, cwd);
  let exited = false;
  void child.exited.then(() => (exited = true));
  await bounded(
    (async () => {
      for (;;) {
        if (exited) throw new Error(`${args.join(" ")} exited before listening:\n${child.stderr()}`);
        try {
          await exchange(url, { method: "GET" });
          return;
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    })(),
    `${args.join(" ")} to listen`,
  );
  return { ...child, url };
};

/** Stops a child: SIGTERM, then SIGKILL if it has not exited within a few seconds. */
export const stop = async (child: Child | undefined): Promise<void> => {
  if (child === undefined) return;
  const { process: p } = child;
  if (p.exitCode !== null || p.signalCode !== null) return;
  p.kill("SIGTERM");
  try {
    await bounded(child.exited, "a child to stop", STOP_MS);
  } catch {
    p.kill("SIGKILL");
    await bounded(child.exited, "a child to die");
  }
};

/** Stops every child these helpers started that is still running. */
export const stopAll = async (): Promise<void> => {
  await Promise.all([...children].map(stop));
};

// --- Which Node.js versions a framework supports ---------------------------------------------------

type Version = readonly [number, number, number];

const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** One comparator of a range: the versions from `low` (inclusive) to `high` (exclusive). */
interface Interval {
  readonly low: Version;
  readonly high: Version | undefined;
}

const NONE: Version = [0, 0, 0];

/** The interval of one comparator (`>=20`, `^18.18`, `20`, `10.x`, `<22.0.0`, `*`); throws on any other form. */
const interval = (comparator: string): Interval => {
  if (comparator === "*" || comparator === "x" || comparator === "") return { low: NONE, high: undefined };
  const match = /^(>=|<=|>|<|=|\^|~)?v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?$/.exec(comparator);
  if (match === null) throw new Error(`engines: unsupported comparator "${comparator}"`);
  const [, op = "", major = "0"] = match;
  // A wildcard part (`10.x`) counts as not written.
  const [minor, patch] = [match[3], match[4]].map((part) =>
    part === undefined || /^\d+$/.test(part) ? part : undefined,
  );
  const given = [major, minor, patch].filter((part) => part !== undefined).length;
  const low: Version = [Number(major), Number(minor ?? 0), Number(patch ?? 0)];
  // The first version after every version the written parts match: 20 -> 21.0.0, 20.9 -> 20.10.0.
  const next: Version =
    given === 1 ? [low[0] + 1, 0, 0] : given === 2 ? [low[0], low[1] + 1, 0] : [low[0], low[1], low[2] + 1];
  switch (op) {
    case ">=":
      return { low, high: undefined };
    case ">":
      return { low: next, high: undefined };
    case "<":
      return { low: NONE, high: low };
    case "<=":
      return { low: NONE, high: next };
    case "^":
      return { low, high: low[0] > 0 ? [low[0] + 1, 0, 0] : low[1] > 0 ? [0, low[1] + 1, 0] : next };
    case "~":
      return { low, high: given === 1 ? next : [low[0], low[1] + 1, 0] };
    default:
      return { low, high: next };
  }
};

/** A range's alternatives (`||`), each a list of comparators that must all hold. */
const alternatives = (range: string): Interval[][] =>
  range.split("||").map((alternative) =>
    alternative
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1")
      .split(/\s+/)
      .map(interval),
  );

const parseVersion = (version: string): Version => {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, "").split(/[.-]/).map(Number);
  return [major, minor, patch];
};

/** Whether `version` (such as `process.versions.node`) is in the npm-style `range`. */
export const satisfies = (version: string, range: string): boolean => {
  const v = parseVersion(version);
  return alternatives(range).some((all) =>
    all.every(({ low, high }) => compare(v, low) >= 0 && (high === undefined || compare(v, high) < 0)),
  );
};

/** The lowest version a range admits. */
const lowest = (range: string): Version =>
  alternatives(range)
    .map((all) => all.reduce<Version>((max, { low }) => (compare(low, max) > 0 ? low : max), NONE))
    .reduce((min, low) => (compare(low, min) < 0 ? low : min));

/** A package's `engines.node`, if it declares one. */
interface Declared {
  readonly name: string;
  readonly range: string;
}

interface PackageJson {
  readonly name?: string;
  readonly engines?: { readonly node?: string };
  readonly dependencies?: Readonly<Record<string, string>>;
}

/** Where Node.js would find package `name` from the package in `from` (node_modules, upwards). */
const locate = (name: string, from: string): string | undefined => {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
};

/** What a framework needs of Node.js: every `engines.node` it and its dependencies declare. */
export interface NodeSupport {
  readonly declared: readonly Declared[];
  /** Whether the running Node.js is in every declared range. */
  readonly supported: boolean;
  /** For test names: `needs node >= 20`, from the strictest lower bound. */
  readonly label: string;
}

/**
 * The `engines.node` ranges of package `name` and of its dependencies, transitively, as installed;
 * `unused` names dependencies that the example never loads (and why, in the caller's comment),
 * whose own dependencies are then not counted either.
 */
export const nodeSupport = (name: string, unused: readonly string[] = []): NodeSupport => {
  const declared: Declared[] = [];
  const seen = new Set<string>();
  const visit = (dir: string): void => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson;
    if (pkg.engines?.node !== undefined) declared.push({ name: pkg.name ?? dir, range: pkg.engines.node });
    for (const dependency of Object.keys(pkg.dependencies ?? {})) {
      if (unused.includes(dependency)) continue;
      const found = locate(dependency, dir);
      if (found !== undefined) visit(found); // an optional dependency may be absent
    }
  };
  const top = locate(name, ROOT);
  if (top === undefined) throw new Error(`${name} is not installed: run \`npm ci\``);
  visit(top);
  const least = declared
    .map(({ range }) => lowest(range))
    .reduce<Version>((max, low) => (compare(low, max) > 0 ? low : max), NONE);
  const shown = least[2] !== 0 ? least.join(".") : least[1] !== 0 ? `${least[0]}.${least[1]}` : `${least[0]}`;
  return {
    declared,
    supported: declared.every(({ range }) => satisfies(process.versions.node, range)),
    label: `needs node >= ${shown}`,
  };
};

/**
 * `describe` for what runs `framework` on this Node.js: skipped, its name saying why, when the
 * engines of the framework's packages (but `unused`, which the caller never loads) exclude the
 * running Node.js. The title gains the version the framework needs.
 */
export const describeOnNode = (name: string, framework: string, unused: readonly string[], body: () => void): void => {
  const support = nodeSupport(framework, unused);
  const title = `${name} (${support.label})`;
  if (!support.supported) {
    const why = support.declared.filter(({ range }) => !satisfies(process.versions.node, range));
    describe.skip(`${title}: skipped on node ${process.versions.node} (${why.map((d) => `${d.name} ${d.range}`).join(", ")})`, () => {
      test("not run", () => undefined);
    });
    return;
  }
  describe(title, body);
};

const fastify = nodeSupport("fastify", ["light-my-request"]);

/**
 * `test` for a case that runs Fastify, which needs Node.js 20 (its packages' engines): skipped, its
 * name saying why, on an older Node (Node 18 of the runtime matrix).
 */
export const onFastify = fastify.supported
  ? test
  : (name: string, fn: jest.ProvidesCallback): void =>
      test.skip(`${name}: skipped on node ${process.versions.node} (${fastify.label})`, fn);
