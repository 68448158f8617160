/**
 * Params: how a request's `params` become a method's arguments, and when they do not fit.
 *
 * - an array is spread as positional arguments, an object is passed as one argument, absent
 *   params pass none; a context, when dispatch has one, comes first;
 * - a method carrying an io-ts codec gets its params decoded (absent params decode as `[]`, the
 *   empty positional list) and receives the decoded value; failing params are -32602 with one
 *   line per failing path in `data`;
 * - a method without a codec that would receive fewer arguments than it declares (`f.length`) is
 *   -32602; extra arguments are allowed, as JavaScript allows them.
 *
 * @module
 * @internal
 */
import type * as t from "io-ts";
import { render } from "./describe";

/** How many arguments `params` spread into. */
export const argumentCount = (params: unknown): number =>
  params === undefined ? 0 : Array.isArray(params) ? params.length : 1;

/** Why `params` do not fit a method declaring `declared` params, or `undefined` if they do. */
export const arityProblem = (declared: number, params: unknown): string | undefined => {
  const given = argumentCount(params);
  return given >= declared ? undefined : `expected at least ${declared} params, got ${given}`;
};

const isBranching = (type: t.Decoder<unknown, unknown>): boolean => {
  const tag = (type as { _tag?: unknown })._tag;
  return tag === "UnionType" || tag === "IntersectionType";
};

/** One io-ts validation error as a line: which path (from `root`), what was expected, what came. */
const line = (error: t.ValidationError, root: string): string => {
  let path = root;
  const context = error.context;
  for (let i = 1; i < context.length; i++) {
    const parent = context[i - 1];
    const entry = context[i];
    if (parent === undefined || entry === undefined || isBranching(parent.type)) continue;
    path += /^\d+$/.test(entry.key) ? `[${entry.key}]` : `.${entry.key}`;
  }
  const last = context[context.length - 1];
  const expected = error.message ?? (last === undefined ? "a valid value" : last.type.name);
  return `${path}: expected ${expected}, got ${render(error.value)}`;
};

/** The io-ts errors as readable lines, duplicates removed; paths start at `root` (`params`, or `request` for a validator's report). */
export const report = (errors: t.Errors, root = "params"): string[] => [
  ...new Set(errors.map((error) => line(error, root))),
];

/** What a codec decodes for absent params: the empty positional list. */
export const paramsToDecode = (params: unknown): unknown => (params === undefined ? [] : params);
