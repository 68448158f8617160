/**
 * docs/deploy.md, run as written. Each section's file (the ```js block whose first line names it,
 * `// server.mjs`), and its config (```toml: wrangler.toml, ```capnp: config.capnp), is written to a
 * directory of its own under .tmp/, inside the repository, where `rpcserver` resolves by its own
 * name to the built package as for the examples and tests/doc-examples.test.ts (`npm run build`
 * first). The commands of the section's ```sh block are run there as written, each program from where
 * this repository installs it: `node` is the Node.js that runs the tests, `bun` and `deno` the
 * binaries of runtimes/node_modules, `npx esbuild` and `npx workerd` those packages there (a Worker:
 * bundled as the page says, then served by workerd with the page's config.capnp, its socket moved to
 * a free port with `--socket-addr`). The last command is the server. Wrangler is not installed: its
 * block is not run, and its wrangler.toml is held to the workerd config (the same file, the same
 * compatibility date).
 *
 * Then, over real sockets: the page's curl line prints what the page says; a single call; a nested
 * name (`users.get`); the context from `X-User`; a notification (204); GET (405); a `Host` not in
 * `allowedHosts` (403) and the one listed (answered); a body over `maxBodyBytes` (413); and the
 * server printed nothing on stderr. Express, Fastify and Hono's `@hono/node-server` are skipped, the
 * test name saying why, on a Node.js their packages' engines exclude (Fastify 5 on Node 18).
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  describeOnNode,
  exchange,
  freePort,
  requireBuild,
  ROOT,
  runtime,
  startListening,
  startServer,
  stop,
  stopAll,
  type Server,
} from "./integrations/harness";

const PAGE = "docs/deploy.md";
const markdown = readFileSync(join(ROOT, PAGE), "utf8");
const run = promisify(execFile);

/** The pid's own: the suite may run beside itself on other Nodes (npm test). */
const work = join(ROOT, ".tmp", `deploy-docs-${process.pid}`);

/** The name the files list in `allowedHosts`, and their body limit. */
const LISTED_HOST = "api.example.com";
const MAX_BODY_BYTES = 64 * 1024;

interface Block {
  readonly lang: string;
  readonly code: string;
}

interface Section {
  readonly title: string;
  readonly blocks: readonly Block[];
}

