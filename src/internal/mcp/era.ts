/**
 * The protocol's two eras on one endpoint, chosen per request by what the client sends: a request
 * with the 2026-07-28 `_meta` envelope (its protocol version or client capabilities), or with an
 * `MCP-Protocol-Version` header of no 2025 era, is served statelessly (the 2026-07-28 era); anything
 * else (`initialize`, a 2025 header or none) is the 2025-11-25 era's. Here: that choice, and the
 * 2026 era's checks of a POST before it is dispatched, in the order the spec gives them (the
 * envelope -32602, the headers against the body -32020, the version -32022, the method -32601, the
 * client's capabilities -32021), each answered with its HTTP status.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { isRecord } from "../core/guards";
import { isNotification, type Stage } from "../core/stages";
import { LOG_LEVELS, type JsonObject } from "./protocol";
import type { Tool } from "./tools";

/** The 2026 era's versions this server speaks (what `server/discover` lists, and -32022 names). */
export const MODERN_VERSIONS: ReadonlyArray<string> = ["2026-07-28"];

/** The versions of the 2025 era (and before): a header with one of them, and no `_meta` envelope, is that era's. */
const LEGACY_VERSIONS: ReadonlyArray<string> = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/** The envelope's keys in a request's `params._meta`, and the server's in a result's. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** The 2026 era's error codes. */
export const HEADER_MISMATCH = -32020;
export const MISSING_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_VERSION = -32022;

/** The methods of the 2026 era (the rest, `initialize`, `ping`, `logging/setLevel`, `resources/subscribe`..., are gone: 404). */
const MODERN_METHODS: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "subscriptions/listen",
]);

/** What names a request in the `Mcp-Name` header: the tool's or prompt's name, the resource's URI. */
const NAMED_BY: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/** A request's `params._meta`, if it has one. */
export const metaOf = (params: unknown): JsonObject | undefined =>
  isRecord(params) && isRecord(params["_meta"]) ? params["_meta"] : undefined;

/** Is this request's params the 2026 era's (its envelope checked before dispatch, so a protocol version there is one)? */
export const isModern = (params: unknown): boolean => typeof metaOf(params)?.[META.protocolVersion] === "string";

/** The client capabilities a request declares (2026 era), `{}` for none. */
export const clientCapabilitiesOf = (params: unknown): JsonObject => {
  const declared = metaOf(params)?.[META.clientCapabilities];
  return isRecord(declared) ? declared : {};
};

/** A refusal of a request before dispatch: its HTTP status and JSON-RPC body (`null` for a 202 with none). */
export interface Refused {
  readonly status: number;
  readonly body: string | null;
}

/** What the check of a request needs of the server: its methods and its tools. */
export interface EraServer {
  readonly has: (method: string) => boolean;
  readonly tool: (name: string) => Tool | undefined;
}

const refused = (status: number, id: unknown, code: number, message: string, data?: unknown): Refused => ({
  status,
  body: JSON.stringify({
    jsonrpc: "2.0",
    id: typeof id === "string" || typeof id === "number" ? id : null,
    error: { code, message, ...(data !== undefined ? { data } : {}) },
  }),
});

const decoder = new TextDecoder();

