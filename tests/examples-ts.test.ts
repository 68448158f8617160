/**
 * The TypeScript examples (examples/ts/), as a user's project would build them: type-checked with
 * examples/ts/tsconfig.json (strict, `noUncheckedIndexedAccess`, `exactOptionalPropertyTypes`,
 * NodeNext), `rpcserver` resolved by name to the BUILT package (`npm run build` first), compiled,
 * and run:
 *
 * - context.ts prints what examples/context.mjs prints;
 * - methods.ts served by the `rpcserver` command, and client.ts calling it, line by line;
 * - lsp/server.ts (a `ConnectionContext`, calling back through `ctx.peer`) driven by
 *   vscode-jsonrpc's `MessageConnection`, as tests/connection-interop.test.ts drives the .mjs one,
 *   and its streaming `example/count` read with `onProgress`, as tests/streams-connection.test.ts
 *   reads the .mjs one's;
 * - mcp/server.ts driven by the official MCP SDK's `Client` over stdio, its streaming tool `count`
 *   read with `onprogress`, and cancelled mid-way.
 *
 * `npm run examples:ts` is the same compile from the command line (to .tmp/examples-ts/).
 */
import ts from "typescript";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join, relative } from "node:path";
import {
  CancellationTokenSource,
  createMessageConnection,
  ProgressType,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from "vscode-jsonrpc/node";
import { bounded, killAll, requireBuild, ROOT, startCli } from "./helpers/processes";

const CONFIG = join(ROOT, "examples", "ts", "tsconfig.json");
/** Where this test compiles the examples to (inside the package, so that `rpcserver` resolves by name). */
const OUT = join(ROOT, ".tmp", `examples-ts-test-${process.pid}`);

/** The examples written in TypeScript, each beside the JavaScript one it mirrors. */
const EXAMPLES = ["api", "methods", "client", "context", "lsp/server", "mcp/server"];

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a script with Node from the repository root, `env` added, to its end (bounded). */
const runNode = (script: string, env: Record<string, string> = {}, args: readonly string[] = []): Promise<Run> =>
  bounded(
    new Promise<Run>((resolve) => {
      execFile(
        process.execPath,
        [script, ...args],
        { cwd: ROOT, env: { ...process.env, ...env }, encoding: "utf8" },
        (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : (error.code as number | null), stdout, stderr }),
      );
    }),
    `node ${script} to exit`,
  );

const compiled = (name: string): string => join(OUT, `${name}.js`);

/** Settles once `read()` includes `text` (polled; bounded). */
const eventually = (read: () => string, text: string): Promise<void> =>
  bounded(
    new Promise<void>((resolve) => {
      const check = (): void => {
        if (read().includes(text)) resolve();
        else setTimeout(check, 20);
      };
      check();
    }),
    `output to include ${JSON.stringify(text)}`,
  );

