/**
 * The shape of an OpenRPC 1.3.2 document as `openRpcDocument` builds it (its info, methods, content
 * descriptors and example pairings), and the options it takes. Types only.
 *
 * @module
 */
import type { JsonSchema } from "./schema-walk";

/**
 * What the caller says about the service: OpenRPC's info object (`title` and `version` required),
 * plus the `servers` where it can be reached, which go to the document's top level.
 *
 * @example
 * import type { OpenRpcInfo } from "rpcserver";
 * const info: OpenRpcInfo = { title: "Bank", version: "1.0.0", servers: [{ url: "http://localhost:5000/" }] };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface OpenRpcInfo {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
  readonly termsOfService?: string;
  readonly contact?: { readonly name?: string; readonly url?: string; readonly email?: string };
  readonly license?: { readonly name: string; readonly url?: string };
  /** Where the service can be reached: the document's `servers` (OpenRPC server objects). */
  readonly servers?: ReadonlyArray<{
    readonly url: string;
    readonly name?: string;
    readonly summary?: string;
    readonly description?: string;
  }>;
}

/**
 * An OpenRPC content descriptor: a named param or result and its JSON Schema.
 *
 * @example
 * import type { ContentDescriptor } from "rpcserver";
 * const a: ContentDescriptor = { name: "a", schema: { type: "number" }, required: true };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface ContentDescriptor {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly required?: boolean;
  readonly description?: string;
}

/**
 * An OpenRPC example pairing: params by name, and the result.
 *
 * @example
 * import type { ExamplePairing } from "rpcserver";
 * const pairing: ExamplePairing = {
 *   name: "one plus two",
 *   params: [{ name: "a", value: 1 }, { name: "b", value: 2 }],
 *   result: { name: "result", value: 3 },
 * };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface ExamplePairing {
  readonly name: string;
  readonly summary?: string;
  readonly description?: string;
  readonly params: ReadonlyArray<{ readonly name: string; readonly value: unknown }>;
  readonly result: { readonly name: string; readonly value: unknown };
}

/**
 * One method in an OpenRPC document.
 *
 * @example
 * import type { OpenRpcMethod } from "rpcserver";
 * const ping: OpenRpcMethod = { name: "ping", params: [], result: { name: "result", schema: { type: "string" } } };
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface OpenRpcMethod {
  readonly name: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: ReadonlyArray<{ readonly name: string; readonly description?: string }>;
  readonly paramStructure?: "by-name" | "by-position";
  readonly params: readonly ContentDescriptor[];
  readonly result: ContentDescriptor;
  /** What a streaming method sends before its result (a specification extension of rpcserver's). */
  readonly "x-stream"?: ContentDescriptor;
  readonly errors?: ReadonlyArray<{ readonly code: number; readonly message: string; readonly data?: JsonSchema }>;
  readonly examples?: readonly ExamplePairing[];
  readonly deprecated?: boolean;
}

/**
 * An OpenRPC 1.3.2 document, as {@link openRpcDocument} builds it: plain JSON.
 *
 * @example
 * import { openRpcDocument, type OpenRpcDocument } from "rpcserver";
 * const document: OpenRpcDocument = openRpcDocument({}, { title: "Empty", version: "0.0.0" });
 * // { openrpc: "1.3.2", info: { title: "Empty", version: "0.0.0" }, methods: [] }
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface OpenRpcDocument {
  readonly openrpc: string;
  readonly info: Omit<OpenRpcInfo, "servers">;
  readonly servers?: OpenRpcInfo["servers"];
  readonly methods: readonly OpenRpcMethod[];
  readonly components?: { readonly schemas: { readonly [name: string]: JsonSchema } };
}

/**
 * How the methods described are dispatched, beyond what they carry: `context: true` when dispatch
 * hands them a context (`dispatch(body, methods, { context })`, `serve`'s `context` option), so
 * that a method without a params codec does not list its first parameter, the context, as a param.
 * Default: no context.
 *
 * @example
 * import { openRpcDocument, Success, type OpenRpcOptions } from "rpcserver";
 * const options: OpenRpcOptions = { context: true };
 * const methods = { whoami: (caller: { user: string }) => Success(caller.user) };
 * openRpcDocument(methods, { title: "Who", version: "1.0.0" }, options).methods[0]?.params; // []
 *
 * @since 5.0.10
 * @category openrpc
 */
export interface OpenRpcOptions {
  /** Whether dispatch hands the methods a context first. Default `false`. */
  readonly context?: boolean;
}
