/**
 * One exchange with a call's transport: the request body sent (as text, or as a value through the
 * transport's direct path) and the answer read, a transport that throws or rejects taken as a
 * `network` failure.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Spec } from "./call";
import { network, type ClientError, type TransportError } from "./errors";
import { isThenable } from "../core/guards";
import { DIRECT, type Direct, type ParsedAnswer, type Transport, type TransportOptions } from "./transport";

/** The direct path of a transport, when it has one (a wrapper of it does not). @internal */
export const directOf = (transport: Transport): Direct | undefined =>
  (transport as { readonly [DIRECT]?: Direct })[DIRECT];

/**
 * Sends `body` through the call's transport and reads the answer (text, or the value a transport
 * that parsed it already hands on) with `readText`: through `direct` when the transport has that
 * path (`body` then is the request as a value), else as text. A transport that throws or rejects
 * (which it must not) is a `network` TransportError. One Promise reaction between the transport's
 * answer and the call's, none when the direct path answers at once.
 *
 * @internal
 */
export const exchange = <A>(
  spec: Spec<unknown>,
  body: unknown,
  options: TransportOptions,
  readText: (text: string | ParsedAnswer) => E.Either<ClientError, A>,
  direct: Direct | undefined,
): Promise<E.Either<ClientError, A>> => {
  let sent: Promise<E.Either<TransportError, string | ParsedAnswer>>;
  try {
    if (direct === undefined) sent = spec.transport(body as string, options)();
    else {
      const answer = direct(body, options);
      if (!isThenable(answer)) return Promise.resolve(E.isLeft(answer) ? answer : readText(answer.right));
      sent = Promise.resolve(answer);
    }
  } catch (cause) {
    return Promise.resolve(E.left(network(cause)));
  }
  return sent.then(
    (answer) => (E.isLeft(answer) ? answer : readText(answer.right)),
    (cause: unknown) => E.left(network(cause)),
  );
};