const describeDiagnostics = (diagnostics: readonly ts.Diagnostic[]): string[] =>
  diagnostics.map((diagnostic) => {
    const where =
      diagnostic.file !== undefined && diagnostic.start !== undefined
        ? `${relative(ROOT, diagnostic.file.fileName)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1}: `
        : "";
    return `${where}TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
  });

let program: ts.Program;
let problems: string[] = [];

beforeAll(() => {
  requireBuild();
  rmSync(OUT, { recursive: true, force: true });
  const parsed = ts.getParsedCommandLineOfConfigFile(
    CONFIG,
    { outDir: OUT },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(describeDiagnostics([diagnostic]).join("\n"));
      },
    },
  );
  if (parsed === undefined) throw new Error(`${CONFIG} could not be read`);
  program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const emitted = program.emit();
  problems = describeDiagnostics([...parsed.errors, ...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]);
});

afterAll(() => {
  killAll();
  rmSync(OUT, { recursive: true, force: true }); // its own (the pid's): suites on other Nodes may run beside it
});

describe("type-checked as a user's project", () => {
  test("examples/ts/tsconfig.json is strict, NodeNext, and type-checks every example with no problem", () => {
    const options = program.getCompilerOptions();
    expect({
      strict: options.strict,
      noUncheckedIndexedAccess: options.noUncheckedIndexedAccess,
      exactOptionalPropertyTypes: options.exactOptionalPropertyTypes,
      module: options.module,
      moduleResolution: options.moduleResolution,
    }).toEqual({
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    const roots = program
      .getRootFileNames()
      .map((file) => relative(join(ROOT, "examples", "ts"), file).replace(/\.ts$/, ""))
      .sort();
    expect(roots).toEqual([...EXAMPLES].sort());
    expect(problems).toEqual([]);
  });

  test("`rpcserver` and its subpaths resolve by name to the built package's declarations", () => {
    const fromDist = program
      .getSourceFiles()
      .map((file) => relative(ROOT, file.fileName))
      .filter((file) => !file.startsWith("node_modules"));
    expect(fromDist).toEqual(
      expect.arrayContaining([
        "dist/esm/index.d.ts",
        "dist/esm/client.d.ts",
        "dist/esm/connection.d.ts",
        ...EXAMPLES.map((name) => `examples/ts/${name}.ts`),
      ]),
    );
    expect(fromDist.filter((file) => file.startsWith("src/"))).toEqual([]);
  });

  test("every example is compiled to JavaScript (in .tmp/examples-ts-test/)", () => {
    expect(EXAMPLES.filter((name) => !existsSync(compiled(name)))).toEqual([]);
  });
});

/**
 * The type problems of `file` (under examples/ts/) once `edit` has changed its text: what a user's
 * mistake would give. Checked in memory, with the examples' options.
 */
const problemsAfter = (file: string, from: string, to: string): string[] => {
  const target = join(ROOT, "examples", "ts", file);
  const text = ts.sys.readFile(target) ?? "";
  if (!text.includes(from)) throw new Error(`${file} no longer has ${JSON.stringify(from)}`);
  const options = { ...program.getCompilerOptions(), noEmit: true };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  // Every other file as the examples' program parsed it: only the edited one is parsed again.
  host.getSourceFile = (name, language, ...rest) =>
    name === target
      ? ts.createSourceFile(name, text.replace(from, to), language)
      : (program.getSourceFile(name) ?? read(name, language, ...rest));
  const edited = ts.createProgram({ rootNames: [target], options, host, oldProgram: program });
  return describeDiagnostics(ts.getPreEmitDiagnostics(edited, edited.getSourceFile(target)));
};

describe("what the examples say does not compile, does not", () => {
  test("lsp/server.ts: connect without the context its app declares", () => {
    expect(problemsAfter("lsp/server.ts", "  context: { state: { shuttingDown: false } },\n", "").join("\n")).toMatch(
      /MissingContext<\{ readonly state: \{ shuttingDown: boolean; \}; \}>/,
    );
  });

  test("lsp/server.ts: a partial result of another type than the entry's stream", () => {
    expect(problemsAfter("lsp/server.ts", "yield [step];", "yield step;")).toEqual([
      expect.stringMatching(
        /^examples\/ts\/lsp\/server\.ts:\d+: TS2322 Type '\(\{ signal \}: ConnectionContext<Session>.*AsyncGenerator<number, /,
      ),
    ]);
  });

  test("lsp/server.ts: ctx.peer without ConnectionContext", () => {
    expect(problemsAfter("lsp/server.ts", ".context<ConnectionContext<Session>>()", ".context<Session>()")).toEqual(
      expect.arrayContaining([expect.stringMatching(/TS2339 Property 'peer' does not exist/)]),
    );
  });

  test("client.ts: a param of the wrong type", () => {
    expect(problemsAfter("client.ts", "remote.add(1, 2)", 'remote.add("1", 2)')).toEqual([
      expect.stringMatching(/^examples\/ts\/client\.ts:\d+: TS2345 Argument of type 'string' is not assignable/),
    ]);
  });

  test("methods.ts: a handler answering another type than its entry's result", () => {
    expect(problemsAfter("methods.ts", "add: (a, b) => E.right(a + b)", "add: (a, b) => E.right(`${a + b}`)")).toEqual([
      // A slot takes a handler or a method server: the message names both, then why the handler is not one.
      expect.stringMatching(
        /^examples\/ts\/methods\.ts:\d+: TS2322 Type '\(a: number, b: number\) => Either<ErrorResult, string>' is not assignable to type 'HandlerFor<[\s\S]*Type 'Either<ErrorResult, string>' is not assignable to type 'Outcome<number, ErrorResult>'[\s\S]*Type 'string' is not assignable to type 'number'/,
      ),
    ]);
  });
});

test("context.ts prints what examples/context.mjs prints", async () => {
  const [typed, plain] = await Promise.all([runNode(compiled("context")), runNode("examples/context.mjs")]);
  expect({ code: typed.code, stderr: typed.stderr }).toEqual({ code: 0, stderr: "" });
  expect(typed.stdout).toBe(plain.stdout);
  expect(typed.stdout.split("\n")).toContain('{"jsonrpc":"2.0","result":"Bob says hi","id":1}');
});

test("methods.ts served by the rpcserver command, and client.ts calling it through the typed contract", async () => {
  const served = await startCli([relative(ROOT, compiled("methods")), "--host", "127.0.0.1", "--port", "0"]);
  try {
    const run = await runNode(compiled("client"), { RPC_URL: served.url });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.stdout.split("\n")).toEqual([
      `Calling ${served.url} with the contract of examples/ts/api.ts`,
      "add(1, 2) = 3",
      'greet({ name: "Ada" }) = "Hello, Ada!"',
      "addDays({ date: 2024-02-28, days: 2 }) = 2024-03-01T00:00:00.000Z (a Date)",
      'getUser(1) = {"id":1,"name":"Ada Lovelace"}',
      'getUser(9): error 404 No such user {"id":9}',
      'divide(1, 0): error -32602 Invalid params "division by zero"',
      "sleep(1000) with a 100 ms time-out: no answer (timeout)",
      'log("hi") as a notification = sent',
      'batch: 5, "Hello, Alan!", "pong"',
      "declared: 404, no user with id 9",
      "",
    ]);
    await eventually(served.stderr, "client says: hi from examples/ts/client.ts");
  } finally {
    served.child.kill("SIGTERM");
    await bounded(served.exited, "the rpcserver command to stop");
  }
});

test("client.ts without a server says where it looked and exits with status 1", async () => {
  // A port that was free a moment ago: nothing listens there now.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const nowhere = `http://127.0.0.1:${port}/`;
  const run = await runNode(compiled("client"), { RPC_URL: nowhere });
  expect(run.code).toBe(1);
  expect(run.stdout).toBe(
    `Calling ${nowhere} with the contract of examples/ts/api.ts\n` +
      `add(1, 2): no answer (network: is the server running at ${nowhere}?)\n`,
  );
});

