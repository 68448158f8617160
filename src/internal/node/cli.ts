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
 * - A TypeScript module (`.ts`, `.mts`, `.cts`) is imported as any other: a Node.js that strips
 *   types (23.6 and later, 22.18 and later, 22.6 and later with `--experimental-strip-types`) runs
 *   it; any other refuses it, and the command says in one line how to run it (with tsx's loader,
 *   or the flag).
 * - The default host is `localhost` (the command is for trying things out on your own machine;
 *   `--host ""` or `--host 0.0.0.0` listens on every interface), the default port 5000.
 * - Browsers: the server refuses a request whose `Host` or `Origin` is not this machine's (see
 *   `serve`); `--allowed-host` and `--allowed-origin` (each repeatable) are its `allowedHosts` and
 *   `allowedOrigins`, and `--cors` its `cors: true`. A bad one is a usage error.
 * - A browser opening the server's root gets the inspector page (`serve`'s `inspector`), which
 *   reads `rpc.discover` and calls the methods; `--no-inspector` turns it off (every GET is 405).
 * - The server answers `rpc.discover` with the OpenRPC document of the methods it serves;
 *   `--openrpc` prints that document (JSON) on stdout and exits 0 instead of serving, for CI
 *   pipelines that generate clients. Stdout then holds the document only: whatever the module
 *   writes to `process.stdout` (`console.log` while it loads, or later from a timer) goes to
 *   stderr. `--title` and `--api-version` set its info; by default its title and version are the
 *   `name` and `version` of the module's package.json (the nearest, from the module's folder up,
 *   that has a `name`), else `JSON-RPC service` and `0.0.0`: never this library's.
 * - Exit status: 0 for `--help`, `--version`, `--openrpc` and a stop by SIGINT or SIGTERM; 2 for a usage error
 *   (no module, a bad option or port); 1 when the module cannot be found or loaded, has no methods,
 *   has methods that take a context and no `context` export, or the server cannot listen (a port in
 *   use). Every failure says why on stderr.
 *
 * Here: `main`, which runs the command and which the bin (src/cli.ts) calls with the process's
 * arguments, and the reading of the module served; the arguments are parsed in cli-arguments.ts.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import type { Server } from "node:http";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { messageOf } from "../core/describe";
import { isObject } from "../core/guards";
import {
  globalMethods,
  isContextual,
  isMethodMap,
  method,
  methodEntries,
  type Method,
  type Methods,
} from "../core/methods";
import { VERSION } from "../core/version";
import { DEFAULT_INFO, DISCOVER, openRpcDocument } from "../documents/openrpc";
import type { OpenRpcInfo } from "../documents/openrpc-types";
import { CliError, EXIT_FAILURE, parse, USAGE, type Command } from "./cli-arguments";
import { serve } from "./server";

export { CliError, EXIT_FAILURE } from "./cli-arguments";

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

/**
 * The one line that says how to serve a TypeScript module on a Node.js that does not strip types
 * (before 22.6; 22.6 to 22.17 without `--experimental-strip-types`; 23.6, 22.18 and later strip
 * them by default): through tsx's loader, or with the flag.
 */
const typeScriptHelp = (specifier: string): string =>
  `rpcserver: cannot load ${specifier}: Node.js ${process.version} does not run TypeScript; ` +
  `run it with tsx: NODE_OPTIONS="--import tsx" npx rpcserver ${specifier} ` +
  `(or on Node.js 22.6 or later: NODE_OPTIONS=--experimental-strip-types npx rpcserver ${specifier}; ` +
  "Node.js 22.18, 23.6 and later need neither)";

/** Imports the module and registers its exported functions; returns the names served and how it gave them. */
const load = async (specifier: string): Promise<Loaded> => {
  const path = resolve(process.cwd(), specifier);
  if (!existsSync(path))
    throw new CliError(`rpcserver: cannot find module ${specifier} (no file ${path})`, EXIT_FAILURE);
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (thrown) {
    const code = (thrown as { code?: unknown } | null)?.code;
    if (code === "ERR_UNKNOWN_FILE_EXTENSION" && /\.[cm]?ts$/i.test(path))
      throw new CliError(typeScriptHelp(specifier), EXIT_FAILURE);
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
 * The name and version of the package the module belongs to: those of the nearest package.json,
 * from the module's folder up, that has a `name` (a package.json that only marks a folder's
 * `"type"` names no service). Unreadable or bad ones are passed over.
 */
const packageOf = (modulePath: string): { readonly name?: string; readonly version?: string } => {
  for (let dir = dirname(modulePath); ; dir = dirname(dir)) {
    try {
      const found = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as unknown;
      const name = isObject(found) ? (found as { name?: unknown }).name : undefined;
      if (typeof name === "string" && name !== "") {
        const version = (found as { version?: unknown }).version;
        return typeof version === "string" && version !== "" ? { name, version } : { name };
      }
    } catch {
      // None here, or not JSON: look further up.
    }
    if (dirname(dir) === dir) return {};
  }
};

/**
 * The document's info: `--title` and `--api-version` when given, else the name and version of the
 * module's package, else a neutral {@link DEFAULT_INFO}: never this library's own name, which is
 * not the service's.
 */
const serviceInfo = (specifier: string, given: Command["info"]): OpenRpcInfo => {
  const own =
    given.title !== undefined && given.version !== undefined ? {} : packageOf(resolve(process.cwd(), specifier));
  return {
    title: given.title ?? own.name ?? DEFAULT_INFO.title,
    version: given.version ?? own.version ?? DEFAULT_INFO.version,
  };
};

/**
 * In --openrpc mode, stdout is for the document only: from now on, what the module writes there
 * (console.log while it loads, or later from a timer) goes to stderr. Returns the original writer,
 * for the document.
 */
const divertStdout = (): ((text: string) => Promise<void>) => {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind<typeof process.stdout.write>(process.stderr);
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
export const main = async (argv: readonly string[]): Promise<number | undefined> => {
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
  const info = serviceInfo(command.module, command.info);
  if (writeDocument !== undefined) {
    const document = openRpcDocument(globalMethods, info, { context: context !== undefined });
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
    const { allowedHosts, allowedOrigins, cors, inspector } = command;
    server = await serve(command.host, command.port, {
      openrpc: info,
      allowedHosts,
      allowedOrigins,
      cors,
      inspector,
      ...given,
    });
  } catch (thrown) {
    throw new CliError(messageOf(thrown), EXIT_FAILURE);
  }
  stopOnSignals(server);
  return undefined;
};