/** `=?base64?...?=`: a header value sent in base64 (one not ASCII-safe); `undefined` if the base64 is broken. */
const BASE64 = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
const headerValue = (raw: string): string | undefined => {
  const value = raw.trim();
  if (!value.startsWith("=?base64?") || !value.endsWith("?=")) return value;
  const found = BASE64.exec(value);
  if (found?.[1] === undefined || found[1].length % 4 !== 0) return undefined;
  try {
    return decoder.decode(Uint8Array.from(atob(found[1]), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
};

/** Does this header (absent, or of a version) with this body's `_meta` make the request the 2026 era's? */
const modernBy = (version: string | undefined, meta: JsonObject | undefined): boolean =>
  (meta !== undefined && (META.protocolVersion in meta || META.clientCapabilities in meta)) || modernVersion(version);

/** An `MCP-Protocol-Version` that is not of the 2025 era (`2026-07-28`, or one unknown): the 2026 era's. */
export const modernVersion = (version: string | undefined): boolean =>
  version !== undefined && !LEGACY_VERSIONS.includes(version.trim());

/** A message of the 2026 era by its body alone (its `_meta` envelope): what sessions pass through statelessly. */
export const modernMessage = (message: unknown): boolean =>
  modernBy(undefined, metaOf(isRecord(message) ? message["params"] : undefined));

/**
 * The check of a POST's body before dispatch: `undefined` to dispatch it (the 2025 era's, or a 2026
 * request that passed), or its refusal. The body is parsed only when its header, or what its text
 * holds (a `_meta` key's name, or a JSON escape that may write one), may make it the 2026 era's.
 */
export const screen = (
  body: Uint8Array,
  header: (name: string) => string | undefined,
  server: EraServer,
): Refused | undefined => {
  const version = header("mcp-protocol-version");
  const text = decoder.decode(body);
  // Parsed unless no key of the envelope can be in it: a JSON escape (`\/`, `\u0069`) can write any
  // of its names without their plain text, so a body with a backslash is parsed too.
  if (!modernBy(version, undefined) && !text.includes("modelcontextprotocol") && !text.includes("\\")) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined; // -32700, as any unreadable request
  }
  if (Array.isArray(message)) {
    // Any of its messages of the 2026 era, not the first alone: the era has no batches.
    return message.some((one) => modernBy(version, metaOf(isRecord(one) ? one["params"] : undefined)))
      ? refused(400, null, -32600, "Invalid Request: the 2026-07-28 protocol has no batches")
      : undefined;
  }
  if (!isRecord(message) || typeof message["method"] !== "string") return undefined;
  const { method, params, id } = message;
  const meta = metaOf(params);
  if (!modernBy(version, meta)) return undefined;
  if (!("id" in message)) return { status: 202, body: null };
  const found = checkRequest(method, params, header, server);
  return found === undefined
    ? undefined
    : {
        status: found.status,
        body: JSON.stringify({
          jsonrpc: "2.0",
          // An id JSON-RPC allows, echoed; any other, null (as dispatch answers one).
          id: typeof id === "string" || typeof id === "number" ? id : null,
          error: {
            code: found.code,
            message: found.message,
            ...(found.data !== undefined ? { data: found.data } : {}),
          },
        }),
      };
};

/** A request of the 2026 era that fails its checks: the error, and its HTTP status. */
interface Failed {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

const failed = (status: number, code: number, message: string, data?: unknown): Failed => ({
  status,
  code,
  message,
  ...(data !== undefined ? { data } : {}),
});

/**
 * The checks of a request of the 2026 era, in the spec's order: what fails first, or `undefined`.
 * Without headers (a connection), those of the headers are not made.
 */
const checkRequest = (
  method: string,
  params: unknown,
  header: ((name: string) => string | undefined) | undefined,
  server: EraServer,
): Failed | undefined => {
  const meta = metaOf(params);
  const requested = meta?.[META.protocolVersion];
  if (meta === undefined || typeof requested !== "string" || !isRecord(meta[META.clientCapabilities])) {
    const missing =
      meta === undefined ? "_meta" : typeof requested !== "string" ? META.protocolVersion : META.clientCapabilities;
    return failed(400, -32602, `Invalid params: missing or invalid ${missing}`);
  }
  const mismatch =
    header === undefined
      ? undefined
      : headerMismatch(header, header("mcp-protocol-version"), requested, method, params as JsonObject);
  if (mismatch !== undefined) return failed(400, HEADER_MISMATCH, `Header mismatch: ${mismatch}`);
  if (!MODERN_VERSIONS.includes(requested)) {
    return failed(400, UNSUPPORTED_VERSION, "Unsupported protocol version", {
      supported: MODERN_VERSIONS,
      requested,
    });
  }
  if (!MODERN_METHODS.has(method) || !server.has(method)) return failed(404, -32601, "Method not found", method);
  const level = meta[META.logLevel];
  if (level !== undefined && !LOG_LEVELS.includes(level as never)) {
    return failed(400, -32602, `Invalid params: unknown log level ${JSON.stringify(level)}`);
  }
  if ("inputResponses" in (params as JsonObject) && !isRecord((params as JsonObject)["inputResponses"])) {
    return failed(400, -32602, "Invalid params: inputResponses must be an object");
  }
  const name = (params as JsonObject)["name"];
  const called = method === "tools/call" && typeof name === "string" ? server.tool(name) : undefined;
  if (called === undefined) return undefined;
  const args = (params as JsonObject)["arguments"];
  const wrong = header === undefined ? undefined : paramHeaderMismatch(header, called, isRecord(args) ? args : {});
  if (wrong !== undefined) return failed(400, HEADER_MISMATCH, `Header mismatch: ${wrong}`);
  const required = called.requires;
  const declared = meta[META.clientCapabilities] as JsonObject;
  if (required !== undefined && Object.keys(required).some((capability) => !isRecord(declared[capability]))) {
    return failed(400, MISSING_CLIENT_CAPABILITY, "Missing required client capability", {
      requiredCapabilities: required,
    });
  }
  return undefined;
};

/** An HTTP field name's characters (RFC 9110's `token`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The `x-mcp-header` names of a tool's arguments, checked when the server is made: each must be a
 * field name HTTP allows (`Mcp-Param-{name}`), or no request could ever send it. A TypeError names
 * the tool and the name.
 */
export const checkHeaderNames = (name: string, declared: Tool): void => {
  const schema = declared.listed["inputSchema"];
  const properties = isRecord(schema) && isRecord(schema["properties"]) ? schema["properties"] : {};
  for (const [argument, property] of Object.entries(properties)) {
    const named = isRecord(property) ? property["x-mcp-header"] : undefined;
    if (named !== undefined && (typeof named !== "string" || !TOKEN.test(named))) {
      throw new TypeError(
        `mcpServer: the tool ${name}'s argument ${argument} has x-mcp-header ${JSON.stringify(named)}, which is no HTTP field name (letters, digits and !#$%&'*+-.^_\`|~)`,
      );
    }
  }
};

/**
 * What differs between a tool's arguments and their `Mcp-Param-{name}` headers (each argument whose
 * schema says `x-mcp-header: name`), if anything: a value in one and not the other, or two values
 * that are not the same (a number compared as one), or a header's base64 that does not decode.
 */
const paramHeaderMismatch = (
  header: (name: string) => string | undefined,
  called: Tool,
  args: JsonObject,
): string | undefined => {
  const schema = called.listed["inputSchema"];
  const properties = isRecord(schema) && isRecord(schema["properties"]) ? schema["properties"] : {};
  for (const [argument, property] of Object.entries(properties)) {
    const named = isRecord(property) ? property["x-mcp-header"] : undefined;
    if (typeof named !== "string") continue;
    const sent = header(`mcp-param-${named.toLowerCase()}`);
    const given = args[argument];
    const absent = given === undefined || given === null;
    if (sent === undefined && absent) continue;
    const value = sent === undefined ? undefined : headerValue(sent);
    const same =
      value !== undefined &&
      !absent &&
      (typeof given === "number"
        ? value !== "" && Number(value) === given
        : (typeof given === "string" || typeof given === "boolean") && value === String(given));
    if (!same) return `Mcp-Param-${named} ${JSON.stringify(sent ?? null)} is not the argument ${argument}`;
  }
  return undefined;
};

/** What differs between the standard headers and the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), if anything. */
const headerMismatch = (
  header: (name: string) => string | undefined,
  version: string | undefined,
  requested: string,
  method: string,
  params: JsonObject,
): string | undefined => {
  if (version === undefined || version.trim() !== requested) {
    return `MCP-Protocol-Version ${JSON.stringify(version ?? null)} is not _meta's ${JSON.stringify(requested)}`;
  }
  const sent = header("mcp-method");
  if (sent === undefined || sent.trim() !== method) {
    return `Mcp-Method ${JSON.stringify(sent ?? null)} is not the method ${JSON.stringify(method)}`;
  }
  const field = NAMED_BY[method];
  if (field === undefined) return undefined;
  const named = header("mcp-name");
  const expected = params[field];
  if (named === undefined || typeof expected !== "string" || headerValue(named) !== expected) {
    return `Mcp-Name ${JSON.stringify(named ?? null)} is not the ${field} ${JSON.stringify(expected ?? null)}`;
  }
  return undefined;
};

/**
 * The same checks as a stage, for a request of the 2026 era on a connection (stdio), known by its
 * `_meta` envelope alone: each failure its JSON-RPC error (there is no status). Over HTTP, `screen`
 * made them first, with the headers.
 */
export const envelopeStage =
  (server: EraServer): Stage =>
  (call) => {
    const { request } = call;
    if (isNotification(request) || !modernBy(undefined, metaOf(request.params))) return E.right(call);
    const found = checkRequest(request.method, request.params, undefined, server);
    return found === undefined
      ? E.right(call)
      : E.left({ code: found.code, message: found.message, ...(found.data !== undefined ? { data: found.data } : {}) });
  };