/** lsp/server.ts as a child process, and vscode-jsonrpc's connection to it. */
const startLsp = (): { child: ChildProcess; connection: MessageConnection; stderr: () => string } => {
  const child = spawn(process.execPath, [compiled("lsp/server")], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  if (child.stdout === null || child.stdin === null) throw new Error("no stdio");
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  return { child, connection, stderr: () => stderr };
};

/** The child's exit status, or the signal that ended it (a child already gone by a signal has no exitCode). */
const exitCode = (child: ChildProcess): Promise<number | NodeJS.Signals | null> =>
  bounded(
    new Promise<number | NodeJS.Signals | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode);
      else child.on("exit", (code, signal) => resolve(code ?? signal));
    }),
    "the server to exit",
  );

type Lsp = ReturnType<typeof startLsp>;

/** Runs `session` against a new lsp/server.ts, then lets go of the connection and the child. */
const withLsp = async (session: (lsp: Lsp) => Promise<void>): Promise<void> => {
  const lsp = startLsp();
  try {
    await session(lsp);
  } finally {
    lsp.connection.dispose();
    lsp.child.kill("SIGKILL");
  }
};

/** Ends the session as an editor does: `shutdown`, then `exit`; the server exits with status 0. */
const shutdown = async ({ connection, child }: Lsp): Promise<void> => {
  await connection.sendRequest("shutdown");
  await connection.sendNotification("exit");
  expect(await exitCode(child)).toBe(0);
};

