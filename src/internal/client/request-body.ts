/**
 * The request body of a call or of a batch: its JSON text, written around the params' own JSON, or
 * for a transport with a direct path the value that text parses to.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Spec } from "./call";
import type { ClientError } from "./errors";
import { jsonCopy, NOT_PLAIN } from "./json-copy";
import type { Direct } from "./transport";

/** The start of the request text of a call to `method`: its `jsonrpc` and `method` members. @internal */
export const requestHead = (method: string): string => `{"jsonrpc":"2.0","method":${JSON.stringify(method)}`;

/**
 * The request text of a call (`id` undefined for a notification), its members in the order
 * jsonrpc, method, params, id. Written around the params' JSON, as the server writes its answers:
 * `JSON.stringify` of the whole request object cost more than the params alone (a tenth of a call
 * over `local`). Params with no JSON form (`undefined`, a function) are left out, as
 * `JSON.stringify` of the object would; a BigInt or a cycle throws.
 */
const requestText = (spec: Spec<unknown>, id: number | undefined): string => textWith(spec, spec.params(), id);

/** {@link requestText} of params encoded already. */
const textWith = (spec: Spec<unknown>, params: unknown, id: number | undefined): string => {
  const json = params === undefined ? undefined : (JSON.stringify(params) as string | undefined);
  const withParams = json === undefined ? spec.head : `${spec.head},"params":${json}`;
  return id === undefined ? `${withParams}}` : `${withParams},"id":${id}}`;
};

/**
 * The request of a call as the value its text parses to, for a transport that takes values
 * ({@link Direct}): the params copied by {@link jsonCopy}, or, when they are not plain JSON, the
 * text written and parsed (so that a `Date`, a `toJSON`, an `undefined` member arrive as over the
 * wire; a BigInt or a cycle throws, as for text).
 */
const requestValue = (spec: Spec<unknown>, id: number | undefined): unknown => {
  const params = spec.params();
  const method = spec.method;
  if (params === undefined) return id === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, id };
  const copy = jsonCopy(params);
  if (copy === NOT_PLAIN) return JSON.parse(textWith(spec, params, id)) as unknown;
  return id === undefined ? { jsonrpc: "2.0", method, params: copy } : { jsonrpc: "2.0", method, params: copy, id };
};

/** A call's request: its text, or for a transport with a {@link Direct} path the value the text parses to. @internal */
export const requestOf = (spec: Spec<unknown>, id: number | undefined, direct: Direct | undefined): unknown =>
  direct === undefined ? requestText(spec, id) : requestValue(spec, id);

/** The requests of a batch: its text (an array), or its values for a {@link Direct} path; or why it cannot be sent. @internal */
export const encode = (
  specs: ReadonlyArray<Spec<unknown>>,
  ids: ReadonlyArray<number | undefined>,
  direct: Direct | undefined,
): E.Either<ClientError, unknown> => {
  const requests: unknown[] = [];
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i] as Spec<unknown>;
    try {
      requests.push(requestOf(spec, ids[i], direct));
    } catch (cause) {
      return E.left({ _tag: "InvalidCall", method: spec.method, cause });
    }
  }
  return E.right(direct === undefined ? `[${requests.join(",")}]` : requests);
};
