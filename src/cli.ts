/**
 * The `rpcserver` command: serves the methods of a JavaScript module with the development server.
 *
 *     rpcserver ./methods.js --host localhost --port 5000
 *
 * Rules:
 * - The module (ESM or CommonJS, path relative to the current directory) is imported once. Its
 *   methods are those it registers with `method(...)` (the process-wide `globalMethods`, which
 *   the ESM and CommonJS builds share), plus the functions it exports, in one of two ways:
 *   1. a `methods` export, an object or a Map of name -> function (`export const methods = ...`,
 *      `module.exports.methods = ...`): the module has named its table, so it is the only one, and
 *      the module's other exported functions are taken for helpers, not served;
 *   2. without one, its named exports that are functions, then the functions of a default export
 *      that is an object or a Map (for CommonJS, `module.exports`); the first of a name wins.
 * - The module's export named `context` (named, or a member of its default export; not a member
 *   of a `methods` table) is never a method: it is the context, handed as it is to the development
 *   server's `context` option, so every method receives it first, and the OpenRPC document leaves
 *   it out (a method without a params codec does not list its first parameter). An export of
 *   `undefined` is none. Without one, a method made to take a context (`withContext<Ctx>()`, a
 *   contract server with a context) would receive its params in the context's place: the command
 *   refuses to start (serving or `--openrpc`), naming those methods.
 * - Classes are not methods. A registered method wins over an exported function of the same name;
 *   a function registered and exported is served once. A function exported under the name `""`
 *   (or, in a Map, a key that is not a string) is skipped with a line on stderr: a method served
 *   by the command needs a non-empty name, as `method(...)` does. The "serving N method(s)" line
 *   on stderr says which forms it found (registrations, a methods, named or default export).
 * - The default host is `localhost` (the command is for trying things out on your own machine;
 *   `--host ""` or `--host 0.0.0.0` listens on every interface), the default port 5000.
 * - Browsers: the server refuses a request whose `Host` or `Origin` is not this machine's (see
 *   `serve`); `--allowed-host` and `--allowed-origin` (each repeatable) are its `allowedHosts` and
 *   `allowedOrigins`, and `--cors` its `cors: true`. A bad one is a usage error.
 * - The server answers `rpc.discover` with the OpenRPC document of the methods it serves;
 *   `--openrpc` prints that document (JSON) on stdout and exits 0 instead of serving, for CI
 *   pipelines that generate clients. Stdout then holds the document only: whatever the module
 *   writes to `process.stdout` (`console.log` while it loads, or later from a timer) goes to
 *   stderr. `--title` and `--api-version` set its info (default title `rpcserver`, version the
 *   package's).
 * - Exit status: 0 for `--help`, `--version`, `--openrpc` and a stop by SIGINT or SIGTERM; 2 for a usage error
 *   (no module, a bad option or port); 1 when the module cannot be found or loaded, has no methods,
 *   has methods that take a context and no `context` export, or the server cannot listen (a port in
 *   use). Every failure says why on stderr.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { Server } from "node:http";
import { messageOf } from "./describe";
import { isObject } from "./guards";
import { globalMethods, isContextual, isMethodMap, method, methodEntries, type Method, type Methods } from "./methods";
import { DEFAULT_TITLE, DISCOVER, openRpcDocument, type OpenRpcInfo } from "./openrpc";
import { browserGuard, DEFAULT_PORT, serve } from "./server";
import { VERSION } from "./version";

/** The command's default host: local connections only (unlike `serve`, whose default is every interface). */
const CLI_DEFAULT_HOST = "localhost";

/** Exit status of a usage error, as most Unix tools use. */
const EXIT_USAGE = 2;

/** Exit status of any other failure. */
const EXIT_FAILURE = 1;

