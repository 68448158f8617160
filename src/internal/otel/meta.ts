/**
 * The trace context in a request's `params._meta` (as the Model Context Protocol carries it:
 * `_meta.traceparent`, `_meta.tracestate`), read by the server's stage and written by the client's
 * transport, through the propagator of `@opentelemetry/api` (W3C Trace Context where the SDK
 * registers it).
 *
 * @module
 */
import type { TextMapGetter, TextMapSetter } from "@opentelemetry/api";
import { isRecord } from "../core/guards";

/** The members of `_meta` a trace context travels in (W3C Trace Context). */
export const TRACE_KEYS: ReadonlyArray<string> = ["traceparent", "tracestate"];

/**
 * Where a trace context is read on the server: a record of strings (`_meta`, headers a context
 * holds as a record, names in any case), or headers read by name, such as a NATS message's
 * (`message.headers` in `serveNats`'s `context`) or a fetch `Request`'s (`request.headers`).
 *
 * @example
 * import type { Carrier } from "rpcserver/otel";
 * const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
 * const record: Carrier = { traceparent };
 * const headers: Carrier = new Headers({ traceparent });
 *
 * @since 5.0.10
 * @category otel
 */
export type Carrier = Readonly<Record<string, unknown>> | HeadersCarrier;

/**
 * Headers read by name: a NATS message's (`get` answers `""` for a header that is not there), a
 * fetch `Headers` (`null`). `keys`, when there, lets a name be found in another case.
 *
 * @example
 * import type { HeadersCarrier } from "rpcserver/otel";
 * const headers: HeadersCarrier = new Headers({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" });
 *
 * @since 5.0.10
 * @category otel
 */
export interface HeadersCarrier {
  /** The value of the header `name`; `null`, `undefined` or `""` when it is not there. */
  get(name: string): string | null | undefined;
  /** The headers' names, when they can be listed (nats-core's and fetch's can). */
  keys?(): Iterable<string>;
}

const isHeaders = (carrier: Carrier): carrier is HeadersCarrier =>
  typeof (carrier as { get?: unknown }).get === "function";

/** The names of a record's members, or of headers that can list them. */
const namesOf = (carrier: Carrier): ReadonlyArray<string> => {
  if (!isHeaders(carrier)) return Object.keys(carrier);
  return typeof carrier.keys === "function" ? Array.from(carrier.keys()) : [];
};

/** The value named exactly `key`, when it is a string (or a list of them, in a record). */
const exactly = (carrier: Carrier, key: string): string | string[] | undefined => {
  if (isHeaders(carrier)) {
    const value = carrier.get(key);
    return typeof value === "string" && value !== "" ? value : undefined;
  }
  const value = Object.prototype.hasOwnProperty.call(carrier, key) ? carrier[key] : undefined;
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
  return undefined;
};

/** Reads a carrier's members, names as given and else in any case (HTTP and NATS headers are case-insensitive). */
export const getter: TextMapGetter<Carrier> = {
  keys: (carrier) => [...namesOf(carrier)],
  get: (carrier, key) => {
    const found = exactly(carrier, key);
    if (found !== undefined) return found;
    const lower = key.toLowerCase();
    const name = namesOf(carrier).find((other) => other !== key && other.toLowerCase() === lower);
    return name === undefined ? undefined : exactly(carrier, name);
  },
};

/** Writes into a plain record. */
export const setter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** The `_meta` of object params, when it is an object holding a `traceparent`. */
export const metaOf = (params: unknown): Readonly<Record<string, unknown>> | undefined => {
  if (!isRecord(params) || !Object.prototype.hasOwnProperty.call(params, "_meta")) return undefined;
  const meta = params["_meta"];
  return isRecord(meta) && typeof meta["traceparent"] === "string" ? meta : undefined;
};

/**
 * `params` without the trace members of its `_meta` (the method sees the params its caller wrote):
 * `_meta` keeps any other member, and goes when it holds nothing else.
 */
export const withoutTrace = (
  params: Readonly<Record<string, unknown>>,
  meta: Readonly<Record<string, unknown>>,
): Record<string, unknown> => {
  // Defined, not assigned: a member named `__proto__` (JSON.parse makes it an own member) stays one,
  // where `rest[key] =` would set the prototype the method sees `_meta` through.
  const rest = Object.fromEntries(Object.entries(meta).filter(([key]) => !TRACE_KEYS.includes(key)));
  const out: Record<string, unknown> = { ...params };
  if (Object.keys(rest).length === 0) delete out["_meta"];
  else out["_meta"] = rest;
  return out;
};

/** Object params with `fields` added to their `_meta` (made when absent; an `_meta` that is not an object is left alone). */
export const withMeta = (
  params: Readonly<Record<string, unknown>>,
  fields: Readonly<Record<string, string>>,
): Readonly<Record<string, unknown>> => {
  const meta = params["_meta"];
  if (meta !== undefined && !isRecord(meta)) return params;
  return { ...params, _meta: { ...meta, ...fields } };
};
