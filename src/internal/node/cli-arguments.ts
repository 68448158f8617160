/**
 * The `rpcserver` command's arguments: its usage text, its exit statuses, the failure it reports
 * (`CliError`), and `parse`, which turns the command line into what to do (serve, print the
 * OpenRPC document, help or version) or a usage error.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { messageOf } from "../core/describe";
import { DEFAULT_INFO } from "../documents/openrpc";
import { browserGuard } from "../http/browser-guard";
import { DEFAULT_PORT } from "./server";

/** The command's default host: local connections only (unlike `serve`, whose default is every interface). */
const CLI_DEFAULT_HOST = "localhost";

/** Exit status of a usage error, as most Unix tools use. */
const EXIT_USAGE = 2;

/** Exit status of any other failure. */
export const EXIT_FAILURE = 1;

export const USAGE = `Usage: rpcserver <module> [--host HOST] [--port PORT] [--openrpc] [--no-inspector]

Serves the JSON-RPC 2.0 methods of a JavaScript module over HTTP, for development only
(no TLS, no authentication, no request size limit).

Arguments:
  <module>          an ESM or CommonJS module, path relative to the current directory; a
                    TypeScript one (.ts) on a Node.js that strips types (22.18, 23.6 or
                    later; else it says how: tsx).
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
  --no-inspector    do not serve the inspector page. By default a browser opening
                    http://HOST:PORT/ gets a page that lists the methods (from rpc.discover)
                    and calls them; with this option it gets 405, as every GET does
  --title TITLE     the document's title (default: the "name" of the module's package.json,
                    the nearest one that has a name; without one, "${DEFAULT_INFO.title}")
  --api-version V   the document's version (default: that package.json's "version";
                    without one, "${DEFAULT_INFO.version}")
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
export class CliError extends globalThis.Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const usageError = (problem: string): CliError =>
  new CliError(`rpcserver: ${problem}\nTry 'rpcserver --help' for usage.`, EXIT_USAGE);

export interface Command {
  readonly kind: "serve" | "openrpc";
  readonly module: string;
  readonly host: string;
  readonly port: number;
  /** The document's title and version as given (`--title`, `--api-version`); the rest come from the module's package.json. */
  readonly info: { readonly title?: string; readonly version?: string };
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly cors: boolean;
  /** Whether the server answers a browser's GET of `/` with the inspector page (`serve`'s `inspector`). */
  readonly inspector: boolean;
}

const parsePort = (text: string): number => {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw usageError(`bad --port value "${text}": expected an integer from 0 to 65535`);
  }
  return port;
};

export const parse = (argv: readonly string[]): Command | { readonly kind: "help" } | { readonly kind: "version" } => {
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
        "no-inspector": { type: "boolean" },
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
  const info = {
    ...(values.title === undefined ? {} : { title: values.title }),
    ...(values["api-version"] === undefined ? {} : { version: values["api-version"] }),
  };
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
  const inspector = values["no-inspector"] !== true;
  return { kind, module, host, port, info, allowedHosts, allowedOrigins, cors: values.cors === true, inspector };
};