const USAGE = `Usage: rpcserver <module> [--host HOST] [--port PORT] [--openrpc]

Serves the JSON-RPC 2.0 methods of a JavaScript module over HTTP, for development only
(no TLS, no authentication, no request size limit).

Arguments:
  <module>          an ESM or CommonJS module, path relative to the current directory.
                    Its methods: those it registers with method(...) from "rpcserver", and the
                    functions it exports: those of a "methods" export (an object or a Map of
                    name -> function; then no other exported function is served), or else its
                    named function exports and those of a default export object or Map.
                    Its "context" export, if any, is not a method: every method receives it
                    first (as serve's context option; the OpenRPC document leaves it out). A
                    method made to take a context (withContext<Ctx>(), a contract server with
                    a context) is refused at start when the module exports no context.

Options:
  --host HOST       host name or address to listen on (default: ${CLI_DEFAULT_HOST};
                    --host "" or --host 0.0.0.0 listens on every interface)
  -p, --port PORT   port to listen on, 0 for any free port (default: ${DEFAULT_PORT})
  --openrpc         print the OpenRPC document of the module's methods (JSON) and exit;
                    the module's own output goes to stderr, so stdout is the document only;
                    the server answers rpc.discover with the same document
  --allowed-host NAME
                    also answer requests addressed to NAME (the Host header; repeatable;
                    ".example" takes example and every name under it). By default, bound to
                    localhost, only localhost, 127.0.0.1 and [::1] are answered, so that a web
                    page whose name points here (DNS rebinding) cannot call the methods
  --allowed-origin ORIGIN
                    also answer calls from web pages of ORIGIN (the Origin header, as in
                    https://app.example:8443; repeatable). By default only pages on
                    localhost, 127.0.0.1 or [::1] may call
  --cors            send CORS headers to the origins allowed (loopback pages and
                    --allowed-origin), and answer their preflights, so they can read answers
  --title TITLE     the document's title (default: ${DEFAULT_TITLE})
  --api-version V   the document's version (default: ${VERSION}, this package's)
  -h, --help        print this help and exit
  -v, --version     print the version and exit

Example:
  rpcserver ./methods.js --port 5000
  curl -s -X POST http://localhost:5000/ -H 'Content-Type: application/json' \\
    -d '{"jsonrpc":"2.0","method":"ping","id":1}'
  rpcserver ./methods.js --openrpc > openrpc.json

Stop it with Ctrl-C.
`;

/** A failure the command reports with a message and an exit status. */
class CliError extends globalThis.Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const usageError = (problem: string): CliError =>
  new CliError(`rpcserver: ${problem}\nTry 'rpcserver --help' for usage.`, EXIT_USAGE);

interface Command {
  readonly kind: "serve" | "openrpc";
  readonly module: string;
  readonly host: string;
  readonly port: number;
  readonly info: OpenRpcInfo;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly cors: boolean;
}

const parsePort = (text: string): number => {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw usageError(`bad --port value "${text}": expected an integer from 0 to 65535`);
  }
  return port;
};

const parse = (argv: readonly string[]): Command | { readonly kind: "help" } | { readonly kind: "version" } => {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        host: { type: "string" },
        port: { type: "string", short: "p" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
        openrpc: { type: "boolean" },
        title: { type: "string" },
        "allowed-host": { type: "string", multiple: true },
        "allowed-origin": { type: "string", multiple: true },
        cors: { type: "boolean" },
        "api-version": { type: "string" },
      },
    });
  } catch (thrown) {
    throw usageError(messageOf(thrown));
  }
  const { values, positionals } = parsed;
  if (values.help === true) return { kind: "help" };
  if (values.version === true) return { kind: "version" };
  const [module, ...extra] = positionals;
  if (module === undefined || module === "")
    throw usageError("missing the module to serve, as in: rpcserver ./methods.js");
  if (extra.length > 0) throw usageError(`one module only; unexpected: ${extra.join(" ")}`);
  const port = values.port === undefined ? DEFAULT_PORT : parsePort(values.port);
  const info = { title: values.title ?? DEFAULT_TITLE, version: values["api-version"] ?? VERSION };
  const kind = values.openrpc === true ? "openrpc" : "serve";
  const allowedHosts = values["allowed-host"] ?? [];
  const allowedOrigins = values["allowed-origin"] ?? [];
  try {
    browserGuard({ listening: "", allowedHosts, allowedOrigins });
  } catch (thrown) {
    throw usageError(
      messageOf(thrown)
        .replace(/^allowedHosts/, "--allowed-host")
        .replace(/^allowedOrigins/, "--allowed-origin"),
    );
  }
  const host = values.host ?? CLI_DEFAULT_HOST;
  return { kind, module, host, port, info, allowedHosts, allowedOrigins, cors: values.cors === true };
};

/** The name of the export that is the methods' context rather than a method. */
const CONTEXT_EXPORT = "context";