const errorOf = (error: unknown): { code: unknown; message: unknown } => {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return { code, message };
};

/**
 * Sends `example/count` with `params`, gathering what each token in `tokens` receives; with a
 * `source`, cancels the request once a token has received three values.
 */
const countOn = async (
  connection: MessageConnection,
  params: object,
  tokens: ReadonlyArray<string | number>,
  source?: CancellationTokenSource,
): Promise<{ result: unknown; received: Record<string, unknown[]> }> => {
  const received = new Map<string | number, unknown[]>(tokens.map((each) => [each, []]));
  const listening = tokens.map((each) =>
    connection.onProgress(new ProgressType<unknown>(), each, (value) => {
      received.get(each)?.push(value);
      if (received.get(each)?.length === 3) source?.cancel();
    }),
  );
  // (An `undefined` token would be sent as a second param.)
  const sent =
    source === undefined
      ? connection.sendRequest("example/count", params)
      : connection.sendRequest("example/count", params, source.token);
  const result = await sent.then(
    (answer: unknown) => answer,
    (error: unknown) => errorOf(error),
  );
  for (const each of listening) each.dispose();
  return { result, received: Object.fromEntries(received) };
};

describe("vscode-jsonrpc's MessageConnection against lsp/server.ts", () => {
  test("initialize, a call back through ctx.peer, $/cancelRequest, invalid params, shutdown and exit", () =>
    withLsp(async (lsp) => {
      const { connection, stderr } = lsp;
      const logged: unknown[] = [];
      connection.onRequest("workspace/configuration", ({ items }: { items: Array<{ section: string }> }) =>
        items.map((item) => `value of ${item.section}`),
      );
      connection.onNotification("window/logMessage", (params: unknown) => {
        logged.push(params);
      });
      connection.listen();
      expect(await connection.sendRequest("initialize", { processId: null, capabilities: {}, rootUri: null })).toEqual({
        capabilities: { hoverProvider: false },
        serverInfo: { name: "rpcserver-lsp-example", version: "1.0.0" },
      });
      await connection.sendNotification("initialized", {});

      // The server calls the editor back before it answers, then logs to it: calls both ways.
      expect(await connection.sendRequest("example/configured", { section: "editor.tabSize" })).toBe(
        "value of editor.tabSize",
      );
      expect(logged).toEqual([{ type: 3, message: "read editor.tabSize" }]);

      // Messages are served in order: once the fast request is answered, the slow one has started.
      const source = new CancellationTokenSource();
      const slow = connection.sendRequest("example/slow", { ms: 10_000 }, source.token).then(
        (answer) => ({ answer }),
        (error: unknown) => errorOf(error),
      );
      expect(await connection.sendRequest("example/slow", { ms: 1 })).toBe("slept 1 ms");
      source.cancel();
      expect(await slow).toEqual({ code: -32800, message: "Request cancelled" });
      await eventually(stderr, "example/slow(10000) cancelled");

      expect(
        await connection.sendRequest("example/slow", { ms: "x" }).then(
          () => "answered",
          (error: unknown) => errorOf(error),
        ),
      ).toEqual({ code: -32602, message: "Invalid params" });

      await shutdown(lsp);
    }));

  test("example/count: partial results with onProgress, work-done progress, no token, cancelled", () =>
    withLsp(async (lsp) => {
      const { connection, stderr } = lsp;
      connection.listen();
      const count = (params: object, tokens: ReadonlyArray<string | number>, source?: CancellationTokenSource) =>
        countOn(connection, params, tokens, source);
      await connection.sendRequest("initialize", { processId: null, capabilities: {}, rootUri: null });
      expect(await count({ to: 4, partialResultToken: "partial" }, ["partial"])).toEqual({
        result: [],
        received: { partial: [[1], [2], [3], [4]] },
      });
      expect(await count({ to: 2, workDoneToken: 7 }, [7])).toEqual({
        result: [1, 2],
        received: {
          7: [
            { kind: "begin", title: "example/count" },
            { kind: "report", message: "[1]" },
            { kind: "report", message: "[2]" },
            { kind: "end" },
          ],
        },
      });
      expect(await count({ to: 3 }, [])).toEqual({ result: [1, 2, 3], received: {} });
      // Cancelled after three partial results: -32800 at once, the method stopped, the server goes on.
      const cancelled = await count(
        { to: 100_000, partialResultToken: "long" },
        ["long"],
        new CancellationTokenSource(),
      );
      expect(cancelled.result).toEqual({ code: -32800, message: "Request cancelled" });
      expect(cancelled.received["long"]?.slice(0, 3)).toEqual([[1], [2], [3]]);
      await eventually(stderr, "example/count(100000) stopped after");
      expect(await connection.sendRequest("example/count", { to: 1 })).toEqual([1]);
      await shutdown(lsp);
    }));

  test("exit without shutdown: status 1 (the connection's own state, in its context)", () =>
    withLsp(async ({ child, connection }) => {
      connection.listen();
      await connection.sendNotification("exit");
      expect(await exitCode(child)).toBe(1);
    }));
});

