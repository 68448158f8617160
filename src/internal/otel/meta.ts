/**
 * The trace context in a request's `params._meta` (as the Model Context Protocol carries it:
 * `_meta.traceparent`, `_meta.tracestate`), read by the server's stage and written by the client's
 * transport, through the propagator of `@opentelemetry/api` (W3C Trace Context where the SDK
 * registers it).
 *
 * @module
 */
import type { TextMapGetter, TextMapSetter } from "@opentelemetry/api";

/** The members of `_meta` a trace context travels in (W3C Trace Context). */
export const TRACE_KEYS: ReadonlyArray<string> = ["traceparent", "tracestate"];

/** A string-valued carrier: `_meta`, or a caller's headers. */
export type Carrier = Readonly<Record<string, unknown>>;

/** Reads a carrier's members, names as given and in lower case (HTTP headers are case-insensitive). */
export const getter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = Object.prototype.hasOwnProperty.call(carrier, key) ? carrier[key] : undefined;
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
    if (value === undefined) {
      const lower = key.toLowerCase();
      for (const name of Object.keys(carrier)) {
        if (name.toLowerCase() === lower && typeof carrier[name] === "string") return carrier[name];
      }
    }
    return undefined;
  },
};

/** Writes into a plain record. */
export const setter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The `_meta` of object params, when it is an object holding a `traceparent`. */
export const metaOf = (params: unknown): Carrier | undefined => {
  if (!isRecord(params) || !Object.prototype.hasOwnProperty.call(params, "_meta")) return undefined;
  const meta = params["_meta"];
  return isRecord(meta) && typeof meta["traceparent"] === "string" ? meta : undefined;
};

/**
 * `params` without the trace members of its `_meta` (the method sees the params its caller wrote):
 * `_meta` keeps any other member, and goes when it holds nothing else.
 */
export const withoutTrace = (params: Readonly<Record<string, unknown>>, meta: Carrier): Record<string, unknown> => {
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(meta)) if (!TRACE_KEYS.includes(key)) rest[key] = meta[key];
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