/** A class is a function too, but not a method. */
const isClass = (f: unknown): boolean => /^class[\s{]/.test(Function.prototype.toString.call(f));

/** A table's functions that are methods (not classes), in its order; its other values are left out. */
const functionsOf = (table: object): Array<readonly [string, Method]> =>
  methodEntries(table as Methods).filter(([, f]) => !isClass(f));

/** The forms a module gives its methods in, as the "serving" line names them. */
type Form = "method(...) registrations" | "methods export" | "named exports" | "default export";

/** The functions a module exports, by name, the forms it exports them in, and its context. */
interface Exported {
  readonly functions: ReadonlyArray<readonly [string, Method]>;
  readonly forms: readonly Form[];
  /** The `context` export, if it has one that is not `undefined`. */
  readonly context?: { readonly value: unknown };
}

/** The `context` export of a module: a named export, or else a member of its default export. */
const contextExport = (
  named: Readonly<Record<string, unknown>>,
  defaults: Readonly<Record<string, unknown>>,
): Exported["context"] => {
  const own = (source: Readonly<Record<string, unknown>>): boolean =>
    Object.prototype.hasOwnProperty.call(source, CONTEXT_EXPORT) && source[CONTEXT_EXPORT] !== undefined;
  if (own(named)) return { value: named[CONTEXT_EXPORT] };
  if (own(defaults)) return { value: defaults[CONTEXT_EXPORT] };
  return undefined;
};

/**
 * The functions a module exports: its `methods` table if it has one, else its named function
 * exports, then those of its default export (the first of a name wins); `context` is not one of
 * them, but the context.
 */
const exportedFunctions = (namespace: Readonly<Record<string, unknown>>): Exported => {
  const fallback = namespace["default"];
  const defaults =
    isObject(fallback) && !isMethodMap(fallback as Methods) ? (fallback as Readonly<Record<string, unknown>>) : {};
  // Node gives a CommonJS module's `module.exports` as the default export, and the names it finds
  // in the source as named exports too, with the same values: those are the default's, not a form
  // of their own.
  const named = Object.fromEntries(
    Object.entries(namespace).filter(
      ([name, value]) =>
        name !== "default" && !(Object.prototype.hasOwnProperty.call(defaults, name) && defaults[name] === value),
    ),
  );
  const context = contextExport(named, defaults);
  const withContext = context === undefined ? {} : { context };
  const table = [named["methods"], defaults["methods"]].find(isObject);
  if (table !== undefined) return { functions: functionsOf(table), forms: ["methods export"], ...withContext };
  const notContext = ([name]: readonly [string, Method]): boolean => name !== CONTEXT_EXPORT;
  const sources = [
    ["named exports", functionsOf(named).filter(notContext)],
    [
      "default export",
      isObject(fallback)
        ? functionsOf(fallback).filter(isMethodMap(fallback as Methods) ? () => true : notContext)
        : [],
    ],
  ] as const;
  const found = new Map<string, Method>();
  for (const [, functions] of sources) for (const [name, f] of functions) if (!found.has(name)) found.set(name, f);
  const forms = sources.filter(([, functions]) => functions.length > 0).map(([form]) => form);
  return { functions: [...found], forms, ...withContext };
};

/** "its a", "its a and b", "its a, b and c". */
const listed = (forms: readonly Form[]): string =>
  `its ${forms.slice(0, -1).join(", ")}${forms.length > 1 ? " and " : ""}${forms[forms.length - 1] ?? ""}`;

/** The methods a module serves (names), the forms it gives them in, and its context. */
interface Loaded {
  readonly names: readonly string[];
  readonly forms: readonly Form[];
  readonly context?: { readonly value: unknown };
}

/** The key of a function in a table, as a message shows it: a Map's key may be anything. */
const shownKey = (key: unknown): string => (typeof key === "string" ? JSON.stringify(key) : String(key));

/** Imports the module and registers its exported functions; returns the names served and how it gave them. */
const load = async (specifier: string): Promise<Loaded> => {
  const path = resolve(process.cwd(), specifier);
  if (!existsSync(path))
    throw new CliError(`rpcserver: cannot find module ${specifier} (no file ${path})`, EXIT_FAILURE);
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (thrown) {
    const stack = thrown instanceof globalThis.Error && thrown.stack !== undefined ? `\n${thrown.stack}` : "";
    throw new CliError(`rpcserver: cannot load module ${specifier}: ${messageOf(thrown)}${stack}`, EXIT_FAILURE);
  }
  const registered = new Set<unknown>(Object.values(globalMethods));
  const exported = exportedFunctions(namespace);
  for (const [name, f] of exported.functions) {
    if (typeof name !== "string" || name === "") {
      // method(f, "") would refuse it with "the function has no name", which is not the problem.
      process.stderr.write(
        `rpcserver: skipping the function exported under the name ${shownKey(name)} by ${specifier}: ` +
          "a method served by the command needs a name, a non-empty string\n",
      );
    } else if (!registered.has(f) && !Object.prototype.hasOwnProperty.call(globalMethods, name)) {
      method(f, name);
    }
  }
  const names = Object.keys(globalMethods);
  if (names.length === 0) {
    throw new CliError(
      `rpcserver: module ${specifier} has no methods: register them with method(...) from "rpcserver", ` +
        "or export functions that return a Result (named exports, or a default or `methods` export " +
        "that is an object or a Map of name -> function)",
      EXIT_FAILURE,
    );
  }
  if (exported.context === undefined) {
    const contextual = names.filter((name) => {
      const f = globalMethods[name];
      return f !== undefined && isContextual(f);
    });
    if (contextual.length > 0) {
      throw new CliError(
        `rpcserver: the method(s) ${contextual.join(", ")} of ${specifier} take a context first (made with ` +
          "withContext<Ctx>() or by a contract server with a context), and the module exports none: " +
          `export the value every method is to receive first as \`${CONTEXT_EXPORT}\` ` +
          `(\`export const ${CONTEXT_EXPORT} = { user: "dev" }\`, \`module.exports.${CONTEXT_EXPORT} = ...\`)`,
        EXIT_FAILURE,
      );
    }
  }
  const forms: Form[] = registered.size > 0 ? ["method(...) registrations", ...exported.forms] : [...exported.forms];
  return { names, forms, ...(exported.context === undefined ? {} : { context: exported.context }) };
};

/**
 * In --openrpc mode, stdout is for the document only: from now on, what the module writes there
 * (console.log while it loads, or later from a timer) goes to stderr. Returns the original writer,
 * for the document.
 */
const divertStdout = (): ((text: string) => Promise<void>) => {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return (text) => new Promise<void>((done) => write(text, () => done()));
};

/** Stops on SIGINT (Ctrl-C) and SIGTERM: closes the server and its connections, exits 0. */
const stopOnSignals = (server: Server): void => {
  const stop = (signal: NodeJS.Signals): void => {
    process.stderr.write(`rpcserver: ${signal}, stopping\n`);
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
};

/** Runs the command; resolves to an exit status once done, or never settles while serving. */
const main = async (argv: readonly string[]): Promise<number | undefined> => {
  const command = parse(argv);
  if (command.kind === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command.kind === "version") {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  // Diverted before the import: a module may print while it loads.
  const writeDocument = command.kind === "openrpc" ? divertStdout() : undefined;
  const { names, forms, context } = await load(command.module);
  if (writeDocument !== undefined) {
    const document = openRpcDocument(globalMethods, command.info, { context: context !== undefined });
    await writeDocument(`${JSON.stringify(document, null, 2)}\n`);
    // exit() rather than exitCode: the module may hold the event loop open (timers, sockets).
    process.exit(0);
  }
  const described = names.filter((name) => name !== DISCOVER);
  process.stderr.write(
    `rpcserver: serving ${described.length} method(s) from ${command.module} (${listed(forms)}): ` +
      `${described.join(", ")}\n` +
      (context === undefined ? "" : `rpcserver: each receives the module's \`${CONTEXT_EXPORT}\` export first\n`) +
      `rpcserver: ${DISCOVER} answers with their OpenRPC document\n`,
  );
  let server: Server;
  try {
    const given = context === undefined ? {} : { context: context.value };
    const { allowedHosts, allowedOrigins, cors } = command;
    server = await serve(command.host, command.port, {
      openrpc: command.info,
      allowedHosts,
      allowedOrigins,
      cors,
      ...given,
    });
  } catch (thrown) {
    throw new CliError(messageOf(thrown), EXIT_FAILURE);
  }
  stopOnSignals(server);
  return undefined;
};

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (thrown: unknown) => {
    process.stderr.write(`${thrown instanceof CliError ? thrown.message : `rpcserver: ${messageOf(thrown)}`}\n`);
    // exit() rather than exitCode: the module may hold the event loop open (timers, sockets).
    process.exit(thrown instanceof CliError ? thrown.exitCode : EXIT_FAILURE);
  },
);