const sections: Section[] = markdown
  .split(/^## /m)
  .slice(1)
  .map((text) => ({
    title: text.slice(0, text.indexOf("\n")),
    blocks: [...text.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((match) => ({
      lang: match[1] ?? "",
      code: match[2] ?? "",
    })),
  }));

/** A shell line's words: plain, or in single quotes (all the page's commands use). */
const words = (line: string): string[] =>
  [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? "");

/** A curl line of the page, and the line it says curl prints (the `# ` line under it). */
interface Curl {
  readonly args: readonly string[];
  readonly printed: string;
}

/** What a ```sh block says: the commands to run, in order, and its curl lines. */
interface Script {
  readonly commands: ReadonlyArray<readonly string[]>;
  readonly curls: readonly Curl[];
}

const scriptOf = (code: string): Script => {
  const lines = code.split("\n").filter((line) => line !== "");
  const commands = lines.filter((line) => !line.startsWith("#") && !line.startsWith("curl ")).map(words);
  const curls = lines.flatMap((line, index) =>
    line.startsWith("curl ")
      ? [{ args: words(line).slice(1), printed: (lines[index + 1] ?? "").replace(/^# /, "") }]
      : [],
  );
  return { commands, curls };
};

/** The file names of a section's blocks: the js file names itself, the configs are named by the page. */
const CONFIGS: Readonly<Record<string, string>> = { toml: "wrangler.toml", capnp: "config.capnp" };

const filesOf = (section: Section): Array<readonly [string, string]> =>
  section.blocks.flatMap(({ lang, code }) => {
    if (lang === "js") {
      const name = /^\/\/ (\S+)\n/.exec(code)?.[1];
      if (name === undefined) throw new Error(`${section.title}: a js block whose first line names no file`);
      return [[name, code] as const];
    }
    const config = CONFIGS[lang];
    return config === undefined ? [] : [[config, code] as const];
  });

/** Where each program a command names is installed here. */
const programOf = (command: readonly string[]): { readonly path: string; readonly args: readonly string[] } => {
  const [first = "", second = "", ...rest] = command;
  if (first === "node") return { path: process.execPath, args: [second, ...rest] };
  if (first === "bun" || first === "deno") return { path: runtime(first), args: [second, ...rest] };
  if (first === "npx" && (second === "esbuild" || second === "workerd"))
    return { path: join(ROOT, "runtimes", "node_modules", ".bin", second), args: rest };
  throw new Error(`the page runs ${command.join(" ")}, which this test does not know how to run`);
};

/** The scripts a section runs: all but Wrangler's (not installed here; held to workerd's config below). */
const isWrangler = (script: Script): boolean =>
  script.commands.some(([npx, name]) => npx === "npx" && name === "wrangler");

/** The Node.js framework each section runs on, for the engines check; none for a runtime of its own. */
const FRAMEWORKS: Readonly<Record<string, readonly [string, readonly string[]]>> = {
  Hono: ["@hono/node-server", []],
  Express: ["express", []],
  // light-my-request (and its cookie, which declares node >= 22) is loaded only by fastify.inject().
  Fastify: ["fastify", ["light-my-request"]],
};

beforeAll(() => {
  requireBuild();
  rmSync(work, { recursive: true, force: true });
});

afterAll(async () => {
  await stopAll();
  rmSync(work, { recursive: true, force: true });
});

test("the page has one section per runtime, each with one file, its commands and a curl line", () => {
  expect(sections.map((section) => section.title)).toEqual([
    "Node.js (`node:http`)",
    "Bun",
    "Deno",
    "Cloudflare Workers",
    "Hono",
    "Express",
    "Fastify",
  ]);
  for (const section of sections) {
    const files = filesOf(section).filter(([name]) => name.endsWith(".mjs"));
    const scripts = section.blocks.filter(({ lang }) => lang === "sh").map(({ code }) => scriptOf(code));
    expect({ section: section.title, files: files.length, runs: scripts.every((s) => s.curls.length === 1) }).toEqual({
      section: section.title,
      files: 1,
      runs: true,
    });
  }
});

test("Wrangler's config names the Worker's file and workerd's compatibility date (Wrangler itself is not run)", () => {
  const workers = sections.find((section) => section.title === "Cloudflare Workers");
  const files = new Map(workers === undefined ? [] : filesOf(workers));
  const toml = files.get("wrangler.toml") ?? "";
  const capnp = files.get("config.capnp") ?? "";
  expect(/^main = "(.*)"$/m.exec(toml)?.[1]).toBe("worker.mjs");
  expect(files.has("worker.mjs")).toBe(true);
  const date = /^compatibility_date = "(.*)"$/m.exec(toml)?.[1];
  expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(/compatibilityDate = "(.*)"/.exec(capnp)?.[1]).toBe(date);
});

const call = (method: string, params?: unknown[], id?: number): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    method,
    ...(params === undefined ? {} : { params }),
    ...(id === undefined ? {} : { id }),
  });

const post = async (url: string, body: string | Uint8Array, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { method: "POST", headers, body });
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
};

/** The section's file, run as the page says, and the checks on it; `server()` is the running server. */
const checks = (section: Section): void => {
  let server: Server | undefined;
  const dir = join(work, section.title.replace(/[^a-z0-9]+/gi, "-").toLowerCase());
  const url = (): string => (server as Server).url;

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    for (const [name, code] of filesOf(section)) writeFileSync(join(dir, name), code);
    const script = section.blocks
      .filter(({ lang }) => lang === "sh")
      .map(({ code }) => scriptOf(code))
      .find((s) => !isWrangler(s));
    const commands = script?.commands ?? [];
    for (const command of commands.slice(0, -1)) {
      const { path, args } = programOf(command);
      await run(path, [...args], { cwd: dir });
    }
    const last = commands.at(-1);
    if (last === undefined) throw new Error(`${section.title}: no command to run`);
    const { path, args } = programOf(last);
    if (last[1] === "workerd") {
      // workerd listens where config.capnp says (port 3000) unless told: a free port instead.
      const port = await freePort();
      server = await startListening(
        path,
        [...args, "--socket-addr", `http=127.0.0.1:${port}`],
        `http://127.0.0.1:${port}/rpc`,
        dir,
      );
    } else {
      const started = await startServer(path, [...args], {}, dir);
      // It prints http://localhost:<port>/rpc and listens on every interface: call it on 127.0.0.1.
      server = { ...started, url: started.url.replace("//localhost:", "//127.0.0.1:") };
    }
  });
  afterAll(() => stop(server));

  test("the page's curl line prints what the page says", async () => {
    const curls = section.blocks.filter(({ lang }) => lang === "sh").flatMap(({ code }) => scriptOf(code).curls);
    for (const { args, printed } of curls) {
      const local = args.map((arg) => arg.replace(/^http:\/\/localhost:\d+\/rpc$/, url()));
      expect(local).not.toEqual(args); // the line calls the server at its URL
      const { stdout } = await run("curl", ["--max-time", "20", ...local]);
      expect(stdout).toBe(printed);
    }
  });

  test("a single call: 200, application/json, the answer", async () => {
    expect(await post(url(), call("add", [1, 2], 1))).toEqual({
      status: 200,
      type: "application/json",
      text: '{"jsonrpc":"2.0","result":3,"id":1}',
    });
  });

  test("a nested name: users.get is the users branch's get", async () => {
    const reply = await post(url(), call("users.get", [7], 2));
    expect(JSON.parse(reply.text)).toEqual({ jsonrpc: "2.0", result: { id: 7, name: "user 7" }, id: 2 });
  });

  test("the context: X-User reaches the handlers; anonymous without it", async () => {
    const ada = await post(url(), call("users.me", undefined, 3), { "X-User": "ada" });
    const nobody = await post(url(), call("users.me", undefined, 4));
    expect([JSON.parse(ada.text), JSON.parse(nobody.text)]).toEqual([
      { jsonrpc: "2.0", result: "ada", id: 3 },
      { jsonrpc: "2.0", result: "anonymous", id: 4 },
    ]);
  });

  test("a notification: 204, no body, no Content-Type", async () => {
    expect(await post(url(), call("add", [1, 2]))).toEqual({ status: 204, type: null, text: "" });
  });

  test("GET: 405, Allow: POST", async () => {
    const reply = await exchange(url(), { method: "GET" });
    expect([reply.status, reply.headers.allow]).toEqual([405, "POST"]);
  });

  test(`a Host not in allowedHosts: 403; the name listed (${LISTED_HOST}): answered`, async () => {
    const body = call("add", [2, 3], 5);
    const rebound = await exchange(url(), { headers: { Host: "evil.example" }, body });
    expect(rebound.status).toBe(403);
    expect(rebound.text).toMatch(/^rpcserver: refused: the Host header "evil.example"/);
    const listed = await exchange(url(), { headers: { Host: LISTED_HOST }, body });
    expect([listed.status, listed.text]).toEqual([200, '{"jsonrpc":"2.0","result":5,"id":5}']);
  });

  test(`a body over maxBodyBytes (${MAX_BODY_BYTES}): 413; the server goes on answering`, async () => {
    const over = await post(url(), new Uint8Array(MAX_BODY_BYTES + 1).fill(0x20));
    expect(over.status).toBe(413);
    expect(JSON.parse(over.text)).toMatchObject({ error: { code: -32600 }, id: null });
    expect((await post(url(), call("add", [2, 2], 6))).text).toBe('{"jsonrpc":"2.0","result":4,"id":6}');
  });

  test("the server printed nothing on stderr (no error, stack or warning)", () => {
    expect((server as Server).stderr()).toBe("");
  });
};

for (const section of sections) {
  const framework = FRAMEWORKS[section.title];
  if (framework === undefined) describe(`${PAGE}: ${section.title}`, () => checks(section));
  else describeOnNode(`${PAGE}: ${section.title}`, framework[0], framework[1], () => checks(section));
}