describe("the MCP SDK's Client over stdio against mcp/server.ts", () => {
  test("initialize, tools/list, tools/call, notifications/cancelled with its reason, and count's progress", async () => {
    const run = await runNode(join("tests", "fixtures", "examples-ts-mcp-client.mjs"), {}, [compiled("mcp/server")]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const seen = JSON.parse(run.stdout.trim().split("\n").pop() ?? "{}") as Record<string, unknown>;
    expect(seen).toEqual({
      server: { name: "rpcserver-mcp-example", version: "1.0.0" },
      capabilities: { logging: {}, tools: { listChanged: true } },
      tools: [
        {
          name: "add",
          description: "Adds two numbers",
          inputSchema: {
            type: "object",
            properties: { a: { type: "number" }, b: { type: "number" } },
            required: ["a", "b"],
          },
        },
        expect.objectContaining({ name: "sleep" }),
        {
          name: "count",
          description: "Counts from 1 to `to`, a few milliseconds apart, reporting each step as progress",
          inputSchema: { type: "object", properties: { to: { type: "number" } }, required: ["to"] },
        },
      ],
      add: { content: [{ type: "text", text: "5" }] },
      invalid: {
        content: [
          {
            type: "text",
            text: 'Invalid arguments: arguments.a: expected number, got "x"; arguments.b: expected number, got undefined',
          },
        ],
        isError: true,
      },
      unknown: { code: -32602, message: "MCP error -32602: Unknown tool: nope" },
      during: { content: [{ type: "text", text: "2" }] },
      cancelled: "McpError",
      ping: {},
      // `count`: each step of 5 through onprogress, then the text; without onprogress, the text alone.
      count: { content: [{ type: "text", text: "counted to 5" }] },
      steps: [1, 2, 3, 4, 5].map((progress) => ({ progress, total: 5 })),
      quiet: { content: [{ type: "text", text: "counted to 3" }] },
      // Cancelled after three steps: the tool stopped, and the server answers the next call.
      countCancelled: "McpError",
      before: [1, 2, 3],
      after: { content: [{ type: "text", text: "4" }] },
      // The reason the client gave reaches the tool's signal; the cancelled count says where it stopped.
      stderr: expect.stringMatching(
        /^sleep\(10000\) cancelled \(changed my mind\)\ncount\(100000\) stopped after \d+\n$/,
      ),
      errors: [],
    });
  });
});
