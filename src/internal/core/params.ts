/**
 * Params: how a request's `params` become a method's arguments, and when they do not fit.
 *
 * - an array is spread as positional arguments, an object is passed as one argument, absent
 *   params pass none; a context, when dispatch has one, comes first;
 * - a method carrying an io-ts codec gets its params decoded and receives the decoded value;
 *   failing params are -32602 with one line per failing path in `data`. JSON-RPC lets a request
 *   leave params out: absent params decode as `[]` (no positional params) where the codec takes
 *   it, else as `{}` (no named params: `t.partial`, an object schema of optional keys) where it
 *   takes that, else the codec's report of `[]` stands;
 * - a method without a codec that would receive fewer arguments than it declares (`f.length`) is
 *   -32602; extra arguments are allowed, as JavaScript allows them.
 *
 * @module
 * @internal
 */
import * as E from "fp-ts/Either";
import type * as t from "io-ts";
import { render } from "./describe";
import { isThenable, isValidation } from "./guards";

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

/** What a params codec's `decode` answers: a Validation, or (a Standard Schema's) a Promise of one. */
type Decoded = unknown;

/** A refusal to try `{}` after: a Left (an answer of another shape is left for the caller to report). */
const refused = (decoded: Decoded): boolean => isValidation(decoded) && E.isLeft(decoded);

const accepted = (decoded: Decoded): boolean => isValidation(decoded) && E.isRight(decoded);

/**
 * `{}` decoded, where `[]` was refused: its Right, else the refusal of `[]` (what the codec says of
 * no params). `{}` is a value the request did not send, so whatever the codec does with it other
 * than accept it (refuse it, throw, reject) leaves the answer to `[]`.
 */
const orNoNamedParams = (decode: (params: unknown) => Decoded, list: Decoded): Decoded => {
  let named: Decoded;
  try {
    named = decode({});
  } catch {
    return list;
  }
  if (!isThenable(named)) return accepted(named) ? named : list;
  return Promise.resolve(named).then(
    (settled) => (accepted(settled) ? settled : list),
    () => list,
  );
};

/**
 * What a codec decodes absent params to (JSON-RPC lets a request leave them out): `[]` where it
 * takes the empty list, else `{}` where it takes the empty object (all-optional named params),
 * else what it says of `[]`. A Standard Schema's Promise is chained, so sync and async dispatch
 * share this one rule. Only requests without params come here: present params are decoded as
 * given, at no extra cost.
 */
export const decodeAbsent = (decode: (params: unknown) => Decoded): Decoded => {
  const list = decode([]);
  if (isThenable(list)) {
    return Promise.resolve(list).then((settled) => (refused(settled) ? orNoNamedParams(decode, settled) : settled));
  }
  return refused(list) ? orNoNamedParams(decode, list) : list;
};
